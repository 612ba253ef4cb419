import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;

/**
 * The heap of a SIP server as vsim's JVM collector model sees it (vsim.guest.jvm_gc), on a real JVM.
 *
 * Calls start at a paced rate. Each call allocates its messages' short-lived objects
 * (garbage, dropped at once) and one call state of many small objects, held as the server
 * holds a call's transactions (Timer J) and released when its hold ends. The collector's
 * log then gives each pause and what it copied.
 *
 *   java -XX:+UseSerialGC ... SipHeap RATE SECONDS GARBAGE_BYTES STATE_BYTES HOLD_SECONDS
 */
public final class SipHeap {
    private static final int PIECE = 48;  // bytes of each small object of a call's state (a byte[32] with its header)
    static volatile Object sink;          // where each message's garbage goes, so it is really allocated

    static final class Held {
        final long until;
        final Object[] state;
        Held(long until, Object[] state) { this.until = until; this.state = state; }
    }

    static Object[] callState(int bytes) {
        int pieces = Math.max(1, bytes / PIECE);
        Object[] state = new Object[pieces];
        for (int i = 0; i < pieces; i++) state[i] = new byte[32];
        return state;
    }

    static void messages(int bytes) {
        int left = bytes;
        while (left > 0) {  // a message's parse: many objects of about 100 bytes, garbage at once
            int n = Math.min(left, 96);
            sink = new byte[n];
            left -= n + 16;
        }
    }

    public static void main(String[] args) {
        double rate = Double.parseDouble(args[0]);
        double seconds = Double.parseDouble(args[1]);
        int garbage = Integer.parseInt(args[2]);
        int stateBytes = Integer.parseInt(args[3]);
        long hold = (long) (Double.parseDouble(args[4]) * 1e9);
        ArrayDeque<Held> held = new ArrayDeque<>();
        long start = System.nanoTime();
        long calls = (long) (rate * seconds);
        for (long i = 0; i < calls; i++) {
            long due = start + (long) (i * 1e9 / rate);
            long now;
            while ((now = System.nanoTime()) < due) LockSupport.parkNanos(due - now);
            while (!held.isEmpty() && held.peekFirst().until <= now) held.pollFirst();
            messages(garbage);
            held.addLast(new Held(now + hold, callState(stateBytes)));
        }
        System.out.printf("calls %d in %.3f s, %d held at the end%n", calls,
                          (System.nanoTime() - start) / 1e9, held.size());
    }
}

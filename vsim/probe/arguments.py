"""The ``vsim probe`` subcommands' arguments (the handler is ``vsim.probe.command.run_probe``)."""

import argparse

from vsim.probe.names import CGROUP_PREFIX, NETNS_PREFIX, VETH_PREFIX
from vsim.probe.qdisc import SHAPES

MAX_DURATION_S = 600.0
MAX_TIMER_THREADS = 1024  # beyond this, thread start-up and one interpreter's lock set the lateness


def _at_most(parse_low, high, expected):
    """An argparse type: what ``parse_low`` accepts, and at most ``high`` (else ``expected``)."""
    def parse(text):
        value = parse_low(text)
        if value > high:
            raise argparse.ArgumentTypeError(f"{expected}, got {text!r}")
        return value

    return parse


def _duration(bounded):
    """A duration in s: > 0 and at most ``MAX_DURATION_S`` (a probe always ends)."""
    return _at_most(bounded(float, 0, False), MAX_DURATION_S, f"expected a duration <= {MAX_DURATION_S:g} s")


def add_probe_arguments(probe, bounded):
    """Add ``timer``, ``net``, ``cpu``, ``steal`` and ``cleanup`` under ``probe``; ``bounded`` builds number types."""
    probes = probe.add_subparsers(dest="probe", required=True, metavar="PROBE")
    period = bounded(float, 0.001, True)
    count = bounded(int, 1, True)

    timer = probes.add_parser("timer", help="wake-up lateness of periodic threads (absolute-deadline sleeps)")
    timer.add_argument("--period", type=period, default=0.02, metavar="S", help="period, s (default 0.02)")
    timer.add_argument("--threads", type=_at_most(count, MAX_TIMER_THREADS, f"expected at most {MAX_TIMER_THREADS} "
                                                 "threads (beyond that the probe measures itself, not the kernel)"),
                       default=1, metavar="N", help=f"periodic threads (default 1, at most {MAX_TIMER_THREADS})")
    timer.add_argument("--duration", type=_duration(bounded), default=30.0, metavar="S",
                       help="seconds to measure (default 30)")
    timer.add_argument("--load", choices=("none", "cpu"), default="none",
                       help="cpu: one busy-loop process per CPU meanwhile (default none)")
    timer.add_argument("--via", choices=("python", "cyclictest"), default="python",
                       help="measure with Python threads (default) or with rt-tests' cyclictest, "
                            "which must be installed (apt-get install rt-tests)")
    timer.add_argument("--out", required=True, metavar="TRACE", help="the timer trace to write")

    net = probes.add_parser("net", help="voice streams and a UDP flood through a tc bottleneck (root)")
    net.add_argument("--qdisc", choices=SHAPES, default="pfifo", help="bottleneck shape (default pfifo)")
    net.add_argument("--rate", type=bounded(float, 8000, True), default=4e6, metavar="BIT/S",
                     help="bottleneck rate, bit/s (default 4e6)")
    net.add_argument("--limit", type=count, metavar="N",
                     help="queue limit: packets for pfifo and htb, bytes for bfifo and tbf "
                          "(default 100 packets or 64000 bytes)")
    net.add_argument("--burst", type=bounded(int, 1600, True), default=5000, metavar="BYTES",
                     help="token bucket burst, bytes (default 5000)")
    for name in ("voice", "flood"):
        net.add_argument(f"--{name}-rate", type=bounded(float, 8000, True), metavar="BIT/S",
                         help=f"htb: the {name} class's rate (default half of --rate)")
        net.add_argument(f"--{name}-ceil", type=bounded(float, 8000, True), metavar="BIT/S",
                         help=f"htb: the {name} class's ceil (default --rate)")
    net.add_argument("--streams", type=count, default=10, metavar="N", help="voice streams (default 10)")
    net.add_argument("--period", type=period, default=0.02, metavar="S", help="voice packet period (0.02)")
    net.add_argument("--pattern", choices=("tick", "spread"), default="tick",
                     help="tick: all streams back to back each period (default); spread: evenly apart")
    net.add_argument("--flood-fraction", type=bounded(float, 0, True), default=0.5, metavar="F",
                     help="flood rate as a fraction of --rate, on the wire (default 0.5; 0: none)")
    net.add_argument("--flood-size", type=bounded(int, 16, True), default=1000, metavar="BYTES",
                     help="flood datagram payload, bytes (16-1472, default 1000)")
    net.add_argument("--duration", type=_duration(bounded), default=30.0, metavar="S",
                     help="seconds of traffic (default 30)")
    net.add_argument("--out", required=True, metavar="TRACE",
                     help="the packets trace to write (the per-stream summary goes beside it, suffix "
                          ".summary.txt)")
    net.add_argument("--pcap", metavar="PCAP", help="the capture to keep (default: TRACE with suffix .pcap)")

    cpu = probes.add_parser("cpu", help="periodic CPU work of cgroup 'VMs' with weights and quotas (root)")
    cpu.add_argument("--vms", type=count, default=2, metavar="N", help="cgroups, one per VM (default 2)")
    cpu.add_argument("--workers", type=count, default=1, metavar="K", help="worker processes per VM (1)")
    cpu.add_argument("--work-ms", type=bounded(float, 0, False), default=5.0, metavar="W",
                     help="CPU work per worker per tick, ms (default 5)")
    cpu.add_argument("--period", type=period, default=0.02, metavar="S", help="tick period, s (0.02)")
    cpu.add_argument("--weight", default="100", metavar="W[,W...]",
                     help="cpu.weight (1-10000) of every VM, or one per VM (default 100)")
    cpu.add_argument("--quota", default="max", metavar="Q[,Q...]",
                     help="cpu.max quota in CPUs (e.g. 0.5) or 'max', for every VM or one per VM "
                          "(default max: no quota)")
    cpu.add_argument("--parent-weight", type=bounded(int, 1, True), default=100, metavar="W",
                     help="cpu.weight of the VMs' parent group against the machine's other work (100)")
    cpu.add_argument("--quota-period-us", type=bounded(int, 1000, True), default=100000, metavar="US",
                     help="cpu.max period, us (default 100000)")
    cpu.add_argument("--duration", type=_duration(bounded), default=30.0, metavar="S",
                     help="seconds of ticks (default 30)")
    cpu.add_argument("--out", required=True, metavar="TRACE", help="the cpu_ticks trace to write")

    steal = probes.add_parser("steal", help="each CPU's steal time (an outer hypervisor's) from /proc/stat")
    steal.add_argument("--interval", type=bounded(float, 0.01, True), default=0.05, metavar="S",
                       help="sample interval, s (>= 0.01 and at most --duration, default 0.05)")
    steal.add_argument("--duration", type=_duration(bounded), default=30.0, metavar="S",
                       help="seconds to record (default 30)")
    steal.add_argument("--out", required=True, metavar="TRACE", help="the steal trace to write")

    cleanup = probes.add_parser(
        "cleanup", help="remove namespaces, veths and cgroups left by dead probes (root)",
        description=f"Remove what probes killed outright (SIGKILL) left behind: network namespaces "
                    f"named {NETNS_PREFIX}*, veths named {VETH_PREFIX}* (their qdiscs go with them) "
                    f"and cgroups named {CGROUP_PREFIX}*, each only when the probe process named in it "
                    f"has ended (--force: also when it still runs). Needs root and ip (iproute2).")
    cleanup.add_argument("--force", action="store_true",
                         help="also remove those of probes whose process is still running")

"""A JVM's generational garbage collector as stop-the-world pauses of a SIP server.

Every message the server processes allocates ``allocation[kind]`` bytes in the
young generation (eden). Most of it is garbage by the next collection (parsed
messages, buffers); what lives on is each new call's session and transaction
state, ``survivor_bytes`` per INVITE, held for as long as the server holds the
call's transactions (tens of seconds: Timer J keeps a BYE's for 64 T1), far
longer than the time between collections. When ``young_bytes`` have been
allocated since the last collection a minor collection is due: it copies the
state of the calls begun since the last one that the server still holds,
less the part the collector allocates directly in the old generation
(``pretenured``, a fraction: pretenuring's point is that long-lived session
state is never copied), at ``copy_rate`` bytes per core-second, after a fixed
``minor_work``, and promotes it into the old generation. When the old
generation holds ``old_bytes``, the collection is a major one, of
``major_work`` plus the live state of every transaction held marked at
``mark_rate`` bytes per core-second, leaving only that live state. ``threads`` collector threads share the
pause's work (a serial collector: 1; a parallel one: the vCPUs), so a pause
lasts its work over the threads that get a CPU.

``pause_work(held)`` returns each collector thread's core-seconds for the
collection now due; the server (``vsim.guest.sip_server``) stops its workers
for it. The collector profiles (default, low-latency with pretenuring,
throughput) are model files under ``models/jvm_gc``.
"""

from typing import Dict, List


class JvmGc:
    """The young and old generations' fill and the work of each collection."""

    def __init__(self, young_bytes: float, allocation: Dict[str, float], survivor_bytes: float,
                 copy_rate: float, minor_work: float, old_bytes: float, mark_rate: float,
                 major_work: float, threads: int = 1, pretenured: float = 0.0):
        self.young_bytes = young_bytes
        self.allocation = allocation
        self.survivor_bytes = survivor_bytes
        self.copy_rate = copy_rate
        self.minor_work = minor_work
        self.old_bytes = old_bytes
        self.mark_rate = mark_rate
        self.major_work = major_work
        self.threads = threads
        self.pretenured = pretenured
        self.eden = 0.0
        self.old = 0.0
        self.new_calls = 0  # INVITEs processed since the last collection
        self.minor = 0
        self.major = 0

    def allocate(self, kind: str) -> bool:
        """A message of ``kind`` was processed: whether its allocation filled the young
        generation (a collection is due)."""
        self.eden += self.allocation.get(kind, 0.0)
        if kind == "INVITE":
            self.new_calls += 1
        return self.eden >= self.young_bytes

    def pause_work(self, held: int) -> List[float]:
        """Each collector thread's work (core-seconds) for the collection due, with ``held``
        transactions live; the generations are emptied accordingly."""
        surviving = min(self.new_calls, held) * self.survivor_bytes
        self.eden, self.new_calls = 0.0, 0
        work = self.minor_work + surviving * (1.0 - self.pretenured) / self.copy_rate
        self.old += surviving
        self.minor += 1
        if self.old >= self.old_bytes:
            live = held * self.survivor_bytes
            self.major += 1
            work += self.major_work + live / self.mark_rate
            self.old = live
        return [work / self.threads] * self.threads

"""vMotion as traffic: pre-copy rounds of a VM's memory, then the switch-over pause.

A migration copies the VM's whole memory in its first round at the rate its copy gets on the
source's uplink, in the vMotion traffic class (``vsim.cluster.uplinks``). The guest keeps
running and dirtying pages meanwhile, so each next round sends again what the last one's
duration dirtied (the VM's dirty rate times that duration, at most its memory). Pre-copy ends
once a round's pages could be sent within the switch-over target at the rate the copy has then,
or after the most rounds; the VM is then paused (its stream stops), the last pages are sent,
and after the switch-over overhead (device state, resuming on the destination) it runs on the
destination. The pause is the moving VM's throughput dip; the copy's share of the uplink is the
others' (textbook pre-copy: Clark et al., "Live Migration of Virtual Machines", NSDI 2005).

A ``Migration`` holds only its own bytes: the run tells it the copy's rate whenever the
allocation changes (``set_rate``) and when the bytes of a stage are sent (``stage_done``), so
the bytes it sends are exactly the memory plus every round's dirtied pages.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MB = 2 ** 20
"""Bytes in a MB of VM memory (vSphere's MB are binary)."""


@dataclass
class Round:
    """One pre-copy round (or, last, the switch-over's copy): when it ran and the bytes it sent."""

    start: float
    bytes: float
    end: float | None = None


class Migration:
    """The vMotion of ``vm`` from ``source`` to ``target``, started at ``started``."""

    def __init__(self, key: str, vm: str, source: str, target: str, started: float, memory_bytes: float,
                 dirty_bytes_per_s: float, switchover_target: float, max_rounds: int,
                 reason: str = ""):
        self.key, self.vm, self.source, self.target = key, vm, source, target
        self.started, self.memory = started, float(memory_bytes)
        self.dirty_rate = float(dirty_bytes_per_s)
        self.switchover_target, self.max_rounds = switchover_target, max_rounds
        self.reason = reason
        self.phase = "precopy"  # then "switchover" (paused, copying the rest), "resuming", "done", "aborted"
        self.rounds = [Round(started, self.memory)]
        self.remaining = self.memory
        self.rate = 0.0  # bytes/s the copy gets now
        self.last = started
        self.sent = 0.0
        self.paused_at: float | None = None
        self.copied_at: float | None = None
        self.ended: float | None = None

    @property
    def copying(self) -> bool:
        """Whether its copy is on the wire (pre-copy or the switch-over's last pages)."""
        return self.phase in ("precopy", "switchover")

    def advance(self, now: float) -> None:
        """Count the bytes sent at the current rate up to ``now``."""
        if self.copying and now > self.last:
            sent = min(self.remaining, self.rate * (now - self.last))
            self.remaining -= sent
            self.sent += sent
        self.last = max(self.last, now)

    def set_rate(self, now: float, bytes_per_s: float) -> None:
        """From ``now`` the copy gets ``bytes_per_s``."""
        self.advance(now)
        self.rate = float(bytes_per_s)

    def time_left(self) -> float:
        """Seconds until the current stage's bytes are sent at the current rate (inf: never)."""
        if not self.copying:
            return math.inf
        if self.remaining <= 0:
            return 0.0
        return self.remaining / self.rate if self.rate > 0 else math.inf

    def stage_done(self, now: float) -> str:
        """The current stage's bytes are sent at ``now``: the next stage, "precopy" (another
        round), "switchover" (pause the VM and send the rest) or "resuming" (the copy is done)."""
        self.advance(now)
        self.sent += self.remaining  # the rest a rounding error leaves
        self.remaining = 0.0
        last = self.rounds[-1]
        last.end = now
        if self.phase == "switchover":
            self.phase, self.copied_at = "resuming", now
            return self.phase
        dirtied = min(self.memory, self.dirty_rate * (now - last.start))
        if dirtied <= self.rate * self.switchover_target or len(self.rounds) >= self.max_rounds:
            self.phase, self.paused_at = "switchover", now
        self.rounds.append(Round(now, dirtied))
        self.remaining = dirtied
        if self.remaining <= 0 and self.phase == "switchover":
            return self.stage_done(now)
        return self.phase

    def finish(self, now: float) -> None:
        """The VM runs on the destination from ``now``."""
        self.phase, self.ended = "done", now

    def abort(self, now: float) -> None:
        """A host of the migration failed at ``now``: the copy stops."""
        self.advance(now)
        self.phase, self.ended = "aborted", now

    def pause(self) -> float:
        """Seconds the VM was paused (0 while it has not been)."""
        if self.paused_at is None or self.ended is None:
            return 0.0
        return self.ended - self.paused_at

    def to_json(self) -> dict:
        """The migration as plain data."""
        return {"key": self.key, "vm": self.vm, "source": self.source, "target": self.target,
                "reason": self.reason, "outcome": self.phase, "started_s": self.started,
                "paused_s": self.paused_at, "copied_s": self.copied_at, "ended_s": self.ended,
                "pause_s": self.pause(), "memory_bytes": self.memory, "sent_bytes": self.sent,
                "rounds": [{"start_s": r.start, "end_s": r.end, "bytes": r.bytes} for r in self.rounds]}

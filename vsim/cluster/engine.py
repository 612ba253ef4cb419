"""One replication of a cluster: hosts sharing out their uplinks between the cluster's decisions.

Between two interactions each host is on its own: its VMs' streams and the vMotion copies
leaving it share its uplinks as its NetIOC trees say (``vsim.cluster.uplinks``), a function of
what runs on that host alone. The interactions are the cluster's: admission of a reservation
change or a power-on (``vsim.cluster.admission``), a DRS pass or an HA restart choosing
placements (``vsim.cluster.placement``), and a vMotion, whose copy leaves one host's uplink
and enters another's (the destination's receive side may hold it back) and whose switch-over
moves the VM's port. At each of them the run re-allocates, and the rates hold until the next:
the result is each VM's throughput as steps over time (``vsim.cluster.result``).

What happens, in the order vSphere does it:

- a reservation change is checked against the pool's quota (over the switch) and the VM's
  host; one the host cannot meet is a *fault* when DRS is fully automated (the VM keeps what it
  had in force; DRS migrates at its next pass) and refused otherwise;
- a DRS pass, every ``drs_period`` from a first pass drawn within the first period (seeded),
  plans for the faults and starts the vMotions in waves that never overfill a host, each
  destination's room held from the start of its move;
- a host failure powers its VMs off and aborts the vMotions through it; HA restarts them after
  ``ha_detection`` where a placement admits them (moving others if DRS is on), and their
  traffic resumes after ``ha_boot``;
- a VM added powers on where the placement puts it, after the moves that make room if any.

Every decision and its reason is a mark of the result, so a report can say what was refused
and why. Everything random is drawn from streams named after what draws (``vsim.core.rng``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from vsim.cluster.admission import Demand, pack, pool_overdraft, refusal
from vsim.cluster.load import MBPS, LoadedCluster, start_units
from vsim.cluster.placement import Unit, plan
from vsim.cluster.result import ClusterResult, Fault, Mark, Segment
from vsim.cluster.uplinks import Copy, Port
from vsim.cluster.vmotion import MB, Migration
from vsim.config.schema_cluster import ClusterVmSection
from vsim.core.environment import Environment
from vsim.core.rng import RandomStreams
from vsim.net.hclock.waterfill import waterfill
from vsim.net.sources.tcp_stream import TcpStream

ON_HOST = ("running", "paused", "booting")
"""States of a VM that is on a host and holds its reservations there."""

COUPLING_ROUNDS = 6
"""Most passes settling the copies' rates between their source's uplink and their destination's."""


@dataclass
class VmState:
    """A VM as the run knows it: its reservations (wanted, and in force on its host), where it
    runs, its state ("off", "waiting" for room to power on, "booting", "running", "paused"
    during a switch-over), its open fault and its migration."""

    spec: ClusterVmSection
    stream: TcpStream | None
    tso_frames: int
    wanted: Demand
    in_force: Demand = Demand()
    host: str | None = None
    uplink: int = 0
    status: str = "off"
    fault: Fault | None = None
    migration: Migration | None = None


@dataclass
class Moves:
    """A plan's moves under way, wave by wave (``vsim.cluster.placement.waves``): each wave's
    (VMs, destination, reservations held there), the wave moving now and its vMotions, and its
    state ("running", "done", or "dropped" when a wave could no longer start as planned)."""

    steps: list[list[tuple[tuple[str, ...], str, tuple[Demand, ...]]]]
    reasons: dict[tuple[str, ...], str]
    wave: int = -1
    keys: list[str] = field(default_factory=list)
    state: str = "running"


class ClusterRun:
    """Replication ``seed`` of ``loaded`` (a ``LoadedCluster``), ``duration`` s (default: the file's)."""

    def __init__(self, loaded: LoadedCluster, seed: int, duration: float | None = None):
        self.loaded, self.config = loaded, loaded.config
        self.model = loaded.model
        self.seed = seed
        self.duration = self.config.run.duration if duration is None else duration
        self.env = Environment()
        streams = RandomStreams(seed)
        drs = self.config.drs
        self.period = drs.period_s if drs.period_s is not None else self.model.drs_period
        self.first_pass = (drs.first_pass_s if drs.first_pass_s is not None
                           else float(streams.stream("drs.first_pass").random()) * self.period)
        self.automated = drs.automation == "fully_automated"
        self.vms = {vm.name: VmState(vm, loaded.streams[vm.name], loaded.vnics[vm.name].tso_frames,
                                     loaded.demand(vm)) for vm in self.config.vm}
        self.anchor = self.config.together()
        self.alive = {name: True for name in loaded.hosts}
        self.migrations: list[Migration] = []
        self.holds: dict[str, Demand] = {}  # migration key -> the destination's held reservations
        self.plans: list[Moves] = []
        self.waiting: dict[str, tuple[str, Moves]] = {}  # VM -> (host, the moves it waits for)
        self.generation: dict[str, int] = {}
        self.copy_stream = TcpStream()
        self.segments: list[Segment] = []
        self.marks: list[Mark] = []
        self.faults: list[Fault] = []
        self.rates: dict[str, float] = {name: 0.0 for name in self.vms}
        self.hosts_now: dict[str, str | None] = {name: None for name in self.vms}
        self.reserved_now: dict[str, float] = {name: 0.0 for name in self.vms}
        self.copy_rates: dict[str, float] = {}
        self.segment_start = 0.0
        self.window = {}
        for name, vm in self.vms.items():
            traffic = vm.spec.traffic
            if traffic is not None:
                self.window[name] = (traffic.active_from * self.duration, traffic.active_until * self.duration)

    # ------------------------------------------------------------------ running
    def run(self) -> ClusterResult:
        """Run to the end and return what happened."""
        self._start()
        call = self.env.call_later
        for _, event in self.config.events_in_order():
            if event.at < self.duration:
                call(event.at, self._event, event)
        for start, stop in sorted(set(self.window.values())):
            for edge in (start, stop):
                if 0 < edge < self.duration:
                    call(edge, lambda _: self._reallocate(), None)
        if self.automated and self.first_pass < self.duration:
            call(self.first_pass, self._drs_pass, None)
        self.env.run(until=self.duration)
        for m in self.migrations:  # a copy still on the wire has sent up to the end
            m.advance(self.duration)
        self._close_segment(self.duration)
        return ClusterResult(self.config.name, self.loaded.source, self.seed, self.duration,
                             list(self.loaded.hosts), list(self.vms), self.segments, self.marks,
                             self.faults, [m.to_json() for m in self.migrations], self.first_pass,
                             self.period if self.automated else None)

    def _start(self) -> None:
        """Power on the VMs running from the start where the placement puts them."""
        units = start_units(self.loaded)
        found = plan(self._capacities(), units)
        assert found.found  # refused when the cluster loaded otherwise (vsim.cluster.load)
        for unit, host in zip(units, found.hosts):
            assert host is not None
            for name in unit.vms:
                self._power_on(name, host, "at the start", boot=0.0)
        self._reallocate()

    def _event(self, event) -> None:
        {"reservation": self._reservation, "migrate": self._migrate_event,
         "host_failure": self._host_failure, "vm_added": self._vm_added}[event.kind](event)

    # ------------------------------------------------------------------ state
    def _capacities(self):
        """The capacities of the hosts that are up, in the cluster's order."""
        return {name: host.capacity for name, host in self.loaded.hosts.items() if self.alive[name]}

    def _committed(self, host: str, without: str | None = None) -> list[Demand]:
        """Reservations ``host`` holds: its VMs' in force and the migrations' coming to it (less
        VM ``without``'s own). A VM waiting for the moves that make room on it holds nothing
        there until it powers on, when it is admitted again (``_release_waiting``)."""
        held = [vm.in_force for name, vm in self.vms.items()
                if vm.host == host and vm.status in ON_HOST and name != without]
        held += [self.holds[m.key] for m in self.migrations
                 if m.key in self.holds and m.target == host and m.vm != without]
        return held

    def _pool_room(self, name: str, bandwidth: float) -> str | None:
        """Why VM ``name`` reserving ``bandwidth`` would exceed its pool's quota, or None."""
        pool = self.vms[name].spec.pool
        if pool is None:
            return None
        quota = next(p for p in self.config.switch.pool if p.name == pool).reservation_mbps * MBPS
        others = [vm.wanted.bandwidth for other, vm in self.vms.items()
                  if other != name and vm.spec.pool == pool and vm.status != "off"]
        over = pool_overdraft(quota, others + [bandwidth])
        if over > 0:
            return (f"pool {pool!r} would reserve {(sum(others) + bandwidth) / 1e9:.4g} Gb/s of its "
                    f"{quota / 1e9:.4g} Gb/s quota")
        return None

    def _mark(self, kind: str, text: str, vm: str | None = None, host: str | None = None) -> None:
        self.marks.append(Mark(self.env.now, kind, text, vm, host))

    def _team(self, host: str) -> None:
        """Team the host's ports on its uplinks: reserved ones packed, others spread."""
        capacity = self.loaded.hosts[host].capacity
        names = [name for name, vm in self.vms.items() if vm.host == host and vm.status in ON_HOST]
        where = pack(capacity.port_bandwidth, capacity.uplinks,
                     [self.vms[name].in_force.bandwidth for name in names])
        assert where is not None  # admission only lets in what packs
        for name, uplink in zip(names, where):
            self.vms[name].uplink = uplink

    # ------------------------------------------------------------------ allocation
    def _sending(self, name: str) -> bool:
        vm = self.vms[name]
        if vm.stream is None or vm.status != "running":
            return False
        start, stop = self.window[name]
        return start <= self.env.now < stop

    def _port(self, name: str) -> Port:
        """VM ``name``'s port as its uplink's tree takes it: tags in force, its stream."""
        vm = self.vms[name]
        assert vm.stream is not None  # only a VM with a stream sends (_sending)
        limit = math.inf if vm.spec.limit_mbps is None else vm.spec.limit_mbps * MBPS
        return Port(name, vm.uplink, vm.spec.pool, vm.spec.shares, vm.in_force.bandwidth, limit,
                    vm.stream, vm.tso_frames)

    def _close_segment(self, now: float) -> None:
        """End the segment of the current rates at ``now`` (joined to the last when nothing in
        it differs: a new pre-copy round changes no rate)."""
        if now > self.segment_start:
            last = self.segments[-1] if self.segments else None
            if (last is not None and last.end == self.segment_start and last.rates == self.rates
                    and last.hosts == self.hosts_now and last.copies == self.copy_rates
                    and last.reserved == self.reserved_now):
                self.segments[-1] = Segment(last.start, now, last.rates, last.hosts, last.copies,
                                            last.reserved)
            else:
                self.segments.append(Segment(self.segment_start, now, dict(self.rates),
                                             dict(self.hosts_now), dict(self.copy_rates),
                                             dict(self.reserved_now)))
        self.segment_start = max(self.segment_start, now)

    def _reallocate(self) -> None:
        """Share out every host's uplinks for what runs now; the copies' rates settled between
        the source's uplink and the destination's receive side."""
        now = self.env.now
        active = [m for m in self.migrations if m.copying]
        for m in active:
            m.advance(now)
        self._close_segment(now)
        caps = {m.key: math.inf for m in active}
        streams: dict[str, float] = {}
        copies: dict[str, float] = {}
        for _ in range(COUPLING_ROUNDS):
            streams, copies = {}, {}
            for host in self.loaded.hosts:
                if not self.alive[host]:
                    continue
                ports = tuple(self._port(name) for name, vm in self.vms.items()
                              if vm.host == host and self._sending(name))
                leaving = tuple(Copy(m.key, 0, self.copy_stream, self.model.vmotion_tso_frames, caps[m.key])
                                for m in active if m.source == host)
                a, b = self.loaded.hosts[host].uplinks.allocate(ports, leaving)
                streams.update(a)
                copies.update(b)
            received = self._received(active, copies)
            held = {key: rate for key, rate in received.items() if rate < copies[key] * (1 - 1e-12)}
            if not held:
                break
            caps.update(held)
        self.rates = {name: streams.get(name, 0.0) for name in self.vms}
        self.hosts_now = {name: vm.host if vm.status in ON_HOST else None for name, vm in self.vms.items()}
        self.reserved_now = {name: vm.in_force.bandwidth if vm.status in ON_HOST else 0.0
                             for name, vm in self.vms.items()}
        self.copy_rates = copies
        for m in active:
            m.set_rate(now, copies.get(m.key, 0.0) / 8)
            self._schedule_stage(m)

    def _received(self, active: list[Migration], sent: dict[str, float]) -> dict[str, float]:
        """The goodput each copy's destination takes in: its uplink's receive side shared evenly
        among the copies coming in (none of which takes more than it is sent)."""
        out: dict[str, float] = {}
        for host in sorted({m.target for m in active}):
            mine = [m.key for m in active if m.target == host]
            line = self.loaded.hosts[host].uplinks.receive_goodput()
            shares = waterfill(line, np.ones(len(mine)), np.array([sent[key] for key in mine]))
            out.update(zip(mine, (float(s) for s in shares)))
        return out

    def _schedule_stage(self, m: Migration) -> None:
        """(Re)schedule the end of ``m``'s current stage at its current rate."""
        self.generation[m.key] = self.generation.get(m.key, 0) + 1
        left = m.time_left()
        if math.isfinite(left) and self.env.now + left < self.duration:
            self.env.call_later(left, self._stage_done, (m, self.generation[m.key]))

    # ------------------------------------------------------------------ vMotion
    def _carry_out(self, found, units: list[Unit], reason) -> Moves | None:
        """Carry out the moves of plan ``found`` of ``units`` in its waves, each move's reason
        ``reason(unit)``; None when it has none."""
        if not found.moves:
            return None
        steps = [[(units[i].vms, found.hosts[i], hold) for i, hold in wave] for wave in found.waves]
        moves = Moves(steps, {units[i].vms: reason(units[i]) for i, _, _ in found.moves})
        self.plans.append(moves)
        self._next_wave(moves)
        return moves

    def _next_wave(self, moves: Moves) -> None:
        """Once the wave under way has ended, let waiting reservations in where they now fit and
        start the next wave, each move checked again against its destination (a move that no
        longer fits, its VMs or host changed, drops the rest of the plan; the next DRS pass
        plans again)."""
        if moves.state != "running":
            return
        if any(m.phase not in ("done", "aborted") for m in self.migrations if m.key in moves.keys):
            return
        for host in self.alive:
            self._admit_pending(host)
        moves.wave += 1
        moves.keys = []
        if moves.wave == len(moves.steps):
            moves.state = "done"
            return
        for vms, target, holds in moves.steps[moves.wave]:
            states = [self.vms[name] for name in vms]
            capacity = self.loaded.hosts[target].capacity
            if (not self.alive[target] or any(vm.status != "running" or vm.migration is not None
                                              or vm.host == target for vm in states)
                    or refusal(capacity, self._committed(target) + list(holds)) is not None):
                moves.state = "dropped"
                self._mark("drs", f"move of {' with '.join(vms)} to {target} dropped: its VMs or the "
                           f"hosts changed before it could start", vms[0], target)
                return
            for name, hold in zip(vms, holds):
                moves.keys.append(self._migrate(name, target, moves.reasons[vms], hold).key)

    def _moves_ended(self) -> None:
        """Start the plans' next waves where theirs have ended; release the power-ons waiting."""
        for moves in self.plans:
            self._next_wave(moves)
        self._release_waiting()

    def _migrate(self, name: str, target: str, reason: str, hold: Demand) -> Migration:
        """Start the vMotion of VM ``name`` to ``target``, holding ``hold`` there."""
        vm = self.vms[name]
        spec = vm.spec
        assert vm.host is not None  # only a VM on a host migrates
        dirty = spec.dirty_mb_per_s if spec.dirty_mb_per_s is not None else self.model.vmotion_dirty_rate
        m = Migration(f"vmotion{len(self.migrations) + 1}:{name}", name, vm.host, target, self.env.now,
                      spec.memory_mb * MB, dirty * MB, self.model.vmotion_switchover_target,
                      self.model.vmotion_max_rounds, reason)
        self.migrations.append(m)
        self.holds[m.key] = hold
        vm.migration = m
        self._mark("vmotion", f"vMotion of {name} from {vm.host} to {target} starts ({reason}; "
                   f"{spec.memory_mb:g} MB of memory)", name, target)
        return m

    def _stage_done(self, arg) -> None:
        m, generation = arg
        if generation != self.generation.get(m.key) or not m.copying:
            return
        phase = m.stage_done(self.env.now)
        vm = self.vms[m.vm]
        if phase in ("switchover", "resuming") and vm.status == "running":
            vm.status = "paused"
            self._mark("switchover", f"{m.vm} paused for the switch-over after {len(m.rounds) - 1} "
                       f"pre-copy round{'s' * (len(m.rounds) != 2)} ({m.rounds[-1].bytes / MB:.3g} MB "
                       f"left to send)", m.vm, m.source)
        if phase == "resuming":
            self.env.call_later(self.model.vmotion_switchover_overhead, self._resume, m)
        self._reallocate()

    def _resume(self, m: Migration) -> None:
        """The switch-over of ``m`` ends: the VM runs on the destination with what it can admit."""
        if m.phase != "resuming":
            return
        vm = self.vms[m.vm]
        m.finish(self.env.now)
        hold = self.holds.pop(m.key)
        vm.migration, vm.host, vm.status = None, m.target, "running"
        capacity = self.loaded.hosts[m.target].capacity
        others = self._committed(m.target, without=m.vm)
        if refusal(capacity, others + [vm.wanted]) is None:
            vm.in_force = vm.wanted
            if vm.fault is not None:
                self._clear_fault(vm, f"migrated to {m.target}")
        else:  # what the destination held for it
            vm.in_force = hold
            if vm.fault is None:
                vm.fault = Fault(m.vm, m.target, self.env.now, vm.wanted.bandwidth, vm.wanted.cpu,
                                 refusal(capacity, others + [vm.wanted]) or "")
                self.faults.append(vm.fault)
        self._mark("resume", f"{m.vm} runs on {m.target} (paused {m.pause() * 1000:.0f} ms; vMotion "
                   f"{self.env.now - m.started:.1f} s, {m.sent / MB:.0f} MB sent)", m.vm, m.target)
        self._team(m.target)
        self._admit_pending(m.source)
        self._moves_ended()
        self._reallocate()

    def _clear_fault(self, vm: VmState, how: str) -> None:
        fault = vm.fault
        assert fault is not None
        fault.cleared_at, fault.cleared_by = self.env.now, how
        vm.fault = None
        self._mark("fault_cleared", f"{fault.vm}'s reservation met ({how}) {self.env.now - fault.at:.1f} s "
                   f"after its fault", fault.vm, vm.host)

    def _admit_pending(self, host: str) -> None:
        """Put in force the reservations of faulted VMs of ``host`` that now fit there."""
        if not self.alive.get(host, False):
            return
        capacity = self.loaded.hosts[host].capacity
        changed = False
        for name, vm in self.vms.items():
            if vm.host == host and vm.fault is not None and vm.migration is None:
                if refusal(capacity, self._committed(host, without=name) + [vm.wanted]) is None:
                    vm.in_force = vm.wanted
                    self._clear_fault(vm, f"room on {host}")
                    changed = True
        if changed:
            self._team(host)

    # ------------------------------------------------------------------ events
    def _reservation(self, event) -> None:
        vm = self.vms[event.vm]
        new = Demand(vm.wanted.cpu if event.cpu_reservation is None else event.cpu_reservation,
                     vm.wanted.bandwidth if event.reservation_mbps is None else event.reservation_mbps * MBPS)
        what = _demand_text(new)
        if vm.status in ("off", "waiting"):
            vm.wanted = new
            self._mark("reservation", f"{event.vm} reserves {what} (powered off: admitted when it powers on)",
                       event.vm)
            return
        over = self._pool_room(event.vm, new.bandwidth)
        if over:
            self._mark("refused", f"{event.vm}'s reservation of {what} refused: {over}", event.vm, vm.host)
            return
        host = vm.host
        assert host is not None
        why = refusal(self.loaded.hosts[host].capacity, self._committed(host, without=event.vm) + [new])
        if why is None:
            vm.wanted = vm.in_force = new
            self._mark("reservation", f"{event.vm} reserves {what} on {host}", event.vm, host)
            if vm.fault is not None:
                self._clear_fault(vm, "a reservation its host meets")
            self._team(host)
            self._reallocate()
            return
        if not self.automated:
            self._mark("refused", f"{event.vm}'s reservation of {what} refused: {host} cannot meet it "
                       f"({why}) and DRS is off", event.vm, host)
            return
        vm.wanted = new
        if vm.fault is not None:
            vm.fault.cleared_at, vm.fault.cleared_by = self.env.now, "a new reservation"
        vm.fault = Fault(event.vm, host, self.env.now, new.bandwidth, new.cpu, why)
        self.faults.append(vm.fault)
        passes = math.ceil(max(0.0, self.env.now - self.first_pass) / self.period)
        next_pass = self.first_pass + passes * self.period  # a pass now runs after this event
        self._mark("fault", f"fault: {host} cannot meet {event.vm}'s {what} ({why}); DRS migrates at its "
                   f"next pass ({next_pass:.0f} s)", event.vm, host)

    def _migrate_event(self, event) -> None:
        vm = self.vms[event.vm]
        if vm.status != "running" or vm.migration is not None:
            state = "migrating" if vm.migration is not None else vm.status
            self._mark("refused", f"vMotion of {event.vm} to {event.host} refused: it is {state}", event.vm)
            return
        if not self.alive[event.host] or event.host == vm.host:
            state = "it has failed" if not self.alive[event.host] else "the VM runs there already"
            self._mark("refused", f"vMotion of {event.vm} to {event.host} refused: {state}", event.vm, event.host)
            return
        unit = [name for name, other in self.vms.items()
                if self.anchor[name] == self.anchor[event.vm] and other.host == vm.host
                and other.status == "running" and other.migration is None]
        apart = [name for name in unit for other in self.vms[name].spec.apart_from
                 if self.vms[other].host == event.host and self.vms[other].status in ON_HOST]
        if apart:
            self._mark("refused", f"vMotion of {event.vm} to {event.host} refused: {apart[0]} runs apart "
                       f"from a VM there", event.vm, event.host)
            return
        capacity = self.loaded.hosts[event.host].capacity
        why = refusal(capacity, self._committed(event.host) + [self.vms[name].wanted for name in unit])
        if why is not None:
            self._mark("refused", f"vMotion of {event.vm} to {event.host} refused: {event.host} cannot "
                       f"admit {' with '.join(unit)} ({why})", event.vm, event.host)
            return
        for name in unit:
            self._migrate(name, event.host, "asked for", self.vms[name].wanted)
        self._reallocate()

    def _host_failure(self, event) -> None:
        host = event.host
        if not self.alive[host]:
            return
        self.alive[host] = False
        lost = [name for name, vm in self.vms.items() if vm.host == host and vm.status in ON_HOST]
        self._mark("host_failure", f"{host} fails: {', '.join(lost) or 'no VM'} powered off", host=host)
        for m in self.migrations:
            if m.phase in ("precopy", "switchover", "resuming") and host in (m.source, m.target):
                m.abort(self.env.now)
                self.holds.pop(m.key, None)
                vm = self.vms[m.vm]
                vm.migration = None
                if m.target == host and vm.status == "paused":
                    vm.status = "running"
                self._mark("vmotion_aborted", f"vMotion of {m.vm} aborted: {host} failed", m.vm, host)
        for name in list(self.waiting):
            if self.waiting[name][0] == host:
                del self.waiting[name]
                self.vms[name].status = "off"
                self._mark("refused", f"{name} not powered on: {host} failed first", name, host)
        for name in lost:
            vm = self.vms[name]
            if vm.fault is not None:
                vm.fault.cleared_at, vm.fault.cleared_by = self.env.now, f"{host} failed"
                vm.fault = None
            vm.status, vm.host, vm.in_force = "off", None, Demand()
        self._moves_ended()
        for other in self.alive:
            self._admit_pending(other)
        self._reallocate()
        if self.config.ha.enabled and lost:
            delay = self.config.ha.restart_delay_s
            self.env.call_later(self.model.ha_detection if delay is None else delay, self._ha_restart,
                                (host, lost))

    def _ha_restart(self, arg) -> None:
        host, lost = arg
        names = [name for name in lost if self.vms[name].status == "off"]
        if names:
            self._power_on_where_placed(names, f"restarted by HA after {host} failed", self.model.ha_boot,
                                        partial=True, pins=False)

    def _vm_added(self, event) -> None:
        self._power_on_where_placed([event.vm], "added", 0.0, partial=False)

    # ------------------------------------------------------------------ power-on and DRS
    def _units(self, placing: list[str], pins: bool = True, wanting: bool = True) -> tuple[list[Unit], int]:
        """The running VMs (and ``placing``, first: on the host their [[vm]] names when ``pins``)
        as units for the placement search, each with the reservations it wants (``wanting``: a
        DRS pass meets every fault) or else those it holds (a power-on leaves the faults to DRS),
        faulted units last so that the search keeps the others where they are first; and how
        many of them are ``placing``'s."""
        groups: dict[tuple, list[str]] = {}
        for name in placing:
            groups.setdefault(("place", self.anchor[name]), []).append(name)
        for name, vm in self.vms.items():
            if name in placing:
                continue
            if vm.status in ON_HOST:
                where = vm.migration.target if vm.migration is not None else vm.host
                fixed = vm.migration is not None or vm.status != "running" or not self.automated
                groups.setdefault(("run", self.anchor[name], where, fixed), []).append(name)
            elif name in self.waiting:
                groups.setdefault(("run", name, self.waiting[name][0], True), []).append(name)
        keys = list(groups)
        placed = sum(1 for key in keys if key[0] == "place")
        faulted = {key for key in keys if any(self.vms[name].fault is not None for name in groups[key])}
        keys = keys[:placed] + [k for k in keys[placed:] if k not in faulted] + \
            [k for k in keys[placed:] if k in faulted]
        index = {name: i for i, key in enumerate(keys) for name in groups[key]}
        units = []
        for i, key in enumerate(keys):
            members = groups[key]
            apart = {index[other] for name in members for other in self.vms[name].spec.apart_from
                     if other in index}
            apart |= {index[name] for name in index for other in self.vms[name].spec.apart_from
                      if other in members}
            allowed: tuple[str, ...] | None = None
            current: str | None = None
            if key[0] == "place":
                anchor = self.vms[key[1]]
                pinned = next((self.vms[n].spec.host for n in members if self.vms[n].spec.host), None)
                if key[1] not in members:  # it follows a running VM
                    follows = anchor.migration.target if anchor.migration is not None else anchor.host
                    assert follows is not None  # only a running VM is followed (_power_on_where_placed)
                    allowed = (follows,)
                elif pinned is not None and pins:
                    allowed = (pinned,)
            else:
                current = key[2]
                allowed = (key[2],) if key[3] else None
            held = tuple(self._holding(n) for n in members)
            wanted = tuple(self.vms[n].wanted for n in members) if wanting or key[0] == "place" else held
            units.append(Unit(tuple(members), wanted, sum(self.vms[n].spec.memory_mb for n in members),
                              current, allowed, frozenset(apart - {i}), held))
        return units, placed

    def _note_search(self, found, what: str) -> None:
        """Mark a placement that the search did not prove the least cost (it stopped at its budget)."""
        if found.found and found.how != "exact":
            self._mark("drs", f"{what}: {found.how_found()}")

    def _holding(self, name: str) -> Demand:
        """What VM ``name`` holds where it runs (or is going): in force, held by its move, or
        nothing while it waits to power on."""
        vm = self.vms[name]
        if vm.migration is not None:
            return self.holds[vm.migration.key]
        return vm.in_force if vm.status in ON_HOST else Demand()

    def _power_on_where_placed(self, names: list[str], why: str, boot: float, partial: bool,
                               pins: bool = True) -> None:
        """Power on ``names`` where the placement search puts them (on the host their [[vm]]
        names when ``pins``; moving others if needed, and then after those moves); those it
        cannot place are refused, with the reason. With ``partial`` (an HA restart), VMs placed
        one by one where they fit when no placement admits them all."""
        refused = [(name, self._pool_room(name, self.vms[name].wanted.bandwidth)) for name in names]
        for name, over in refused:
            if over:
                self._mark("refused", f"{name} not powered on ({why}): {over}", name)
        names = [name for name, over in refused if not over]
        for name in names:
            anchor = self.vms[self.anchor[name]]
            if self.anchor[name] not in names and anchor.status not in ON_HOST:
                self._mark("refused", f"{name} not powered on ({why}): {anchor.spec.name}, whose host it "
                           f"runs on (same_host_as), is not running", name)
        names = [name for name in names if self.anchor[name] in names
                 or self.vms[self.anchor[name]].status in ON_HOST]
        if not names:
            return
        units, placed = self._units(names, pins, wanting=False)
        found = plan(self._capacities(), units)
        self._note_search(found, f"placing {', '.join(names)}")
        if not found.found and partial:
            self._mark("drs", f"no placement admits all of {', '.join(names)} ({why}): {found.reason}; "
                       f"placing them one by one where they fit")
            for name in names:
                self._power_on_where_placed([name], why, boot, partial=False, pins=pins)
            return
        if not found.found:
            self._mark("refused", f"{', '.join(names)} not powered on ({why}): {found.reason}", names[0])
            return
        moves = self._carry_out(found, units, lambda unit: f"room for {', '.join(names)}")
        for unit, host in zip(units[:placed], found.hosts[:placed]):
            assert host is not None  # a placement found places every unit
            for name in unit.vms:
                if moves is not None:
                    self.waiting[name] = (host, moves)
                    self.vms[name].status = "waiting"
                    self._mark("drs", f"{name} waits for room on {host} ({why})", name, host)
                else:
                    self._power_on(name, host, why, boot)
        self._release_waiting()  # moves dropped at once release their waiting VMs
        self._reallocate()

    def _power_on(self, name: str, host: str, why: str, boot: float) -> None:
        vm = self.vms[name]
        vm.host, vm.in_force = host, vm.wanted
        vm.status = "booting" if boot > 0 else "running"
        self._team(host)
        self._mark("power_on", f"{name} powers on on {host} ({why})", name, host)
        if boot > 0:
            self.env.call_later(boot, self._booted, name)

    def _booted(self, name: str) -> None:
        vm = self.vms[name]
        if vm.status == "booting":
            vm.status = "running"
            self._reallocate()

    def _release_waiting(self) -> None:
        """Power on the VMs whose room-making migrations have all ended, where they fit."""
        for name, (host, moves) in list(self.waiting.items()):
            if moves.state == "running":
                continue
            del self.waiting[name]
            vm = self.vms[name]
            vm.status = "off"
            why = refusal(self.loaded.hosts[host].capacity, self._committed(host) + [vm.wanted])
            if why is None and self.alive[host]:
                self._power_on(name, host, "after the moves that made room", 0.0)
            else:
                self._mark("refused", f"{name} not powered on: no room on {host} after the moves "
                           f"({why or 'it failed'})", name, host)

    def _drs_pass(self, _=None) -> None:
        """A DRS pass: migrate so that every fault's reservation is met, if a placement allows."""
        if self.env.now + self.period < self.duration:
            self.env.call_later(self.period, self._drs_pass, None)
        faulted = [name for name, vm in self.vms.items() if vm.fault is not None and vm.migration is None]
        if not faulted or any(moves.state == "running" for moves in self.plans):
            return  # nothing to do, or the last plan's moves are still under way
        units, _ = self._units([])
        found = plan(self._capacities(), units)
        self._note_search(found, "DRS pass")
        if not found.found:
            self._mark("drs", f"DRS pass: no placement meets {', '.join(faulted)}'s reservations: {found.reason}")
            return

        def reason(unit):
            if any(self.vms[name].fault is not None for name in unit.vms):
                return f"DRS, for {' and '.join(unit.vms)}'s reservation fault"
            return f"DRS, making room for {', '.join(faulted)}"

        self._carry_out(found, units, reason)
        self._reallocate()


def _demand_text(demand: Demand) -> str:
    """A VM's reservations as marks give them."""
    parts = [f"{demand.bandwidth / 1e9:.4g} Gb/s"]
    if demand.cpu:
        parts.append(f"{demand.cpu:g} CPUs")
    return " and ".join(parts)

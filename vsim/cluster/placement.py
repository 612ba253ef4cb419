"""The balancer's search: a placement of VMs on hosts that meets every reservation, moving fewest.

DRS (fully automated) places a VM at power-on, restarts a failed host's VMs elsewhere and, when
a host can no longer meet a VM's reservation (a reservation fault), migrates VMs so that every
reservation is met. All three ask one question of this module: given each host's capacity
(``vsim.cluster.admission``), the VMs to place and the VMs already running where they run, which
assignment of VMs to hosts meets every VM's reservation, with the fewest migrations and, among
those, the least memory to copy? VMs that run together (``same_host_as``) are one *unit*; units
kept apart (``apart_from``) never share a host.

A placement that needs moves counts only if its moves can be carried out (``waves``): a host
holds, while a VM moves in, both the VM's reservations there and those of the VMs still to
leave it, so two full hosts cannot swap VMs at once, and a plan whose moves could never start
is passed over for one whose can.

The search is a depth-first branch and bound over the units, those placed now first (in the
order given: the caller lists last those it would rather move), each trying its own host
first, then the others from the least loaded (so that, among placements of equal cost, the
first found spreads the VMs); a branch is cut when a host would be over its capacity or the
branch already costs as much as the best found. It is exact: when a placement exists it
finds one of least cost, and when it has tried everything and found none it says so, with a
reason. A search that would try more than ``budget`` partial placements (tens of hosts and
VMs with several faults at once) stops there: the best placement found so far is used, and
when it has found none, a greedy one (``greedy``: VMs moved one by one, each to the least
loaded host that takes it, making room by one move where none does); each answer says how it
was found (``Plan.how``), and a search that found nothing either way says it gave up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from vsim.cluster.admission import Capacity, Demand, refusal

BUDGET = 200_000
"""Most partial placements one search tries before giving up."""

DEPTH = 400
"""Most units the depth-first search takes (one level of recursion each); more go to ``greedy``."""


@dataclass(frozen=True)
class Unit:
    """VMs that run together: their names, each one's reservation wanted, the memory a move
    copies (MB), where they run now (None: to be placed), the hosts they may run on (None: any),
    the units (by index) they must not share a host with, and the reservations they hold now
    where they run (None: those wanted)."""

    vms: tuple[str, ...]
    demands: tuple[Demand, ...]
    memory: float = 0.0
    current: str | None = None
    allowed: tuple[str, ...] | None = None
    apart: frozenset[int] = field(default_factory=frozenset)
    held: tuple[Demand, ...] | None = None

    def holding(self) -> tuple[Demand, ...]:
        """The reservations it holds where it runs now."""
        return self.demands if self.held is None else self.held


Wave = tuple[tuple[int, tuple[Demand, ...]], ...]
"""Moves started together: (unit index, the reservations its destination holds for it)."""


@dataclass(frozen=True)
class Plan:
    """A search's answer: ``hosts[i]``, the host of unit ``i`` (None when ``found`` is False),
    the moves (unit index, from, to), the waves that carry them out, and why none was found."""

    found: bool
    hosts: tuple[str | None, ...]
    moves: tuple[tuple[int, str, str], ...] = ()
    reason: str = ""
    tried: int = 0
    waves: tuple[Wave, ...] = ()
    how: str = "exact"
    """"exact" (the least cost, every placement tried), "best found" (the search stopped at its
    budget) or "greedy" (``greedy``'s: the search found none within its budget, or had too many
    units to take)."""

    def how_found(self) -> str:
        """How a placement not proven the least cost was found, for a report ("" for an exact one)."""
        if self.how == "best found":
            return (f"the search stopped after {self.tried} tries; the placement used is the best it "
                    f"found, not proven the fewest moves")
        if self.how == "greedy":
            why = (f"the search found none in {self.tried} tries" if self.tried
                   else f"over {DEPTH} units are too many to try every placement")
            return f"{why}; the placement used moves VMs one by one (greedy), not proven the fewest moves"
        return ""


def plan(capacities: dict[str, Capacity], units: Sequence[Unit], budget: int = BUDGET) -> Plan:
    """The least-cost placement of ``units`` on the hosts of ``capacities`` (cluster order) meeting
    every reservation; cost: the moves, then the memory moved. Units placed now may stay or move;
    units to place count no move."""
    names = list(capacities)
    impossible = _unplaceable(capacities, units)
    if impossible:
        return Plan(False, (None,) * len(units), reason=impossible)
    if len(units) > DEPTH:
        quick = greedy(capacities, units)
        steps = None if quick is None else waves(capacities, units, quick)
        if quick is None or steps is None:
            return Plan(False, (None,) * len(units), reason=f"no placement found moving VMs one by one "
                        f"(over {DEPTH} VMs that run together or alone: too many to try every placement)")
        moved = tuple((i, unit.current, quick[i]) for i, unit in enumerate(units)
                      if unit.current is not None and quick[i] != unit.current)
        return Plan(True, quick, moved, waves=steps, how="greedy")
    order = sorted(range(len(units)), key=lambda i: (units[i].current is None, i))  # placed first
    options = {i: _options(units[i], names) for i in order}
    loads: dict[str, list[Demand]] = {name: [] for name in names}
    chosen: list[str | None] = [None] * len(units)
    best: dict = {"cost": None, "hosts": None, "waves": ()}
    tried = 0

    def descend(k: int, moves: int, memory: float) -> None:
        nonlocal tried
        if tried > budget:
            return
        if best["cost"] is not None and (moves, memory) >= best["cost"]:
            return
        if k == len(order):
            steps = waves(capacities, units, chosen) if moves else ()
            if steps is not None:
                best["cost"], best["hosts"], best["waves"] = (moves, memory), tuple(chosen), steps
            return
        i = order[k]
        unit = units[i]
        for host in _by_load(options[i], unit.current, loads, capacities):
            tried += 1
            if any(chosen[j] == host for j in unit.apart):
                continue
            trial = loads[host] + list(unit.demands)
            if refusal(capacities[host], trial) is not None:
                continue
            moved = unit.current is not None and host != unit.current
            loads[host], previous = trial, loads[host]
            chosen[i] = host
            descend(k + 1, moves + moved, memory + (unit.memory if moved else 0.0))
            chosen[i] = None
            loads[host] = previous

    descend(0, 0, 0.0)
    how = "exact" if tried <= budget else "best found"
    if best["hosts"] is None and tried > budget:
        quick = greedy(capacities, units)
        steps = None if quick is None else waves(capacities, units, quick)
        if quick is None or steps is None:
            return Plan(False, (None,) * len(units), tried=tried,
                        reason=f"no placement found within {budget} tries, nor by moving VMs one by one "
                               f"(the search gave up; one may exist)")
        best["hosts"], best["waves"], how = quick, steps, "greedy"
    if best["hosts"] is None:
        return Plan(False, (None,) * len(units), tried=tried,
                    reason=f"no placement of the {sum(len(u.vms) for u in units)} VMs on the "
                           f"{len(names)} hosts meets every reservation (every placement tried)")
    hosts = best["hosts"]
    moves = []
    for i, unit in enumerate(units):
        if unit.current is not None and hosts[i] != unit.current:
            moves.append((i, unit.current, hosts[i]))
    return Plan(True, hosts, tuple(moves), tried=tried, waves=best["waves"], how=how)


def greedy(capacities: dict[str, Capacity], units: Sequence[Unit]) -> tuple[str, ...] | None:
    """A placement found by moving VMs one by one, for a search too large to finish: the units
    to place, then on each host the units it may not hold (by the units' rules) and, while the
    host is over its capacity, the units listed last (the caller lists last those it would
    rather move), each go, largest first, to the least loaded host that takes them, or where a
    host takes them once one of its own units (smallest first) has moved to another that takes
    it; None when some unit finds no host so."""
    state = _Greedy(capacities, units)
    todo = [i for i, unit in enumerate(units) if unit.current is None]
    for name in state.names:
        movable = [j for j in state.members[name] if j not in state.fixed]
        for j in reversed(movable):  # a unit on a host it may not run on, or beside one it must
            allowed = units[j].allowed  # keep apart from, goes
            if (allowed is not None and name not in allowed) or any(state.hosts[k] == name for k in units[j].apart):
                state.move(j, None)
                todo.append(j)
        movable = [j for j in movable if state.hosts[j] is not None]
        while refusal(capacities[name], state.load(name)) is not None and movable:
            j = movable.pop()
            state.move(j, None)
            todo.append(j)
    for i in sorted(todo, key=lambda i: (-state.size(i), i)):
        order = _by_load(state.names, None, {name: state.load(name) for name in state.names}, capacities)
        target = next((name for name in order if state.fits(i, name)), None)
        if target is None:
            target = state.make_room(i, order)
        if target is None:
            return None
        state.move(i, target)
    placed = tuple(host for host in state.hosts if host is not None)
    if len(placed) < len(units) or not all(state.fits(i, host) for i, host in enumerate(placed)):
        return None  # units it may not move break a rule or a capacity
    return placed


class _Greedy:
    """``greedy``'s placement as it goes: each unit's host and each host's units."""

    def __init__(self, capacities: dict[str, Capacity], units: Sequence[Unit]):
        self.capacities, self.units = capacities, units
        self.names = list(capacities)
        self.hosts: list[str | None] = [unit.current for unit in units]
        self.members: dict[str, list[int]] = {name: [] for name in self.names}
        for i, host in enumerate(self.hosts):
            if host is not None:
                self.members[host].append(i)
        self.fixed = {i for i, unit in enumerate(units) if unit.allowed is not None and unit.allowed == (unit.current,)}
        self.most_cpu = max(c.cpu for c in capacities.values()) or 1.0
        self.most_port = max(c.port_bandwidth for c in capacities.values()) or 1.0

    def move(self, i: int, host: str | None) -> None:
        """Unit ``i`` to ``host`` (None: off every host)."""
        current = self.hosts[i]
        if current is not None:
            self.members[current].remove(i)
        self.hosts[i] = host
        if host is not None:
            self.members[host].append(i)

    def load(self, host: str, without: int = -1) -> list[Demand]:
        return [d for j in self.members[host] if j != without for d in self.units[j].demands]

    def fits(self, i: int, host: str) -> bool:
        unit = self.units[i]
        if unit.allowed is not None and host not in unit.allowed:
            return False
        if any(self.hosts[j] == host for j in unit.apart):
            return False
        return refusal(self.capacities[host], self.load(host, i) + list(unit.demands)) is None

    def size(self, i: int) -> float:
        return sum(d.cpu / self.most_cpu + d.bandwidth / self.most_port for d in self.units[i].demands)

    def make_room(self, i: int, order: list[str]) -> str | None:
        """A host of ``order`` that takes unit ``i`` once one of its units has moved to another
        that takes it (that unit moved so), or None."""
        for host in order:
            for j in sorted((j for j in self.members[host] if j not in self.fixed),
                            key=lambda j: (self.size(j), j)):
                self.move(j, None)
                for other in order:
                    if other != host and self.fits(j, other):
                        self.move(j, other)
                        if self.fits(i, host):
                            return host
                        self.move(j, None)
                self.move(j, host)
        return None


def waves(capacities: dict[str, Capacity], units: Sequence[Unit],
          hosts: Sequence[str | None]) -> tuple[Wave, ...] | None:
    """The moves from each unit's host to ``hosts`` as waves a cluster can carry out without a
    host ever holding more than it can meet, or None when some move could never start.

    A move starts when its destination, beside what it holds then (the units there, the moves
    into it already started), can hold the unit's wanted reservations, else those it holds now
    (it then waits there for room). The moves that can start go together; once all have ended
    (each unit held where it went, no longer where it came from), each unit holding less than
    it wants takes what it wants where that fits, in order, and the next wave starts."""
    where = {i: unit.current for i, unit in enumerate(units) if unit.current is not None}
    holding = {i: units[i].holding() for i in where}
    pending = [i for i in where if hosts[i] != where[i]]
    steps: list[Wave] = []
    while pending:
        wave: list[tuple[int, tuple[Demand, ...]]] = []
        for i in pending:
            target = hosts[i]
            assert target is not None
            there = [d for j, host in where.items() if host == target for d in holding[j]]
            there += [d for j, hold in wave if hosts[j] == target for d in hold]
            for hold in (units[i].demands, holding[i]):
                if refusal(capacities[target], there + list(hold)) is None:
                    wave.append((i, hold))
                    break
        if not wave:
            return None
        for i, hold in wave:
            target = hosts[i]
            assert target is not None
            where[i], holding[i] = target, hold
        started = {i for i, _ in wave}
        pending = [i for i in pending if i not in started]
        for i in sorted(where):
            if holding[i] != units[i].demands:
                others = [d for j, host in where.items() if host == where[i] and j != i for d in holding[j]]
                if refusal(capacities[where[i]], others + list(units[i].demands)) is None:
                    holding[i] = units[i].demands
        steps.append(tuple(wave))
    return tuple(steps)


def _options(unit: Unit, names: list[str]) -> list[str]:
    """The hosts ``unit`` may take, in the cluster's order."""
    return [name for name in names if unit.allowed is None or name in unit.allowed]


def _by_load(options: list[str], current: str | None, loads: dict[str, list[Demand]],
             capacities: dict[str, Capacity]) -> list[str]:
    """``options`` in the order a unit tries them: its own host first, then the least loaded
    (reserved shares of CPU and bandwidth, then VMs placed), so that among placements of equal
    cost the first found spreads the VMs, as DRS's initial placement balances its hosts."""
    def load(name: str) -> tuple[float, int]:
        capacity, held = capacities[name], loads[name]
        cpu = sum(d.cpu for d in held) / capacity.cpu if capacity.cpu else 0.0
        room = capacity.bandwidth()
        bandwidth = sum(d.bandwidth for d in held) / room if room else 0.0
        return cpu + bandwidth, len(held)

    others = sorted((name for name in options if name != current), key=load)  # stable: ties in order
    return ([current] if current in options else []) + others


def _unplaceable(capacities: dict[str, Capacity], units: Sequence[Unit]) -> str:
    """Why no placement can exist, found without a search (a unit no host takes even alone, more
    reserved than the cluster has), or ""."""
    for unit in units:
        hosts = [name for name in capacities if unit.allowed is None or name in unit.allowed]
        reasons = [refusal(capacities[name], list(unit.demands)) for name in hosts]
        if not hosts:
            return f"{_names(unit)}: none of the hosts it may run on is up"
        if all(reasons):
            return f"{_names(unit)} fits no host even alone ({hosts[0]}: {reasons[0]})"
    demands = [d for unit in units for d in unit.demands]
    cpu = sum(d.cpu for d in demands)
    have = sum(c.cpu for c in capacities.values())
    if cpu > have * (1 + 1e-9):
        return f"the VMs reserve {cpu:g} CPUs, the hosts have {have:g}"
    bandwidth = sum(d.bandwidth for d in demands)
    room = sum(c.bandwidth() for c in capacities.values())
    if bandwidth > room * (1 + 1e-9) + 1e-9:
        return (f"the VMs' ports reserve {bandwidth / 1e9:.4g} Gb/s, the hosts' uplinks "
                f"{room / 1e9:.4g} Gb/s for VM traffic")
    return ""


def _names(unit: Unit) -> str:
    """The VMs of a unit, for a reason."""
    return " with ".join(unit.vms)

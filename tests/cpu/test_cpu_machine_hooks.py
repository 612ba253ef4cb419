"""The machine's run-queue hooks: a policy offering ``on_block`` and ``on_unthrottle`` hears
when a world goes idle or its group is throttled, and when its group's throttling ends."""

import simpy

from vsim.cpu.machine import Machine
from vsim.cpu.policies.linux_eevdf import Eevdf
from vsim.cpu.topology import Topology
from vsim.cpu.world import IDLE, READY, RUN, Group, World


class Recording(Eevdf):
    """EEVDF that notes each hook call with the time and the world's state then."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def on_block(self, machine, world):
        self.calls.append(("block", machine.env.now, world.name, world.state, world.throttled))
        super().on_block(machine, world)

    def on_unthrottle(self, machine, world):
        self.calls.append(("unthrottle", machine.env.now, world.name, world.state, world.throttled))
        super().on_unthrottle(machine, world)


def test_a_world_going_idle_is_reported_once_idle():
    env = simpy.Environment()
    policy = Recording()
    machine = Machine(env, Topology(1, 1, 1, 1.0), policy, quantum=0.001)
    group = Group("g", shares=100.0)
    world = World("g.0", group)
    machine.add_group(group)
    machine.submit(world, 0.002, lambda _w: None)
    env.run(until=0.01)
    assert policy.calls == [("block", 0.002, "g.0", IDLE, False)]


def test_throttling_blocks_the_groups_waiting_and_running_worlds_and_its_end_unblocks_them():
    env = simpy.Environment()
    policy = Recording()
    machine = Machine(env, Topology(1, 1, 1, 1.0), policy, quantum=0.001, period=0.1)
    capped = Group("capped", shares=100.0, limit=0.3)
    for j in range(2):
        World(f"capped.{j}", capped)
    machine.add_group(capped)
    for world in capped.worlds:
        machine.submit(world, 1.0, lambda _w: 1.0)
    env.run(until=0.1 + 1e-9)
    blocks = [c for c in policy.calls if c[0] == "block"]
    assert len(blocks) == 2 and blocks[0][1] == blocks[1][1]  # both at once,
    assert abs(blocks[0][1] - 0.03) < 1e-9  # when the quota of 0.3 x 100 ms is used
    assert sorted(c[3] for c in blocks) == [READY, RUN] and all(c[4] for c in blocks)
    unthrottles = [c for c in policy.calls if c[0] == "unthrottle"]
    assert sorted((c[2], c[3], c[4]) for c in unthrottles) == [("capped.0", READY, False),
                                                               ("capped.1", READY, False)]
    assert abs(unthrottles[0][1] - 0.1) < 1e-9

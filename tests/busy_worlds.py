"""Always-runnable worlds for scheduler tests: the host's load whose share is easy to predict."""

from vsim.cpu.world import Group, World


def add_busy_worlds(machine, count, linux):
    """``count`` always-runnable worlds on ``machine``, each in a group of its own at the
    default weight (cgroup weight 100 on a Linux policy, 1000 shares otherwise)."""
    worlds = []
    for index in range(count):
        group = Group(f"busy{index}", shares=100.0 if linux else 1000.0, cosched=False)
        worlds.append(World(f"busy{index}", group))
        machine.add_group(group)
    for world in worlds:
        machine.submit(world, 1e9, lambda _w: None)
    return worlds

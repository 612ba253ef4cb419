"""The shortest run worth simulating: one that measures at least one of its media servers'
packet intervals after the warm-up.

A shorter run (``--duration 1e-9``) would finish at once and print every jitter
as n/a with no word on why, so it is refused up front, naming the length that
would measure something. Scenarios without media servers measure rates and
CPU over any window and have no such floor.
"""

from vsim.core.errors import InputError


def has_media_servers(scenario):
    """Whether ``scenario`` runs any media-server VM (``[vm]`` instances or a media-server group)."""
    return scenario.vm.instances > 0 or any(group.workload == "media_server" for group in scenario.group)


def shortest_duration(interval, warmup_setting):
    """The shortest run whose window after warm-up (``warmup_setting``, at most half the run)
    holds one ``interval``."""
    return 2 * interval if interval <= warmup_setting else warmup_setting + interval


def check_run_length(source, key, loaded, duration, warmup):
    """Refuse a run of ``duration`` s whose window after ``warmup`` holds no packet interval of
    the media servers, blaming ``key`` of ``source``."""
    if not has_media_servers(loaded.scenario):
        return
    interval = loaded.models["codec"].values.packet_interval
    if duration - warmup >= interval:
        return
    shortest = shortest_duration(interval, loaded.scenario.run.warmup)
    raise InputError(source, key, f"expected a run of at least {shortest:g} s, so that the "
                     f"{duration - warmup:g} s measured after the {warmup:g} s warm-up hold "
                     f"one {interval:g} s packet interval of the media servers; got {duration:g} s")

"""The packets trace a ``packets_replay`` traffic source names, read for it.

Traffic sources model traffic and read no files (``vsim.net`` is below
``vsim.traces``), so the source is built from its parameters and this module
hands it the packets of its trace: the path resolved relative to the scenario
file (as ``host.steal_trace`` is), read as a vsim trace of kind ``packets``.
A missing file, another kind of trace or a malformed one is an ``InputError``
of one line, naming the key (or the trace's line) at fault. A trace is parsed
once while it is unchanged, however many sweep points and replications use it.
"""

from functools import lru_cache
from pathlib import Path

from vsim.core.errors import InputError
from vsim.net.sources.protocol import Replay
from vsim.traces.vsim_trace import read_trace


def with_recorded_packets(replay: Replay, scenario_source: str, where: str) -> Replay:
    """``replay`` with the packets of its trace, the path taken relative to the folder of
    ``scenario_source``; ``where`` is the source's key (``group.NAME.traffic.params``)."""
    path = Path(scenario_source).parent / replay.trace
    if not path.is_file():
        raise InputError(scenario_source, f"{where}.trace",
                         f"expected a packets trace file (vsim run --trace, vsim probe net), relative "
                         f"to this file; {path} is not a file")
    stat = path.stat()
    trace = _read_once(str(path), stat.st_mtime_ns, stat.st_size)
    if trace.kind != "packets":
        raise InputError(scenario_source, f"{where}.trace",
                         f"expected a packets trace, {path} is a {trace.kind} trace")
    columns = trace.columns
    return replay.recorded(columns["send_s"], columns["size_bytes"], columns["stream"],
                           columns["class"], str(path))


@lru_cache(maxsize=4)
def _read_once(path, _mtime_ns, _size):
    """The trace at ``path``, parsed again only when its modification time or size changes
    (the sources copy what they keep, never changing the columns)."""
    return read_trace(path)

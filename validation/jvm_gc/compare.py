"""vsim's JVM collector model (``vsim.guest.jvm_gc``) against this machine's serial collector.

    python validation/jvm_gc/compare.py      # prints the tables of the README

``measure.sh`` ran ``SipHeap`` (calls at 200 a second, each allocating its messages' garbage
and a call state of small objects held for a while) under OpenJDK's serial collector and kept
each run's log in ``runs/``. The model says a young collection copies the state of the calls
begun since the last one that are still held, at ``copy_rate`` bytes a second after a fixed
``minor_work``; a full one, when the old generation is full, marks and compacts the live
state of every call held at ``mark_rate`` after a fixed ``major_work``. Here ``JvmGc`` itself
is driven by SipHeap's schedule (its calls and how long each is held), with the state's
footprint from the objects SipHeap makes (not from the log), and the young generation's and
old generation's sizes from the JVM's flags. Two runs give the two young parameters (the
shortest and the longest hold at 30 kB of state) and two the full ones (the shortest and
longest hold of the full runs); the model then predicts the other runs: how many
collections, what each young one copies, and how long the pauses last.
"""

import math
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "validation" / "jvm_gc" / "runs"
sys.path.insert(0, str(ROOT))

from vsim.guest.jvm_gc import JvmGc  # noqa: E402

RATE = 200.0
"""Calls a second of every run (measure.sh)."""
GARBAGE = 65000
"""Bytes of each call's messages' garbage (measure.sh)."""
EDEN = 26240 * 1024
"""-Xmn32m under the default SurvivorRatio 8: the eden the log reports (26240K)."""
OLD = 229376 * 1024
"""-Xmx256m less the young generation: the tenured generation the log reports (229376K)."""
WARMUP = 5.0
"""Seconds of each run left out: the interpreter and the JIT compiler at work."""
FIT_YOUNG = ("young_hold0.25", "young_hold8")
FIT_FULL = ("full_hold4", "full_hold24")


def state_footprint(state_bytes):
    """Heap bytes of one call's held state as SipHeap builds it (compressed references):
    ``state_bytes / 48`` arrays of 32 bytes (a 16-byte header each), the array holding them
    (16 bytes and 4 a reference) and the ``Held`` entry (24 bytes)."""
    pieces = max(1, state_bytes // 48)
    return pieces * 48 + 16 + 4 * pieces + 24


def garbage_footprint(garbage_bytes):
    """Heap bytes of one call's garbage: SipHeap's loop of arrays of up to 96 bytes, each
    counted as 16 more (its header) against the call's garbage bytes."""
    total, left = 0, garbage_bytes
    while left > 0:
        n = min(left, 96)
        total += 16 + (n + 7) // 8 * 8
        left -= n + 16
    return total


PAUSE = re.compile(r"^\[(?P<t>[0-9.]+)s\] GC\((?P<n>\d+)\) Pause (?P<kind>Young|Full) \([^)]*\) "
                   r"\S+ (?P<ms>[0-9.]+)ms$")
TENURED = re.compile(r"^\[[0-9.]+s\] GC\((?P<n>\d+)\) Tenured: (?P<before>\d+)K\(\d+K\)->(?P<after>\d+)K")


def collections(log):
    """[(uptime s, 'Young' or 'Full', pause s, tenured bytes before, after)] of a log, one per
    collection. A young collection given up at once because the old generation cannot take
    what it would promote (no heap lines: it copied nothing) is followed by a full one in the
    same instant; its pause is counted in that full collection's, as one stop of the world."""
    pauses, tenured = {}, {}
    for line in log.read_text().splitlines():
        pause, heap = PAUSE.match(line), TENURED.match(line)
        if pause:
            pauses[int(pause["n"])] = (float(pause["t"]), pause["kind"], float(pause["ms"]) / 1e3)
        elif heap:
            tenured[int(heap["n"])] = (int(heap["before"]) * 1024, int(heap["after"]) * 1024)
    out, carried = [], 0.0
    for n in sorted(pauses):
        t, kind, seconds = pauses[n]
        if n not in tenured:  # given up: its pause goes to the full collection that follows
            carried += seconds
            continue
        out.append((t, kind, seconds + carried, *tenured[n]))
        carried = 0.0
    return out


def run_parameters(name, out):
    """(seconds, state bytes, hold seconds) of a run, from its name and its SipHeap output."""
    calls = int(re.search(r"calls (\d+)", out.read_text())[1])
    state = int(re.search(r"state(\d+)", name)[1]) if "state" in name else 30000
    hold = float(re.search(r"hold([0-9.]+)", name)[1]) if "hold" in name else 8.0
    return calls / RATE, state, hold


def measured(runs=RUNS):
    """{run: {'seconds', 'state', 'hold', 'young': [(pause, promoted bytes)], 'full': [pause]}},
    the collections after the warm-up."""
    logs = sorted(runs.glob("*.log"))
    if not logs:
        raise FileNotFoundError(f"{runs}: no collector logs (*.log) to compare; measure.sh writes them")
    out = {}
    for log in logs:
        name = log.stem
        seconds, state, hold = run_parameters(name, log.with_suffix(".out"))
        young, full = [], []
        for t, kind, pause, before, after in collections(log):
            if t < WARMUP:
                continue
            if kind == "Young":
                young.append((pause, after - before))
            else:
                full.append(pause)
        out[name] = {"seconds": seconds, "state": state, "hold": hold, "young": young, "full": full}
    return out


def simulate(run, minor_work=0.0, copy_rate=1.0, major_work=0.0, mark_rate=1.0):
    """The model's collections over a run's calls (after the warm-up), as lists of (work s,
    copied bytes) for the young and work s for the full ones, with the given parameters; the
    pauses' own time (a stopped world allocates nothing) is left out, as it is short."""
    footprint = state_footprint(run["state"])
    gc = JvmGc(young_bytes=EDEN, allocation={"INVITE": garbage_footprint(GARBAGE) + footprint},
               survivor_bytes=footprint, copy_rate=copy_rate, minor_work=minor_work,
               old_bytes=OLD, mark_rate=mark_rate, major_work=major_work)
    young, full = [], []
    calls = int(run["seconds"] * RATE)
    held_per_call = run["hold"] * RATE
    for i in range(calls):
        if not gc.allocate("INVITE"):
            continue
        held = min(i + 1, int(held_per_call) + 1)  # the calls begun within the last hold
        majors, before = gc.major, gc.old
        work = gc.pause_work(held)[0]
        if i / RATE < WARMUP:
            continue
        if gc.major > majors:
            full.append(work)
        else:
            young.append((work, gc.old - before))
    return young, full


def fit_line(points):
    """(intercept, slope) of the line through two (x, y) points."""
    (x0, y0), (x1, y1) = points
    slope = (y1 - y0) / (x1 - x0)
    return y0 - slope * x0, slope


def fitted(data):
    """The model's four parameters from the fitting runs: the young pause against the bytes it
    copied; then the full pause, less the young part the model also counts in a full
    collection (``JvmGc.pause_work``), against the live state it marks."""
    young_points = []
    for name in FIT_YOUNG:
        pauses = data[name]["young"]
        young_points.append((statistics.mean(b for _, b in pauses), statistics.mean(p for p, _ in pauses)))
    minor_work, per_byte = fit_line(young_points)
    full_points = []
    for name in FIT_FULL:
        run = data[name]
        _, young_part = simulate(run, minor_work, 1.0 / per_byte, 0.0, math.inf)  # their young part
        live = min(run["hold"], run["seconds"]) * RATE * state_footprint(run["state"])
        full_points.append((live, statistics.mean(run["full"]) - statistics.mean(young_part)))
    major_work, per_live = fit_line(full_points)
    return {"minor_work": minor_work, "copy_rate": 1.0 / per_byte,
            "major_work": major_work, "mark_rate": 1.0 / per_live}


def rows(data=None):
    """One row a run: measured and modelled young collections (count, MB copied, ms pause) and
    full collections (count, ms pause), and whether the run was fitted."""
    data = measured() if data is None else data
    params = fitted(data)
    out = []
    for name, run in data.items():
        young, full = simulate(run, **params)
        out.append({
            "run": name, "fitted": name in FIT_YOUNG + FIT_FULL,
            "young_n": (len(run["young"]), len(young)),
            "young_mb": (_mean([b for _, b in run["young"]]) / 1e6, _mean([b for _, b in young]) / 1e6),
            "young_ms": (_mean([p for p, _ in run["young"]]) * 1e3, _mean([w for w, _ in young]) * 1e3),
            "full_n": (len(run["full"]), len(full)),
            "full_ms": (_mean(run["full"]) * 1e3, _mean(full) * 1e3),
        })
    return params, out


def _mean(values):
    return statistics.mean(values) if values else float("nan")


def main():
    params, table = rows()
    print(f"fitted: minor_work {params['minor_work'] * 1e3:.3f} ms, copy_rate {params['copy_rate'] / 1e6:.0f} MB/s, "
          f"major_work {params['major_work'] * 1e3:.1f} ms, mark_rate {params['mark_rate'] / 1e6:.0f} MB/s")
    print("| run | young collections (measured / model) | MB copied each | pause ms | "
          "full collections | full pause ms |")
    print("|---|---|---|---|---|---|")
    for row in table:
        mark = " (fitted)" if row["fitted"] else ""
        print(f"| `{row['run']}`{mark} | {row['young_n'][0]} / {row['young_n'][1]} | "
              f"{row['young_mb'][0]:.2f} / {row['young_mb'][1]:.2f} | "
              f"{row['young_ms'][0]:.2f} / {row['young_ms'][1]:.2f} | "
              f"{row['full_n'][0]} / {row['full_n'][1]} | {row['full_ms'][0]:.1f} / {row['full_ms'][1]:.1f} |")


if __name__ == "__main__":
    main()

"""Per-CPU steal counters from /proc/stat, sampled on a grid, and ``vsim probe steal`` end to end."""

from types import SimpleNamespace

import pytest
from hypothesis import given, strategies as st

from cli_run import vsim
from vsim.probe import machine, steal, steal_probe
from vsim.probe.clock import NS
from vsim.probe.machine import USER_HZ
from vsim.traces.steal_trace import read_steal_trace


def stat_text(per_cpu):
    """A /proc/stat text whose cpuN lines carry the steal ticks ``per_cpu`` (cpu number -> ticks)."""
    total = sum(per_cpu.values())
    lines = [f"cpu  10 0 5 900 1 0 2 {total} 0 0"]
    lines += [f"cpu{n} 5 0 2 450 0 0 1 {ticks} 0 0" for n, ticks in per_cpu.items()]
    return "\n".join(lines + ["intr 1 2 3", "ctxt 99"]) + "\n"


@given(st.dictionaries(st.integers(0, 63), st.integers(0, 10**9), min_size=1, max_size=8))
def test_each_cpu_line_gives_its_steal_field(per_cpu):
    assert steal.cpu_steal_ticks(stat_text(per_cpu)) == per_cpu


def test_a_stat_without_cpu_lines_is_an_error():
    with pytest.raises(ValueError, match="cpuN"):
        steal.cpu_steal_ticks("cpu  1 2 3 4 5 6 7 8\nintr 1\n")


class FakeMachine:
    """/proc/stat and the clock of a machine whose CPUs lose ``rates[cpu]`` ticks per read, each read
    landing ``late_ns`` after its deadline."""

    def __init__(self, rates, late_ns=0):
        self.rates, self.late_ns = rates, late_ns
        self.now = 1_000 * NS
        self.reads = 0

    def read(self):
        text = stat_text({cpu: rate * self.reads for cpu, rate in self.rates.items()})
        self.reads += 1
        return text

    def clock(self):
        return self.now

    def sleep_until(self, deadline):
        self.now = max(self.now, deadline) + self.late_ns


def test_sampling_turns_counter_steps_into_seconds_per_interval():
    fake = FakeMachine({0: 1, 3: 2}, late_ns=1000)
    series = steal.sample(0.05, 0.2, read=fake.read, clock=fake.clock, sleep_until=fake.sleep_until)
    assert series.cpus == (0, 3) and len(series.times_s) == 5
    assert series.stolen_s[0] == [1 / USER_HZ] * 4 and series.stolen_s[3] == [2 / USER_HZ] * 4
    # the intervals run from read to read, late reads included, and stay on the grid
    assert series.times_s == pytest.approx([0.0, 0.050001, 0.100001, 0.150001, 0.200001])


def test_trace_columns_number_the_cpus_and_share_the_intervals():
    fake = FakeMachine({2: 1, 5: 0})
    series = steal.sample(0.1, 0.2, read=fake.read, clock=fake.clock, sleep_until=fake.sleep_until)
    columns = steal.trace_columns(series)
    assert columns["cpu"] == [0, 1, 0, 1]
    assert columns["start_s"] == [0.0, 0.0, 0.1, 0.1] and columns["end_s"] == [0.1, 0.1, 0.2, 0.2]
    assert columns["steal_s"] == [1 / USER_HZ, 0.0, 1 / USER_HZ, 0.0]


def test_a_cpu_going_offline_stops_the_sampling():
    fake = FakeMachine({0: 1, 1: 1})
    reads = iter([stat_text({0: 0, 1: 0}), stat_text({0: 1})])
    with pytest.raises(RuntimeError, match="CPU 1 left"):
        steal.sample(0.05, 0.1, read=lambda: next(reads), clock=fake.clock, sleep_until=fake.sleep_until)


def test_a_short_run_writes_a_steal_trace_the_scenario_reader_accepts(capsys, tmp_path):
    out = tmp_path / "steal.csv"
    code, stdout, err = vsim(capsys, "probe", "steal", "--interval", "0.02", "--duration", "0.2",
                             "--out", out)
    assert code == 0, err
    trace = read_steal_trace(out)
    assert trace.cpus >= 1 and trace.resolution_s == 1 / USER_HZ
    assert trace.meta["command"] == f"vsim probe steal --interval 0.02 --duration 0.2 --out {out}"
    assert len(trace.stolen[0]) == 10 and trace.span_s >= 0.2
    assert "wrote" in stdout and "steal" in err


def test_an_interval_below_ten_milliseconds_is_refused(capsys, tmp_path):
    code, _, err = vsim(capsys, "probe", "steal", "--interval", "0.001", "--out", tmp_path / "s.csv")
    assert code == 2 and "--interval" in err


def test_the_printed_summary_gives_the_headers_steal_figures(capsys, tmp_path, monkeypatch):
    """One tick stolen on the aggregate line during the run, none in the per-CPU lines sampled: the line
    printed and the header say so under the same names, with the small share not rounded away to 0."""
    fake = FakeMachine({0: 0, 1: 0})
    monkeypatch.setattr(steal_probe, "sample", lambda interval, duration: steal.sample(
        interval, duration, read=fake.read, clock=fake.clock, sleep_until=fake.sleep_until))
    aggregate = iter([5.0, 5.0 + 1 / USER_HZ])
    monkeypatch.setattr(machine, "steal_seconds", lambda: next(aggregate))
    monkeypatch.setattr(steal_probe, "time", SimpleNamespace(monotonic=iter([100.0, 103.0]).__next__))
    out = tmp_path / "steal.csv"
    code, stdout, err = vsim(capsys, "probe", "steal", "--interval", "0.05", "--duration", "3", "--out", out)
    assert code == 0, err
    meta = read_steal_trace(out).meta
    assert meta["steal_s_during"] == "0.01" and meta["steal_s_sampled"] == "0.00"
    assert meta["steal_pct_of_cpus"] == f"{100 * 0.01 / (3 * machine.os.cpu_count()):.3g}"
    for key in ("sampled_span_s", "steal_s_per_cpu", "steal_s_sampled", "steal_pct_sampled", "steal_s_during",
                "steal_pct_of_cpus"):
        assert f"{key} {meta[key]}" in stdout

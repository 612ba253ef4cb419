"""Progress lines of a sweep's runs: what finished, and the time so far and left; workers that end with
the run, however it is stopped."""

import os
import re
import signal
from dataclasses import replace
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from processes import Vsim, _command_line, wait_for
from vsim.build.load import load_scenario
from vsim.sweep.executor import Task, _duration, run_cost, run_tasks, sweep_model_files, sweep_tasks
from vsim.sweep import executor

ROOT = Path(__file__).resolve().parents[2]


def test_durations_read_as_seconds_then_minutes():
    assert [_duration(s) for s in (0.2, 42.4, 59.6, 61, 3599)] == [
        "0 s", "42 s", "1 min 00 s", "1 min 01 s", "59 min 59 s"]


def test_progress_estimates_the_time_left_from_the_mean_so_far(monkeypatch):
    """Three tasks of 10 s each on one worker: after the first, 20 s are left; after the last, none."""
    clock = iter([0.0, 10.0, 20.0, 30.0])
    monkeypatch.setattr(executor.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(executor, "run_task", lambda task: ({"x": task.x}, 10.0))
    tasks = [Task("c.toml", (), "vm.instances", x, 0, 1, 1, 1.0, 0.5) for x in (1, 2, 3)]
    lines = []
    assert run_tasks(tasks, jobs=1, progress=lines.append) == [{"x": 1}, {"x": 2}, {"x": 3}]
    assert lines[0] == "[0/3] 3 runs, 1 at a time: a line as each ends"
    left = [re.search(r"\((.*) so far, about (.*) left\)", line).groups() for line in lines[1:]]
    assert left == [("10 s", "20 s"), ("20 s", "10 s"), ("30 s", "0 s")]


def test_time_left_is_weighted_by_each_tasks_cost(monkeypatch):
    """A cheap task of 10 s then two costing 4 times as much: 80 s are left after the first."""
    clock = iter([0.0, 10.0, 50.0, 90.0])
    monkeypatch.setattr(executor.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(executor, "run_task", lambda task: ({"x": task.x}, 10.0 * task.cost))
    tasks = [Task("c.toml", (), "vm.instances", x, 0, 1, 1, 1.0, 0.5, cost)
             for x, cost in ((1, 1.0), (4, 4.0), (5, 4.0))]
    lines = []
    run_tasks(tasks, jobs=1, progress=lines.append)
    left = [re.search(r"about (.*) left", line).group(1) for line in lines[1:]]
    assert left == ["1 min 20 s", "40 s", "0 s"]


def test_a_points_cost_grows_with_its_vms_vcpus_streams_and_duration():
    config = Path(__file__).resolve().parents[2] / "configs" / "voip-vsphere5" / "fig3.toml"
    loaded = load_scenario(config)
    tasks = sweep_tasks(config, loaded, 10.0, 1.0, 2)
    costs = [task.cost for task in tasks]
    assert costs == sorted(costs) and costs[0] == costs[1] < costs[-1]
    assert tasks[-1].cost == pytest.approx(12 * tasks[0].cost)
    assert run_cost(loaded, 20.0) == 2 * run_cost(loaded, 10.0)
    more = load_scenario(config, ["vm.streams_per_instance=240"])
    wider = load_scenario(config, ["vm.vcpus=8"])
    assert run_cost(more, 10.0) > run_cost(loaded, 10.0) and run_cost(wider, 10.0) > run_cost(loaded, 10.0)


def test_a_host_of_group_vms_only_has_a_positive_run_cost():
    loaded = load_scenario(ROOT / "configs" / "netioc-vsphere6" / "fig2_equal_shares.toml")
    assert loaded.scenario.vm.instances == 0
    assert run_cost(loaded, 10.0) > 0


def test_progress_of_tasks_that_cost_nothing_does_not_divide_by_zero():
    config = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"
    tasks = [replace(task, cost=0.0) for task in sweep_tasks(config, load_scenario(config), 0.5, 0.1, 1)[:2]]
    lines = []
    run_tasks(tasks, jobs=1, progress=lines.append)
    assert len(lines) == 3 and all("left" in line for line in lines[1:])


def test_bulk_traffic_vms_weigh_by_their_kind():
    root = Path(__file__).resolve().parents[2] / "configs"
    fig6 = load_scenario(root / "voip-vsphere5" / "fig6.toml")
    more_floods = fig6.with_value("group.flood.count", 8)
    per_flood_vm = (run_cost(more_floods, 10.0) - run_cost(fig6, 10.0)) / 4 / 10.0
    exp1 = load_scenario(root / "netioc-vsphere6" / "exp1.toml")
    more_tcp = exp1.with_value("group.netperf.count", 24)
    per_tcp_vm = (run_cost(more_tcp, 10.0) - run_cost(exp1, 10.0)) / 12 / 10.0
    assert per_flood_vm == pytest.approx(1 + executor.FLOOD_VM_COST)
    assert per_tcp_vm == pytest.approx(1 + executor.TCP_VM_COST)


def test_a_sip_client_weighs_by_its_call_rate():
    """A SIPp client's VM costs SIP_CALL_COST per call/s beyond its vCPUs (and DOM0_CALL_COST more
    through a driver domain), so a sweep of the call rate weighs its fast points more; a ramp by
    the rate it ramps to."""
    cfg1 = load_scenario(ROOT / "configs" / "xen-appliances" / "cfg1.toml")
    slow = cfg1.with_value("group.asterisk.traffic.params.rate", 100.0)
    fast = cfg1.with_value("group.asterisk.traffic.params.rate", 700.0)
    assert (run_cost(fast, 10.0) - run_cost(slow, 10.0)) / 10.0 == pytest.approx(
        600 * (executor.SIP_CALL_COST + executor.DOM0_CALL_COST))
    fig8 = load_scenario(ROOT / "configs" / "sip-jvm-gc" / "fig8.toml")
    assert (run_cost(fig8.with_value("group.proxy.traffic.params.rate", 200.0), 10.0)
            - run_cost(fig8.with_value("group.proxy.traffic.params.rate", 100.0), 10.0)) / 10.0 == pytest.approx(
        100 * executor.SIP_CALL_COST)
    ramp = load_scenario(ROOT / "configs" / "xen-appliances" / "cfg1.toml",
                         ["group.asterisk.traffic.params.rate_increase=10.0",
                          "group.asterisk.traffic.params.rate_max=900.0"])
    faster = cfg1.with_value("group.asterisk.traffic.params.rate", 900.0)
    assert run_cost(ramp.with_value("group.asterisk.traffic.params.rate", 100.0), 10.0) == pytest.approx(
        run_cost(faster, 10.0))


def test_a_web_application_weighs_by_its_operations_a_second():
    exp2 = load_scenario(ROOT / "configs" / "netioc-vsphere6" / "exp2_alone.toml")
    few, many = (exp2.with_value("group.olio.traffic.params.users", users) for users in (150, 500))
    assert (run_cost(many, 10.0) - run_cost(few, 10.0)) / 10.0 == pytest.approx(
        executor.WEB_OPERATION_COST * 350 / 5.0)


def fake_pool(seconds, submitted=None):
    """A stand-in for ProcessPoolExecutor whose futures are done at once, each reporting its
    task's x after ``seconds``; the x of each task submitted is appended to ``submitted``."""

    class Finished:
        def __init__(self, task):
            self.task = task

        def result(self):
            return {"x": self.task.x}, seconds

    class Pool:
        def __init__(self, **_):
            pass

        def submit(self, runner, task):
            if submitted is not None:
                submitted.append(task.x)
            return Finished(task)

        def shutdown(self):
            pass

    return Pool


def test_time_left_is_shared_by_the_busy_processes_and_leaves_out_their_start(monkeypatch):
    """Five tasks of 10 s on two workers that took 3 s to start: after the first (at 13 s),
    the four left share two workers, 20 s, where the time so far per finished task said 52 s."""
    tasks = [Task("c.toml", (), "vm.instances", x, 0, 1, 1, 1.0, 0.5) for x in range(5)]
    clock = iter([0.0, 13.0, 13.0, 23.0, 23.0, 33.0])
    monkeypatch.setattr(executor.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(executor, "ProcessPoolExecutor", fake_pool(10.0))
    monkeypatch.setattr(executor, "as_completed", list)
    lines = []
    run_tasks(tasks, jobs=2, progress=lines.append)
    assert lines[0] == "[0/5] 5 runs, 2 at a time: a line as each ends"
    left = [re.search(r"about (.*) left", line).group(1) for line in lines[1:]]
    assert left == ["20 s", "15 s", "10 s", "10 s", "0 s"]


def test_parallel_runs_start_costliest_first_and_come_back_in_task_order(monkeypatch):
    """Long runs are handed out first, so that the short ones fill the workers at the end;
    the results still come back by task, and one process keeps task order."""
    costs = [1.0, 5.0, 3.0, 5.0, 2.0]
    tasks = [Task("c.toml", (), "vm.instances", x, 0, 1, 1, 1.0, 0.5, cost)
             for x, cost in enumerate(costs)]
    submitted = []
    monkeypatch.setattr(executor, "ProcessPoolExecutor", fake_pool(1.0, submitted))
    monkeypatch.setattr(executor, "as_completed", lambda futures: reversed(list(futures)))
    results = run_tasks(tasks, jobs=2)
    assert submitted == [1, 3, 2, 4, 0]
    assert results == [{"x": x} for x in range(5)]
    assert [index for index, _ in executor.Serial().outcomes(lambda t: t.x, tasks)] == list(range(5))
    assert executor.costliest_first(tasks) == [1, 3, 2, 4, 0]


def test_a_sweep_of_a_model_records_each_points_model_and_the_others_once():
    linux_host = ROOT / "configs" / "whatif" / "linux_host.toml"
    loaded = load_scenario(linux_host, ['sweep.key="host.scheduler"',
                                        'sweep.values=["schedulers/linux_cfs", "schedulers/linux_eevdf"]'])
    common, per_point = sweep_model_files(loaded)
    assert "scheduler" not in common and common["host"] == loaded.model_files()["host"]
    assert [own["scheduler"].split()[0] for own in per_point] == ["schedulers/linux_cfs", "schedulers/linux_eevdf"]
    assert set(per_point[0]) == {"scheduler"}
    plain = load_scenario(linux_host)
    assert sweep_model_files(plain) == (plain.model_files(), ())


FIG3 = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"
LONG_RUNS = {  # --jobs 2 runs whose runs last far longer than a test (a 12-instance point of 1200 s
    # takes some 20 s on one core): the signal always lands mid-run
    "sweep": ["sweep", FIG3, "--set", "sweep.values=[11,12]", "--duration", "1200", "--replications", "1"],
    "reproduce": ["reproduce", "voip-vsphere5", "--duration", "1200", "--replications", "1"],
}


@pytest.mark.parametrize("command", sorted(LONG_RUNS))
@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGKILL, -signal.SIGKILL)])
def test_the_workers_end_with_a_parallel_run_whatever_stops_it(tmp_path, command, signum, status):
    """SIGTERM or SIGKILL to vsim alone (as kill, timeout or a job scheduler send it), not to its
    process group: its workers and multiprocessing's resource tracker end too."""
    outputs = ["--out", tmp_path / "out"] if command == "sweep" else ["--figures", tmp_path / "figures"]
    with Vsim(*LONG_RUNS[command], "--jobs", "2", *outputs, "--json", tmp_path / "r.json", cwd=tmp_path) as vsim:
        wait_for(lambda: "[0/" in vsim.stderr() and len(vsim.members(b"multiprocessing.spawn")) == 2,
                 what="the progress line and both workers", timeout=60.0,  # slow under a loaded suite
                 state=lambda: (vsim.stderr()[-300:], [_command_line(p) for p in vsim.members()]))
        os.kill(vsim.pid, signum)
        code, out, err = vsim.finish()
        vsim.wait_gone()
    assert code == status, err
    if signum == signal.SIGTERM:  # handled as Ctrl-C is: one line after the progress, nothing written
        assert out == "" and err.splitlines()[1:] == ["vsim: interrupted by SIGTERM"]
    assert list(tmp_path.iterdir()) == []


def _seconds(text):
    """``3 min 05 s`` or ``42 s`` as seconds."""
    minutes = re.match(r"(\d+) min (\d+) s", text)
    return int(minutes[1]) * 60 + int(minutes[2]) if minutes else int(text.removesuffix(" s"))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(1.0, 20.0), st.floats(0.9, 1.1)), min_size=10, max_size=60),
       st.floats(1.0, 30.0))
def test_the_time_left_is_within_a_factor_of_the_truth_after_a_tenth_of_the_work(runs, rate):
    """On a synthetic clock, tasks whose wall time is their cost times a rate, off by up to 10 %
    each (the cost model's error): from the first tenth of the tasks on, the time left said is
    within a factor of 1.5 of the time the remaining tasks then take."""
    clock = [0.0]
    walls = [cost * rate * error for cost, error in runs]

    def runner(task):
        clock[0] += walls[task.replication]
        return task.replication, walls[task.replication]

    tasks = [Task("c.toml", (), "vm.instances", 1, i, len(runs), 1, 1.0, 0.5, cost)
             for i, (cost, _) in enumerate(runs)]
    lines = []
    with patch.object(executor.time, "perf_counter", lambda: clock[0]):
        run_tasks(tasks, jobs=1, progress=lines.append, runner=runner)
    for done, line in enumerate(lines[1:], start=1):
        truth = sum(walls[done:])
        said = _seconds(re.search(r"about (.*) left", line).group(1))
        if done >= len(runs) / 10 and truth >= 30:  # whole seconds: a short rest is all rounding
            assert truth / 1.5 <= said <= truth * 1.5, (done, said, truth)

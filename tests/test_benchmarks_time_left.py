"""The time-left benchmark replays a recorded reproduce; a log of other runs is refused."""

from benchmark_scripts import load_benchmark


def test_a_log_of_other_runs_is_refused(tmp_path, capsys):
    log = tmp_path / "progress.log"
    log.write_text("[1/1] fig3 vm.instances=99 rep 1/1  9.0 s  (9 s so far, about 0 s left)\n")
    assert load_benchmark("bench_time_left").main(["--log", str(log)]) == 2
    assert "its runs are not the studies' runs" in capsys.readouterr().err


def test_recorded_seconds_are_read_per_label_in_order(tmp_path):
    log = tmp_path / "progress.log"
    log.write_text("[0/3] 3 runs, 2 at a time: a line as each ends\n"
                   "[1/3] cfg1 rate=200.0 rep 1/1  0.4 s  (0 s so far, about 2 s left)\n"
                   "[2/3] cfg1 rate=200.0 rep 1/1  0.6 s  (1 s so far, about 1 s left)\n"
                   "[3/3] fig8 rate=10.0 rep 1/1  1.5 s  (2 s so far, about 0 s left)\n")
    seconds = load_benchmark("bench_time_left").recorded_seconds(log)
    assert {label: list(values) for label, values in seconds.items()} == {
        "cfg1 rate=200.0 rep 1/1": [0.4, 0.6], "fig8 rate=10.0 rep 1/1": [1.5]}

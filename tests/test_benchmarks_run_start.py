"""The run start-up benchmark: a run process loads no scipy, and the benchmark says so."""

import json

from benchmark_scripts import load_benchmark


def test_unusable_arguments_are_refused(capsys):
    assert load_benchmark("bench_run_start").main(["--repeat", "0"]) == 2
    assert "--repeat and --instances must be at least 1" in capsys.readouterr().err


def test_a_short_run_loads_no_scipy_and_the_preloaded_one_does(capsys):
    code = load_benchmark("bench_run_start").main(["--repeat", "1", "--duration", "0.5",
                                                   "--instances", "1"])
    out = capsys.readouterr().out
    report = json.loads(out[:out.rindex("}") + 1])
    assert code == 0
    assert report["run"]["ok"] and not report["run"]["scipy_loaded"]
    assert report["run after import scipy.signal"]["scipy_loaded"]
    assert out.count("PASS: the run loads no scipy") == 1

"""The executors' benchmark refuses a grid it cannot measure, with exit code 2."""

import pytest

from benchmark_scripts import load_benchmark


@pytest.mark.parametrize("argv", [["--points", "1"], ["--duration", "0"]])
def test_a_grid_too_small_to_measure_is_refused(capsys, argv):
    assert load_benchmark("bench_executors").main(argv) == 2
    assert "--points must be at least 2 and --duration above 0" in capsys.readouterr().err

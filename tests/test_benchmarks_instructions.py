"""The instruction-count benchmark refuses what it cannot measure, with exit code 2."""

from benchmark_scripts import load_benchmark


def test_long_run_must_be_longer_than_short_run(capsys, monkeypatch):
    bench = load_benchmark("bench_instructions")
    monkeypatch.setattr(bench.shutil, "which", lambda name: "/usr/bin/" + name)
    assert bench.main(["--short", "6", "--long", "2"]) == 2
    assert "--long > --short" in capsys.readouterr().err


def test_missing_valgrind_is_a_clear_error(capsys, monkeypatch):
    bench = load_benchmark("bench_instructions")
    monkeypatch.setattr(bench.shutil, "which", lambda name: None)
    assert bench.main([]) == 2
    assert "valgrind not found" in capsys.readouterr().err

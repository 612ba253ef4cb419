"""The instruction-count benchmark refuses what it cannot measure, with exit code 2."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_instructions",
                                                  ROOT / "benchmarks" / "bench_instructions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_long_run_must_be_longer_than_short_run(capsys, monkeypatch):
    bench = _bench()
    monkeypatch.setattr(bench.shutil, "which", lambda name: "/usr/bin/" + name)
    assert bench.main(["--short", "6", "--long", "2"]) == 2
    assert "--long > --short" in capsys.readouterr().err


def test_missing_valgrind_is_a_clear_error(capsys, monkeypatch):
    bench = _bench()
    monkeypatch.setattr(bench.shutil, "which", lambda name: None)
    assert bench.main([]) == 2
    assert "valgrind not found" in capsys.readouterr().err

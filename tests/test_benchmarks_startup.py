"""The start-up benchmark, and the imports that keep ``vsim --version`` and ``--help`` quick."""

import json
import subprocess
import sys

from benchmark_scripts import load_benchmark


def test_nothing_to_measure_is_refused(capsys):
    assert load_benchmark("bench_startup").main(["--repeat", "0"]) == 2
    assert "--repeat must be at least 1" in capsys.readouterr().err


def test_every_command_line_is_timed_and_judged(capsys):
    code = load_benchmark("bench_startup").main(["--repeat", "1", "--budget", "60"])
    out = capsys.readouterr().out
    report = json.loads(out[:out.rindex("}") + 1])
    assert code == 0
    assert set(report["vsim"]) == {"--version"} | {f"{c} --help" for c in
                                                   load_benchmark("bench_startup").COMMANDS}
    assert all(line["ok"] and line["cpu_s"] > 0 for line in report["vsim"].values())
    assert out.count("PASS: vsim ") == len(report["vsim"])


def test_a_budget_no_process_meets_is_a_miss(capsys):
    assert load_benchmark("bench_startup").main(["--repeat", "1", "--budget", "1e-6"]) == 1
    assert "FAIL: vsim --version" in capsys.readouterr().out


def test_the_parser_reads_no_claim_and_checks_no_output():
    """The claims file (tomllib, importlib.resources) and the output checks (tempfile) are read
    and imported by the commands that need them, not by every ``--version`` and ``--help``."""
    code = ("import sys, vsim.cli; vsim.cli.build_parser(); "
            "print(sorted(set(sys.modules) & {'tomllib', 'importlib.resources', 'tempfile', "
            "'difflib'}))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "[]\n"

"""Inputs that once gave a traceback instead of one line: a TOML nested without end, a name too
long for the system, a device or a huge file read whole, a CSV line longer than csv reads."""

from pathlib import Path

import pytest

from cli_run import one_line_error, vsim
CONFIG_LIMIT = 1 << 20  # vsim.core.input_files.CONFIG_LIMIT
from vsim.traces.vsim_trace import trace_text

ROOT = Path(__file__).resolve().parents[1]
FIG3 = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"
DEEP = 100_000


def deep_value():
    return "[" * DEEP + "]" * DEEP


@pytest.fixture
def deep_config(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text(FIG3.read_text() + f"\n[validate]\ndeep = {deep_value()}\n")
    return path


@pytest.mark.parametrize("command", ["run", "describe"])
def test_a_config_nested_without_end_is_one_line(capsys, deep_config, command):
    code, _, err = vsim(capsys, command, deep_config)
    assert code == 2 and str(deep_config) in one_line_error(err) and "nested" in err


def test_a_set_value_nested_without_end_is_one_line(capsys):
    code, _, err = vsim(capsys, "run", FIG3, "--set", f"vm.vcpus={deep_value()}")
    line = one_line_error(err)
    assert code == 2 and "--set vm.vcpus=" in line and "nested" in line and len(line) < 400


def test_a_config_nested_deeper_than_the_limit_names_the_key(capsys, tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text(FIG3.read_text() + "\n[validate]\ndeep = " + "[" * 200 + "]" * 200 + "\n")
    code, _, err = vsim(capsys, "run", path)
    assert code == 2 and "validate.deep" in one_line_error(err) and "nested" in err


@pytest.mark.parametrize("command", ["run", "describe"])
def test_a_config_name_too_long_for_the_system_is_one_line(capsys, command):
    code, _, err = vsim(capsys, command, "x" * 300 + ".toml")
    assert code == 2 and "too long" in one_line_error(err)


def test_a_device_is_refused_before_it_is_read(capsys):
    code, _, err = vsim(capsys, "run", "/dev/zero")
    assert code == 2 and "/dev/zero" in one_line_error(err) and "regular file" in err


def test_a_config_larger_than_the_limit_is_refused_before_it_is_read(capsys, tmp_path):
    path = tmp_path / "big.toml"
    path.write_text(FIG3.read_text() + "#" * CONFIG_LIMIT + "\n")
    code, _, err = vsim(capsys, "run", path)
    assert code == 2 and "larger than" in one_line_error(err)


def test_a_packets_trace_with_a_line_longer_than_csv_reads_names_the_line(capsys, tmp_path):
    trace = tmp_path / "packets.csv"
    text = trace_text("packets", {"stream": ["0x1"], "class": ["voice"], "seq": [1], "rtp_timestamp": [160],
                                  "send_s": [0.0], "arrival_s": [0.001], "size_bytes": [78]})
    trace.write_text(text + '"0x1' + "x" * 200_000 + '",voice,2,320,0.02,0.021,78\n')
    code, _, err = vsim(capsys, "validate", trace, "--scenario", FIG3, "--replications", "1",
                        "--duration", "1")
    line = one_line_error(err)
    assert code == 2 and str(trace) in line and f"line {len(text.splitlines()) + 1}" in line

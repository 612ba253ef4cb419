"""mypy passes on the package as ``setup.cfg``'s ``[mypy]`` sections configure it, so the
seams' protocols (what a policy, an uplink scheduler, a traffic source or a guest workload
must offer) are checked, not only written down."""

import configparser
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "setup.cfg"


def _mypy(*targets):
    """mypy's (report, exit status) for ``targets`` under the project's configuration."""
    report, errors, status = api.run(["--config-file", str(CONFIG),
                                      "--cache-dir", str(ROOT / ".mypy_cache"), *map(str, targets)])
    return report + errors, status


def test_the_configured_files_pass_mypy():
    config = configparser.ConfigParser()
    config.read(CONFIG)
    files = [ROOT / name.strip() for name in config["mypy"]["files"].split(",")]
    report, status = _mypy(*files)
    assert status == 0, report


BROKEN = '''
from vsim.cpu.policies import POLICIES
from vsim.guest.workload import Workload
from vsim.net.sources import SOURCES
from vsim.net.uplink import SCHEDULERS


class Policy:  # its capabilities, and none of the calls
    tick_every_cpu = False
    preempts_when_released = True
    run_queue_hooks = False


class Uplink:  # a rate, and no transmit
    rate_bps = 1e9


class Source:  # a size that is not a number
    elastic = False
    discrete = False
    ip_bytes = "1500"


class Vm:  # no start
    def supports_closed_form(self) -> bool:
        return False


POLICIES["broken"] = Policy
SCHEDULERS["broken"] = Uplink
SOURCES["broken"] = Source
vm: Workload = Vm()
'''


def test_an_implementation_missing_part_of_its_seam_fails_mypy(tmp_path, monkeypatch):
    """Each seam's registry or annotation refuses a class that does not offer what it must."""
    module = tmp_path / "broken_seams.py"
    module.write_text(BROKEN)
    monkeypatch.setenv("MYPYPATH", str(ROOT))
    report, status = _mypy(module)
    assert status == 1, report
    errors = [line for line in report.splitlines() if "broken_seams.py" in line and "error:" in line]
    assert len(errors) == 4, report
    for line, protocol in zip(errors, ("CpuPolicy", "Scheduler", "TrafficSource", "Workload")):
        assert protocol in line, report

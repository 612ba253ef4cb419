"""The naive per-packet benchmark model stays in step with vsim.

``benchmarks/bench_vs_naive.py`` measures vsim's speed against
``benchmarks/naive_packet_model.py``; that ratio only means something while
the naive model still models the same path. This short run (one instance, 40
streams, 5 s, six seeds each) checks that both give the same mean jitter within
a tolerance of about four standard deviations of the seed-to-seed spread, the
same number of measured packets, and no loss.
"""

from pathlib import Path

import numpy as np
import pytest

from benchmark_scripts import load_benchmark
from vsim.build.load import load_scenario
from vsim.engines.simulation import simulate

ROOT = Path(__file__).resolve().parents[1]
SEEDS = range(1, 7)
DURATION = 5.0
TOLERANCE = 0.3


@pytest.fixture(scope="module")
def loaded():
    return load_scenario(ROOT / "configs" / "voip-vsphere5" / "fig3.toml",
                         ["vm.instances=1", "vm.streams_per_instance=40", "vm.background_burst=0",
                          "params.host.socket_contention=0"])


def test_naive_model_agrees_with_vsim(loaded):
    naive = load_benchmark("naive_packet_model")
    vsim_runs = [simulate(loaded, seed, duration=DURATION) for seed in SEEDS]
    naive_runs = [naive.run_naive(loaded, seed, DURATION) for seed in SEEDS]
    vsim_mean = np.mean([r.jitter.mean_ms for r in vsim_runs])
    naive_mean = np.mean([r["jitter"]["mean_ms"] for r in naive_runs])
    assert naive_mean == pytest.approx(vsim_mean, rel=TOLERANCE)
    vsim_packets = sum(r.measured_packets for r in vsim_runs)
    naive_packets = sum(r["measured_packets"] for r in naive_runs)
    assert naive_packets == pytest.approx(vsim_packets, rel=0.01)
    assert all(r.voice.packets_dropped == 0 for r in vsim_runs)
    assert all(r["voice"]["packets_dropped"] == 0 for r in naive_runs)


def test_naive_model_refuses_a_contended_host():
    naive = load_benchmark("naive_packet_model")
    contended = load_scenario(ROOT / "configs" / "voip-vsphere5" / "fig3.toml", ["vm.instances=2"])
    with pytest.raises(ValueError, match="uncontended"):
        naive.run_naive(contended, 1, DURATION)


def test_naive_model_refuses_socket_contention():
    naive = load_benchmark("naive_packet_model")
    contended = load_scenario(ROOT / "configs" / "voip-vsphere5" / "fig3.toml",
                              ["vm.instances=1", "vm.background_burst=0"])
    with pytest.raises(ValueError, match="socket contention"):
        naive.run_naive(contended, 1, DURATION)


@pytest.mark.parametrize("setting", ["vm.limit=2", "measured_vm.limit=2"])
def test_naive_model_refuses_limits(setting):
    naive = load_benchmark("naive_packet_model")
    limited = load_scenario(ROOT / "configs" / "voip-vsphere5" / "fig3.toml", ["vm.instances=1", setting])
    with pytest.raises(ValueError, match="limits"):
        naive.run_naive(limited, 1, DURATION)

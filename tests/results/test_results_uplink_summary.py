"""The uplink part of a summary: the traffic window and a measured stream's loss and jitter."""

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from vsim.metrics.jitter import stream_jitter_samples
from vsim.build.load import load_scenario
from vsim.engines.simulation import simulate
from vsim.results.uplink_summary import stream_entry, traffic_window


def sim_with(*actives):
    return SimpleNamespace(traffic=[SimpleNamespace(active=active) for active in actives])


def test_the_traffic_window_is_when_every_source_runs():
    assert traffic_window(sim_with(), 100.0) is None
    assert traffic_window(sim_with((0.5, 1.0)), 600.0) == (300.0, 600.0)
    assert traffic_window(sim_with((0.2, 0.8), (0.5, 1.0)), 10.0) == (5.0, 8.0)
    assert traffic_window(sim_with((0.0, 0.3), (0.5, 1.0)), 10.0) is None


def test_the_traffic_window_starts_after_the_warm_up():
    """A flood running from the start had the voice's loss and jitter "while the traffic runs"
    counted over the warm-up too, where its throughput was not."""
    assert traffic_window(sim_with((0.0, 1.0)), 10.0, warmup=5.0) == (5.0, 10.0)
    assert traffic_window(sim_with((0.5, 1.0)), 600.0, warmup=5.0) == (300.0, 600.0)
    assert traffic_window(sim_with((0.0, 0.4)), 10.0, warmup=5.0) is None


def test_a_streams_loss_and_jitter_count_only_packets_sent_in_the_window():
    send = np.arange(0, 10, 0.02)
    rng = np.random.default_rng(4)
    recv = send + 0.001 + rng.exponential(0.0005, send.size)
    recv[(send >= 5) & (np.arange(send.size) % 10 == 0)] = np.nan  # one in ten lost after 5 s
    streams = np.zeros(send.size, dtype=np.int64)
    entry = stream_entry(streams, send, recv, 0, 5, 9)
    in_window = (send >= 5) & (send < 9)
    assert entry.loss_fraction == pytest.approx(np.isnan(recv[in_window]).mean())
    got = ~np.isnan(recv) & (send < 9)
    samples = stream_jitter_samples(send[got], recv[got], streams[got], 5)
    assert entry.jitter_mean_ms == pytest.approx(samples.mean() * 1000)
    kept = in_window & ~np.isnan(recv)
    assert entry.latency_mean_ms == pytest.approx((recv - send)[kept].mean() * 1000)
    assert entry.stream == 0


def test_a_tcp_group_reports_its_demand_and_no_loss_fraction():
    exp1 = Path(__file__).resolve().parents[2] / "configs" / "netioc-vsphere6" / "exp1.toml"
    summary = simulate(load_scenario(exp1, ["run.duration=2", "run.warmup=0.5"]), seed=1, duration=2, warmup=0.5)
    groups = summary.uplink.groups
    tcp = [g for g in groups.values() if g.demand_pps is not None]
    assert tcp and all(g.loss_fraction is None and g.offered_pps is None for g in tcp)
    assert all(g.delivered_pps <= g.demand_pps * (1 + 1e-9) for g in tcp)

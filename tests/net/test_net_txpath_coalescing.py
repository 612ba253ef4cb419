"""Coalescing: batches from the scheduler's order, interrupts under the cap."""

from vsim.net.txpath.coalescing import Coalescing, completion_batch, interrupt_rate, run_length

SERVICE_10G = 1538 * 8 / 10e9      # a full frame on 10 GbE
LINE_PPS = 1 / SERVICE_10G


def test_default_keeps_bursts_and_interleaving_cuts_them():
    assert run_length(44, competitors=11) == 44
    assert run_length(44, competitors=11, quantum=2) == 2
    assert run_length(44, competitors=0, quantum=2) == 44


def test_runs_within_the_window_merge():
    # one port alone: its 2-frame runs follow each other every 2.5 µs: 33 µs holds 14 of them
    assert completion_batch(2, 0, SERVICE_10G, 33e-6) == 2 * (1 + int(33e-6 // (2 * SERVICE_10G)))
    # 100 ports: a round takes 246 µs, runs never merge
    assert completion_batch(2, 99, SERVICE_10G, 33e-6) == 2


def test_interrupt_rate_is_capped():
    assert interrupt_rate(1e6, 10) == 4000
    assert interrupt_rate(1e4, 10) == 1000
    assert interrupt_rate(1e4, 10, Coalescing(max_rate=500)) == 500

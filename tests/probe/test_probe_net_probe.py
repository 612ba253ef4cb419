"""Short runs (as root) of ``vsim probe net``: trace, pcap and summary written, nothing left behind."""

import os
import signal
import time

import numpy as np
import pytest

from probe_helpers import made_by, needs_ip, needs_root, needs_tcpdump
from cli_run import vsim
from probe_run import vsim_child
from vsim.probe.net_probe import FLOOD_PORT, VOICE_PORT_BASE, root_qdisc_drops, voice_shortfall
from vsim.probe.limits import FLOOD_SOURCE_PORT, MAX_STREAMS, VOICE_SOURCE_PORT_BASE
from vsim.probe.pcap import read_udp_frames
from vsim.traces.vsim_trace import read_trace


@needs_root
@needs_ip
@needs_tcpdump
@pytest.mark.parametrize("shape", ["pfifo", "htb"])
def test_a_short_run_writes_trace_pcap_and_summary(capsys, tmp_path, shape):
    out = tmp_path / "net.csv"
    code, stdout, err = vsim(capsys, "probe", "net", "--qdisc", shape, "--rate", "1e6", "--streams", "3",
                             "--flood-fraction", "0.5", "--duration", "1.5", "--out", str(out))
    assert code == 0, err
    trace = read_trace(out)
    assert trace.kind == "packets"
    assert set(trace.columns["class"]) == {"voice", "flood"}
    voice = np.asarray(trace.columns["class"]) == "voice"
    assert voice.sum() == 3 * 75
    arrived = np.isfinite(trace.columns["arrival_s"])
    assert np.all(trace.columns["arrival_s"][arrived] >= trace.columns["send_s"][arrived])
    assert {"tc", "flood_achieved_bps", "steal_s_during", "summary_voice"} <= trace.meta.keys()
    assert trace.meta["voice_packets_sent"] == "225 of 225 planned"
    assert len(read_udp_frames(tmp_path / "net.pcap")) == arrived.sum()
    lost = len(trace) - arrived.sum()
    assert lost == int(trace.meta["qdisc_dropped"])  # every loss is a bottleneck drop, none a capture miss
    assert (tmp_path / "net.summary.txt").read_text().count("\n") == 3 + 1 + 2
    assert made_by(os.getpid()) == []


@needs_root
@needs_ip
@needs_tcpdump
def test_an_interrupted_run_cleans_up_and_writes_nothing(tmp_path):
    out = tmp_path / "net.csv"
    child = vsim_child("probe", "net", "--duration", "30", "--out", str(out))
    deadline = time.monotonic() + 20
    while not made_by(child.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert made_by(child.pid), "the probe never set up its namespaces"
    time.sleep(1.0)
    os.killpg(child.pid, signal.SIGINT)  # Ctrl-C: the probe, its senders, sink and capture all get it
    _, err = child.communicate(timeout=30)
    assert child.returncode == 130
    progress, last = err.splitlines()  # the probe's progress line, then why it stopped: no child's traceback
    assert progress.startswith("vsim: probe net:") and "interrupted by SIGINT" in last
    assert made_by(child.pid) == []
    assert list(tmp_path.iterdir()) == []


def test_root_qdisc_drops_are_read_from_tc_statistics():
    stats = ("qdisc tbf 1: root refcnt 3 rate 80Mbit burst 4990b lat 1us\n"
             " Sent 27213484 bytes 28910 pkt (dropped 8, overlimits 42363 requeues 0)\n"
             "qdisc pfifo 10: parent 1:1 limit 100p\n"
             " Sent 1 bytes 1 pkt (dropped 3, overlimits 0 requeues 0)\n")
    assert root_qdisc_drops(stats) == 8


def test_the_most_streams_keep_clear_of_the_floods_ports():
    sources = range(VOICE_SOURCE_PORT_BASE, VOICE_SOURCE_PORT_BASE + MAX_STREAMS)
    destinations = range(VOICE_PORT_BASE, VOICE_PORT_BASE + MAX_STREAMS)
    assert FLOOD_SOURCE_PORT not in sources and FLOOD_PORT not in destinations
    assert max(sources.stop, destinations.stop) <= 65536


def test_a_voice_sender_that_fell_behind_is_reported():
    assert voice_shortfall(225, 225) == ""
    assert voice_shortfall(100, 225) == "; the voice sender fell behind and sent 100 of the 225 planned"

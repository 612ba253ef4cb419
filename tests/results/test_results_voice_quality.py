"""The summary's voice-quality section: jitter buffer choice, loss accounting, E-model rating."""

import functools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vsim.core.errors import InputError
from vsim.metrics import emodel
from vsim.metrics.jitter_buffer import AdaptiveBuffer, FixedBuffer
from vsim.build.load import load_scenario
from vsim.config.models import DEFAULT_MODELS_DIR
from vsim.engines.simulation import Simulation, simulate
from vsim.build.host import jitter_buffer
from vsim.results.voice_quality import (StreamRecord, quality_entry, start_up_note,
                                         stream_records)

ROOT = Path(__file__).resolve().parents[2]
FIG3 = ROOT / "configs" / "voip-vsphere5" / "fig3.toml"
FIG6 = ROOT / "configs" / "voip-vsphere5" / "fig6.toml"
PFIFO = ROOT / "configs" / "validation" / "net_pfifo.toml"


def fig3(*overrides):
    return load_scenario(FIG3, ["run.duration=4", "run.warmup=1", *overrides])


def quality(loaded, seed=1, duration=4.0, warmup=1.0):
    """The summary of a run of ``loaded``, as the JSON holds it."""
    return simulate(loaded, seed, duration=duration, warmup=warmup).to_json()


@pytest.fixture(scope="module")
def packed():
    """12 instances: the packed host whose tail jitter the study measured."""
    return quality(fig3("vm.instances=12"))


def entries(section):
    """Every entry of the section: the measuring conference, its streams, each group."""
    measuring = section["measuring_conference"]
    return [measuring, *measuring["streams"], *section["groups"].values()]


def test_the_section_names_buffer_codec_and_every_group(packed):
    section = packed["voice_quality"]
    assert section["jitter_buffer"] == {"kind": "fixed", "nominal_ms": 40.0}
    assert section["codec"] == {"equipment_impairment": 11.0, "loss_robustness": 19.0,
                                "lookahead_ms": 5.0}
    assert list(section["groups"]) == ["vm"]
    assert [s["stream"] for s in section["measuring_conference"]["streams"]] == [0, 1, 2, 3]


def test_packets_add_up_and_match_the_measured_loss(packed):
    section = packed["voice_quality"]
    measuring = section["measuring_conference"]
    assert measuring["packets"] == packed["measured_packets"]
    assert measuring["network_loss_fraction"] == packed["measured_loss_fraction"]
    assert measuring["packets"] == sum(s["packets"] for s in measuring["streams"])
    for entry in entries(section):
        assert entry["effective_loss_fraction"] == pytest.approx(
            entry["network_loss_fraction"] + entry["late_fraction"])


def test_every_rating_is_the_e_model_of_its_own_numbers(packed):
    for entry in entries(packed["voice_quality"]):
        assert entry["mouth_to_ear_ms"] > 20 + 5 + entry["one_way_delay_mean_ms"] * 0.99
        expected = emodel.rating(entry["mouth_to_ear_ms"], entry["effective_loss_fraction"],
                                 11.0, 19.0, entry["burst_ratio"])
        assert entry["r_factor"] == pytest.approx(max(0.0, expected), rel=1e-12)
        assert entry["mos"] == emodel.mos(entry["r_factor"])
        assert 1.0 <= entry["mos"] <= 4.5


def test_jitter_beside_quality_is_the_rfc3550_jitter_of_the_summary(packed):
    section = packed["voice_quality"]
    assert section["measuring_conference"]["jitter_mean_ms"] == pytest.approx(
        packed["jitter"]["mean_ms"], rel=1e-9)


def test_a_buffer_shorter_than_the_jitter_discards_late_packets_and_costs_rating(packed):
    tight = quality(fig3("vm.instances=12", "client.jitter_buffer_nominal=0.0005"))
    loose, short = packed["voice_quality"]["groups"]["vm"], tight["voice_quality"]["groups"]["vm"]
    assert loose["late_fraction"] == 0.0
    assert short["late_fraction"] > 0.01
    assert short["network_loss_fraction"] == loose["network_loss_fraction"]
    assert short["buffer_delay_mean_ms"] < loose["buffer_delay_mean_ms"] - 30
    assert short["r_factor"] < loose["r_factor"]
    # the network is the same: only the receivers changed
    assert tight["jitter"] == packed["jitter"] and tight["voice"] == packed["voice"]


def test_the_nominal_delay_moves_the_fixed_buffers_wait_one_for_one():
    runs = [quality(fig3(f"client.jitter_buffer_nominal={nominal}"))["voice_quality"]
            for nominal in (0.04, 0.06)]
    first, second = (run["measuring_conference"] for run in runs)
    assert first["late_fraction"] == second["late_fraction"] == 0.0
    assert second["buffer_delay_mean_ms"] - first["buffer_delay_mean_ms"] == pytest.approx(20.0)
    assert second["r_factor"] < first["r_factor"]


def test_adaptive_buffer_reports_its_algorithm_and_waits_less_than_the_fixed_one(packed):
    adaptive = quality(fig3("vm.instances=12", 'client.jitter_buffer="adaptive"'))["voice_quality"]
    assert adaptive["jitter_buffer"] == {"kind": "adaptive", "algorithm": "Ramjee et al. 1994, Algorithm 1",
                                         "smoothing": 0.998002, "variation_factor": 4.0,
                                         "talkspurt_ms": 1000.0,
                                         "time_constant_s": pytest.approx(0.02 / (1 - 0.998002))}
    assert "warm-up of 1 s" in adaptive["note"] and "note" not in packed["voice_quality"]
    fixed = packed["voice_quality"]["groups"]["vm"]
    assert adaptive["groups"]["vm"]["buffer_delay_mean_ms"] < fixed["buffer_delay_mean_ms"]


def test_bursts_of_network_loss_under_a_flood_lower_the_rating():
    section = quality(load_scenario(FIG6), duration=8.0)["voice_quality"]
    measuring = section["measuring_conference"]
    assert measuring["network_loss_fraction"] > 0.02
    assert measuring["r_factor"] < 70


def test_groups_of_media_servers_get_their_own_entry(tmp_path):
    path = tmp_path / "hetero.toml"
    path.write_text(FIG3.read_text() + '\n[[group]]\nname = "small"\ncount = 2\nvcpus = 2\n'
                    'workload = "media_server"\nstreams = 40\n')
    section = quality(load_scenario(path, ["vm.instances=1", "sweep.values=[1]"]))["voice_quality"]
    assert list(section["groups"]) == ["vm", "small"]
    vm, small = section["groups"]["vm"], section["groups"]["small"]
    assert small["packets"] == pytest.approx(2 * vm["packets"], rel=0.01)  # two VMs' conferences


def test_without_a_measuring_conference_only_groups_are_rated():
    section = quality(fig3("vm.instances=2", "client.measuring_conference=false"))["voice_quality"]
    assert section["measuring_conference"] is None
    assert section["groups"]["vm"]["r_factor"] > 0


def test_a_codec_without_e_model_values_gets_no_rating():
    section = quality(load_scenario(PFIFO), duration=3.0, warmup=0.5)["voice_quality"]
    measuring = section["measuring_conference"]
    assert section["codec"]["equipment_impairment"] is None
    assert measuring["r_factor"] is None and measuring["mos"] is None
    assert measuring["packets"] > 0 and measuring["late_fraction"] is not None


def test_same_seed_same_section():
    loaded = fig3("vm.instances=3", 'client.jitter_buffer="adaptive"')
    first, second = (json.dumps(quality(loaded)["voice_quality"], sort_keys=True) for _ in range(2))
    assert first == second


def test_closed_form_and_event_engine_rate_the_same_packets():
    loaded = fig3("vm.instances=1", "params.host.socket_contention=0")  # a host the closed form plays
    fast = Simulation(loaded, 2, engine="uncontended").run(4.0, 1.0)
    slow = Simulation(loaded, 2, engine="events").run(4.0, 1.0)
    assert fast.voice_quality == slow.voice_quality


# ----------------------------------------------------------------- choices
def test_the_scenario_chooses_the_buffer_and_the_model_gives_its_parameters():
    client = fig3().models["client"].values
    assert jitter_buffer(fig3().scenario.client, client) == FixedBuffer(0.04)
    assert jitter_buffer(fig3("client.jitter_buffer_nominal=0.1").scenario.client, client) == FixedBuffer(0.1)
    adaptive = fig3('client.jitter_buffer="adaptive"').scenario.client
    assert jitter_buffer(adaptive, client) == AdaptiveBuffer(0.998002, 4.0, 1.0)


@pytest.mark.parametrize("overrides, where", [
    (['client.jitter_buffer="adaptiv"'], "client.jitter_buffer"),
    (['client.jitter_buffer="adaptive"', "client.jitter_buffer_nominal=0.02"],
     "client.jitter_buffer_nominal"),
    (["client.jitter_buffer_nominal=0"], "client.jitter_buffer_nominal"),
    (["client.jitter_buffer_nominal=inf"], "client.jitter_buffer_nominal"),
    (["params.client.playout_smoothing=1.0"], "params.client.playout_smoothing"),
    (["params.client.talkspurt=0"], "params.client.talkspurt"),
    (["params.codec.loss_robustness=0"], "params.codec.loss_robustness"),
])
def test_bad_choices_are_one_line_errors_naming_the_key(overrides, where):
    with pytest.raises(InputError) as info:
        load_scenario(FIG3, overrides)
    assert info.value.where == where and "\n" not in str(info.value)


def test_a_codec_with_part_of_the_e_model_values_is_refused(tmp_path):
    import shutil
    models = tmp_path / "models"
    shutil.copytree(DEFAULT_MODELS_DIR, models)
    path = models / "codecs" / "g729.toml"
    text = path.read_text()
    start = text.index("[params.lookahead]")
    path.write_text(text[:start])
    with pytest.raises(InputError) as info:
        load_scenario(FIG3, models_dir=models)
    assert info.value.where == "params.lookahead" and "none" in info.value.expected


def test_sweeping_the_buffer_kind_is_allowed():
    loaded = load_scenario(FIG3, ['sweep.key="client.jitter_buffer"', 'sweep.values=["fixed", "adaptive"]'])
    assert loaded.with_value("client.jitter_buffer", "adaptive").scenario.client.jitter_buffer == "adaptive"


def test_quality_counts_nothing_before_the_warm_up():
    loaded = fig3("vm.instances=1")
    summary = quality(loaded, duration=4.0, warmup=1.0)
    # 4 streams x 50 packets/s x 3 s after warm-up
    assert summary["voice_quality"]["measuring_conference"]["packets"] == pytest.approx(600, abs=4)
    assert np.isfinite(summary["voice_quality"]["measuring_conference"]["one_way_delay_mean_ms"])


def _record(late, delay_s):
    """One stream of 50 packets, none lost in the network, ``late`` of them discarded."""
    flags = np.arange(50) < late
    played = delay_s * np.ones(int((~flags).sum()))
    return StreamRecord(stream=1, lost=np.zeros(50, bool), late=flags, network_delay=delay_s * np.ones(50),
                        playout_delay=played, buffer_delay=np.zeros(played.size), jitter=np.zeros(50))


def test_a_receiver_that_plays_nothing_rates_at_the_floor():
    codec = Simulation(load_scenario(FIG3), 1).codec
    entry = quality_entry([_record(late=50, delay_s=0.01)], codec)
    assert entry.effective_loss_fraction == 1.0
    assert (entry.r_factor, entry.mos, entry.mouth_to_ear_ms) == (0.0, 1.0, None)


def test_a_rating_below_the_scale_is_reported_at_its_floor():
    codec = Simulation(load_scenario(FIG3), 1).codec
    entry = quality_entry([_record(late=45, delay_s=5.0)], codec)
    raw = emodel.rating(entry.mouth_to_ear_ms, 0.9, 11.0, 19.0, entry.burst_ratio)
    assert raw < -50 and entry.r_factor == 0.0 and entry.mos == 1.0


def test_the_start_up_note_is_given_only_for_an_adaptive_buffer_with_a_short_warm_up():
    adaptive = AdaptiveBuffer(0.998002, 4.0, 1.0)
    assert "settle over 30 s" in start_up_note(adaptive, 0.02, 2.5)
    assert start_up_note(adaptive, 0.02, 30.1) is None
    assert start_up_note(FixedBuffer(0.04), 0.02, 0.5) is None


@functools.cache
def _fig3_codec():
    return Simulation(load_scenario(FIG3), 1).codec


class _Recorded:
    """A receiver whose ``arrays`` are the given packets: (stream, tick, received) rows."""

    TICK = 0.02

    def __init__(self, packets):
        rows = sorted(packets)
        self.rows = rows
        self.streams = np.array([stream for stream, _, _ in rows], dtype=np.int64)
        self.send = np.array([tick * self.TICK for _, tick, _ in rows], dtype=float)
        self.recv = np.array([tick * self.TICK + 0.001 if got else np.nan for _, tick, got in rows],
                             dtype=float)

    def arrays(self):
        return self.streams, self.send, self.recv


@settings(max_examples=60, deadline=None)
@given(st.sets(st.tuples(st.integers(0, 3), st.integers(0, 20)), max_size=40), st.data(),
       st.integers(0, 25))
def test_any_subset_of_streams_and_ticks_received_gives_records_or_none(cells, data, warmup_ticks):
    """Whatever a receiver recorded (no packet at all, streams with none after the warm-up,
    packets lost), each stream it heard from gets one record of its packets after warm-up and
    the pooled entry has n/a values where nothing was counted."""
    packets = [(stream, tick, data.draw(st.booleans())) for stream, tick in sorted(cells)]
    receiver = _Recorded(packets)
    warmup = warmup_ticks * _Recorded.TICK - 1e-9
    records = stream_records(receiver, FixedBuffer(0.04), warmup)
    assert [r.stream for r in records] == sorted({stream for stream, _ in cells})
    counted = [p for p in packets if p[1] * _Recorded.TICK >= warmup]
    assert sum(r.lost.size for r in records) == len(counted)
    assert sum(int(r.lost.sum()) for r in records) == sum(not got for _, _, got in counted)
    entry = quality_entry(records, _fig3_codec())
    assert entry.packets == len(counted)
    if not counted:
        assert entry.network_loss_fraction is None and entry.jitter_mean_ms is None


def test_a_receiver_that_recorded_no_packet_gives_na_values_in_the_summary():
    """A tick longer than the run: the monitored conferences never send, and every entry is n/a."""
    loaded = load_scenario(FIG3, ["vm.instances=2", "vm.streams_per_instance=30000"])
    section = simulate(loaded, 1, duration=1.0, warmup=0.5).to_json()["voice_quality"]
    for entry in [section["measuring_conference"], *section["groups"].values()]:
        assert entry["packets"] == 0 and entry["network_loss_fraction"] is None
    assert section["measuring_conference"]["streams"] == []

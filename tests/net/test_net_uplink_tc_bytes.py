"""The bytes traffic control counts: skb length, charged bytes, tbf's longest packet, htb's
default quantum."""

import pytest
from hypothesis import given, strategies as st

from vsim.net.frames import frame_bytes, ip_bytes_for_rtp
from vsim.net.uplink.tc_bytes import charged_bytes, htb_default_quantum, largest_packet, skb_len, token_time


def test_an_rtp_packet_is_its_payload_plus_54_bytes_at_the_qdisc():
    assert skb_len(ip_bytes_for_rtp(160)) == 214             # G.711, 20 ms
    assert skb_len(ip_bytes_for_rtp(20), vlan=True) == 78    # G.729 with a software VLAN tag
    # no FCS and no padding: a small packet counts less than its Ethernet frame
    assert skb_len(28) == 42 < frame_bytes(28) == 64


def test_overhead_and_atm_cells_are_charged_as_psched_l2t_does():
    assert charged_bytes(214) == 214
    assert charged_bytes(214, overhead=24) == 238
    assert charged_bytes(214, linklayer="atm") == 5 * 53
    assert charged_bytes(96, linklayer="atm") == 2 * 53
    with pytest.raises(ValueError, match="linklayer"):
        charged_bytes(100, linklayer="docsis")


def test_default_quantum_is_rate_over_r2q_clamped():
    assert htb_default_quantum(1e6) == 12_500
    assert htb_default_quantum(10e3) == 1000
    assert htb_default_quantum(1e9) == 200_000
    assert htb_default_quantum(1e6, r2q=5) == 25_000


def test_token_time_is_the_charged_skb_bytes_at_the_rate():
    assert token_time(60, 2e6) == pytest.approx(74 * 8 / 2e6)
    assert token_time(1028, 2e6) == pytest.approx(1042 * 8 / 2e6)
    assert token_time(200, 1e6, overhead=24, linklayer="atm") == pytest.approx(5 * 53 * 8 / 1e6)  # 238 B in 5 cells


@given(bucket=st.integers(60, 20_000), overhead=st.integers(0, 64),
       linklayer=st.sampled_from(["ethernet", "atm"]))
def test_the_largest_packet_is_the_longest_whose_charge_fits_the_bucket(bucket, overhead, linklayer):
    longest = largest_packet(bucket, overhead, linklayer)
    if longest > 0:
        assert charged_bytes(longest, overhead, linklayer) <= bucket
    assert charged_bytes(longest + 1, overhead, linklayer) > bucket

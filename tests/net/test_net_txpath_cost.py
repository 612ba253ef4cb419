"""The transmit stage's per-packet cost and the ceiling it sets (seed 000, Fig 6)."""

import pytest

from vsim.net.frames import serialization_time
from vsim.net.txpath.cost import (FIG6_PER_PACKET, PathCost, ceiling_from_loss,
                                  per_packet_for_ceiling, service_time)


def test_fig6_ceiling_is_near_360k_packets_per_second():
    assert 1 / FIG6_PER_PACKET == pytest.approx(363_000)
    assert FIG6_PER_PACKET == pytest.approx(2.755e-6, rel=1e-3)
    # the flood alone fills 94 % of the wire: the stage, not the link, is the bottleneck
    wire = 390_000 * serialization_time(264, 1e9)
    assert wire == pytest.approx(0.942, abs=0.002)
    assert 390_000 * FIG6_PER_PACKET > 1


def test_service_is_the_longer_of_wire_and_stage():
    cost = PathCost(per_packet=2e-6, per_byte=1e-9)
    assert service_time(60, 1e9, cost) == pytest.approx(2.06e-6)
    assert service_time(1500, 1e9, cost) == pytest.approx(1538 * 8 / 1e9)


def test_inverse_helpers_and_bad_values():
    assert ceiling_from_loss(100.0, 0.25) == 75.0
    assert per_packet_for_ceiling(4.0) == 0.25
    with pytest.raises(ValueError):
        ceiling_from_loss(100.0, 1.0)
    with pytest.raises(ValueError):
        PathCost(per_packet=-1.0)

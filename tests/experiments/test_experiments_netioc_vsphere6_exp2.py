"""netioc-vsphere6 Exp 2's claims from the four cases' sweeps
(``vsim.experiments.netioc_vsphere6_exp2``): the order at every user count, the reserved case's
largest increase over Olio alone."""

from types import SimpleNamespace

import pytest

from vsim.experiments import netioc_vsphere6_exp2 as exp2


def sweep(by_users):
    """A stand-in sweep: {users: [each replication's mean response time, ms]}."""
    points = [SimpleNamespace(x=users, runs=[SimpleNamespace(web_apps={
        exp2.APP: SimpleNamespace(response_time_mean_ms=ms)}) for ms in times])
        for users, times in by_users.items()]
    return SimpleNamespace(points=points, xs=lambda: list(by_users))


def sweeps(default, netioc, reserved, alone):
    return {name: sweep(values) for name, values in zip(
        ("exp2_default", "exp2_netioc", "exp2_reserved", "exp2_alone"),
        (default, netioc, reserved, alone))}


def test_the_study_s_order_at_every_user_count_and_the_larger_increase():
    claims = exp2.exp2_claims(sweeps({150: [30.0, 32.0], 500: [40.0]}, {150: [18.0], 500: [29.0]},
                                     {150: [17.0], 500: [27.5]}, {150: [16.0], 500: [27.0]}))
    assert claims["netioc6.exp2.ordering"].value == 1.0
    assert claims["netioc6.exp2.resp_increase_with_reservation"].value == pytest.approx(17 / 16 - 1)


def test_one_user_count_out_of_order_breaks_the_order():
    claims = exp2.exp2_claims(sweeps({150: [30.0], 500: [40.0]}, {150: [18.0], 500: [27.0]},
                                     {150: [17.0], 500: [27.5]}, {150: [16.0], 500: [27.0]}))
    assert claims["netioc6.exp2.ordering"].value == 0.0

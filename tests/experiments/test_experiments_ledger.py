"""The design-choice ledger: well-formed, naming real claims, and not copied into CALIBRATION.md."""

import pytest

from vsim.core.errors import InputError
from vsim.config.claims import load_claims
from vsim.experiments.ledger import load_design_choices, selected_on
from vsim.experiments.voip_vsphere5 import slope_ratio_note
from vsim.config.models import DEFAULT_MODELS_DIR


def test_every_choice_names_known_claims_and_alternatives():
    known = {claim.id for claim in load_claims()}
    choices = load_design_choices()
    assert choices
    for choice in choices:
        assert choice.claims and set(choice.claims) <= known, choice.name
        assert choice.alternatives and choice.chosen and choice.why, choice.name


def test_calibration_md_copies_no_row_of_the_files_it_explains():
    """The design choices and the parameters' values are tabulated from their files (the generated
    ledger page); CALIBRATION.md gives the reasoning only, so it cannot drift from them."""
    text = (DEFAULT_MODELS_DIR / "CALIBRATION.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("|")]
    for choice in load_design_choices():
        assert not any(row.startswith(f"| {choice.name} |") for row in rows), choice.name
    assert not any(row.startswith(("| parameter |", "| choice |")) for row in rows)


def test_selected_on_collects_every_choice_per_claim():
    choices = load_design_choices()
    marks = selected_on(choices)
    assert sum(len(names) for names in marks.values()) == sum(len(c.claims) for c in choices)


def test_a_malformed_choice_is_an_input_error_naming_it(tmp_path):
    (tmp_path / "design_choices.toml").write_text('[[choice]]\nname = "x"\nchosen = "y"\n')
    with pytest.raises(InputError, match=r"choice\[0\].*missing alternatives, claims, why"):
        load_design_choices(tmp_path)


def test_slope_ratio_note_says_when_the_early_range_does_not_rise():
    flat = slope_ratio_note([(1, 1.0), (2, 1.0), (4, 0.999)], [(4, 0.999), (6, 1.3), (8, 1.6)])
    assert "does not rise from 1 to 4" in flat and "zero or below" in flat and "4: 1.00" in flat


def test_slope_ratio_note_says_when_the_early_rise_is_a_small_fraction_of_the_late_one():
    slow = slope_ratio_note([(1, 1.0), (2, 1.0), (4, 1.01)], [(4, 1.01), (6, 1.3), (8, 1.6)])
    assert "rises by 0.010 ms from 1 to 4 instances" in slow and "times more slowly" in slow
    assert "zero or below" not in slow
    rising = slope_ratio_note([(1, 1.0), (2, 1.1), (4, 1.3)], [(4, 1.3), (6, 1.6), (8, 1.9)])
    assert "more slowly" not in rising and "does not rise" not in rising


def test_slope_ratio_note_says_when_the_early_rise_is_within_the_intervals():
    early, late = [(1, 1.0), (2, 1.05), (4, 1.1)], [(4, 1.1), (6, 1.2), (8, 1.3)]
    noisy = slope_ratio_note(early, late, [(0.8, 1.2), (0.9, 1.2), (0.9, 1.3)])
    assert "within the replications' noise" in noisy and "0.100 ms" in noisy and "(0.200 ms)" in noisy
    narrow = slope_ratio_note(early, late, [(0.98, 1.02), (1.03, 1.07), (1.08, 1.12)])
    assert "noise" not in narrow and "near zero" not in narrow

"""User-facing errors are one line naming source, location and expectation."""

from vsim.core.errors import InputError


def test_message_names_source_key_and_expectation():
    error = InputError("configs/a.toml", "vm.vcpus", "expected an integer >= 1, got -2")
    assert str(error) == "configs/a.toml: vm.vcpus: expected an integer >= 1, got -2"


def test_message_is_one_line_even_with_newlines_in_parts():
    error = InputError("x.toml", "line 3", "invalid TOML:\nExpected '='")
    assert "\n" not in str(error)
    assert str(error).startswith("x.toml: line 3: ")


def test_error_survives_pickling_between_processes():
    import pickle
    error = InputError("a.toml", "vm.instances", "expected an integer >= 1, got 0")
    again = pickle.loads(pickle.dumps(error))
    assert (again.source, again.where, again.expected) == (error.source, error.where, error.expected)
    assert str(again) == str(error)

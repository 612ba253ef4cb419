"""The collector's pacing during a run is undone when the run ends, however it ends."""

import gc

import pytest

from vsim.engines.collections import YOUNG_THRESHOLD, fewer_collections


def test_inside_the_young_threshold_is_raised_and_the_objects_alive_are_frozen():
    before = gc.get_threshold()
    with fewer_collections():
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_an_exception_inside_leaves_the_collector_as_it_was():
    before = gc.get_threshold()
    with pytest.raises(RuntimeError, match="mid-run"):
        with fewer_collections():
            raise RuntimeError("mid-run")
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0

"""Tests of the removal of outputs a previous run left and this one did not write again."""

import json

import pytest

from vsim.outputs.stale_outputs import listed_outputs, remove_stale


@pytest.mark.parametrize("text", ["", "not json", "[1, 2]", '{"files": "a.png"}', '{"name": "x"}'])
def test_a_manifest_that_lists_no_files_lists_nothing(tmp_path, text):
    manifest = tmp_path / "results.json"
    manifest.write_text(text)
    assert listed_outputs(manifest) == set()
    assert listed_outputs(tmp_path / "missing.json") == set()


def test_only_plain_names_in_the_directory_are_taken_from_a_manifest(tmp_path):
    manifest = tmp_path / "results.json"
    manifest.write_text(json.dumps({"files": ["a.png", "../b.png", "/etc/passwd", "sub/c.svg", "..", 3]}))
    assert listed_outputs(manifest) == {"a.png"}


def test_stale_files_go_and_everything_else_stays(tmp_path):
    for name in ("old.png", "new.png", "mine.txt"):
        (tmp_path / name).write_text(name)
    (tmp_path / "gone.svg").mkdir()  # a directory of that name is not a file to remove
    removed = remove_stale(tmp_path, {"old.png", "new.png", "never.png", "gone.svg"}, [tmp_path / "new.png"])
    assert removed == ["old.png"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gone.svg", "mine.txt", "new.png"]


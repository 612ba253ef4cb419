"""Tests of the removal of outputs a previous run left and this one did not write again."""

import hashlib
import json
import os

import pytest

from vsim.outputs.atomic import output_set, write_text
from vsim.outputs.stale_outputs import listed_outputs, remove_stale, written_digests


def sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def manifest_of(tmp_path, names, digests):
    manifest = tmp_path / "results.json"
    manifest.write_text(json.dumps({"files": names, "sha256": digests}))
    return manifest


@pytest.mark.parametrize("text", ["", "not json", "[1, 2]", '{"files": "a.png"}', '{"name": "x"}',
                                  '{"files": ["a.png"]}', '{"files": ["a.png"], "sha256": ["x"]}',
                                  '{"files": ["a.png"], "sha256": {"a.png": 3}}'])
def test_a_manifest_that_records_no_digests_lists_nothing(tmp_path, text):
    manifest = tmp_path / "results.json"
    manifest.write_text(text)
    assert listed_outputs(manifest) == {}
    assert listed_outputs(tmp_path / "missing.json") == {}


def test_only_plain_names_in_the_directory_with_a_digest_are_taken_from_a_manifest(tmp_path):
    names = ["a.png", "../b.png", "/etc/passwd", "sub/c.svg", "..", ".", "", "d.svg"]
    manifest = manifest_of(tmp_path, names + [3], {name: sha256(name) for name in names if name != "d.svg"})
    assert listed_outputs(manifest) == {"a.png": sha256("a.png")}


def test_a_file_the_manifest_merely_names_is_not_removed(tmp_path):
    """A results.json naming the user's file (``"files": ["my_notes.txt"]``) made the next run delete it."""
    (tmp_path / "my_notes.txt").write_text("mine")
    manifest_of(tmp_path, ["my_notes.txt"], {})
    assert remove_stale(tmp_path, listed_outputs(tmp_path / "results.json"), []) == []
    manifest_of(tmp_path, ["my_notes.txt"], {"my_notes.txt": sha256("what was written")})
    assert remove_stale(tmp_path, listed_outputs(tmp_path / "results.json"), []) == []
    assert (tmp_path / "my_notes.txt").read_text() == "mine"


def test_a_file_of_a_kind_no_command_writes_is_not_removed_whatever_its_recorded_digest(tmp_path):
    """A manifest written by hand with the right digest of the user's notes made the next run delete them."""
    (tmp_path / "my_notes.txt").write_text("mine")
    (tmp_path / "old.png").write_text("figure")
    manifest_of(tmp_path, ["my_notes.txt", "old.png"], {"my_notes.txt": sha256("mine"), "old.png": sha256("figure")})
    assert remove_stale(tmp_path, listed_outputs(tmp_path / "results.json"), []) == ["old.png"]
    assert (tmp_path / "my_notes.txt").read_text() == "mine"


def test_stale_files_go_when_unchanged_and_everything_else_stays(tmp_path):
    for name in ("old.png", "new.png", "mine.txt", "edited.png"):
        (tmp_path / name).write_text(name)
    (tmp_path / "gone.svg").mkdir()  # a directory of that name is not a file to remove
    os.symlink(tmp_path / "mine.txt", tmp_path / "link.png")  # nor is a link
    previous = {name: sha256(name) for name in ("old.png", "new.png", "never.png", "gone.svg", "edited.png")}
    previous["link.png"] = sha256("mine.txt")
    (tmp_path / "edited.png").write_text("changed since it was written")
    removed = remove_stale(tmp_path, previous, [tmp_path / "new.png"])
    assert removed == ["old.png"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["edited.png", "gone.svg", "link.png",
                                                                "mine.txt", "new.png"]


def test_the_digests_of_a_set_are_those_of_its_files_before_they_are_in_place(tmp_path):
    with output_set():
        write_text(tmp_path / "a.md", "first")
        write_text(tmp_path / "a.md", "second")
        write_text(tmp_path / "b.md", "other")
        digests = written_digests([tmp_path / "a.md", tmp_path / "b.md"])
        assert not (tmp_path / "a.md").exists()
    assert digests == {"a.md": sha256("second"), "b.md": sha256("other")}
    assert written_digests([tmp_path / "b.md"]) == {"b.md": sha256("other")}

"""Atomic output: a failed write leaves the previous file untouched and no debris."""

import pytest

from vsim.core.atomic import atomic_path, write_text


def test_write_text_replaces_content(tmp_path):
    target = tmp_path / "out" / "result.json"
    write_text(target, "first")
    write_text(target, "second")
    assert target.read_text() == "second"
    assert [p.name for p in target.parent.iterdir()] == ["result.json"]


def test_failure_keeps_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "result.json"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("interrupted")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]


def test_written_file_has_ordinary_permissions(tmp_path):
    import os
    target = tmp_path / "table.md"
    write_text(target, "x")
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask

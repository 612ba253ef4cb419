"""Atomic output: a failed write leaves the previous file untouched and no debris."""

import pytest

from vsim.outputs.atomic import atomic_path, captured_outputs, output_bytes, write_bytes, write_text


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


def test_fifo_target_is_written_into_and_stays_a_fifo(tmp_path):
    import os
    import stat
    import threading
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    write_text(fifo, "through the pipe\n")
    reader.join(timeout=10)
    assert received == ["through the pipe\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]


def _link_to_dev_null(tmp_path):
    """A link to /dev/null in ``tmp_path``: a writer that wrongly renames over its target replaces
    the link, never /dev/null itself."""
    import os
    link = tmp_path / "null"
    link.symlink_to(os.devnull)
    return link


def test_dev_null_is_written_into_through_a_link(tmp_path):
    import os
    import stat
    link = _link_to_dev_null(tmp_path)
    write_text(link, "discarded")
    with atomic_path(link) as tmp:
        tmp.write_bytes(b"discarded too")
    assert link.is_symlink() and stat.S_ISCHR(os.stat(link).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["null"]


def test_a_link_to_a_file_or_to_nowhere_is_not_written_through(tmp_path):
    from vsim.core.errors import InputError
    real = tmp_path / "real.txt"
    real.write_text("old")
    for link, target in [(tmp_path / "link.txt", real), (tmp_path / "dangling.txt", tmp_path / "new" / "o.txt")]:
        link.symlink_to(target)
        with pytest.raises(InputError) as caught:
            write_text(link, "new")
        assert caught.value.one_line() == (f"{link}: expected a file or a new name, found a symbolic link to "
                                           f"{target} (an output is not written through a link)")
        assert link.is_symlink()
    assert real.read_text() == "old" and not (tmp_path / "new").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling.txt", "link.txt", "real.txt"]


def test_write_error_into_a_device_is_one_input_error(tmp_path, monkeypatch):
    import errno
    import os
    from vsim.core.errors import InputError

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    link = _link_to_dev_null(tmp_path)
    monkeypatch.setattr(os, "write", full)
    with pytest.raises(InputError) as caught:
        write_text(link, "x")
    assert caught.value.one_line() == f"{link}: cannot write (No space left on device)"
    assert link.is_symlink()


def test_directory_target_is_refused_and_left_alone(tmp_path):
    from vsim.core.errors import InputError
    target = tmp_path / "dir"
    target.mkdir()
    with pytest.raises(InputError, match="expected a file to write, found a directory"):
        write_text(target, "x")
    assert target.is_dir() and list(tmp_path.iterdir()) == [target]


def test_unwritable_directory_is_one_input_error(tmp_path):
    from vsim.core.errors import InputError
    blocker = tmp_path / "afile"
    blocker.write_text("")
    with pytest.raises(InputError, match="cannot write"):
        write_text(blocker / "out.json", "x")


def _files(directory):
    return {path.name: path.read_text() for path in directory.iterdir()}


@pytest.mark.parametrize("stop", [RuntimeError("a full disk"), KeyboardInterrupt()])
def test_a_set_stopped_midway_leaves_the_earlier_set_untouched(tmp_path, stop):
    from vsim.outputs.atomic import after_commit, output_set
    (tmp_path / "report.md").write_text("old report")
    (tmp_path / "cdf.png").write_text("old figure")
    called = []
    with pytest.raises(type(stop)):
        with output_set():
            write_text(tmp_path / "cdf.png", "new figure")
            after_commit(lambda: called.append("stale removed"))
            raise stop
    assert _files(tmp_path) == {"report.md": "old report", "cdf.png": "old figure"}
    assert called == []


def test_a_set_puts_every_file_in_place_only_when_it_ends(tmp_path):
    from vsim.outputs.atomic import after_commit, output_set
    (tmp_path / "report.md").write_text("old report")
    seen = []
    with output_set():
        write_text(tmp_path / "report.md", "new report")
        write_text(tmp_path / "new.png", "new figure")
        with output_set():  # a nested set joins the outer one
            write_text(tmp_path / "results.json", "{}")
        after_commit(lambda: seen.append(_files(tmp_path)))
        assert (tmp_path / "report.md").read_text() == "old report"
        assert not (tmp_path / "results.json").exists()
    assert seen == [{"report.md": "new report", "new.png": "new figure", "results.json": "{}"}]
    assert _files(tmp_path) == seen[0]


def test_after_commit_outside_a_set_runs_at_once():
    from vsim.outputs.atomic import after_commit
    called = []
    after_commit(lambda: called.append(1))
    assert called == [1]


def test_captured_outputs_are_kept_in_memory_and_written_nowhere(tmp_path):
    """A worker's outputs: what it writes is handed back as bytes, and no file, temporary or
    not, appears (it may be ended at any moment); outside the block writes go to disk again."""
    target = tmp_path / "figures" / "a.svg"
    with captured_outputs() as captured:
        write_text(target, "caf\u00e9")
        write_bytes(tmp_path / "b.png", b"\x89PNG")
        assert output_bytes(target) == "caf\u00e9".encode("utf-8")
    assert captured == {target: "caf\u00e9".encode("utf-8"), tmp_path / "b.png": b"\x89PNG"}
    assert list(tmp_path.iterdir()) == []
    write_bytes(target, captured[target])
    assert target.read_text(encoding="utf-8") == "caf\u00e9"
    assert output_bytes(target) == target.read_bytes()

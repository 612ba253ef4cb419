"""Output paths are checked before any work: read-only files, missing directories, unwritable places."""

import os

import pytest

from vsim.core.errors import InputError
from vsim.outputs.output_check import check_apart, check_output_dir, check_output_file


def refused(call, *args, **kwargs):
    with pytest.raises(InputError) as error:
        call(*args, **kwargs)
    return str(error.value)


def test_stdout_and_a_new_or_writable_file_pass(tmp_path):
    check_output_file("-", "--json")
    check_output_file(tmp_path / "new.json", "--json")
    (tmp_path / "old.json").write_text("x")
    check_output_file(tmp_path / "old.json", "--json")
    assert [p.name for p in tmp_path.iterdir()] == ["old.json"]


def test_a_read_only_file_is_refused_and_kept(tmp_path):
    target = tmp_path / "o.json"
    target.write_text("mine")
    target.chmod(0o444)
    message = refused(check_output_file, target, "--json")
    assert message.startswith(f"{target}: --json: the file is read-only")
    assert target.read_text() == "mine"


def test_a_missing_directory_is_refused_not_created(tmp_path):
    target = tmp_path / "missing" / "o.json"
    message = refused(check_output_file, target, "--json")
    assert f"{tmp_path / 'missing'}/ does not exist" in message
    assert not (tmp_path / "missing").exists()


def test_a_file_in_the_directory_the_command_creates_passes(tmp_path):
    """``sweep --out NEW --json NEW/x.json``: NEW is made before the file is written."""
    out = tmp_path / "new"
    check_output_file(out / "x.json", "--json", created=out)
    check_output_file(out / "x.json", "--json", created=str(out) + "/")
    assert "does not exist" in refused(check_output_file, tmp_path / "other" / "x.json", "--json",
                                       created=out)
    assert "does not exist" in refused(check_output_file, out / "sub" / "x.json", "--json", created=out)
    assert not out.exists()


def test_a_directory_is_not_a_file(tmp_path):
    assert "found a directory" in refused(check_output_file, tmp_path, "--json")


def test_a_place_that_takes_no_new_file_is_refused():
    assert refused(check_output_file, "/proc/o.json", "--json") == \
        "/proc/o.json: --json: cannot write into /proc/ (it takes no new files)"


def test_output_dir_leaf_may_be_missing_but_not_its_parent(tmp_path):
    check_output_dir(tmp_path / "new", "--out")
    assert not (tmp_path / "new").exists()  # checked, not created
    message = refused(check_output_dir, tmp_path / "a" / "b", "--out")
    assert "only b/ itself is created" in message and not (tmp_path / "a").exists()


def test_output_dir_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    assert "expected a directory, found a file" in refused(check_output_dir, tmp_path / "f", "--out")
    assert refused(check_output_dir, tmp_path / "f" / "sub", "--out").endswith(
        f"expected a directory whose parent is a directory; {tmp_path / 'f'} is a file")


def test_read_only_outputs_inside_the_dir_are_refused(tmp_path):
    (tmp_path / "other.txt").write_text("x")
    (tmp_path / "other.txt").chmod(0o444)
    check_output_dir(tmp_path, "--out", files=["results.json"])  # not one of the outputs
    (tmp_path / "results.json").write_text("x")
    (tmp_path / "results.json").chmod(0o400)
    assert "read-only" in refused(check_output_dir, tmp_path, "--out", files=["results.json"])
    study = tmp_path / "study"
    study.mkdir()
    (study / "fig.png").write_text("x")
    os.chmod(study / "fig.png", 0o444)
    assert str(study / "fig.png") in refused(check_output_dir, tmp_path, "--figures", owned=["study"])


def test_a_fifo_or_device_passes_when_writable(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    check_output_file(fifo, "--json")
    link = tmp_path / "null"
    link.symlink_to(os.devnull)
    check_output_file(link, "--json")
    fifo.chmod(0o444)
    if os.access(fifo, os.W_OK):  # root writes anything
        return
    assert "it is not writable" in refused(check_output_file, fifo, "--json")


def test_a_file_where_the_directory_should_be_is_named(tmp_path):
    (tmp_path / "afile").write_text("x")
    message = refused(check_output_file, tmp_path / "afile" / "t.csv", "--trace")
    assert message == (f"{tmp_path / 'afile' / 't.csv'}: --trace: expected a directory to write into; "
                       f"{tmp_path / 'afile'} is not a directory")


def test_outputs_apart_from_inputs_and_each_other(tmp_path):
    config = tmp_path / "s.toml"
    config.write_text("x")
    link = tmp_path / "link.toml"
    link.symlink_to(config)
    check_apart([("--json", "-"), ("--trace", "/dev/null"), ("--out", "/dev/null"), ("--x", None)],
                [("the config", config)])
    check_apart([("--json", tmp_path / "a.json"), ("--trace", tmp_path / "b.csv")], [("the config", config)])
    with pytest.raises(InputError, match="it is the config"):
        check_apart([("--json", link)], [("the config", config)])
    with pytest.raises(InputError, match=r"apart from --json \(.*new.json\)"):
        check_apart([("--json", tmp_path / "new.json"), ("--trace", tmp_path / "sub" / ".." / "new.json")], [])


def test_outputs_inside_a_folder_the_program_reads_are_refused(tmp_path):
    from vsim.outputs.output_check import check_outside
    folder = tmp_path / "models"
    folder.mkdir()
    (tmp_path / "link").symlink_to(folder)
    folders = [("its models", folder)]
    check_outside([("--json", "-"), ("--x", None), ("--json", tmp_path / "models.json"),
                   ("--out", tmp_path)], folders)
    for path in (folder / "m.toml", folder / "new" / "m.toml", folder, tmp_path / "link" / "m.toml"):
        with pytest.raises(InputError) as caught:
            check_outside([("--json", path)], folders)
        assert caught.value.one_line().startswith(f"{path}: --json: expected an output outside {folder}/ "
                                                  f"(its models)")


def test_an_output_that_is_a_link_is_refused_unless_to_a_device(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("theirs")
    (tmp_path / "to-file.json").symlink_to(real)
    (tmp_path / "dangling.json").symlink_to(tmp_path / "missing" / "o.json")
    for name in ("to-file.json", "dangling.json"):
        assert "found a symbolic link to" in refused(check_output_file, tmp_path / name, "--json")
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.md").symlink_to(real)
    assert "found a symbolic link to" in refused(check_output_dir, out, "--out", files=["summary.md"])
    (tmp_path / "study").symlink_to(out)
    assert "expected a directory for the outputs" in refused(check_output_dir, tmp_path, "--figures",
                                                             owned=["study"])
    check_output_dir(tmp_path / "study", "--figures")  # the folder named may be a link to one


@pytest.mark.parametrize("check, name", [
    (check_output_file, "a" * 256 + ".json"),
    (check_output_dir, "d" * 300),
    (lambda path, option: check_output_dir(path.parent, option, files=[path.name]), "f" * 256),
])
def test_a_name_the_file_system_would_refuse_is_one_line_before_any_work(tmp_path, check, name):
    with pytest.raises(InputError) as caught:
        check(tmp_path / name, "--out")
    assert "expected file names of at most 255 bytes" in str(caught.value)
    assert len(str(caught.value)) < 250 and list(tmp_path.iterdir()) == []


def test_a_name_of_255_bytes_is_taken(tmp_path):
    check_output_file(tmp_path / ("a" * 250 + ".json"), "--json")

"""Running the ``vsim`` command line in-process from the tests."""

from vsim import cli


def vsim(capsys, *args):
    """Run the CLI in-process with ``args`` (paths allowed); return (exit code, stdout, stderr)."""
    try:
        code = cli.main([str(arg) for arg in args])
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err):
    """The single ``vsim: error: ...`` line of ``err`` (asserting there is exactly one)."""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("vsim: error: ")
    return lines[0]

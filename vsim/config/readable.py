"""What a config may read: the files its keys name are confined to folders it may read.

A config, or a model file, from someone else names other files: component models
(``host.model``) and a steal trace (``host.steal_trace``). Unchecked, a model ref
``hosts/../../../etc/x`` or a path ``/etc/shadow`` would read any file of the machine and
quote it in an error. So a file named by a file is read only when it lies, links
resolved, in

- vsim's models folder (where a model ref, ``hosts/NAME``, always points),
- the naming file's own folder or a folder below it, or
- vsim's own data (``vsim.config.data_dirs.data_folders``: its models, scenarios and
  the measured inputs those scenarios name);

a path given on the command line (``--set host.steal_trace=PATH``) is the user's own
choice and is read wherever it is.
"""

from pathlib import Path

from vsim.config.data_dirs import data_folders
from vsim.config.override_source import overriding_assignment
from vsim.core.errors import InputError, excerpt


def within(path, folder):
    """Whether ``path``, links resolved, is ``folder`` or lies below it."""
    try:
        Path(path).resolve().relative_to(Path(folder).resolve())
    except (ValueError, OSError, RuntimeError):  # RuntimeError: a link loop on older Pythons
        return False
    return True


def is_file(path):
    """Whether ``path`` is a file; a name the system refuses (one too long) is none."""
    try:
        return Path(path).is_file()
    except OSError:
        return False


def confine(path, named, folders, source, key, what, hint=None):
    """``path`` (as ``named`` in ``source`` at ``key``) when it lies in one of ``folders`` or vsim's
    own data, else an ``InputError`` saying it is not read and how to read it anyway (``hint``;
    by default, to name it on the command line)."""
    if any(within(path, folder) for folder in [*folders, *data_folders()]):
        return Path(path)
    places = " or ".join(f"{folder}/" for folder in folders)
    hint = hint or (f"a config reads no file outside its own folder and vsim's models; to read it, "
                    f"name it on the command line: --set {key}=PATH")
    raise InputError(source, key, f"expected {what} inside {places}; {excerpt(named)!r} is outside ({hint})")


def given_on_command_line(keys, assignments):
    """Whether one of ``assignments`` (``--set`` ``dotted.key=value``) set one of ``keys``, or a
    table holding it: its value, a path, is then the user's own."""
    return any(overriding_assignment(key, list(assignments)) for key in keys)

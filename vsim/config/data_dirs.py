"""Where vsim's component models (``models/``) and scenarios (``configs/``) are.

They live at the top of the repository, beside the package, and a source
checkout (or an editable install) reads them there. A built wheel carries a
copy of both inside the package, in ``vsim/_data/`` (``setup.py`` copies them
at build time), which an installed copy reads instead, wherever it runs from,
together with the measured inputs shipped scenarios name by relative path
(``SCENARIO_INPUTS``, as ``setup.py`` copies them).
"""

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
CHECKOUT = PACKAGE.parent
PACKAGED = PACKAGE / "_data"
FOLDERS = ("models", "configs")
SCENARIO_INPUTS = ("validation/steal",)  # setup.py's: the steal trace of configs/validation/cpu_cgroups.toml


def data_root(checkout=CHECKOUT, packaged=PACKAGED):
    """The folder holding ``models/`` and ``configs/``: the repository's in a source checkout
    (recognised by its ``setup.py`` beside them), else the packaged copy."""
    if (checkout / "setup.py").is_file() and all((checkout / name).is_dir() for name in FOLDERS):
        return checkout
    return packaged


def data_folders(root=None):
    """vsim's own data: its models, its scenarios and the measured inputs they name, which any
    config may read (``vsim.config.readable``)."""
    root = data_root() if root is None else root
    return [root / name for name in FOLDERS + SCENARIO_INPUTS]


def resolve_config(path, root=None):
    """``path`` as given when it exists, else the same relative path among vsim's own scenarios
    when one is there (``configs/voip-vsphere5/fig3.toml`` from any directory), else as given."""
    given = Path(path)
    try:
        if given.exists() or given.is_absolute():
            return given
        shipped = (data_root() if root is None else root) / given
        return shipped if shipped.is_file() else given
    except OSError:  # a name the system refuses (too long): reading it says so
        return given
    shipped = (data_root() if root is None else root) / given
    return shipped if shipped.is_file() else given


def program_folders(root=None):
    """(what, folder) of every folder whose files vsim itself reads: the package (its code, the
    claims file, a packaged copy of the data) and the ``models/`` and ``configs/`` it reads. No
    output may go there: a run writing over a model would change every later run, and one writing
    over the claims file would stop every command. (A checkout's ``figures/`` is not among them:
    the committed results are written there.)"""
    root = data_root() if root is None else root
    return (("the vsim package", PACKAGE), ("vsim's models", root / "models"),
            ("vsim's scenarios", root / "configs"))

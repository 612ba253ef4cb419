"""The documentation pages generated from the project's own data, and the command that writes them.

``docs/configuration.md`` comes from the scenario and model schema, ``docs/calibration-ledger.md``
from the model files, the design choices and the committed claims. Neither is edited by hand:
after changing a schema, a model file, ``models/design_choices.toml`` or the figures, run

    python -m vsim.experiments.docs_pages

from the repository (a test compares the committed pages with what this writes).
"""

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from vsim.config.data_dirs import CHECKOUT
from vsim.config.reference import configuration_reference
from vsim.experiments.ledger_page import calibration_ledger
from vsim.outputs.atomic import output_set, write_text

REGENERATE = "python -m vsim.experiments.docs_pages"

PAGES: dict[str, Callable[[Path], str]] = {
    "docs/configuration.md": lambda root: configuration_reference(),
    "docs/calibration-ledger.md": lambda root: calibration_ledger(root / "figures" / "claims.json",
                                                                  root / "models"),
}
"""Each generated page, by its path in the repository, and how to make its text from the repository root."""


def generated_pages(root: Path = CHECKOUT) -> dict[str, str]:
    """The text of every generated page (path relative to ``root`` -> text)."""
    return {path: make(Path(root)) + "\n" for path, make in PAGES.items()}


def main(argv: list[str] | None = None) -> int:
    """Write every generated page into the repository at ``--root`` (default: this checkout)."""
    parser = argparse.ArgumentParser(prog="python -m vsim.experiments.docs_pages",
                                     description="write the generated pages of docs/")
    parser.add_argument("--root", type=Path, default=CHECKOUT, help="the repository (default: %(default)s)")
    root = parser.parse_args(argv).root
    if not (root / "docs").is_dir() or not (root / "models").is_dir():
        print(f"error: {root}: expected the repository, with docs/ and models/", file=sys.stderr)
        return 2
    pages = generated_pages(root)
    with output_set():
        for path, text in pages.items():
            write_text(root / path, text)
    print("wrote " + ", ".join(pages))
    return 0


if __name__ == "__main__":
    sys.exit(main())

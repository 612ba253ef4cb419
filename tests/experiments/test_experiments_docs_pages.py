"""Writing the generated documentation pages into a repository."""

import shutil

from vsim.config.data_dirs import CHECKOUT
from vsim.experiments.docs_pages import PAGES, generated_pages, main


def _repository(tmp_path):
    """A copy of what the pages are made from: models/, figures/claims.json and an empty docs/."""
    shutil.copytree(CHECKOUT / "models", tmp_path / "models")
    (tmp_path / "figures").mkdir()
    shutil.copy(CHECKOUT / "figures" / "claims.json", tmp_path / "figures")
    (tmp_path / "docs").mkdir()
    return tmp_path


def test_main_writes_every_generated_page(tmp_path, capsys):
    root = _repository(tmp_path)
    assert main(["--root", str(root)]) == 0
    for path, text in generated_pages(root).items():
        assert (root / path).read_text(encoding="utf-8") == text
    assert capsys.readouterr().out == "wrote " + ", ".join(PAGES) + "\n"


def test_main_refuses_a_folder_that_is_not_the_repository(tmp_path, capsys):
    assert main(["--root", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"error: {tmp_path}: expected the repository, with docs/ and models/\n"
    assert list(tmp_path.iterdir()) == []

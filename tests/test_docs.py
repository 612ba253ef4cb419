"""The documentation: README and the mkdocs site in docs/ stay in step with the code and the results.

The generated pages must be what the generator writes now, the site must build with
``mkdocs build --strict`` (no broken link, no page left out of the nav), the command-line
reference must name every option, and the facts the pages quote from committed files (the
figures, the what-if templates, the claim counts, CI's command) must match those files.
"""

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from vsim.cli import build_parser
from vsim.experiments.docs_pages import REGENERATE, generated_pages

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"


def test_generated_pages_are_the_committed_ones():
    for path, text in generated_pages(REPO).items():
        committed = (REPO / path).read_text(encoding="utf-8") if (REPO / path).is_file() else None
        assert committed == text, (f"{path} is not what the schema, models/ and figures/claims.json give "
                                   f"now; write it again with `{REGENERATE}` and commit it")


def test_the_site_builds_strict_without_a_warning(tmp_path):
    pytest.importorskip("mkdocs", reason="mkdocs comes with the test extra: pip install -e '.[test]'")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode == 0 and "WARNING" not in output, output


def _commands(parser, prefix="vsim"):
    """(``vsim CMD`` or ``vsim probe NAME``, its parser) of every command that takes options."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                nested = any(isinstance(a, argparse._SubParsersAction) for a in sub._actions)
                if nested:
                    yield from _commands(sub, f"{prefix} {name}")
                else:
                    yield f"{prefix} {name}", sub


def _section(text, command):
    """The text under the heading naming ``command`` (up to the next heading of its level or above)."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        level = len(line) - len(line.lstrip("#"))
        if level and line[level:].strip() == f"`{command}`":
            end = next((i for i in range(index + 1, len(lines))
                        if lines[i].startswith("#") and len(lines[i]) - len(lines[i].lstrip("#")) <= level),
                       len(lines))
            return "\n".join(lines[index:end])
    return None


def test_the_cli_reference_names_every_option_of_every_command():
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    commands = dict(_commands(build_parser()))
    assert {"vsim run", "vsim sweep", "vsim probe net", "vsim probe cleanup"} <= set(commands)
    for command, parser in commands.items():
        section = _section(text, command)
        assert section is not None, f"docs/cli.md has no section `{command}`"
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
                continue  # --help, and the options a command only refuses with a hint
            names = action.option_strings or [action.metavar or action.dest.upper()]
            assert any(f"`{name}" in section for name in names), f"{command}: {names[0]} is not in docs/cli.md"


def test_the_docs_list_every_committed_figure_and_whatif_template():
    studies = (DOCS / "studies.md").read_text(encoding="utf-8")
    for figure in sorted((REPO / "figures").glob("*/*.png")):
        assert f"`{figure.name}`, `{figure.stem}.svg`" in studies, figure
    whatifs = (DOCS / "whatifs.md").read_text(encoding="utf-8")
    for template in sorted((REPO / "configs" / "whatif").glob("*.toml")):
        assert f"| `{template.name}` |" in whatifs, template
    interfaces = (DOCS / "interfaces.md").read_text(encoding="utf-8")
    assert '"warmup_s", "engine", "models", "summary"' in interfaces


def test_the_readme_quotes_each_studys_claim_counts_from_its_comparison_table():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    tables = sorted((REPO / "figures").glob("*/comparison.md"))
    assert tables
    for table in tables:
        counts = table.read_text(encoding="utf-8").strip().splitlines()[-1]
        assert f"> {counts}" in readme, f"README.md should quote {table.relative_to(REPO)}'s last line: {counts}"


def test_the_readme_gives_the_command_ci_runs():
    ci = [line for line in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines() if line.strip()][-1]
    assert ci in (REPO / "README.md").read_text(encoding="utf-8").splitlines()


def test_the_readme_stays_a_short_page():
    assert len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


WRITTEN_METAVARS = ("PATH", "PATH|-", "DIR", "TRACE", "PCAP")
"""The metavars of the options naming a file or folder a command writes (a positional TRACE is read)."""


def test_the_guarantees_say_what_every_output_option_writes():
    text = (DOCS / "guarantees.md").read_text(encoding="utf-8")
    assert "\n## Outputs\n" in text, "docs/guarantees.md has no section Outputs"
    section = text.split("\n## Outputs\n", 1)[1].split("\n## ", 1)[0]
    rows = {line.split("|")[1].strip(): line for line in section.splitlines() if line.startswith("| `vsim")}
    for command, parser in _commands(build_parser()):
        for action in parser._actions:
            if action.option_strings and action.metavar in WRITTEN_METAVARS:
                row = rows.get(f"`{' '.join(command.split()[:2])}`")
                assert row is not None and f"`{action.option_strings[0]}" in row, (
                    f"docs/guarantees.md's Outputs does not say what {command} {action.option_strings[0]} writes")
    for refused in ("symbolic link", "SHA-256", "models/", "vsim/"):
        assert refused in section


def test_the_guarantees_say_what_a_config_may_read_with_the_limits_the_code_applies():
    from vsim.config.toml_io import NESTING_LIMIT
    from vsim.core.errors import EXCERPT_LIMIT
    from vsim.core.input_files import CONFIG_LIMIT, TRACE_LIMIT
    from vsim.traces.capture_file import MAX_BLOCK, MAX_CAPLEN
    text = (DOCS / "guarantees.md").read_text(encoding="utf-8")
    assert "\n## What a config may read\n" in text
    section = text.split("\n## What a config may read\n", 1)[1].split("\n## ", 1)[0]
    for stated in (f"{CONFIG_LIMIT >> 20} MiB", f"{TRACE_LIMIT >> 30} GiB", f"{NESTING_LIMIT} deep",
                   f"{EXCERPT_LIMIT} characters", str(MAX_CAPLEN), f"{MAX_BLOCK >> 20} MiB"):
        assert stated in section, stated

"""docs/commands.md is the CLI's own `--help`, committed as generated text, and the
command tables of the page and the README name every command."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from docs_examples import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import gen_commands  # noqa: E402 - tools/ is outside the package

PAGE = ROOT / "docs" / "commands.md"
#: each command's --help, run once per test process: the page is generated three times
#: below and the help does not change in between
HELP_ONCE = functools.cache(gen_commands.help_text)


def _table_commands(text: str) -> list[str]:
    return re.findall(r"^\| `([a-z]+)` \|", text, re.M)


def test_the_page_is_what_help_prints(monkeypatch):
    monkeypatch.setattr(gen_commands, "help_text", HELP_ONCE)
    current = PAGE.read_text(encoding="utf-8")
    assert gen_commands.generate(current) == current, (
        f"docs/commands.md differs from what `gradcalc COMMAND --help` prints: regenerate "
        f"it with `{gen_commands.REGENERATE}` and commit the result")


@pytest.mark.parametrize("command", [None, "grad", "plot"])
def test_help_text_is_the_installed_commands_output(command):
    """What the generator writes is what a user's `gradcalc COMMAND --help` shows."""
    env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    args = ["gradcalc", *([command] if command else []), "--help"]
    proc = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0
    shown = "\n".join(line.rstrip() for line in proc.stdout.splitlines()).strip("\n")
    assert gen_commands.help_text(command) == shown
    assert shown in PAGE.read_text(encoding="utf-8")


def test_every_command_has_a_section_and_a_row():
    names = gen_commands.command_names()
    page = PAGE.read_text(encoding="utf-8")
    assert re.findall(r"^## ([a-z]+)$", page, re.M) == ["gradcalc", *names]
    assert sorted(_table_commands(page)) == sorted(names)


def test_the_readme_table_names_every_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `gradcalc ([a-z]+) ", readme, re.M)
    assert sorted(set(rows)) == sorted(gen_commands.command_names())


def test_a_stale_page_is_found_and_rewritten(tmp_path, monkeypatch):
    stale = tmp_path / "commands.md"
    text = PAGE.read_text(encoding="utf-8")
    stale.write_text(text.replace("Usage: gradcalc plot", "Usage: gradcalc plott"),
                     encoding="utf-8")
    monkeypatch.setattr(gen_commands, "help_text", HELP_ONCE)
    monkeypatch.setattr(gen_commands, "PAGE", stale)
    monkeypatch.setattr(gen_commands, "ROOT", tmp_path)
    assert gen_commands.main(["--check"]) == 1
    assert gen_commands.main([]) == 0
    assert stale.read_text(encoding="utf-8") == text
    assert gen_commands.main(["--check"]) == 0

"""Every option the docs give a command is one that command's --help lists: a command
line in a console example (`$ gradcalc CMD ...`) or a code span naming a command
(`grade --roster R`), in the README and every page of docs/. An option that was
removed may be named only as such (its new home is what the command line says)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.main import get_command

from gradcalc.cli import MOVED, app

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COMMAND = get_command(app)


def options_of(name: str) -> set[str]:
    params = COMMAND.commands[name].params  # type: ignore[attr-defined]
    return {o for p in params for o in (*p.opts, *p.secondary_opts)} | {"--help", "-h"}


def uses(text: str) -> list[tuple[str, str]]:
    """(command, option) for every option written after a command's name: in a console
    line (`$ gradcalc CMD ...`, up to a pipe or a redirection) or a code span."""
    names = "|".join(sorted(COMMAND.commands, key=len, reverse=True))  # type: ignore[attr-defined]
    spans = re.findall(r"^\$ (.*)$", text, re.M) + re.findall(r"`([^`\n]+)`", text)
    found = []
    for span in spans:
        for part in re.split(r"[|;&>]", span):
            m = re.match(rf"\s*(?:gradcalc\s+)?({names})\b(.*)", part)
            if m:
                found += [(m.group(1), o) for o in
                          re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", m.group(2))]
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_option_the_docs_give_a_command_is_in_its_help(page):
    wrong = sorted({f"{command} {option}" for command, option in
                    uses(page.read_text(encoding="utf-8"))
                    if option not in options_of(command) and option not in MOVED})
    assert not wrong, f"{page.name} names options that --help does not list: {wrong}"


def test_the_check_finds_an_option_that_is_not_there():
    assert ("grade", "--colour") in uses("`gradcalc grade a.csv --colour`")
    assert "--colour" not in options_of("grade")


#: a removed spelling may be named in the history of the design, nowhere else
HISTORY = {"architecture.md"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_page_gives_a_removed_spelling_for_a_command_of_today(page):
    text = page.read_text(encoding="utf-8")
    found = [m.group(0) for m in re.finditer(r"(?<!then )`check (--file|--replay)\b[^`]*`",
                                             text)]
    assert page.name in HISTORY or not found, f"{page.name}: {found} (say `grade FILE`, " \
        "`gradcalc replay FILE`)"

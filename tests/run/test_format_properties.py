"""Nothing in gradcalc/run/ branches on a format's properties (issue 33): no module there
reads a format's flags (`.binary`, `.inline`, `.fast`, `.person`, `.structured`) or
compares its name to a string; it asks the format's writers instead (`render.formats`,
`render.rows_writer`). Measured with `ast`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RUN = Path(__file__).resolve().parents[2] / "gradcalc" / "run"
FLAGS = {"binary", "inline", "fast", "person", "structured"}


def _names_compared(node: ast.Compare) -> bool:
    """Whether `node` compares a `.name` with a string (`fmt.name == "json"`)."""
    sides = [node.left, *node.comparators]
    return any(isinstance(s, ast.Attribute) and s.attr == "name" for s in sides) and \
        any(isinstance(s, ast.Constant) and isinstance(s.value, str) for s in sides)


def format_reads(source: str) -> list[str]:
    """Each read of a format's flag, and each name compared with a string, in `source`:
    its line and what it reads."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in FLAGS \
                and isinstance(node.ctx, ast.Load):
            found.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Compare) and _names_compared(node):
            found.append(f"line {node.lineno}: .name compared")
    return sorted(found)


def test_the_scan_finds_a_formats_flag_and_its_name_compared():
    source = ("if p.rows.binary and not fmt.inline:\n    pass\n"
              "quick = rows.fast\nif fmt.name == 'json':\n    pass\n")
    assert format_reads(source) == ["line 1: .binary", "line 1: .inline", "line 3: .fast",
                                    "line 4: .name compared"]


def test_the_scan_passes_a_writer_asked():
    source = ("p.rows.require(installed)\nif p.rows.by_ranges() and rows.checks_inline:\n"
              "    pass\nnames = {e.name: e for e in engines}\n")
    assert format_reads(source) == []


@pytest.mark.parametrize("path", sorted(RUN.glob("*.py")), ids=lambda p: p.name)
def test_run_asks_the_writers_not_the_formats_flags(path):
    assert format_reads(path.read_text()) == []

"""docs/pytorch.md runs as written and prints what it says it prints.

The page is a sequence of fenced blocks:
- ```python blocks run in order, in one namespace, with stdout captured;
- a ```text block right after a python block is that block's exact output (a python block
  without one must print nothing);
- a ```diff block right before a python block shows the PyTorch code (`-` lines) turned
  into gradcalc code (`+` lines); its gradcalc side must be that python block, line for
  line, so the page cannot show one thing and run another.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "pytorch.md"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)


def blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(PAGE.read_text(encoding="utf-8"))]


def new_side(diff: str) -> str:
    """The gradcalc side of a diff block: its context and `+` lines."""
    lines = []
    for line in diff.splitlines():
        if line.startswith("-"):
            continue
        if line.startswith(("+", " ")):
            lines.append(line[1:])
        elif line == "":
            lines.append("")
        else:
            raise AssertionError(f"diff line without a marker: {line!r}")
    return "\n".join(lines) + "\n"


def old_side(diff: str) -> str:
    return "\n".join(line[1:] for line in diff.splitlines() if line.startswith(("-", " ")))


def test_the_page_has_the_three_texts_examples():
    kinds = [kind for kind, _ in blocks()]
    assert kinds.count("python") >= 20
    text = PAGE.read_text(encoding="utf-8")
    for needle in ("# From PyTorch to gradcalc", "MyReLU", "class Exp", "retain_graph=True",
                   "m.grad.zero_()", "create_graph=True", "while y.norm() < 1000",
                   "Variable", "jacobian matrix is", "legacy"):
        assert needle in text, needle
    # every block is one of the three kinds, with a language named
    assert set(kinds) <= {"python", "text", "diff"}


def test_every_diff_turns_torch_code_into_the_python_block_after_it():
    seq = blocks()
    checked = 0
    for i, (kind, body) in enumerate(seq):
        if kind != "diff":
            continue
        assert i + 1 < len(seq) and seq[i + 1][0] == "python", "a diff must precede code"
        assert new_side(body) == seq[i + 1][1], f"diff #{checked} differs from its code"
        assert "torch" in old_side(body) or "Function" in old_side(body)
        assert "torch" not in seq[i + 1][1].replace("import gradcalc as torch", "")
        checked += 1
    assert checked >= 10


def test_every_python_block_runs_and_prints_what_the_page_shows():
    seq = blocks()
    namespace: dict = {"__name__": "docs_pytorch"}
    ran = 0
    for i, (kind, body) in enumerate(seq):
        if kind != "python":
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                exec(compile(body, f"{PAGE.name} python block {ran}", "exec"), namespace)
            except Exception as exc:  # pragma: no cover - the message says which block
                pytest.fail(f"python block {ran} raised {type(exc).__name__}: {exc}\n{body}")
        expected = seq[i + 1][1] if i + 1 < len(seq) and seq[i + 1][0] == "text" else ""
        assert out.getvalue() == expected, f"python block {ran}:\n{body}"
        assert not re.search(r"^\s*(import|from) torch", body, re.M), "the page runs no torch"
        ran += 1
    assert ran >= 20

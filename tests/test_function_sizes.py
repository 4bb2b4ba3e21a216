"""Short functions where runs are put together: no function in gradcalc/run/ or
gradcalc/cli/ is over 60 lines or takes over 8 parameters (measured with `ast`)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gradcalc"
MAX_LINES, MAX_PARAMETERS = 60, 8


def sizes(source: str) -> list[tuple[str, int, int]]:
    """Each function of `source`: its name, its lines and its parameters (self and cls
    not counted; *args and **kwargs one each)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
            count = len(names) + (a.vararg is not None) + (a.kwarg is not None)
            count -= bool(names) and names[0] in ("self", "cls")
            out.append((node.name, node.end_lineno - node.lineno + 1, count))
    return out


def too_big(source: str) -> list[str]:
    return [f"{name}: {lines} lines, {count} parameters" for name, lines, count
            in sizes(source) if lines > MAX_LINES or count > MAX_PARAMETERS]


@pytest.mark.parametrize("path", sorted((*(PACKAGE / "run").glob("*.py"),
                                         *(PACKAGE / "cli").glob("*.py"))),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_functions_are_short_and_take_few_parameters(path):
    assert too_big(path.read_text(encoding="utf-8")) == []


def test_the_measure_finds_a_long_function_and_a_wide_one():
    long = "def f():\n" + "    x = 1\n" * 60
    wide = "class C:\n    def m(self, a, b, c, d, e, f, g, h, *rest):\n        pass\n"
    assert too_big(long) == ["f: 61 lines, 0 parameters"]
    assert too_big(wide) == ["m: 2 lines, 9 parameters"]
    assert too_big("def g(a, b, c, d, e, f, g, h):\n    pass\n") == []

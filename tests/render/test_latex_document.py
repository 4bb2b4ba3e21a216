"""--latex: a document whose every formula is LaTeX math, checked by a LaTeX-math reader
(matplotlib's mathtext, the plot extra) and, where a TeX engine is installed, compiled."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from gradcalc.homework.dispatch import solve
from gradcalc.homework.judge import Settings
from gradcalc.homework.kinds.registry import Kind
from gradcalc.render.latex_document import document, escaped

PROBLEMS = [
    ("x^2 sin(3x)", None, {}),
    ("x/(x + 1)", None, {}),
    ("|x| + sqrt(x^2 + 1) + ln(x)", None, {}),
    ("x^2 y + y^3", None, {}),
    ("x^3 sin(x)", None, {"order": 2}),
    ("x^2 e^x", None, {"antiderivative": True}),
    ("1/((x - 1)(x + 2))", None, {"antiderivative": True}),
    ("x^2 + y^2 = 25", None, {"implicit": "y", "order": 2}),
    ("x^3 + y^3 = 6x y", None, {"implicit": "y"}),
    ("L = mean((X@W + b - Y)^2)", ["W"], {"shape": "X=4x3, W=3x2, b=2, Y=4x2"}),
    ("L = -sum(y*log(softmax(z)))", ["z"], {"shape": "z=4, y=4"}),
    ("x^2 sin(x)", None, {"at": "x=2"}),
    ("sqrt(4 - x^2)", None, {"antiderivative": True}),
    ("e^x sin(x)", None, {"antiderivative": True}),
    ("x^x", None, {}),
    ("2x cos(x^2)", None, {"antiderivative": True}),
    ("x cos(x)", None, {"antiderivative": True}),
    ("1/(x^2 + 4)", None, {"antiderivative": True}),
]


def formulas(doc: str) -> list[str]:
    """Every piece of math in the document: display and inline math (an array's cells
    one by one), and each row of an align* with its alignment marks and the lines of
    text between its rows (\\intertext) removed."""
    out = re.findall(r"\\\[(.*?)\\\]", doc, re.S)
    for inline in re.findall(r"\$(.+?)\$", doc):
        out += _cells(inline) if inline.startswith("\\begin{array}") else [inline]
    for block in re.findall(r"\\begin\{align\*\}(.*?)\\end\{align\*\}", doc, re.S):
        block = re.sub(r"\\intertext\{.*\}\n", "", block)
        out += [row.replace("&", " ") for row in block.split("\\\\") if row.strip()]
    return [f.strip() for f in out]


def _cells(array: str) -> list[str]:
    """An array's cells (its column spec, \\hline and the environment left out)."""
    body = re.sub(r"^\\begin\{array\}\{[^}]*\}|\\end\{array\}$", "", array)
    rows = body.replace("\\hline", "").split("\\\\")
    return [c for row in rows for c in row.split("&") if c.strip()]


@pytest.mark.parametrize("function,wrt,kind", PROBLEMS, ids=[p[0] for p in PROBLEMS])
def test_every_formula_parses_as_latex_math(function, wrt, kind):
    mathtext = pytest.importorskip("matplotlib.mathtext")
    doc = document(solve(function, wrt, Kind.read(**kind), Settings()))
    parser = mathtext.MathTextParser("path")
    found = formulas(doc)
    assert len(found) >= 3
    for f in found:
        parser.parse(f"${f}$")  # raises ValueError on anything that is not LaTeX math


def test_text_is_escaped_for_latex():
    assert escaped("a_b & 50% {x}") == r"a\_b \& 50\% \{x\}"


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no TeX engine installed")
def test_the_document_compiles(tmp_path):
    doc = document(solve("x^2 sin(3x)", None, Kind(), Settings()))
    (tmp_path / "s.tex").write_text(doc, encoding="utf-8")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "s.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:]


def test_a_step_of_several_rules_states_its_substitution(invoke):
    """The rows after it are in u: the document says what u is, as the plain line does."""
    run = invoke("derive", "(2x + 1)/(x^2 + 1)", "--antiderivative", "--latex")
    assert ("\\intertext{$u = x^{2} + 1$, $du = 2 x\\, dx$}\n&= \\int \\frac{1}{u}\\, du"
            in run.out)

"""Every line of `derive --latex` is a true equation: the document read back by the
suite's shared reading (tests/readback.py, also `python bench/solutions.py --readback`):
each row equal to the row before, each part of equations (implicit differentiation, a
tangent line) true on the curve with y' its slope, each row's own equation beside it and
each equation a step's method states above it (u and du, x = 2sin(θ) and the right
triangle, the cover-up's coefficients, the tabular table) true with θ and u put in as
their steps say. The headings and labels say the point."""

from __future__ import annotations

import re

import pytest
from readback import check_latex


def _parts(document: str) -> list[tuple[bool, list[str]]]:
    """Each align*'s rows, without their notes, alignment marks, ⇒ and the lines of text
    above them (\\intertext); and whether they are equations (a row begins at the
    alignment mark)."""
    out = []
    for block in re.findall(r"\\begin\{align\*\}\n(.*?)\n\\end\{align\*\}", document, re.S):
        rows = []
        for row in block.split(" \\\\\n"):
            row = re.sub(r"^\\intertext\{.*\}\n", "", row)
            row = row.split(" && ")[0].replace("\\Rightarrow\\ ", "").replace("&", "")
            rows.append(re.sub(r"^=\s*", "", row.strip()))
        out.append((block.startswith("& "), rows))
    return out



def _sections(document: str) -> list[tuple[str, bool, list[str]]]:
    """Each part's heading, whether its rows are equations, and its rows (as `_parts`)."""
    headings = re.findall(r"\\subsection\*\{\$(.*)\$\}\n\\begin\{align\*\}", document)
    return [(h, *p) for h, p in zip(headings, _parts(document), strict=True)]



#: a document of every kind: derivative, higher, at a point, partial, gradient (and at a
#: point), implicit (with and without a point, second order), antiderivative, tangent
EVERY_KIND = [
    ("x^2 sin(3x)",),
    ("[(2x+1)^{10} + 1]^{10}",),
    ("ln(sec(x) + tan(x))",),
    ("t e^(1-2t)",),
    ("x^2 sin(x)", "--at", "x=2"),
    ("sin(x^2)", "--order", "2"),
    ("x^3 e^(2x)", "--order", "2"),
    ("x^3 sin(x)", "--order", "3"),
    ("x^2 y^3", "--partial", "x,y"),
    ("x^3 y", "--partial", "x", "--at", "x=1, y=2"),
    ("x^2 y + y^3",),
    ("x^2 y + y^3", "--at", "x=1, y=2"),
    ("x^2 e^x", "--antiderivative"),
    ("e^x sin(x)", "--antiderivative"),
    ("1/((x - 1)(x + 2))", "--antiderivative"),
    ("sin(2x)^5", "--antiderivative"),
    ("1/(x^2+4x+29)", "--antiderivative"),
    ("x^2 + x y + y^2 = 7", "--implicit", "y", "--at", "x=1, y=2"),
    ("x y^2 = 1", "--implicit", "y", "--at", "x=1, y=-1"),
    ("x^2 + y^2 = 25", "--implicit", "y"),
    ("x^3 + y^3 = 6x y", "--implicit", "y"),
    ("a x^2 - b y^3 = c^2", "--implicit", "y"),
    ("9x^2 + y^2 = 9", "--implicit", "y", "--order", "2", "--at", "x=0, y=3"),
    ("x^2", "--tangent", "x=1"),
    ("x^3 - 2x", "--tangent", "x=-1"),
]


@pytest.mark.parametrize("args", EVERY_KIND, ids=" ".join)
def test_every_latex_line_is_a_true_equation(invoke, args):
    """Each row, each row's own equation and each stated line, read back and true."""
    run = invoke("derive", *args, "--latex")
    assert run.code == 0, run.err
    # gradcalc's reader takes `2 \cdot 1 2` as 2·1·2; a reader of the page as 2·12
    assert not any(re.search(r"\d \d", row) for _, _, rows in _sections(run.out)
                   for row in rows)
    findings = check_latex(run.out).findings
    assert [(f.status, f.line, f.why) for f in findings if f.status != "true"] == []
    assert len(findings) >= 3


@pytest.mark.parametrize("function,least", [
    ("sqrt(4 - x^2)", 3),
    ("sqrt(x^2 - 4)/x", 3),
    ("1/(x^2+9)^(3/2)", 3),
    ("2x cos(x^2)", 1),
    ("x cos(x)", 2),
    ("e^x sin(x)", 1),
    ("1/((x - 1)(x + 2))", 1),
    ("1/(x^2 + 4)", 1),
    ("x^2 e^x", 1),
    ("x^2 sin(x)", 1),
])
def test_what_a_method_states_is_true(invoke, function, least):
    """The lines above the rows (u and du, x = k·sin θ and dx, the right triangle, the
    parts, the cover-up's coefficients, the standard form, the tabular table) are
    equations, each read back and true with θ (or u) put in as its step says."""
    run = invoke("derive", function, "--antiderivative", "--latex")
    assert run.code == 0, run.err
    stated = [f for f in check_latex(run.out).findings if f.line.startswith("\\intertext")]
    assert [f for f in stated if f.status != "true"] == []
    assert len(stated) >= least


@pytest.mark.parametrize("args", [a for a in EVERY_KIND if "--at" in a or "--tangent" in a],
                         ids=" ".join)
def test_the_point_is_in_every_heading_and_label(invoke, args):
    """A value at a point is headed and labelled by the point (f'(2), f(1), `at (x, y) =
    (1, 2):`), and so is the answer: never f'(x) = 4cos(2) + 4sin(2)."""
    run = invoke("derive", *args, "--latex")
    point = re.compile(r"\\text\{at \}|[a-zA-Z]'*\(-?\d+\)")
    evaluated = [(h, rows) for h, _, rows in _sections(run.out)
                 if "\\text{evaluate}" in run.out.split(f"{{${h}$}}")[1].split("\\end{align*}")[0]]
    assert evaluated
    for heading, _ in evaluated:
        assert point.search(heading), heading
    answer = re.search(r"Answer: \\\[ (.*) \\\]", run.out)[1]
    assert point.search(answer) or "--tangent" in args, answer


def test_solve_steps_are_implications_not_a_chain(invoke):
    run = invoke("derive", "x^2 + y^2 = 25", "--implicit", "y", "--latex")
    assert "\\text{solve for } y' &=" not in run.out
    assert "\\Rightarrow\\ & y' = - \\frac{x}{y}" in run.out


def test_the_point_is_in_the_heading(invoke):
    run = invoke("derive", "x^2 sin(x)", "--at", "x=2", "--latex")
    assert "\\subsection*{$f'(2)$}" in run.out
    assert ("f'(2) &= 2^{2} \\cos{\\left(2 \\right)} + 2 \\cdot 2 \\sin{\\left(2 \\right)}"
            in run.out)


def test_log_differentiation_states_ln_y(invoke):
    run = invoke("derive", "x^x", "--latex")
    assert ("\\intertext{$y = x^{x}$: $\\ln{\\left(y \\right)} = x \\ln{\\left(x \\right)}$, "
            "so $\\frac{y'}{y} = \\frac{d}{dx}\\left(x \\ln{\\left(x \\right)}\\right)$ and "
            "$y' = y \\cdot \\frac{y'}{y}$}") in run.out

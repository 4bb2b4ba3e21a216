"""Every line of `derive --latex` is a true equation: each row of an `align*` is read back
(with gradcalc's own LaTeX reading) and checked: a chain of `=` rows equal from row to
row, and in a part of equations (implicit differentiation) every row true once y' is the
answer's dy/dx. Rows with a derivative or integral still to do are the steps' own
business (checked on the tape as they are made) and are skipped here."""

from __future__ import annotations

import re

import pytest
import sympy as sp

from gradcalc.homework import proof
from gradcalc.homework.problem import read_side

POINTS = ({"x": 0.7, "y": 1.3, "yp": -0.4}, {"x": 1.9, "y": -0.6, "yp": 2.2},
          {"x": -1.1, "y": 0.45, "yp": 0.8})


def _parts(document: str) -> list[tuple[bool, list[str]]]:
    """Each align*'s rows, without their notes, alignment marks and ⇒; and whether they
    are equations (a row begins at the alignment mark)."""
    out = []
    for block in re.findall(r"\\begin\{align\*\}\n(.*?)\n\\end\{align\*\}", document, re.S):
        rows = []
        for row in block.split(" \\\\\n"):
            row = row.split(" && ")[0].replace("\\Rightarrow\\ ", "").replace("&", "")
            rows.append(re.sub(r"^=\s*", "", row.strip()))
        out.append((block.startswith("& "), rows))
    return out


def _expr(tex: str) -> sp.Expr | None:
    """A side read back as sympy (y' as yp); None for what is not a formula alone."""
    if any(t in tex for t in ("\\frac{d}", "\\int", "\\text", "f'", "F'", "y''")):
        return None
    tex = tex.replace("y'", "yp").split("\\approx")[0].removesuffix(" + C")
    side = read_side(tex, "function", 0)
    names = ("x", "y", "yp")
    return proof.side_exprs(side, names, {n: 0.5 for n in names})[0]


def _value(e: sp.Expr, point: dict[str, float]) -> complex:
    return complex(e.xreplace({proof.symbol(n): v for n, v in point.items()}).evalf())


def _same(a: sp.Expr, b: sp.Expr) -> bool:
    return all(abs(_value(a, p) - _value(b, p)) <= 1e-9 * (1 + abs(_value(a, p)))
               for p in POINTS)


def _check_chain(rows: list[str]) -> int:
    """Consecutive rows that are formulas are equal; the count of rows compared."""
    sides = [_expr(r.split(" = ")[-1]) for r in rows]
    readable = [s for s in sides if s is not None]
    for a, b in zip(readable, readable[1:]):
        assert _same(a, b), (a, b)
    return len(readable)


def _check_equations(rows: list[str], slope: sp.Expr) -> int:
    """Every row L = R holds with y' put in as the answer's slope."""
    checked = 0
    for row in rows:
        left, right = (_expr(t) for t in row.split(" = "))
        if left is None or right is None:
            continue
        put = {proof.symbol("yp"): slope}
        assert _same(left.xreplace(put), right.xreplace(put)) or _same(
            (left - right).xreplace(put), sp.Integer(0)), row
        checked += 1
    return checked


@pytest.mark.parametrize("args", [
    ("x^2 sin(3x)",),
    ("x^2 sin(x)", "--at", "x=2"),
    ("sin(x^2)", "--order", "2"),
    ("x^2 e^x", "--antiderivative"),
    ("x^2 + x y + y^2 = 7", "--implicit", "y", "--at", "x=1, y=2"),
    ("x^2 + y^2 = 25", "--implicit", "y"),
])
def test_every_latex_line_is_a_true_equation(invoke, args):
    run = invoke("derive", *args, "--latex")
    assert run.code == 0, run.err
    checked = 0
    slope = None
    if "--implicit" in args:
        slope = _expr(re.findall(r"\\Rightarrow\\ & y' = (.*?) &&", run.out)[-1])
    for equations, rows in _parts(run.out):
        if equations and slope is not None:
            checked += _check_equations(rows, slope)
        else:
            checked += _check_chain(rows)
    assert checked >= 1


def test_solve_steps_are_implications_not_a_chain(invoke):
    run = invoke("derive", "x^2 + y^2 = 25", "--implicit", "y", "--latex")
    assert "\\text{solve for } y' &=" not in run.out
    assert "\\Rightarrow\\ & y' = - \\frac{x}{y}" in run.out


def test_the_point_is_in_the_heading(invoke):
    run = invoke("derive", "x^2 sin(x)", "--at", "x=2", "--latex")
    assert "\\subsection*{$f'(2)$}" in run.out
    assert ("f'(2) &= 2^{2} \\cos{\\left(2 \\right)} + 2 \\cdot 2 \\sin{\\left(2 \\right)}"
            in run.out)


def _in(tex: str, names: tuple[str, ...]) -> sp.Expr | None:
    """A formula row's last side read with the substitution variables among its names."""
    tex = tex.split(" = ")[-1]
    if any(t in tex for t in ("\\frac{d}", "\\int", "\\text", "F'")):
        return None
    side = read_side(tex.removesuffix(" + C"), "function", 0)
    return proof.side_exprs(side, names, {n: 0.5 for n in names})[0]


@pytest.mark.parametrize("function,stands,xs", [
    ("sqrt(4 - x^2)", {"u": "2θ", "θ": "asin(x/2)"}, (0.7, -1.3, 1.9)),
    ("sqrt(x^2 - 4)/x", {"θ": "atan(sqrt(x^2 - 4)/2)"}, (2.5, 3.1, 5.0)),
])
def test_rows_in_a_substitution_variable_are_true_with_it_put_in(invoke, function, stands,
                                                                 xs):
    """A row written in θ (or u) equals the rows around it once θ is put in as the
    function of x the substitution made it."""
    run = invoke("derive", function, "--antiderivative", "--latex")
    assert run.code == 0, run.err
    names = ("x", "θ", "u")
    put = {proof.symbol(n): _in(text, names) for n, text in stands.items()}
    (_, rows), *_ = _parts(run.out)
    read = [e for e in (_in(r, names) for r in rows) if e is not None]
    assert len(read) >= 3 and any(e.has(proof.symbol("θ")) for e in read)
    values = [e.xreplace(put).xreplace(put) for e in read]
    for a, b in zip(values, values[1:]):
        assert all(abs(_value(a, {"x": v}) - _value(b, {"x": v}))
                   <= 1e-9 * (1 + abs(_value(a, {"x": v}))) for v in xs), (a, b)

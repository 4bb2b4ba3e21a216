"""Every line of `derive --latex` is a true equation: each row of an `align*` is read back
(with gradcalc's own LaTeX reading) and checked: a chain of `=` rows equal from row to
row, and in a part of equations (implicit differentiation) every row true once y' is the
answer's dy/dx. Rows with a derivative or integral still to do are the steps' own
business (checked on the tape as they are made) and are skipped here."""

from __future__ import annotations

import re

import pytest
import sympy as sp

from gradcalc.errors import GradcalcError
from gradcalc.homework import proof
from gradcalc.homework.problem import read_side

POINTS = ({"x": 0.7, "y": 1.3, "yp": -0.4, "t": 0.3, "a": 1.5, "b": -0.7, "c": 2.0},
          {"x": 1.9, "y": -0.6, "yp": 2.2, "t": -1.2, "a": -0.4, "b": 1.1, "c": 0.5},
          {"x": -1.1, "y": 0.45, "yp": 0.8, "t": 2.1, "a": 0.9, "b": 2.5, "c": -1.3})


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


def _expr(tex: str) -> sp.Expr | None:
    """A side read back as sympy (y' as yp); None for what is not a formula alone."""
    if any(t in tex for t in ("\\frac{d}", "\\int", "\\text", "f'", "F'", "y''",
                              "\\partial")):
        return None
    tex = tex.replace("y'", "yp").split("\\approx")[0].removesuffix(" + C")
    return _read(tex.split(" = ")[0])


def _value(e: sp.Expr, point: dict[str, float]) -> complex:
    return complex(e.xreplace({proof.symbol(n): sp.Float(v) for n, v in point.items()})
                   .evalf())


def _same(a: sp.Expr, b: sp.Expr) -> bool:
    return all(abs(_value(a, p) - _value(b, p)) <= 1e-9 * (1 + abs(_value(a, p)))
               for p in POINTS)


def _check_chain(rows: list[str], stands: dict[sp.Symbol, sp.Expr] | None = None) -> int:
    """Consecutive rows that are formulas are equal (with a substitution's variables put
    in as what they stand for); the count of rows compared."""
    sides = [_expr(r.split(" = ")[-1]) for r in rows]
    for _ in range(2 if stands else 0):
        sides = [None if e is None else e.xreplace(stands) for e in sides]
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


def _sections(document: str) -> list[tuple[str, bool, list[str]]]:
    """Each part's heading, whether its rows are equations, and its rows (as `_parts`)."""
    headings = re.findall(r"\\subsection\*\{\$(.*)\$\}\n\\begin\{align\*\}", document)
    return [(h, *p) for h, p in zip(headings, _parts(document), strict=True)]


def _on_line(rows: list[str]) -> int:
    """A tangent's rows (y - 1 = 2(x - 1), y = 2x - 1): each holds on its last row's line."""
    line = _expr(rows[-1].split(" = ")[1])
    checked = 0
    for row in rows:
        left, right = (_expr(t) if "_0" not in t else None for t in row.split(" = "))
        if left is not None and right is not None:
            put = {proof.symbol("y"): line}
            assert _same(left.xreplace(put), right.xreplace(put)), row
            checked += 1
    return checked


def _on_curve(rows: list[str], curve: tuple[dict[str, float], ...]) -> int:
    """Consecutive rows equal at points of the curve."""
    sides = [e for e in (_expr(r.split(" = ")[-1]) for r in rows) if e is not None]
    for a, b in zip(sides, sides[1:]):
        assert all(abs(_value(a, p) - _value(b, p)) <= 1e-9 * (1 + abs(_value(a, p)))
                   for p in curve), (a, b)
    return len(sides)


#: points of 9x^2 + y^2 = 9 (y' at each the curve's slope, -9x/y)
ELLIPSE = tuple({"x": x, "y": y, "yp": -9 * x / y} for x, y in (
    (0.5, (9 - 2.25) ** 0.5), (-0.8, (9 - 5.76) ** 0.5), (0.3, -(9 - 0.81) ** 0.5)))

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
    """Each part of the document read back: a chain of = equal row to row; a part of
    equations true with y' the answer's slope (a tangent's on its line); y'' with y' put
    in equal with it put in, and on the curve equal at the curve's points."""
    run = invoke("derive", *args, "--latex")
    assert run.code == 0, run.err
    checked = 0
    slope = None
    if "--implicit" in args:
        slope = _expr(re.findall(r"\\Rightarrow\\ & y' = (.*?) &&", run.out)[-1])
    stands = _substitutions(run.out)
    for heading, equations, rows in _sections(run.out):
        # gradcalc's reader takes `2 \cdot 1 2` as 2·1·2; a reader of the page as 2·12
        assert not any(re.search(r"\d \d", row) for row in rows), rows
        if "on the curve" in heading:
            checked += _on_curve(rows, ELLIPSE)
        elif "put in" in heading:
            put = [r.split(" = ")[-1].replace("y'", f"({_latex(slope)})") for r in rows]
            checked += _check_chain(put)
        elif equations and slope is not None:
            checked += _check_equations(rows, slope)
        elif equations:
            checked += _on_line(rows)
        else:
            checked += _check_chain(rows, stands)
    assert checked >= 1


def _substitutions(document: str) -> dict[sp.Symbol, sp.Expr]:
    """What each substitution's variable stands for, from the lines above the rows (u =
    cos(2x), θ = asin(x/2))."""
    out = {}
    for line, _ in _stated(document):
        for m in re.finditer(r"\$(u|w|\\theta) = ([^$]*)\$", line):
            value = _read(m[2])
            if value is not None:
                out[proof.symbol(m[1].replace("\\theta", "θ"))] = value
    return out


def _latex(e: sp.Expr) -> str:
    from gradcalc.homework.reading.student import latex

    return latex(e)


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


# ----------------------------------------------------------------- what a method states

def _read(tex: str) -> sp.Expr | None:
    """A formula of a stated line read back (y' as yp); None for one that is not a
    formula alone (f(1), x_0)."""
    from gradcalc.language.ir import walk
    from gradcalc.language.program import Name

    try:
        side = read_side(tex.replace("y'", "yp"), "function", 0)
    except GradcalcError:
        return None
    names = tuple(sorted({n.id for n in walk(side.program) if isinstance(n, Name)}
                         - {"e", "pi"}))
    return proof.side_exprs(side, names, dict.fromkeys(names, 0.5))[0]


def _stated(document: str) -> list[tuple[str, str]]:
    """Each line of text above a row (\\intertext), with the row's value after it."""
    found = re.findall(r"\\intertext\{(.*)\}\n(?:\\Rightarrow\\ )?&=? ?(.*?)(?: && .*)?"
                       r"(?: \\\\)?$", document, re.M)
    return [(line, row) for line, row in found]


def _differential(tex: str) -> tuple[str, str] | None:
    """`g\\, du` as (g, 'u'), `du` as ('1', 'u'), `-du` as ('-1', 'u'); None otherwise."""
    m = re.fullmatch(r"(?:(.*)\\, |(-?))d(\\\\theta|[a-z])", tex)
    if m is None:
        return None
    return (m[1] if m[1] is not None else f"{m[2]}1"), m[3].replace("\\theta", "θ")


class _Line:
    """The equations of one stated line, checked in order: a definition (u = x^2, A =
    1/3, I = ∫ ...) kept for the ones after it, a differential (du = 2x dx) checked as
    the derivative of its variable's definition, an integral (∫ g du = G) as G' = g,
    any other equation at points with the definitions and the substitutions put in."""

    def __init__(self, stands: dict[sp.Symbol, sp.Expr], row: sp.Expr | None,
                 points: list[dict[str, float]]) -> None:
        self.known, self.row, self.points, self.checked = dict(stands), row, points, 0
        self.defined: dict[sp.Symbol, sp.Expr] = {}  # x = 3tan(θ) too, for dx

    def put(self, e: sp.Expr) -> sp.Expr:
        for _ in range(3):
            e = e.xreplace(self.known)
        return e

    def same(self, a: sp.Expr, b: sp.Expr) -> bool:
        a, b = self.put(a), self.put(b)
        free = {s.name for s in a.free_symbols | b.free_symbols}
        points = [{**dict.fromkeys(free, 0.7), **p} for p in self.points]
        return all(abs(_value(a, p) - _value(b, p)) <= 1e-9 * (1 + abs(_value(a, p)))
                   for p in points)

    def define(self, equation: str) -> bool:
        """Keep `name = value` (not x's: x = 2sin(θ) is checked); whether it was one."""
        left, *rest = equation.split(" = ")
        name, value = _read(left), _read(rest[-1]) if "\\int" not in rest[-1] else None
        if name is None or not name.is_Symbol or value is None or value.has(name):
            return False
        self.defined[name] = value
        if name.name != "x":
            self.known[name] = value
        return True

    def check(self, equation: str) -> None:
        left, *rest = equation.split(" = ")
        for right in rest:
            self.one(left, right)
            left = right

    def one(self, left: str, right: str) -> None:
        d_left, d_right = _differential(left), _differential(right)
        if d_left and d_right:
            var = proof.symbol(d_left[1])
            if var in self.defined:
                by = proof.symbol(d_right[1])
                slope = sp.diff(self.defined[var], by)
                assert self.same(slope, _read(d_right[0]) / _read(d_left[0])), (left, right)
                self.checked += 1
            return
        if left.startswith("\\int "):
            integrand, by = _differential(left[5:])
            assert self.same(sp.diff(_read(right), proof.symbol(by)), _read(integrand))
            self.checked += 1
            return
        name = _read(left)
        if right.startswith("\\int ") and name is not None and name.is_Symbol:
            self.known[name] = self.row  # I = ∫ f dx: I is what the row worked out
            return
        a, b = name, _read(right)
        if a is None or b is None or a.is_Symbol and a.name != "x" and not b.has(a):
            return  # not a formula alone, or a definition
        assert self.same(a, b), (left, right)
        self.checked += 1


def _check_table(array: str, right: sp.Expr, points: list[dict[str, float]]) -> int:
    """The tabular method's table: each u the derivative of the one above, each v an
    antiderivative of the one above (v_1 of dv's g), the signed diagonals the row."""
    x = proof.symbol("x")
    cells = [row.split(" & ") for row in array.split(" \\\\ ")[1:]]
    signs = [c[0].strip().removeprefix("\\hline ").strip() for c in cells]
    us = [_read(c[1].split(" = ")[1]) for c in cells]
    vs = [_read(_differential(c[2].split(" = ")[1])[0] if k == 0 else c[2].split(" = ")[1])
          for k, c in enumerate(cells)]
    line = _Line({}, None, points)
    for k in range(1, len(cells)):
        assert line.same(sp.diff(us[k - 1], x), us[k])
        assert line.same(sp.diff(vs[k], x), vs[k - 1])
    total = sum((1 if s == "+" else -1) * u * v
                for s, u, v in zip(signs, us, vs[1:], strict=False))
    assert line.same(total, right) and us[-1] == 0
    return len(cells)


@pytest.mark.parametrize("function,stands,xs,least", [
    ("sqrt(4 - x^2)", {"θ": "asin(x/2)"}, (0.7, -1.3, 1.9), 6),
    ("sqrt(x^2 - 4)/x", {"θ": "atan(sqrt(x^2 - 4)/2)"}, (2.5, 3.1, 5.0), 5),
    ("1/(x^2+9)^(3/2)", {"θ": "atan(x/3)"}, (0.7, -1.3, 4.0), 5),
    ("2x cos(x^2)", {}, (0.7, -1.3, 1.9), 1),
    ("x cos(x)", {}, (0.7, -1.3, 1.9), 3),
    ("e^x sin(x)", {}, (0.7, -1.3, 1.9), 2),
    ("1/((x - 1)(x + 2))", {}, (0.7, -1.3, 3.5), 3),
    ("1/(x^2 + 4)", {}, (0.7, -1.3, 1.9), 1),
    ("x^2 e^x", {}, (0.7, -1.3, 1.9), 4),
    ("x^2 sin(x)", {}, (0.7, -1.3, 1.9), 4),
])
def test_what_a_method_states_is_true(invoke, function, stands, xs, least):
    """The lines above the rows (u and du, x = k·sin θ and dx, the right triangle, the
    parts, the cover-up's coefficients, the standard form, the tabular table) are
    equations, each true: read back and checked at points with θ (or u) put in as the
    function of x the substitution made it."""
    run = invoke("derive", function, "--antiderivative", "--latex")
    assert run.code == 0, run.err
    points = [{"x": v} for v in xs]
    known = {proof.symbol(n): _read(text) for n, text in stands.items()}
    checked = 0
    for line, row in _stated(run.out):
        value = _read(row.split(" = ")[-1]) if "\\int" not in row and "\\frac{d}" not in row \
            else None
        checker = _Line(known, value, points)
        found = [m for m in re.finditer(r"(at )?\$(.+?)\$", line) if " = " in m[2]]
        equations = [m[2] for m in found if not m[1]]  # `at x = 1` is where, not one
        for equation in equations:
            checker.define(equation)
        for equation in equations:
            if equation.startswith("\\begin{array}"):
                checked += _check_table(equation[len("\\begin{array}{c|l|l} "):-len(
                    " \\end{array}")], value, points)
            else:
                checker.check(equation)
        checked += checker.checked
        known.update({k: v for k, v in checker.known.items() if k.name in ("u", "w")})
    assert checked >= least


def test_log_differentiation_states_ln_y(invoke):
    run = invoke("derive", "x^x", "--latex")
    assert ("\\intertext{$y = x^{x}$: $\\ln{\\left(y \\right)} = x \\ln{\\left(x \\right)}$, "
            "so $\\frac{y'}{y} = \\frac{d}{dx}\\left(x \\ln{\\left(x \\right)}\\right)$ and "
            "$y' = y \\cdot \\frac{y'}{y}$}") in run.out

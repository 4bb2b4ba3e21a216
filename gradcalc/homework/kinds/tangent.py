"""The tangent line at a point: "find the tangent line to f at x = a" (`--tangent x=1`).

The answer is a line in x and y, written as a student writes it: `y = 2x - 1`,
`y - 1 = 2(x - 1)`, `2x - y = 1`, or `2x - 1` alone (read as y = 2x - 1). Both sides
are read by gradcalc's own parser and turned into sympy expressions of the program
(never sympify of the text); the answer is the tangent when it is a line through
(a, f(a)) with slope f'(a), decided exactly: its left side minus its right is
p·x + q·y + r with q ≠ 0, -p/q = f'(a) and p·a + q·f(a) + r = 0. A wrong line is named
for the usual mistakes: f(a) used as the slope, the derivative's formula instead of its
value, the right slope through the wrong point, the normal line, the slope alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import sympy as sp

from gradcalc.errors import GradcalcError
from gradcalc.homework import proof
from gradcalc.homework.exact import exact_number
from gradcalc.homework.judge import Settings, Verdict
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.problem import free_names, function_side, read_problem, read_side
from gradcalc.homework.reading.student import formula, latex
from gradcalc.language.parse import quote
from gradcalc.language.program import EULER
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: the name of a line's dependent variable
Y = "y"


@dataclass(frozen=True)
class Tangent:
    """The truth: f, its input x, the point a, f(a), f'(x) and f'(a), all exact."""

    text: str  # the function as typed
    x: str
    f: Any
    a: Any
    fa: Any
    derivative: Any
    slope: Any

    @property
    def line(self) -> Any:
        """The tangent's right side: f'(a)·(x - a) + f(a), expanded."""
        return sp.expand(self.slope * (proof.symbol(self.x) - self.a) + self.fa)

    def shown(self, value: Any) -> str:
        return formula(value, (self.x,))


def _exprs(text: str, names: tuple[str, ...], limits: Limits, what: str) -> Any:
    """One formula's sympy expression (Euler's `e` as E); GradcalcError when it is not
    one formula of `names`."""
    side = read_side(text, "function", 0, limits, names)
    used = tuple(n for n in free_names(side.program) if n != EULER)
    stray = [n for n in used if n not in names]
    if stray:
        raise GradcalcError(f"the {what} {quote(text)} uses {quote(stray[0])}: it may use "
                            f"{' and '.join(names)} only", kind="input")
    if side.shape or not side.straight:
        raise GradcalcError(f"the {what} {quote(text)} is not one formula", kind="input")
    return proof.side_exprs(side, used, dict.fromkeys(used, 0.5), limits)[0]


def tangent(function: str, kind: Kind, limits: Limits = DEFAULT_LIMITS) -> Tangent:
    """The tangent's truth at the kind's point; GradcalcError when f has none there."""
    (x, value), = kind.tangent
    f_side = function_side(function, limits)
    others = [n for n in free_names(f_side.program) if n not in (x, EULER)]
    if others:
        raise GradcalcError(f"--tangent {x}={value:g}: the function's one input is {x} (it "
                            f"also uses {', '.join(others)})", kind="usage")
    if x == Y:
        raise GradcalcError(f"--tangent: name the input other than {Y} (a line is y = ...)",
                            kind="usage")
    f = _exprs(function, (x,), limits, "function")
    X, a = proof.symbol(x), exact_number(value)
    derivative = sp.diff(f, X)
    fa, slope = sp.simplify(f.subs(X, a)), sp.simplify(derivative.subs(X, a))
    if not all(v.is_real and v.is_finite for v in (fa, slope)):
        raise GradcalcError(f"--tangent {x}={value:g}: f has no tangent line there "
                            f"(f({x}) = {formula(fa)}, f'({x}) = {formula(slope)})",
                            kind="usage")
    return Tangent(function, x, f, a, fa, derivative, slope)


def _sides(answer: str) -> tuple[str, str]:
    """The answer's two sides around its one `=` (`2x - 1` alone is y = 2x - 1)."""
    parts = answer.split("=")
    if len(parts) == 1:
        return Y, answer
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise GradcalcError(f"the answer {quote(answer)}: give a line, e.g. y = 2x - 1",
                            kind="input")
    return parts[0].strip(), parts[1].strip()


def read_line(answer: str, x: str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """The answer's left side minus its right, as sympy (a line of x and y)."""
    names = (x, Y)
    left, right = (_exprs(s, names, limits, "answer") for s in _sides(answer))
    return sp.expand(left - right)


def _linear(h: Any, truth: Tangent) -> tuple[Any, Any, Any] | None:
    """(p, q, r) when h = p·x + q·y + r with numbers p, q, r; None when h is no line."""
    X, Yy = proof.symbol(truth.x), proof.symbol(Y)
    try:
        poly = sp.Poly(h, X, Yy)
    except sp.PolynomialError:
        return None
    if poly.total_degree() != 1 or not all(c.is_number for c in poly.coeffs()):
        return None
    return poly.coeff_monomial(X), poly.coeff_monomial(Yy), poly.coeff_monomial(1)


def _zero(v: Any) -> bool:
    return bool(sp.simplify(v) == 0)


def _mistake(h: Any, line: tuple[Any, Any, Any] | None, truth: Tangent) -> str | None:
    """What the wrong line `h` (= 0) most likely is, as feedback; None when no usual
    mistake explains it."""
    X, Yy = proof.symbol(truth.x), proof.symbol(Y)
    x, a, fa, m = truth.x, truth.shown(truth.a), truth.shown(truth.fa), truth.slope
    if line is None:
        ratio = sp.simplify(h / (Yy - truth.fa - truth.derivative * (X - truth.a)))
        if ratio.is_number and ratio != 0:
            return (f"f'({x}) = {truth.shown(truth.derivative)} is the derivative's formula: "
                    f"the slope is its value at {x} = {a}, f'({a}) = {truth.shown(m)}")
        return "not a line: the tangent line is y = m·x + c, with m = f'(a)"
    p, q, r = line
    if _zero(q):
        return f"a vertical line: the tangent at {x} = {a} has the slope f'({a})"
    slope = -p / q
    through = _zero(p * truth.a + q * truth.fa + r)
    if through and not _zero(m) and _zero(slope + 1 / m):
        return (f"the normal line (slope -1/f'({a})): the tangent's slope is f'({a}) = "
                f"{truth.shown(m)}")
    if _zero(slope - truth.fa) and not _zero(m - truth.fa):
        return f"f({a}) = {fa} is the point's height, not the slope: the slope is " \
               f"f'({a}) = {truth.shown(m)}"
    if _zero(slope - m):
        if _zero(p * truth.fa + q * truth.a + r):
            return f"the point's coordinates are swapped: the line goes through ({a}, {fa})"
        return (f"the slope {truth.shown(m)} is right, but the line does not go through "
                f"({a}, {fa}): y - y₀ = m({x} - x₀) with x₀ = {a}, y₀ = f({a}) = {fa}")
    if _zero(p) and _zero(r / q + m):
        return f"that is the slope f'({a}); the tangent line is y = {truth.shown(truth.line)}"
    return None


def judge(function: str, answer: str, wrt: list[str] | None, kind: Kind, settings: Settings,
          limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt") -> Verdict:
    """The verdict on a tangent line, decided exactly (see the module's docstring)."""
    truth = tangent(function, kind, limits)
    h = read_line(answer, truth.x, limits)
    line = _linear(h, truth)
    base: dict[str, Any] = {
        "expected": f"y = {truth.shown(truth.line)}", "kind": "tangent", "wrt": (truth.x,),
        "read": {"function": f"f({truth.x}) = {function}",
                 "answer": f"{answer if '=' in answer else f'y = {answer}'}"},
        "expected_latex": f"y = {latex(truth.line)}"}
    if line is not None:
        p, q, r = line
        if not _zero(q) and _zero(-p / q - truth.slope) and _zero(
                p * truth.a + q * truth.fa + r):
            return Verdict("correct", "symbolic", score=1.0, **base)
    return Verdict("incorrect", "symbolic", score=0.0, feedback=_mistake(h, line, truth),
                   **base)


def _step(rule: str, at: str, text: str, text_latex: str, before: str, after: str,
          after_latex: str, note: str = "") -> Any:
    from gradcalc.homework.solutions.worked import Step

    return Step(rule, at, text, text_latex, before, after, after_latex, note, check="symbolic")


def _less(name: str, v: Any, shown: str) -> str:
    """name - v, its sign worked in: x - 1, x + 2, x."""
    return name if v == 0 else f"{name} + {formula(-v)}" if v < 0 else f"{name} - {shown}"


def _times(m: Any, shown: str, factor: str) -> str:
    """m·(factor), as a student writes it: 2(x - 1), -(x - 1), (1/2)(x - 1), 0."""
    if m == 0:
        return "0"
    bracket = f"({factor})" if " " in factor else factor
    if m in (1, -1):
        return ("-" if m == -1 else "") + bracket
    return f"{shown}{bracket}" if m.is_Integer else f"({shown}){bracket}"


def point_slope(truth: Tangent) -> str:
    """The tangent in point-slope form: y - 1 = 2(x - 1)."""
    run = _less(truth.x, truth.a, truth.shown(truth.a))
    return (f"{_less(Y, truth.fa, truth.shown(truth.fa))} = "
            f"{_times(truth.slope, truth.shown(truth.slope), run)}")


def solve(function: str, wrt: list[str] | None, kind: Kind, settings: Settings,
          limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt",
          answer: str | None = None) -> Any:
    """The worked solution (`gradcalc.homework.solutions.worked.Solution`, imported only
    when one is asked for): f(a); f'(x) step by step and f'(a) (the derivative kind's
    steps, each checked on the tape); the point-slope form; the slope-intercept form."""
    from gradcalc.homework.solutions.differentiating import solve_problem
    from gradcalc.homework.solutions.evaluating import put_in_latex
    from gradcalc.homework.solutions.worked import Part, Solution

    truth = tangent(function, kind, limits)
    x, a, fa = truth.x, truth.shown(truth.a), truth.shown(truth.fa)
    problem = read_problem(function, "0", [x], limits, wrt_from)
    worked = solve_problem(replace(problem, pinned=kind.tangent), settings.samples,
                           settings.seed, limits)
    f_text, where = truth.shown(truth.f), f"{x} = {a}"
    # headed f(a), the point put into f as its first row: "f(x) at x = 1 = x^2" is false
    height = Part(f"f({x}) at {where}", f"f({latex(truth.a)})", f_text,
                  put_in_latex(latex(truth.f), {x: truth.a}), fa,
                  latex(truth.fa), (_step("evaluate", f_text, f"{f_text} at {where}: {fa}",
                                          f"f({latex(truth.a)}) = {latex(truth.fa)}", f_text,
                                          fa, latex(truth.fa), where),))
    form, line = point_slope(truth), f"y = {truth.shown(truth.line)}"
    form_latex, line_latex = form, f"y = {latex(truth.line)}"
    lines = Part("the tangent line", r"\text{the tangent line}", "y - y₀ = m(x - x₀)",
                 r"y - y_0 = m(x - x_0)", line, line_latex, (
                     _step("point-slope", f"({a}, {fa})", form, form_latex,
                           "y - y₀ = m(x - x₀)", form, form_latex,
                           f"x₀ = {a}, y₀ = f({a}) = {fa}, m = f'({a}) = "
                           f"{truth.shown(truth.slope)}"),
                     _step("slope-intercept", form, f"{form}: {line}", line_latex, form, line,
                           line_latex, "solved for y")))
    how = (f"f'({x})'s steps at {worked.points} points on the tape; f({a}), f'({a}) and the "
           "line's two forms exactly by sympy")
    return Solution("tangent", f"the tangent line to f({x}) = {function} at {where}",
                    f"f({x}) = {latex(truth.f)},\\ {x} = {latex(truth.a)}",
                    [height, *worked.parts, lines], line, line_latex, worked.points,
                    worked.merged, worked.note, how)


def hint_same(kind: Kind, answer: str, foreseen: str, settings: Settings,
              limits: Limits = DEFAULT_LIMITS) -> bool:
    """Whether the answer is the hint's foreseen line: one side minus the other of each
    is the other's times a number."""
    (x, _), = kind.tangent
    ratio = sp.simplify(read_line(answer, x, limits) / read_line(foreseen, x, limits))
    return bool(ratio.is_number and ratio != 0 and ratio.is_finite)


def prompt(kind: Kind, asked: str, wrt: tuple[str, ...]) -> str:
    """What a sheet asks: the tangent line at the point."""
    (x, value), = kind.tangent
    return f"Find the tangent line to the graph of f at {x} = {formula(exact_number(value))}."

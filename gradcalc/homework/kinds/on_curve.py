"""The exact side of implicit differentiation: dy/dx = -F_x/F_y (and d²y/dx²) from sympy,
and a decision on the curve F = 0 where sympy can make one.

The expressions are built from gradcalc's own program objects (proof.side_exprs), never
from text. An answer A is dy/dx on the curve when A·F_y + F_x vanishes wherever F does.
With F a polynomial in x and y and A rational, that is exact algebra: the numerator N of
A - dy/dx (over a common denominator) is a multiple of F (F alone is a Gröbner basis of
the ideal it generates, so the remainder of N divided by F is 0 exactly when it is), and
then A = dy/dx at every point of the curve where F_y ≠ 0 and A is defined: `proved`; so
is an A whose difference from -F_x/F_y expands to 0, on any curve. An answer the
numeric check finds wrong is confirmed at its counterexample: x there is a
float, so an exact rational, and y is the real root of F(x, y) = 0 nearest the point,
found to 45 digits by Newton's method and bracketed exactly (F changes sign, in rational
arithmetic, across 2·10⁻⁴⁰ around it); the two sides differ there in 30-digit arithmetic:
`refuted`. An equation's named constants are symbols like x and y (polynomials in all of
them; at a counterexample, their exact values there). Anything else (a curve or an
answer that is not polynomial, a root Newton's method does not bracket, the budget of
CPU time spent) decides nothing, and the numeric check stands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from gradcalc.homework import proof, true_derivative
from gradcalc.homework.problem import Side
from gradcalc.homework.reading.student import formula
from gradcalc.limits import Limits

#: digits of the arithmetic at an exact point of the curve
DIGITS = proof.CONFIRM_DIGITS
#: where the symbolic runs record their path (only formulas that branch use it)
AT = 0.5
#: Newton steps at most to an exact point of the curve
NEWTON_STEPS = 100


@dataclass(frozen=True)
class Slope:
    """F (the equation's sides subtracted) and dy/dx or d²y/dx², as sympy expressions."""

    h: Any
    slope: Any
    x: sp.Symbol
    y: sp.Symbol
    constants: tuple[sp.Symbol, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (self.x.name, self.y.name, *(c.name for c in self.constants))


def _diff(f: Any, by: Any) -> Any:
    """sympy's derivative in the tape's conventions (sign' = 0: no DiracDelta)."""
    return true_derivative.torch_convention(true_derivative.real_diff(f, by))


def slope(side: Side, x: str, y: str, order: int, limits: Limits,
          constants: tuple[str, ...] = ()) -> Slope:
    """-F_x/F_y, or its derivative along the curve for order 2 (call inside a budget)."""
    names = (x, y, *constants)
    h = proof.side_exprs(side, names, dict.fromkeys(names, AT), limits)[0]
    X, Y = proof.symbol(x), proof.symbol(y)
    p = -_diff(h, X) / _diff(h, Y)
    if order == 2:
        p = _diff(p, X) + _diff(p, Y) * p
    return Slope(h, p, X, Y, tuple(proof.symbol(c) for c in constants))


def text(s: Slope) -> str:
    """The slope as the student writes it, simplified; on a polynomial curve its
    numerator is reduced modulo F when that is shorter (-(x^2 + y^2)/y^3 is -25/y^3 on
    x^2 + y^2 = 25)."""
    shown = sp.simplify(s.slope)
    if shown.has(sp.Piecewise) and not s.slope.has(sp.Piecewise):
        shown = s.slope  # simplify's cases at points (sin(x) == 0 & ...) cannot be typed
    curve = _polynomial(sp.numer(sp.together(s.h)), s)
    top, bottom = sp.fraction(sp.together(shown))
    numerator = _polynomial(top, s)
    if curve is not None and numerator is not None and curve.total_degree() > 0:
        reduced = sp.div(numerator, curve)[1].as_expr() / bottom
        if sp.count_ops(reduced) < sp.count_ops(shown):
            shown = reduced
    return formula(shown, s.names)


def answer_expr(a_side: Side, s: Slope, limits: Limits) -> Any:
    return proof.side_exprs(a_side, s.names, dict.fromkeys(s.names, AT), limits)[0]


def proved(s: Slope, answer: Any) -> bool:
    """Whether answer - slope is 0 as it stands or once expanded, or its numerator is a
    multiple of the curve's polynomial."""
    difference = sp.together(answer - s.slope)
    curve = _polynomial(sp.numer(sp.together(s.h)), s)
    if curve is not None and curve.is_zero:
        return False
    if curve is not None:
        denominator = _polynomial(sp.denom(difference), s)
        if denominator is not None and sp.div(denominator, curve)[1].is_zero:
            return False  # undefined on the whole curve
    if difference == 0 or sp.expand(sp.numer(difference)) == 0:
        return True  # the same formula, on the curve and off it
    numerator = _polynomial(sp.numer(difference), s)
    if curve is None or numerator is None:
        return False
    return bool(sp.div(numerator, curve)[1].is_zero)


def refuted(s: Slope, answer: Any, point: dict[str, float], rtol: float, atol: float
            ) -> bool:
    """Whether the answer and the slope differ at the exact point of the curve at this
    x, y the root of F(x, y) = 0 nearest the point's y."""
    X, Y = s.x, s.y
    fixed = {v: sp.Rational(point[v.name]) for v in (X, *s.constants)}
    at_x = sp.numer(sp.together(s.h.subs(fixed)))
    try:
        poly = sp.Poly(at_x, Y)
    except sp.PolynomialError:
        return False
    if poly.degree() < 1 or not poly.domain.is_QQ and not poly.domain.is_ZZ:
        return False
    y0 = _root_near(poly, point[Y.name])
    if y0 is None:
        return False
    at = {**fixed, Y: y0}
    if sp.diff(s.h, Y).subs(at).evalf(DIGITS) == 0:
        return False
    a, p = (sp.N(e.subs(at), DIGITS) for e in (answer, s.slope))
    if not (a.is_real and p.is_real and a.is_finite and p.is_finite):
        return False
    return bool(abs(a - p) > atol + rtol * max(abs(a), abs(p)))


def _root_near(poly: sp.Poly, y: float) -> sp.Float | None:
    """The root of poly (rational coefficients) beside y, to 45 digits: Newton's method in
    50-digit arithmetic, then bracketed exactly (poly changes sign across an interval of
    width 2e-40 around it, in rational arithmetic), so a true root lies that close."""
    import mpmath

    with mpmath.workdps(DIGITS + 20):
        coeffs = [mpmath.mpf(c.p) / c.q for c in poly.all_coeffs()]
        slopes = [c * k for c, k in zip(coeffs, range(len(coeffs) - 1, 0, -1),
                                        strict=False)]
        r = mpmath.mpf(y)
        for _ in range(NEWTON_STEPS):
            d = mpmath.polyval(slopes, r)
            if d == 0:
                return None
            step = mpmath.polyval(coeffs, r) / d
            r -= step
            if abs(step) <= mpmath.mpf(10) ** -(DIGITS + 15) * (1 + abs(r)):
                break
        else:
            return None
        near = sp.Rational(mpmath.nstr(r, DIGITS + 15, strip_zeros=False))
    if abs(float(near) - y) > 1e-6 * (1 + abs(y)):
        return None  # the numeric point was not near a root
    width = sp.Rational(1, 10**40) * (1 + abs(near))
    below, above = poly.eval(near - width), poly.eval(near + width)
    if below == 0 or above == 0 or (below > 0) == (above > 0):
        return None
    return sp.Float(near, DIGITS + 15)


def _polynomial(e: Any, s: Slope) -> sp.Poly | None:
    """e as a polynomial in x, y and the constants with rational coefficients, or None."""
    try:
        poly = sp.Poly(sp.expand(e), s.x, s.y, *s.constants)
    except sp.PolynomialError:
        return None
    return poly if poly.domain.is_QQ or poly.domain.is_ZZ else None

"""Trigonometric substitution: x = k·sin θ, k·tan θ or k·sec θ for a root of a + b·x²,
the integral in θ, then θ's functions written back in x by the right triangle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy as sp

from gradcalc.homework.solutions.integral_search import MAX_DEPTH, children, chosen

#: sympy's rules that integrate a square root of a quadratic by a formula, not by steps
SQRT_FORMULAS = frozenset({"SqrtQuadraticRule", "SqrtQuadraticDenomRule",
                           "ReciprocalSqrtQuadraticRule", "TrigSubstitutionRule",
                           "ArcsinhRule"})


def by_formula(rule: Any) -> bool:
    """Whether sympy's tree integrates a root of a quadratic by a formula somewhere."""
    while type(rule).__name__ == "AlternativeRule":
        rule = chosen(rule)
    return type(rule).__name__ in SQRT_FORMULAS or any(
        by_formula(c) for c in children(rule))


@dataclass(frozen=True)
class TrigSubRule:
    """∫ f(x) dx with x = k·sin θ (√(a − b·x²)), k·tan θ (√(a + b·x²)) or k·sec θ
    (√(b·x² − a)): the integral in θ (`substep`), then θ's functions written back in x
    by the right triangle whose sides are `sides` (opposite, adjacent, hypotenuse)."""

    integrand: Any
    variable: Any
    theta: Any
    func: Any  # x as a function of θ
    root: tuple[Any, Any]  # (√q in x, the same in θ)
    sides: tuple[Any, Any, Any]
    inverse: Any  # θ as a function of x, as a textbook writes it
    substep: Any

    @property
    def branch(self) -> Any:
        """θ as a function of x on the whole domain, for the checks: for x = k·sec θ and
        x < −k the angle whose tan is positive and sec negative (π more than `inverse`,
        which a textbook writes, the same up to a constant)."""
        if isinstance(self.func.as_independent(self.theta, as_Add=False)[1], sp.sec):
            x = self.variable  # x/|x|, not sign(x): its derivative is 0, not δ(x)
            return self.inverse + sp.pi * (1 - x / sp.Abs(x)) / 2
        return self.inverse

    @property
    def triangle(self) -> dict[Any, Any]:
        """sin θ, cos θ, ... as functions of x (the triangle's ratios)."""
        opposite, adjacent, hypotenuse = self.sides
        t = self.theta
        return {sp.sin(t): opposite / hypotenuse, sp.cos(t): adjacent / hypotenuse,
                sp.tan(t): opposite / adjacent, sp.sec(t): hypotenuse / adjacent,
                sp.csc(t): hypotenuse / opposite, sp.cot(t): adjacent / opposite}

    def back(self, value: Any) -> Any:
        """A function of θ written in x (multiple angles expanded first; a log of the
        triangle's ratios is a log of their absolute value, as ∫ sec = ln|sec + tan|)."""
        in_x = sp.expand_trig(value).xreplace(self.triangle).xreplace(
            {self.theta: self.inverse})
        return in_x.replace(lambda e: isinstance(e, sp.log) and not isinstance(
            e.args[0], sp.Abs) and e.args[0].is_positive is not True,
            lambda e: sp.log(sp.Abs(e.args[0])))

    def eval(self) -> Any:
        return self.back(self.substep.eval())


def _root_quadratic(f: Any, x: Any) -> tuple[Any, Any, Any] | None:
    """(q, a, b) for the first q = a + b·x² (a, b nonzero numbers) f holds under a root
    (or raised to a power −2 or below)."""
    for node in sp.preorder_traversal(f):
        if node.is_Pow and node.exp.is_Rational and (
                node.exp.q == 2 or (node.exp.is_Integer and node.exp <= -2)):
            q = node.base
            if q.is_polynomial(x) and sp.degree(q, x) == 2:
                coeffs = sp.Poly(q, x).all_coeffs()
                b, zero, a = coeffs
                if zero == 0 and a.is_number and b.is_number and a != 0:
                    return q, a, b
    return None


def trig_substitution(f: Any, x: Any, depth: int, steps: Callable[..., Any]) -> Any:
    """A TrigSubRule for the first root of a quadratic in f, when the integral in θ is
    found; None otherwise."""
    found = _root_quadratic(f, x)
    if found is None or depth >= MAX_DEPTH:
        return None
    q, a, b = found
    theta = sp.Dummy("theta", real=True)
    m, k = sp.sqrt(abs(a)), sp.sqrt(abs(a)) / sp.sqrt(abs(b))
    if a > 0 and b < 0:
        func, h, inverse = k * sp.sin(theta), sp.cos(theta), sp.asin(x / k)
        sides = (x * m / k, sp.sqrt(q), m)
    elif a > 0:
        func, h, inverse = k * sp.tan(theta), sp.sec(theta), sp.atan(x / k)
        sides = (x * m / k, m, sp.sqrt(q))
    elif b > 0:
        func, h, inverse = k * sp.sec(theta), sp.tan(theta), sp.atan(sp.sqrt(q) / m)
        sides = (sp.sqrt(q), m, x * m / k)
    else:
        return None
    g = _in_theta(f, x, q, m * h, func) * d_theta(func, theta)
    if g.has(x):
        return None
    inner = None
    for form in dict.fromkeys((_reciprocals(g, theta), _in_secants(g, theta),
                               _in_sin_cos(g, theta))):
        inner = steps(form, theta, depth + 1)
        if inner is not None:
            break
    if inner is None:
        return None
    return TrigSubRule(f, x, theta, func, (sp.sqrt(q), m * h), sides, inverse, inner)


def _in_theta(f: Any, x: Any, q: Any, root: Any, func: Any) -> Any:
    """f with each power of q written as a power of its root in θ, then x = func."""
    powers = {p: root ** (2 * p.exp) for p in sp.preorder_traversal(f)
              if p.is_Pow and p.base == q and p.exp.is_Rational}
    return f.xreplace(powers).xreplace({x: func})


def _reciprocals(g: Any, theta: Any) -> Any:
    """1/sec^n as cos^n, 1/csc^n as sin^n, 1/cos^n as sec^n (the forms a table uses)."""
    flip = {sp.sec: sp.cos, sp.csc: sp.sin, sp.cos: sp.sec}
    def flipped(e: Any) -> Any:
        base, power = e.as_base_exp()
        if type(base) in flip and power.is_Integer and power < 0:
            return flip[type(base)](base.args[0]) ** -power
        return e
    return g.replace(lambda e: e.is_Pow, flipped)


def d_theta(func: Any, theta: Any) -> Any:
    """dx/dθ as a table writes it: (k·sin θ)' = k·cos θ, (k·tan θ)' = k·sec² θ,
    (k·sec θ)' = k·sec θ·tan θ."""
    k, trig = func.as_independent(theta, as_Add=True)[1].as_independent(theta, as_Add=False)
    return k * {sp.sin: sp.cos(theta), sp.tan: sp.sec(theta) ** 2,
                sp.sec: sp.sec(theta) * sp.tan(theta)}[type(trig)]


def _in_secants(g: Any, theta: Any) -> Any:
    """g with each tan² written sec² − 1 and expanded (sec·tan² is sec³ − sec)."""
    t = sp.tan(theta)
    return sp.expand(g.replace(lambda e: e.is_Pow and e.base == t and e.exp.is_even,
                               lambda e: (sp.sec(theta) ** 2 - 1) ** (e.exp // 2)))


def _in_sin_cos(g: Any, theta: Any) -> Any:
    """g with tan, sec, csc and cot written by sin and cos, as one fraction."""
    s, c = sp.sin(theta), sp.cos(theta)
    return sp.cancel(g.xreplace({sp.tan(theta): s / c, sp.sec(theta): 1 / c,
                                 sp.csc(theta): 1 / s, sp.cot(theta): c / s}))


# ------------------------------------------------------------------- a root of b·x² + c·x + d


def _shift_under_root(f: Any, x: Any) -> tuple[Any, Any] | None:
    """(q, h) for the first q = b·x² + c·x + d (c ≠ 0, numbers) f holds under a root (or
    raised to a power −2 or below): q = b·(x + h)² + (d − b·h²)."""
    for node in sp.preorder_traversal(f):
        if node.is_Pow and node.exp.is_Rational and (
                node.exp.q == 2 or (node.exp.is_Integer and node.exp <= -2)):
            q = node.base
            if q.is_polynomial(x) and sp.degree(q, x) == 2:
                b, c, d = sp.Poly(q, x).all_coeffs()
                if c != 0 and all(v.is_number for v in (b, c, d)):
                    return q, c / (2 * b)
    return None


def square_completed_in_root(f: Any, x: Any) -> Any:
    """f with its root's quadratic written b·(x + h)² + k (the square completed); None
    when f holds no root of a quadratic with a linear term."""
    found = _shift_under_root(f, x)
    if found is None:
        return None
    q, h = found
    b = sp.Poly(q, x).LC()
    k = sp.expand(q - b * (x + h) ** 2)
    return f.xreplace({q: b * (x + h) ** 2 + k})


def completed_square_substitution(f: Any, x: Any, depth: int,
                                  steps: Callable[..., Any]) -> Any:
    """∫ f dx for a root of b·x² + c·x + d: the square completed (a rewrite), then
    u = x + h, whose integral holds a root of b·u² + k for a trig substitution; None when
    the integral in u is not found."""
    from sympy.integrals.manualintegrate import RewriteRule, URule

    g = square_completed_in_root(f, x)
    if g is None or depth >= MAX_DEPTH:
        return None
    h = _shift_under_root(f, x)[1]  # type: ignore[index]
    u = sp.Dummy("u")
    inner = steps(g.xreplace({x: u - h}), u, depth + 1)
    if inner is None:
        return None
    if isinstance(inner, TrigSubRule) and not isinstance(
            inner.func.as_independent(inner.theta, as_Add=False)[1], sp.sec):
        return RewriteRule(f, x, g, _shifted(inner, u, x, h, g))
    return RewriteRule(f, x, g, URule(g, x, u, x + h, inner))


def _shifted(rule: TrigSubRule, u: Any, x: Any, h: Any, g: Any) -> TrigSubRule:
    """The trig substitution in u = x + h written in x at once (x + h = 3sin θ, not u
    first), as a course does it."""
    back = {u: x + h}
    return TrigSubRule(g, x, rule.theta, rule.func - h,
                       tuple(r.xreplace(back) for r in rule.root),  # type: ignore[arg-type]
                       tuple(s.xreplace(back) for s in rule.sides),  # type: ignore[arg-type]
                       rule.inverse.xreplace(back), rule.substep)

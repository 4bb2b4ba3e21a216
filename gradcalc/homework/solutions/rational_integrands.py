"""Rational integrands as a course takes them: partial fractions (sympy's `apart`), with
the coefficients found by the cover-up method where the factors are linear and
distinct; a quadratic denominator without real roots with its square completed.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from gradcalc.homework.reading.student import formula


def partial_fractions(f: Any, x: Any) -> Any:
    """f as partial fractions, when f is a rational function with a denominator of degree
    2 or more that they change; else None."""
    if not f.is_rational_function(x):
        return None
    bottom = sp.denom(sp.together(f))
    if sp.degree(bottom, x) < 2:
        return None
    fractions = sp.apart(f, x)
    return fractions if fractions.is_Add and fractions != f else None


def completed_square(f: Any, x: Any) -> Any:
    """c/(x^2 + bx + d) with no real roots: c/((x + b/2)^2 + (d − b^2/4))."""
    if not f.is_rational_function(x):
        return None
    top, bottom = sp.fraction(sp.together(f))
    if top.has(x) or not bottom.is_polynomial(x) or sp.degree(bottom, x) != 2:
        return None
    a, b, c = sp.Poly(bottom, x).all_coeffs()
    if b == 0 or b**2 - 4 * a * c >= 0:
        return None
    h = b / (2 * a)
    return top / (a * ((x + h) ** 2 + (c / a - h**2)))



def cover_up(f: Any, x: Any) -> str:
    """How the coefficients of p/q's partial fractions are found, when q is a product of
    distinct linear factors and p of lower degree (the cover-up method: A = p(r)/q_r(r),
    q_r being q without the factor x − r); '' otherwise."""
    top, bottom = sp.fraction(sp.together(f))
    if not bottom.is_polynomial(x) or sp.degree(top, x) >= sp.degree(bottom, x):
        return ""
    factors = sp.factor_list(bottom, x)[1]
    if any(m != 1 or sp.degree(p, x) != 1 for p, m in factors):
        return ""
    letters = "ABCDEFGH"[:len(factors)]
    if len(letters) < len(factors):
        return ""
    fractions, found = [], []
    for letter, (p, _) in zip(letters, factors, strict=True):
        root = sp.solve(p, x)[0]
        others = sp.cancel(bottom / p)
        value = sp.cancel(top.subs(x, root) / others.subs(x, root))
        fractions.append(f"{letter}/({formula(p)})")
        found.append(f"{letter} = {formula(value)} (at {x} = {formula(root)})")
    return (f"{formula(f)} = {' + '.join(fractions)}; cover-up: " + ", ".join(found))


def perfect_power(f: Any, x: Any) -> Any:
    """c/(x^2 + 4x + 4) as c/(x + 2)^2: a denominator that is a power of one linear
    factor, written so; None otherwise."""
    if not f.is_rational_function(x):
        return None
    top, bottom = sp.fraction(sp.together(f))
    if top.has(x) or not bottom.is_polynomial(x) or sp.degree(bottom, x) < 2:
        return None
    c, factors = sp.factor_list(bottom, x)
    if len(factors) != 1 or factors[0][1] < 2 or sp.degree(factors[0][0], x) != 1:
        return None
    base, k = factors[0]
    return top / (c * base**k)

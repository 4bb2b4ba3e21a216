"""Integration by parts: once (u the polynomial factor of p(x)·g(x)) and as a table
(p of degree 2 or more times an exponential, sin, cos, sinh or cosh of a linear
argument: p's derivatives against g's antiderivatives, the diagonals summed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy as sp

from gradcalc.homework.solutions.integral_search import MAX_POWER, sympy_steps


def parts(f: Any, x: Any, depth: int, steps: Callable[..., Any]) -> Any:
    """A PartsRule for p(x)·g(x), p a polynomial: u = p, dv = g dx, when g's integral
    and v·du's are found (x·cosh(x), x^2·sinh(2x), where sympy's rules find none)."""
    from sympy.integrals.manualintegrate import PartsRule

    coeff, rest = f.as_independent(x, as_Add=False)
    factors = sp.Mul.make_args(rest)
    poly = sp.Mul(*[a for a in factors if a.is_polynomial(x)])
    dv = sp.Mul(*[a for a in factors if not a.is_polynomial(x)])
    if coeff != 1 or poly == 1 or dv == 1 or sp.degree(poly, x) > MAX_POWER:
        return None
    v_step = steps(dv, x, depth + 1)
    if v_step is None:
        return None
    second = steps(sp.expand(v_step.eval() * sp.diff(poly, x)), x, depth + 1)
    return None if second is None else PartsRule(f, x, poly, dv, v_step, second)



def parts_by_rational_factor(f: Any, x: Any, depth: int, steps: Callable[..., Any]) -> Any:
    """A PartsRule with dv = dx/(ax + b)^k (k ≥ 2) and u the rest, when v·du cancels to
    an integrand no larger than f that the rules take: x·e^x/(x + 1)^2 is u = x·e^x,
    dv = dx/(x + 1)^2, du = (x + 1)·e^x dx, v = −1/(x + 1), leaving ∫ e^x dx."""
    from sympy.integrals.manualintegrate import PartsRule

    factors = sp.Mul.make_args(f)
    powers = [a for a in factors if a.is_Pow and a.exp.is_Integer and a.exp <= -2
              and a.base.is_polynomial(x) and sp.degree(a.base, x) == 1]
    if len(powers) != 1:
        return None
    dv = powers[0]
    u = sp.Mul(*[a for a in factors if a is not dv])
    if not u.has(x) or u.is_polynomial(x):
        return None
    v_step = steps(dv, x, depth + 1)
    if v_step is None:
        return None
    rest = sp.cancel(v_step.eval() * sp.diff(u, x))
    if sp.count_ops(rest) > sp.count_ops(f):
        return None
    second = steps(rest, x, depth + 1)
    return None if second is None else PartsRule(f, x, u, dv, v_step, second)


#: the functions whose repeated antiderivatives a table of parts takes (and a^(bx + c))
TABULAR = (sp.exp, sp.sin, sp.cos, sp.sinh, sp.cosh)


@dataclass(frozen=True)
class TabularPartsRule:
    """∫ p(x)·g(x) dx, p a polynomial of degree 2 or more, g = e^(ax+b) (or c^(ax+b)),
    sin, cos, sinh or cosh of ax + b: parts again and again, as a table of p's
    derivatives (down to 0) and g's antiderivatives, the signs alternating:
    p·G₁ − p'·G₂ + p''·G₃ − ..."""

    integrand: Any
    variable: Any
    rows: tuple[tuple[int, Any, Any], ...]  # (sign, p^(k), G_k), down to p^(k) = 0

    @property
    def terms(self) -> list[tuple[int, Any]]:
        """(sign, p^(k)·G_(k+1)) for each diagonal of the table."""
        return [(sign, d * self.rows[k + 1][2])
                for k, (sign, d, _) in enumerate(self.rows[:-1])]

    def eval(self) -> Any:
        return sp.Add(*(sign * term for sign, term in self.terms))


def tabular_parts(f: Any, x: Any) -> Any:
    """The TabularPartsRule for p(x)·g(x) (see there); None for any other integrand."""
    factors = sp.Mul.make_args(f)
    poly = sp.Mul(*[a for a in factors if a.is_polynomial(x)])
    rest = [a for a in factors if not a.is_polynomial(x)]
    if len(rest) != 1 or not poly.has(x) or not 2 <= sp.degree(poly, x) <= MAX_POWER:
        return None
    g = rest[0]
    exponential = g.is_Pow and g.base.is_positive and g.base.is_number
    arg = g.exp if exponential else (g.args[0] if isinstance(g, TABULAR) else None)
    if arg is None or not (arg.is_polynomial(x) and sp.degree(arg, x) == 1):
        return None
    rows, d, anti, sign = [], sp.expand(poly), g, 1
    while True:
        rows.append((sign, d, anti))
        if d == 0:
            break
        d, anti, sign = sp.diff(d, x), sympy_steps(anti, x).eval(), -sign
    return TabularPartsRule(f, x, tuple(rows))

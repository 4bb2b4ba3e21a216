"""Each rule of differentiation and its misapplications, as arithmetic on a step's
operands: u, v (their values) and du, dv (their derivatives), on any number type with
+ - * / ** (float64 arrays for the verdict, sympy expressions for the tests). The search
(misconceptions.py) picks the step and the misapplication; this says what it gives.
`mistake` None is the rule applied right."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def sum_rule(mistake: str | None, op: str, u: Any, v: Any, du: Any, dv: Any, a: bool,
             b: bool) -> Any:
    """`u + v`, `u - v`: a sign lost (`subtraction-sign`), or a constant term kept as if it
    were its own derivative (`constant-term-kept`: (x² + 3)' = 2x + 3)."""
    if op == "-" and mistake == "subtraction-sign":
        return du + dv
    if mistake == "constant-term-kept" and a != b:
        kept = v if a else u
        if op == "+":
            return du + dv + kept
        return du - kept if a else kept - dv
    return du + dv if op == "+" else du - dv


def product(mistake: str | None, u: Any, v: Any, du: Any, dv: Any, a: bool, b: bool
            ) -> Any:
    if mistake == "product-of-derivatives":
        return du * dv
    if mistake == "product-term-missing-left":
        return u * dv
    if mistake == "product-term-missing-right":
        return du * v
    if mistake == "constant-multiple-dropped":
        return du if a else dv
    return du * v + u * dv


def quotient(mistake: str | None, u: Any, v: Any, du: Any, dv: Any, b: bool) -> Any:
    if mistake == "quotient-reversed":
        return (u * dv - du * v) / v**2
    if mistake == "quotient-square-missing":
        return (du * v - u * dv) / v
    if mistake == "quotient-of-derivatives":
        return du / dv
    if mistake == "constant-multiple-dropped":
        return du
    return (du * v - u * dv) / v**2 if b else du / v


def power(mistake: str | None, u: Any, v: Any, du: Any, dv: Any, base: bool,
          exponent: bool, log: Callable[[Any], Any]) -> Any:
    """`u ** v`: the power rule (a constant exponent), the exponential rule (a constant
    base), or both (u^v = e^(v·ln u))."""
    if mistake == "chain-outer-of-derivative":  # f'(u') for f'(u)·u'
        return v * du ** (v - 1) if not exponent else u ** dv * log(u)
    if not exponent:
        n = {"power-not-lowered": v, "power-raised": v + 1}.get(mistake or "", v - 1)
        factor = 1.0 if mistake == "chain-inner-factor" else du
        if mistake == "power-coefficient-dropped":
            return u ** n * factor
        return v * u ** n * factor
    if not base:
        if mistake == "exponential-log-missing":
            return u ** v * dv
        if mistake in ("exponential-as-power", "power-rule-on-exponential"):
            return v * u ** (v - 1)
        if mistake == "exponential-log-divided":
            return u ** v / log(u) * dv
        return u ** v * log(u) * (1.0 if mistake == "chain-inner-factor" else dv)
    if mistake == "variable-exponent":
        return v * u ** (v - 1) * du
    return u ** v * (dv * log(u) + v * du / u)

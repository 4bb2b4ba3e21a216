"""Powers and products of trig functions, rewritten the way a textbook does before
integrating: a product of sines and cosines as a sum (product-to-sum), an odd power of
sin or cos as the one factor times a power of 1 − cos² (or 1 − sin²), ready for u = cos
(or sin); a power of tan as tan^(n−2)·(sec² − 1); 1/sin^n and 1/cos^n as csc^n and
sec^n; a power of sec from the third up by the reduction formula, one step of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy as sp

from gradcalc.homework.solutions.integral_search import MAX_POWER


def _trig_of(f: Any, x: Any) -> list[tuple[Any, Any, Any]]:
    """f's factors as (the function, its argument, the power), when each is a positive
    rational power of sin, cos, sinh or cosh of an argument linear in x, times a
    constant; else []."""
    coeff, rest = f.as_independent(x, as_Add=False)
    out = []
    for factor in sp.Mul.make_args(rest):
        base, power = factor.as_base_exp()
        if not (isinstance(base, (sp.sin, sp.cos, sp.sinh, sp.cosh)) and power.is_Rational
                and power > 0):
            return []
        arg = base.args[0]
        if not (arg.is_polynomial(x) and sp.degree(arg, x) == 1):
            return []
        out.append((type(base), arg, power))
    return out


def product_to_sum(f: Any, x: Any) -> Any:
    """sin(a)·sin(b), sin(a)·cos(b), cos(a)·cos(b) (different arguments) as a sum."""
    from sympy.simplify.fu import TR8

    factors = _trig_of(f, x)
    if len(factors) != 2 or factors[0][1] == factors[1][1] or any(
            p != 1 or kind not in (sp.sin, sp.cos) for kind, _, p in factors):
        return None
    return sp.expand(TR8(f))


#: the pairs an odd power is taken apart in: (s, c, c² in s², s² in c²)
PAIRS = ((sp.sin, sp.cos, lambda s: 1 - s**2, lambda c: 1 - c**2),
         (sp.sinh, sp.cosh, lambda s: 1 + s**2, lambda c: c**2 - 1))


def odd_power(f: Any, x: Any) -> Any:
    """sin^n(a)·cos^m(a) with n (or m) an odd integer above 1: one factor kept, the rest
    as a power of 1 − cos^2(a) (or 1 − sin^2(a)), ready for u = cos (or sin); the other
    power may be any rational (sin^3·√cos); sinh and cosh alike, by cosh² − sinh² = 1."""
    factors = _trig_of(f, x)
    if not factors or len({a for _, a, _ in factors}) != 1:
        return None
    arg = factors[0][1]
    powers = {kind: p for kind, _, p in factors}
    pair = next((pair for pair in PAIRS if set(powers) <= set(pair[:2])), None)
    if pair is None:
        return None
    sin, cos, cos2, sin2 = pair
    n, m = powers.get(sin, sp.Integer(0)), powers.get(cos, sp.Integer(0))
    if max(n, m) > MAX_POWER:
        return None
    coeff = f.as_independent(x, as_Add=False)[0]
    s, c = sin(arg), cos(arg)
    if n.is_integer and n % 2 == 1 and n > 1:
        return coeff * s * sin2(c) ** ((n - 1) // 2) * c**m
    if m.is_integer and m % 2 == 1 and m > 1:
        return coeff * c * cos2(s) ** ((m - 1) // 2) * s**n
    return None


def tan_power(f: Any, x: Any) -> Any:
    """c·tan^n(a), n ≥ 3: c·tan^(n−2)(a)·sec^2(a) − c·tan^(n−2)(a) (the reduction
    formula's step)."""
    coeff, rest = f.as_independent(x, as_Add=False)
    base, power = rest.as_base_exp()
    if not (isinstance(base, sp.tan) and power.is_Integer and 3 <= power <= MAX_POWER):
        return None
    a = base.args[0]
    return coeff * sp.tan(a) ** (power - 2) * sp.sec(a) ** 2 - coeff * sp.tan(a) ** (power - 2)


def reciprocal_trig(f: Any, x: Any) -> Any:
    """1/sin^n(a) as csc^n(a), 1/cos^n(a) as sec^n(a) (and so in every term)."""
    def flipped(e: Any) -> Any:
        base, power = e.as_base_exp()
        if isinstance(base, (sp.sin, sp.cos)) and power.is_Integer and power < 0:
            other = sp.csc if isinstance(base, sp.sin) else sp.sec
            return other(base.args[0]) ** -power
        return e
    g = f.replace(lambda e: e.is_Pow, flipped)
    return None if g == f else g



@dataclass(frozen=True)
class PowerReductionRule:
    """∫ c·sin^n(a)·cos^m(a) dx, n and m even: sin² = (1 − cos(2a))/2 and
    cos² = (1 + cos(2a))/2 put in and the product multiplied out, c·sin^n·cos^m =
    k·(a sum of powers of cos(2a)), whose terms are integrated in turn (`substep`)."""

    integrand: Any
    variable: Any
    arg: Any
    powers: tuple[int, int]  # (n, m)
    coefficient: Any  # k
    substep: Any

    def eval(self) -> Any:
        return self.coefficient * self.substep.eval()


def power_reduction(f: Any, x: Any, depth: int, steps: Callable[..., Any]) -> Any:
    """The PowerReductionRule for c·sin^n(a)·cos^m(a), n and m even (see there), when
    each term's integral is found; None for any other f."""
    from sympy.integrals.manualintegrate import AddRule

    factors = _trig_of(f, x)
    if not factors or len({a for _, a, _ in factors}) != 1:
        return None
    powers = {kind: p for kind, _, p in factors}
    n, m = powers.get(sp.sin, sp.Integer(0)), powers.get(sp.cos, sp.Integer(0))
    if not (set(powers) <= {sp.sin, sp.cos} and n.is_even and m.is_even
            and n + m <= MAX_POWER):
        return None
    arg = factors[0][1]
    c = sp.cos(2 * arg)
    terms = sp.expand((1 - c) ** (n // 2) * (1 + c) ** (m // 2))
    inner = [steps(t, x, depth) for t in sp.Add.make_args(terms)]
    if any(rule is None for rule in inner):
        return None
    coefficient = f.as_independent(x, as_Add=False)[0] / 2 ** ((n + m) // 2)
    return PowerReductionRule(f, x, arg, (int(n), int(m)), coefficient,
                              AddRule(terms, x, inner) if terms.is_Add else inner[0])


#: the reduction formulas: the function -> (its partner in the first term, the sign)
REDUCED = {sp.sec: (sp.tan, 1), sp.csc: (sp.cot, -1)}
#: how a step states each reduction formula
REDUCTION_FORMULAS = {
    sp.sec: "∫ sec^n(u) du = sec^(n−2)(u)·tan(u)/(n − 1) + ((n − 2)/(n − 1))·∫ "
            "sec^(n−2)(u) du",
    sp.csc: "∫ csc^n(u) du = −csc^(n−2)(u)·cot(u)/(n − 1) + ((n − 2)/(n − 1))·∫ "
            "csc^(n−2)(u) du"}


@dataclass(frozen=True)
class SecReductionRule:
    """∫ sec^n(a·x + b) dx = sec^(n−2)·tan/(a·(n − 1)) + (n − 2)/(n − 1)·∫ sec^(n−2) dx,
    n ≥ 3 (parts with u = sec^(n−2), dv = sec^2 dx, the integral solved for); csc alike,
    with −csc^(n−2)·cot for the first term."""

    integrand: Any
    variable: Any
    power: int
    arg: Any
    substep: Any
    function: Any = sp.sec

    @property
    def first(self) -> Any:
        a, n = sp.diff(self.arg, self.variable), self.power
        partner, sign = REDUCED[self.function]
        return sign * self.function(self.arg) ** (n - 2) * partner(self.arg) / (a * (n - 1))

    @property
    def formula(self) -> str:
        return f"{REDUCTION_FORMULAS[self.function]}, n = {self.power}"

    @property
    def factor(self) -> Any:
        return sp.Rational(self.power - 2, self.power - 1)

    def eval(self) -> Any:
        return self.first + self.factor * self.substep.eval()


def sec_reduction(f: Any, x: Any, depth: int, steps: Callable[..., Any]) -> Any:
    """The reduction formula for c·sec^n(a·x + b) or c·csc^n(a·x + b), n ≥ 3."""
    from sympy.integrals.manualintegrate import ConstantTimesRule

    coeff, rest = f.as_independent(x, as_Add=False)
    base, power = rest.as_base_exp()
    if not (type(base) in REDUCED and power.is_Integer and 3 <= power <= MAX_POWER):
        return None
    arg = base.args[0]
    if not (arg.is_polynomial(x) and sp.degree(arg, x) == 1):
        return None
    inner = steps(type(base)(arg) ** (power - 2), x, depth)
    if inner is None:
        return None
    rule = SecReductionRule(rest, x, int(power), arg, inner, type(base))
    return rule if coeff == 1 else ConstantTimesRule(f, x, coeff, rest, rule)


# ------------------------------------------------- identities tried before giving up

TRIG = (sp.sin, sp.cos, sp.tan, sp.sec, sp.csc, sp.cot)


def split_fraction(f: Any, x: Any) -> Any:
    """A sum over a product of trig functions as one fraction per term
    ((3 − 3sin(x))/cos(x) is 3/cos(x) − 3sin(x)/cos(x)); None for any other f."""
    numerator, denominator = sp.fraction(f)
    terms = sp.expand(numerator)
    if not (terms.is_Add and denominator.has(x) and all(
            isinstance(b, TRIG) for b in (g.as_base_exp()[0]
                                          for g in sp.Mul.make_args(denominator)
                                          if g.has(x)))):
        return None
    return sp.Add(*(t / denominator for t in terms.args))


def tan_squared(f: Any, x: Any) -> Any:
    """c·tan^2(a)·sec^n(a), n odd, as c·sec^(n+2)(a) − c·sec^n(a) (tan² = sec² − 1),
    ready for the reduction formula."""
    coeff, rest = f.as_independent(x, as_Add=False)
    powers = dict(g.as_base_exp() for g in sp.Mul.make_args(rest))
    tans = [b for b in powers if isinstance(b, sp.tan) and powers[b] == 2]
    if len(powers) != 2 or not tans:
        return None
    sec, n = sp.sec(tans[0].args[0]), powers.get(sp.sec(tans[0].args[0]))
    if not (n is not None and n.is_Integer and n % 2 == 1 and 0 < n < MAX_POWER):
        return None
    return coeff * sec ** (n + 2) - coeff * sec ** n


def _one_minus_tan_squared(f: Any, x: Any) -> tuple[Any, Any] | None:
    """(c, a) when f is c·(1 − tan^2(a))/sec^2(a); else None."""
    for t in f.atoms(sp.tan):
        a = t.args[0]
        coeff = sp.cancel(sp.expand(f * sp.sec(a) ** 2) / (1 - sp.tan(a) ** 2))
        if not coeff.has(x):
            return coeff, a
    return None


def cos_squares(f: Any, x: Any) -> tuple[Any, Any] | None:
    """(c, cos^2(a) − sin^2(a)) when f is c·(1 − tan^2(a))/sec^2(a) (1/sec² = cos²,
    tan²/sec² = sin²), the identity's middle, its terms in that order; else None."""
    found = _one_minus_tan_squared(f, x)
    if found is None:
        return None
    c, a = found
    return c, sp.Add(sp.cos(a) ** 2, -sp.sin(a) ** 2, evaluate=False)


def cos_double_angle(f: Any, x: Any) -> Any:
    """c·(1 − tan^2(a))/sec^2(a) as c·cos(2a) (cos² − sin², the double angle)."""
    found = _one_minus_tan_squared(f, x)
    return None if found is None else found[0] * sp.cos(2 * found[1])


def sine_double_angle(f: Any, x: Any) -> Any:
    """sin(2a) as 2sin(a)·cos(a) where f also holds sin(a) or cos(a)."""
    for s in f.atoms(sp.sin):
        a = s.args[0] / 2
        if f.has(sp.sin(a)) or f.has(sp.cos(a)):
            return f.xreplace({s: 2 * sp.sin(a) * sp.cos(a)})
    return None


#: the identities, in the order tried where every other rule failed
IDENTITIES = (sine_double_angle, cos_double_angle, tan_squared, split_fraction)

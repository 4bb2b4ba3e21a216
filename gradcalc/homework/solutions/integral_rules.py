"""The rule tree of an antiderivative: the textbook's rewritings first, then sympy's manual
integration (`sympy.integrals.manualintegrate.integral_steps`) within a counted budget,
then a search for a substitution where sympy finds none.

The rewritings, each one step the solution shows: a product of sines and cosines as a
sum (product-to-sum), an odd power of sin or cos as the one factor times a power of
1 − cos² (or 1 − sin²), ready for u = cos (or sin); a power of tan as tan^(n−2)·(sec² − 1)
(the reduction formula); a quadratic denominator without real roots written with its
square completed; 1/sin^n and 1/cos^n as csc^n and sec^n. The substitution search
tries, for u, each function's argument, each power's base and each trig function of
the integrand (at most `MAX_CANDIDATES`), and takes the first u for which f(x)/u'(x) is
a function of u alone; then parts, u the polynomial factor of p(x)·g(x). A power of
sec from the third up is the reduction formula, one step of its own.

Every limit is counted work, never time: sympy's rule search is cut after
`MAX_RULE_CALLS` calls of `integral_steps` (its recursion counted, one budget per
solution), so the same integral gives the same steps, or the same refusal, on any
machine and under any load.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import sympy as sp

#: the calls of sympy's `integral_steps` one antiderivative may make (its recursion too)
MAX_RULE_CALLS = 400
#: the substitutions u = g(x) tried where sympy's rules find none
MAX_CANDIDATES = 12
#: the highest power the trig rewritings take apart
MAX_POWER = 12
#: substitutions inside substitutions
MAX_DEPTH = 2


class OverBudget(Exception):
    """sympy's rule search made more calls than the budget allows."""


_STATE = threading.local()
_INSTALLED: list[Any] = []


def _install() -> None:
    """Count every call of `integral_steps`, sympy's recursion included (it calls the
    module's global name), against the running thread's budget."""
    import sympy.integrals.manualintegrate as mi

    if _INSTALLED:
        return
    original = mi.integral_steps

    def counted(*args: Any, **kwargs: Any) -> Any:
        left = getattr(_STATE, "left", None)
        if left is not None:
            if left <= 0:
                raise OverBudget
            _STATE.left = left - 1
        return original(*args, **kwargs)

    mi.integral_steps = counted
    _INSTALLED.append(original)


@contextmanager
def budget(calls: int | None = None) -> Iterator[None]:
    """sympy's rule search counted: OverBudget past `calls` calls (`MAX_RULE_CALLS` by
    default; nested budgets share the outer one)."""
    _install()
    outer = getattr(_STATE, "left", None)
    if outer is None:
        _STATE.left = _STATE.given = MAX_RULE_CALLS if calls is None else calls
    try:
        yield
    finally:
        if outer is None:
            _STATE.left = None


def calls_used() -> int:
    """The calls made so far under the running budget (0 outside one)."""
    left = getattr(_STATE, "left", None)
    return 0 if left is None else _STATE.given - left


def sympy_steps(f: Any, x: Any) -> Any:
    import sympy.integrals.manualintegrate as mi

    _install()
    return mi.integral_steps(f, x)


# --------------------------------------------------------------------------- rule trees


def _unknown(rule: Any) -> bool:
    return type(rule).__name__ == "DontKnowRule" or any(
        _unknown(r) for r in _children(rule))


def _children(rule: Any) -> list[Any]:
    name = type(rule).__name__
    if name == "AlternativeRule":
        return [_chosen(rule)]
    out = []
    for attr in ("substep", "second_step", "v_step"):
        child = getattr(rule, attr, None)
        if child is not None:
            out.append(child)
    out.extend(getattr(rule, "substeps", None) or [])
    return out


def _size(rule: Any) -> tuple[int, int]:
    """(rule nodes, the size of the substitutions' u): smaller is the simpler solution."""
    if type(rule).__name__ == "AlternativeRule":
        return min(_size(r) for r in rule.alternatives)
    nodes, u = 1, sp.count_ops(getattr(rule, "u_func", 0))
    for child in _children(rule):
        a, b = _size(child)
        nodes, u = nodes + a, u + b
    return nodes, u


def _chosen(rule: Any) -> Any:
    """An AlternativeRule's shortest alternative (the first of the shortest)."""
    options = [r for r in rule.alternatives if not _unknown_deep(r)] or rule.alternatives
    return min(options, key=_size)


def _unknown_deep(rule: Any) -> bool:
    name = type(rule).__name__
    if name == "DontKnowRule":
        return True
    if name == "AlternativeRule":
        return all(_unknown_deep(r) for r in rule.alternatives)
    return any(_unknown_deep(c) for c in _children(rule))


# --------------------------------------------------------------------------- rewritings


def _trig_of(f: Any, x: Any) -> list[tuple[Any, Any, Any]]:
    """f's factors as (the function, its argument, the power), when each is a power of
    sin or cos of an argument linear in x, times a constant; else []."""
    coeff, rest = f.as_independent(x, as_Add=False)
    out = []
    for factor in sp.Mul.make_args(rest):
        base, power = factor.as_base_exp()
        if not (isinstance(base, (sp.sin, sp.cos)) and power.is_Integer and power > 0):
            return []
        arg = base.args[0]
        if not (arg.is_polynomial(x) and sp.degree(arg, x) == 1):
            return []
        out.append((type(base), arg, int(power)))
    return out


def product_to_sum(f: Any, x: Any) -> Any:
    """sin(a)·sin(b), sin(a)·cos(b), cos(a)·cos(b) (different arguments) as a sum."""
    from sympy.simplify.fu import TR8

    factors = _trig_of(f, x)
    if len(factors) != 2 or factors[0][1] == factors[1][1] or any(p != 1 for *_, p in factors):
        return None
    return sp.expand(TR8(f))


def odd_power(f: Any, x: Any) -> Any:
    """sin^n(a)·cos^m(a) with n (or m) odd and above 1: one factor kept, the rest as a
    power of 1 − cos^2(a) (or 1 − sin^2(a))."""
    factors = _trig_of(f, x)
    if not factors or len({a for _, a, _ in factors}) != 1:
        return None
    arg = factors[0][1]
    powers = {kind: p for kind, _, p in factors}
    n, m = powers.get(sp.sin, 0), powers.get(sp.cos, 0)
    if max(n, m) > MAX_POWER:
        return None
    coeff = f.as_independent(x, as_Add=False)[0]
    s, c = sp.sin(arg), sp.cos(arg)
    if n % 2 == 1 and n > 1:
        return coeff * s * (1 - c**2) ** ((n - 1) // 2) * c**m
    if m % 2 == 1 and m > 1:
        return coeff * c * (1 - s**2) ** ((m - 1) // 2) * s**n
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


REWRITINGS = (product_to_sum, odd_power, tan_power, completed_square, reciprocal_trig)


# --------------------------------------------------------------------------- substitution


def candidates(f: Any, x: Any) -> list[Any]:
    """The u = g(x) worth trying: the functions' arguments, the powers' bases, the trig
    functions themselves (largest first), at most `MAX_CANDIDATES`."""
    out: list[Any] = []
    for node in sp.preorder_traversal(f):
        if isinstance(node, sp.Function) and node.args:
            out.extend([node.args[0], node])
        elif node.is_Pow:
            out.append(node.args[0])
    keep = [g for g in dict.fromkeys(out) if g.has(x) and g != x]
    return sorted(keep, key=lambda g: -sp.count_ops(g))[:MAX_CANDIDATES]


def substitution(f: Any, x: Any, depth: int = 0) -> Any:
    """A URule for ∫ f dx by the first candidate u = g(x) with f/g' a function of u
    alone, whose integral is found; None when there is none."""
    from sympy.integrals.manualintegrate import URule

    u = sp.Dummy("u")
    for g in candidates(f, x):
        dg = sp.diff(g, x)
        if dg == 0:
            continue
        h = sp.cancel(sp.together(f / dg)).subs(g, u)
        if h.has(x):
            continue
        inner = steps(sp.expand(h) if h.is_polynomial(u) else h, u, depth + 1)
        if inner is not None:
            return URule(f, x, u, g, inner)
    return None


def _shifted(g: Any, x: Any, depth: int) -> Any:
    """∫ c/(a·((x + h)^2 + k)) dx by u = x + h."""
    from sympy.integrals.manualintegrate import URule

    shift = next(b for b in sp.preorder_traversal(g)
                 if b.is_Pow and b.exp == 2 and b.base.has(x)).base
    u = sp.Dummy("u")
    inner = steps(g.subs(shift, u), u, depth + 1)
    return None if inner is None else URule(g, x, u, shift, inner)


@dataclass(frozen=True)
class SecReductionRule:
    """∫ sec^n(a·x + b) dx = sec^(n−2)·tan/(a·(n − 1)) + (n − 2)/(n − 1)·∫ sec^(n−2) dx,
    n ≥ 3 (parts with u = sec^(n−2), dv = sec^2 dx, the integral solved for)."""

    integrand: Any
    variable: Any
    power: int
    arg: Any
    substep: Any

    @property
    def first(self) -> Any:
        a, n = sp.diff(self.arg, self.variable), self.power
        return sp.sec(self.arg) ** (n - 2) * sp.tan(self.arg) / (a * (n - 1))

    @property
    def factor(self) -> Any:
        return sp.Rational(self.power - 2, self.power - 1)

    def eval(self) -> Any:
        return self.first + self.factor * self.substep.eval()


def sec_reduction(f: Any, x: Any, depth: int) -> Any:
    """The reduction formula for c·sec^n(a·x + b), n ≥ 3."""
    from sympy.integrals.manualintegrate import ConstantTimesRule

    coeff, rest = f.as_independent(x, as_Add=False)
    base, power = rest.as_base_exp()
    if not (isinstance(base, sp.sec) and power.is_Integer and 3 <= power <= MAX_POWER):
        return None
    arg = base.args[0]
    if not (arg.is_polynomial(x) and sp.degree(arg, x) == 1):
        return None
    inner = steps(sp.sec(arg) ** (power - 2), x, depth)
    if inner is None:
        return None
    rule = SecReductionRule(rest, x, int(power), arg, inner)
    return rule if coeff == 1 else ConstantTimesRule(f, x, coeff, rest, rule)


def steps(f: Any, x: Any, depth: int = 0) -> Any:
    """The rule tree of ∫ f dx (a rewriting first, sympy's rules, then a substitution,
    at most `MAX_DEPTH` deep); None when none is found. OverBudget propagates."""
    from sympy.integrals.manualintegrate import RewriteRule

    for rewrite in REWRITINGS:
        g = rewrite(f, x)
        if g is None or g == f:
            continue
        inner = (substitution(g, x, depth) if rewrite is odd_power else
                 _shifted(g, x, depth) if rewrite is completed_square else
                 steps(g, x, depth))
        if inner is not None:
            return RewriteRule(f, x, g, inner)
        break
    reduced = sec_reduction(f, x, depth) or tabular_parts(f, x)
    if reduced is not None:
        return reduced
    rule = sympy_steps(f, x)
    if _by_formula(rule) and depth < MAX_DEPTH:  # as a course does: u first, then θ
        by_steps = substitution(f, x, depth) or trig_substitution(f, x, depth)
        if by_steps is not None:
            return by_steps
    if not _unknown(rule):
        return rule
    if f.is_Add:  # term by term, each by these rules (sympy's took each by its own)
        from sympy.integrals.manualintegrate import AddRule

        terms = [steps(t, x, depth) for t in f.args]
        if all(t is not None for t in terms):
            return AddRule(f, x, terms)
    if depth >= MAX_DEPTH:
        return None
    return (substitution(f, x, depth) or parts(f, x, depth)
            or trig_substitution(f, x, depth))


def parts(f: Any, x: Any, depth: int = 0) -> Any:
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


# --------------------------------------------------------------------------- trig substitution

#: sympy's rules that integrate a square root of a quadratic by a formula, not by steps
SQRT_FORMULAS = frozenset({"SqrtQuadraticRule", "SqrtQuadraticDenomRule",
                           "ReciprocalSqrtQuadraticRule", "TrigSubstitutionRule"})


def _by_formula(rule: Any) -> bool:
    """Whether sympy's tree integrates a root of a quadratic by a formula somewhere."""
    while type(rule).__name__ == "AlternativeRule":
        rule = _chosen(rule)
    return type(rule).__name__ in SQRT_FORMULAS or any(
        _by_formula(c) for c in _children(rule))


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


def trig_substitution(f: Any, x: Any, depth: int) -> Any:
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
    k, trig = func.as_independent(theta, as_Add=False)
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


# --------------------------------------------------------------------------- tabular parts

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

"""The rule tree of an antiderivative: the textbook's rewritings first (`trig_powers`,
`rational_integrands`), then sympy's manual integration within a counted budget
(`integral_search`), then a search for a substitution where sympy finds none, parts
(`integration_by_parts`) and trigonometric substitution (`trig_substitution`).

The substitution search tries, for u, each function's argument, each power's base and
each trig function of the integrand (at most `MAX_CANDIDATES`), and takes the first u
for which f(x)/u'(x) is a function of u alone.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from gradcalc.homework.solutions.integral_search import MAX_DEPTH, sympy_steps, unknown
from gradcalc.homework.solutions.integration_by_parts import (
    parts,
    parts_by_rational_factor,
    tabular_parts,
)
from gradcalc.homework.solutions.rational_integrands import completed_square, perfect_power
from gradcalc.homework.solutions.trig_powers import (
    IDENTITIES,
    odd_power,
    power_reduction,
    product_to_sum,
    reciprocal_trig,
    sec_reduction,
    tan_power,
)
from gradcalc.homework.solutions.trig_substitution import (
    by_formula,
    completed_square_substitution,
    trig_substitution,
)

#: the substitutions u = g(x) tried where sympy's rules find none
MAX_CANDIDATES = 12

REWRITINGS = (product_to_sum, odd_power, tan_power, completed_square, perfect_power,
              reciprocal_trig)


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
    keep = sorted(keep, key=lambda g: -sp.count_ops(g))
    root = _common_root(f, x)
    return ([root] if root is not None else []) + keep[:MAX_CANDIDATES]


def _common_root(f: Any, x: Any) -> Any:
    """x^(1/L) when f holds roots of x of two or more orders (√x and ∛x: L = 6), the
    u that clears them all; else None."""
    orders = {p.exp.q for p in sp.preorder_traversal(f)
              if p.is_Pow and p.base == x and p.exp.is_Rational and p.exp.q > 1}
    return x ** sp.Rational(1, sp.ilcm(*orders)) if len(orders) > 1 else None


def _inverse(g: Any, x: Any, u: Any) -> Any:
    """x in terms of u = g(x) where g is linear (x = (u − b)/a) or a root x^(1/L)
    (x = u^L); None for any other g."""
    if g.is_polynomial(x) and sp.degree(g, x) == 1:
        return (u - g.subs(x, 0)) / sp.diff(g, x)
    if g.is_Pow and g.base == x and g.exp.is_Rational and g.exp.p == 1:
        return u ** g.exp.q
    return None


def _in_u(h: Any, g: Any, x: Any, u: Any) -> Any:
    """h (a function of x) written in u = g(x): g replaced by u, then x by g's inverse
    (`_inverse`) where that leaves an algebraic function of u (y·(y + 2)^(1/3) is
    (u − 2)·u^(1/3)), roots of powers of u cleared."""
    h = h.subs(g, u)
    inverse = _inverse(g, x, u)
    if not h.has(x) or inverse is None:
        return h
    in_u = sp.cancel(sp.powsimp(sp.expand(h.subs(x, inverse)), force=True))
    return h if in_u.atoms(sp.Function) else in_u  # algebraic in u only: powers, roots


def substitution(f: Any, x: Any, depth: int = 0) -> Any:
    """A URule for ∫ f dx by the first candidate u = g(x) with f/g' a function of u
    alone, whose integral is found; None when there is none."""
    for g in candidates(f, x):
        rule = substitution_by(f, x, g, depth)
        if rule is not None:
            return rule
    return None


def substitution_by(f: Any, x: Any, g: Any, depth: int = 0) -> Any:
    """A URule for ∫ f dx by u = g(x) when f/g' is a function of u alone whose integral
    is found; None otherwise."""
    from sympy.integrals.manualintegrate import URule

    dg = sp.diff(g, x)
    if dg == 0:
        return None
    # where x is g's inverse in u, u is taken positive (a root of u^L is u, an odd
    # root read as sign·|u|^(1/3) is u^(1/3)): every step is then checked on the tape
    u = sp.Dummy("u", positive=_inverse(g, x, x) is not None)
    h = _in_u(sp.cancel(sp.together(f / dg)), g, x, u)
    if h.has(x):
        return None
    inner = steps(sp.expand(h) if h.is_polynomial(u) else h, u, depth + 1)
    return None if inner is None else URule(f, x, u, g, inner)


def as_written(f: Any, x: Any, arguments: tuple[Any, ...]) -> Any:
    """A URule by u = c − a·x, an argument as the student wrote it (sec(4 − x), which
    sympy writes sec(x − 4): u = 4 − x, du = −dx), when f holds it (or its negative) as
    a function's argument; None otherwise."""
    inside = {a for n in sp.preorder_traversal(f) if isinstance(n, sp.Function)
              for a in n.args}
    for g in arguments:
        if g in inside or sp.expand(-g) in inside:
            rule = substitution_by(f, x, g)
            if rule is not None:
                return rule
    return None


def _shifted(g: Any, x: Any, depth: int) -> Any:
    """∫ c/(a·((x + h)^2 + k)) dx by u = x + h."""
    from sympy.integrals.manualintegrate import URule

    shift = next(b for b in sp.preorder_traversal(g)
                 if b.is_Pow and b.exp == 2 and b.base.has(x)).base
    u = sp.Dummy("u")
    inner = steps(g.subs(shift, u), u, depth + 1)
    return None if inner is None else URule(g, x, u, shift, inner)


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
    reduced = (sec_reduction(f, x, depth, steps) or power_reduction(f, x, depth, steps)
               or tabular_parts(f, x))
    if reduced is not None:
        return reduced
    rule = sympy_steps(f, x)
    if by_formula(rule) and depth < MAX_DEPTH:  # as a course does: u first, then θ
        by_steps = (substitution(f, x, depth) or trig_substitution(f, x, depth, steps)
                    or completed_square_substitution(f, x, depth, steps))
        if by_steps is not None:
            return by_steps
    if not unknown(rule):
        return rule
    if f.is_Add:  # term by term, each by these rules (sympy's took each by its own)
        from sympy.integrals.manualintegrate import AddRule

        terms = [steps(t, x, depth) for t in f.args]
        if all(t is not None for t in terms):
            return AddRule(f, x, terms)
    by_identity = identity(f, x, depth)
    if by_identity is not None or depth >= MAX_DEPTH:
        return by_identity
    return (substitution(f, x, depth) or parts(f, x, depth, steps)
            or parts_by_rational_factor(f, x, depth, steps)
            or trig_substitution(f, x, depth, steps)
            or completed_square_substitution(f, x, depth, steps))


def identity(f: Any, x: Any, depth: int) -> Any:
    """A RewriteRule by the first identity (`trig_powers.IDENTITIES`) that applies and
    leaves an integrand these rules take; None when none does."""
    from sympy.integrals.manualintegrate import RewriteRule

    for rewrite in IDENTITIES:
        g = rewrite(f, x)
        if g is None or g == f:
            continue
        inner = steps(g, x, depth)
        if inner is not None:
            return RewriteRule(f, x, g, inner)
    return None


def substitution_first(f: Any, x: Any) -> Any:
    """The rule tree by a substitution (or parts) tried before sympy's rules, for an
    integral whose search by sympy's rules ran past the budget (2e^(2x)·sin(e^(2x)):
    u = e^(2x) leaves ∫ sin(u) du); None when neither is found."""
    return substitution(f, x) or parts(f, x, 0, steps)

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
from gradcalc.homework.solutions.integration_by_parts import parts, tabular_parts
from gradcalc.homework.solutions.rational_integrands import completed_square
from gradcalc.homework.solutions.trig_powers import (
    odd_power,
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

REWRITINGS = (product_to_sum, odd_power, tan_power, completed_square, reciprocal_trig)


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
    reduced = sec_reduction(f, x, depth, steps) or tabular_parts(f, x)
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
    if depth >= MAX_DEPTH:
        return None
    return (substitution(f, x, depth) or parts(f, x, depth, steps)
            or trig_substitution(f, x, depth, steps)
            or completed_square_substitution(f, x, depth, steps))

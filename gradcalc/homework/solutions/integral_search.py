"""sympy's manual integration (`sympy.integrals.manualintegrate.integral_steps`) within a
counted budget, and the rule trees it gives read: which alternative is the shortest,
whether a rule is missing somewhere.

Every limit is counted work, never time: sympy's rule search is cut after
`MAX_RULE_CALLS` calls of `integral_steps` (its recursion counted, one budget per
solution), so the same integral gives the same steps, or the same refusal, on any
machine and under any load.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import sympy as sp

#: the calls of sympy's `integral_steps` one antiderivative may make (its recursion too)
MAX_RULE_CALLS = 400
#: the highest power (of a trig function, of a polynomial factor) the rules take apart
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
    """sympy's rule tree for ∫ f dx, found as in a fresh process: `_forgotten` before
    and after."""
    import sympy.integrals.manualintegrate as mi

    _install()
    _forgotten()
    try:
        return mi.integral_steps(f, x)
    finally:
        _forgotten()


def _forgotten() -> None:
    """sympy's manual integration keeps two tables in its module between searches: how
    often each u = sin, cos, exp, sinh or cosh was taken by parts (after 3 times in a
    process it is refused: `manualintegrate` empties it, `integral_steps` never does),
    and the integrands being searched (left in it, as 'leads around in a loop', when a
    search is stopped: `OverBudget`). Both emptied, so that a search finds what it finds
    in a fresh process, whatever ran before it."""
    import sympy.integrals.manualintegrate as mi

    mi._parts_u_cache.clear()
    mi._integral_cache.clear()


# --------------------------------------------------------------------------- rule trees


def unknown(rule: Any) -> bool:
    return type(rule).__name__ == "DontKnowRule" or any(
        unknown(r) for r in children(rule))


def children(rule: Any) -> list[Any]:
    name = type(rule).__name__
    if name == "AlternativeRule":
        return [chosen(rule)]
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
    for child in children(rule):
        a, b = _size(child)
        nodes, u = nodes + a, u + b
    return nodes, u


def chosen(rule: Any) -> Any:
    """An AlternativeRule's shortest alternative (the first of the shortest); parts
    itself rather than a linear substitution that only leads to parts, as a textbook
    does ∫ x·e^(-x) dx (u = x, dv = e^(-x) dx, not u = -x first)."""
    options = [r for r in rule.alternatives if not _unknown_deep(r)] or rule.alternatives
    direct = [r for r in options if type(r).__name__ == "PartsRule"]
    if direct and any(_linear_before_parts(r) for r in options):
        options = direct
    return min(options, key=_size)


def _linear_before_parts(rule: Any) -> bool:
    """Whether the rule is a substitution u = a·x + b whose integral in u is by parts."""
    if type(rule).__name__ != "URule":
        return False
    g, x = rule.u_func, rule.variable
    inner = rule.substep
    while type(inner).__name__ == "ConstantTimesRule":
        inner = inner.substep
    return (g.is_polynomial(x) and sp.degree(g, x) == 1
            and type(inner).__name__ in ("PartsRule", "CyclicPartsRule"))


def _unknown_deep(rule: Any) -> bool:
    name = type(rule).__name__
    if name == "DontKnowRule":
        return True
    if name == "AlternativeRule":
        return all(_unknown_deep(r) for r in rule.alternatives)
    return any(_unknown_deep(c) for c in children(rule))

"""The parts of the reference side's domain where the student's side is undefined, in
one variable: intervals found by bisection from the points kept, their ends snapped to
the exact numbers they are near (0, 25, -7/2 + √21/2, π/2) and split at the reference's
poles, then written as the words after "defined" ("for x < 0 and 0 < x < 3").

The reference side is the true derivative (any order, a mixed partial, at a point); for
an antiderivative, the function (undefined.py says what fails there and why).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy as sp

from gradcalc.homework import judged_points, proof
from gradcalc.homework.domain import Bound, inside
from gradcalc.homework.exact import exact_number
from gradcalc.homework.problem import Problem
from gradcalc.homework.reading.student import formula
from gradcalc.homework.sample import evaluate
from gradcalc.limits import Limits
from gradcalc.verify.budget import Timeout, time_budget

#: points kept where only the reference side is defined that a part is grown from
MAX_FROM = 5
#: each side of a bisection: steps of 2^k from the point, then refinements of a grid
STEPS, GRID, REFINEMENTS = np.arange(-30, 64), 32, 6
#: at most this many parts are named (more: the one of the counterexample)
MAX_PARTS = 2


def parts(problem: Problem, found: judged_points.Found, point: dict[str, float],
          variable: str | None, bounds: tuple[Bound, ...], roots: list[Any],
          poles: list[Any], limits: Limits) -> str:
    """Where the reference's domain has the student's side undefined, as words after
    "defined": with a `variable`, "for" intervals of it found by bisection from the kept
    points (the other inputs held at each point's values), their ends snapped to the
    exact numbers they are near (`roots`, 0, short rationals, multiples of π/12) and
    split at the reference's `poles`; else "at" the point."""
    if variable is None:
        return "at " + ", ".join(f"{n} = {v:.3g}" for n, v in point.items()
                                 if n not in problem.constants)
    spans: list[tuple[Any, Any]] = []
    for p in [point, *found.uncovered_points()][:MAX_FROM]:
        if any(_within(p[variable], lo, hi) for lo, hi in spans):
            continue
        lo, hi = (_snap(*_end(problem, p, variable, s, bounds, limits), [*roots, *poles])
                  for s in (-1, 1))
        ends = [lo, *[q for q in poles if _within(float(q), lo, hi) and not (
            _same(q, lo) or _same(q, hi))], hi]
        spans += [(a, b) for a, b in zip(ends, ends[1:], strict=False)
                  if (a is None or not _same(a, b)) and not any(
                      _same(a, c) and _same(b, d) for c, d in spans)]
    spans = _apart(spans)
    spans.sort(key=lambda s: -math.inf if s[0] is None else float(s[0]))
    if len(spans) > MAX_PARTS:  # periodic (tan, cot): the part of the point stands
        here = next((s for s in spans if _within(point[variable], *s)), spans[0])
        return f"for {interval_text(variable, *here)} and other intervals"
    return "for " + " and ".join(interval_text(variable, lo, hi) for lo, hi in spans)


def interval_text(name: str, lo: Any, hi: Any, lo_in: bool = False,
                  hi_in: bool = False) -> str:
    """An interval of `name` as inequalities (None: unbounded on that side)."""
    lt_lo, lt_hi = ("≤" if lo_in else "<"), ("≤" if hi_in else "<")
    if lo is None and hi is None:
        return f"every {name}"
    if lo is None:
        return f"{name} {lt_hi} {shown(hi)}"
    if hi is None:
        return f"{name} {'≥' if lo_in else '>'} {shown(lo)}"
    return f"{shown(lo)} {lt_lo} {name} {lt_hi} {shown(hi)}"


def shown(v: Any) -> str:
    return formula(v) if isinstance(v, sp.Basic) else f"{v:.4g}"


def _within(x: float, lo: Any, hi: Any) -> bool:
    return (lo is None or float(lo) <= x) and (hi is None or x <= float(hi))


def _same(a: Any, b: Any) -> bool:
    return a is None and b is None or a is not None and b is not None and float(a) == float(b)


def poles(reference: list, variable: str | None) -> list[Any]:
    """The real points where a reference formula of the variable has a pole: its
    denominator's real roots (a polynomial's, or the few points sympy solves for,
    x = 0 and x = ±1 for 1/(x·ln(x²)))."""
    if variable is None:
        return []
    x, out = proof.symbol(variable), set()
    try:
        with time_budget(1.0):
            for e in reference:
                e = proof.as_expr(e)
                if not e.free_symbols <= {x}:
                    continue
                den = sp.fraction(sp.together(e))[1]
                if not e.is_rational_function(x):
                    out |= _zeros(den, x)
                elif den.has(x) and sp.degree(den, x) <= 6:
                    out |= set(sp.Poly(den, x).real_roots())
    except (Timeout, Exception):  # noqa: BLE001 - no poles known: the parts stay whole
        return []
    return sorted(out, key=float)


def _zeros(den: Any, x: Any) -> set[Any]:
    """The real zeros of a denominator that is no polynomial, when sympy finds at most
    six of them (none known otherwise)."""
    if not den.has(x):
        return set()
    found = sp.solveset(den, x, sp.S.Reals)
    if isinstance(found, sp.FiniteSet) and len(found) <= 6:
        return {z for z in found if z.is_real}
    return set()


def _apart(spans: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """The spans without overlaps: split at every end of another span inside them
    ((-1, 1) and (0, 1) are (-1, 0) and (0, 1))."""
    ends = sorted({e for s in spans for e in s if e is not None}, key=float)
    out: list[tuple[Any, Any]] = []
    for lo, hi in spans:
        inner = [e for e in ends if _within(float(e), lo, hi) and not (
            _same(e, lo) or _same(e, hi))]
        for a, b in zip([lo, *inner], [*inner, hi], strict=True):
            if not any(_same(a, c) and _same(b, d) for c, d in out):
                out.append((a, b))
    return out


def lost_at(problem: Problem, pts: dict[str, np.ndarray], bounds: tuple[Bound, ...],
            limits: Limits) -> np.ndarray:
    """Per point (arrays of every input): the reference side defined, the student's
    not, inside `bounds`."""
    with np.errstate(all="ignore"):
        fv = judged_points.function_values(problem, dict(pts), limits)
        av = [evaluate(e, pts, (), limits).value for e in problem.answer.entries]
        f_ok = np.logical_and.reduce([np.isfinite(a) for a in [v.value for v in fv] +
                                      [g for v in fv for g in v.grad.values()]])
        a_ok = np.logical_and.reduce([np.isfinite(a) for a in av])
    reference, student = (a_ok, f_ok) if problem.turned else (f_ok, a_ok)
    return reference & ~student & (inside(pts, bounds) if bounds else True)


def status(problem: Problem, base: dict[str, float], variable: str, xs: np.ndarray,
           bounds: tuple[Bound, ...], limits: Limits) -> np.ndarray:
    """Per value of the variable (the other inputs at `base`): the reference side
    defined, the student's not."""
    pts = {n: np.full(len(xs), v) for n, v in base.items()}
    pts[variable] = xs
    return lost_at(problem, pts, bounds, limits)


def _end(problem: Problem, point: dict[str, float], variable: str, direction: int,
         bounds: tuple[Bound, ...], limits: Limits) -> tuple[float, float]:
    """Where the part around the point ends on one side (±inf when it does not), and
    how closely that is known."""
    x = point[variable]
    xs = x + direction * 2.0 ** STEPS
    found = status(problem, point, variable, xs, bounds, limits)
    if found.all():
        return direction * math.inf, 0.0
    k = int(np.argmin(found))
    near, far = (x if k == 0 else float(xs[k - 1])), float(xs[k])
    for _ in range(REFINEMENTS):
        grid = np.linspace(near, far, GRID)
        found = status(problem, point, variable, grid, bounds, limits)
        k = int(np.argmin(found))
        near, far = float(grid[max(k - 1, 0)]), float(grid[k])
    return (near + far) / 2, abs(far - near) + 1e-12 * (1 + abs(near))


def _snap(v: float, within: float, roots: list[Any]) -> Any:
    """An end found by bisection as the exact number it is near (0, 25, -7/2 + √21/2),
    if any; None when unbounded."""
    if math.isinf(v):
        return None
    for near in [sp.Integer(0), *roots]:
        if abs(float(near) - v) <= 4 * within:
            return near
    for digits in range(1, 10):
        near = exact_number(float(f"{v:.{digits}g}"))
        if not near.is_Float and abs(float(near) - v) <= 4 * within:
            return near
    turns = sp.Rational(round(v / math.pi * 12), 12)  # a multiple of π/12 (tan, cot)
    if turns and abs(float(turns * sp.pi) - v) <= 4 * within:
        return turns * sp.pi
    return v

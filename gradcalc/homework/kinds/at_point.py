"""dy/dx at one point of a curve (`--implicit y --at 'x=1, y=-1'`): "find the slope of
the tangent at (1, -1)", a staple of implicit-differentiation homework.

The point gives a value to every name of the equation (x, y and its constants). It must
lie on the curve (F - G is 0 there to rounding, as for the sampled points, curve.py) and
have a dy/dx there (∂/∂y of F - G is not 0); else the problem is refused, saying which.
The truth is -F_x/F_y at the point (or d²y/dx²), from the tape; the answer (a number, or
a formula of the names, all held at the point) is compared with it. Where the point's
values are exact numbers (1, 1/2, √2 as float64 holds them) and the answer has no
decimals (0.577 is a value rounded), sympy decides exactly: the point lies exactly on the
curve, and the answer minus sympy's slope there is 0 (correct) or a nonzero number
(incorrect): `symbolic`. Otherwise the tolerances decide: `numeric`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from gradcalc.errors import GradcalcError
from gradcalc.homework import proof
from gradcalc.homework.exact import exact_number
from gradcalc.homework.judge import Settings, Verdict
from gradcalc.homework.kinds import on_curve
from gradcalc.homework.kinds.curve import on_curve as on_curve_points
from gradcalc.homework.kinds.curve import slope
from gradcalc.homework.problem import Side
from gradcalc.homework.reading.student import formula
from gradcalc.homework.sample import evaluate
from gradcalc.language.ir import walk
from gradcalc.language.parse import quote
from gradcalc.language.program import Num
from gradcalc.limits import Limits
from gradcalc.verify.budget import Timeout, time_budget


def judge(side: Side, a_side: Side, names: tuple[str, str, tuple[str, ...]], order: int,
          at: tuple[tuple[str, Any], ...], settings: Settings, limits: Limits,
          base: dict[str, Any]) -> Verdict:
    """The verdict on dy/dx (order 2: d²y/dx²) at the point `at` of the curve F - G =
    `side`; `names` are (x, y, the constants), `base` the verdict's reading."""
    x, y, constants = names
    point = _point(side, x, y, constants, at, limits)
    pts = {n: np.array([v]) for n, v in point.items()}
    truth = float(slope(side, pts, x, y, order, limits)[0])
    with np.errstate(all="ignore"):
        got = float(np.asarray(evaluate(a_side.entries[0], pts, (), limits).value)[0])
    where = ", ".join(f"{n} = {_number(v)}" for n, v in point.items())
    decided, exact_text = _exactly(side, a_side, names, order, point, limits)
    base["read"]["answer"] += f" at {where}"
    base.update(expected=exact_text or f"{truth:.15g}", points=[point],
                values={"expected": [[truth]], "answer": [[got]]})
    if not np.isfinite(got):
        return Verdict("undetermined", "numeric", score=None, reason=(
            "the answer is not a real number at the point"), **base)
    if decided is None:
        decided = bool(abs(got - truth) <= settings.atol + settings.rtol * max(
            abs(got), abs(truth)))
        method = "numeric"
    else:
        method = "symbolic"
    if decided:
        return Verdict("correct", method, score=1.0, **base)
    return Verdict("incorrect", method, score=0.0, counterexample={
        "at": point, "expected": truth, "answer": got}, **base)


def _decimals(program: Any) -> bool:
    """Whether a formula has a number with a fractional part (0.577): a value the student
    rounded, for the tolerances to judge."""
    return any(isinstance(n, Num) and n.value != int(n.value) for n in walk(program))


def _number(v: float) -> str:
    """v as it was most likely typed: 1, 0.5, √3/2, else all its digits."""
    if float(f"{v:g}") == v:
        return f"{v:g}"
    exact = exact_number(v)
    return repr(v) if exact.is_Float else formula(exact)


def _point(side: Side, x: str, y: str, constants: tuple[str, ...],
           at: tuple[tuple[str, Any], ...], limits: Limits) -> dict[str, float]:
    """The point, every name of the equation given, on the curve and with a dy/dx there;
    GradcalcError saying what is wrong otherwise."""
    needed = (x, y, *constants)
    given = dict(at)
    for n, v in at:
        if n not in needed:
            raise GradcalcError(f"--at {quote(n)}: the equation does not use it (its names: "
                                f"{', '.join(needed)})", kind="usage")
        if not isinstance(v, float):
            raise GradcalcError(f"--at {n}: give one number", kind="usage")
    missing = [n for n in needed if n not in given]
    if missing:
        raise GradcalcError(f"--at with --implicit: give a point of the curve, a value for "
                            f"each of {', '.join(needed)} ({', '.join(missing)} missing), "
                            f"e.g. --at '{x}=1, {y}=2'", kind="usage")
    point = {n: float(given[n]) for n in needed}
    pts = {n: np.array([v]) for n, v in point.items()}
    on, sloped = on_curve_points(side.entries[0], pts, x, y, limits)
    where = ", ".join(f"{n}={_number(v)}" for n, v in point.items())
    if not on[0]:
        with np.errstate(all="ignore"):
            value = float(np.asarray(evaluate(side.entries[0], pts, (), limits).value)[0])
        raise GradcalcError(f"--at '{where}': the point is not on the curve (the left side "
                            f"minus the right is {value:.6g} there)", kind="usage")
    if not sloped[0]:
        raise GradcalcError(f"--at '{where}': d{y}/d{x} does not exist there (the "
                            f"equation's ∂/∂{y} is 0: a vertical tangent or a crossing)",
                            kind="usage")
    return point


def _exactly(side: Side, a_side: Side, names: tuple[str, str, tuple[str, ...]], order: int,
             point: dict[str, float], limits: Limits) -> tuple[bool | None, str | None]:
    """(whether the answer is the slope at the point, decided exactly, or None when sympy
    cannot decide; the slope's exact value as text, or None)."""
    x, y, constants = names
    subs = {proof.symbol(n): exact_number(v) for n, v in point.items()}
    if any(v.is_Float for v in subs.values()):
        return None, None
    try:
        with time_budget(limits.check_seconds):
            s = on_curve.slope(side, x, y, order, limits, constants)
            if sp.simplify(s.h.xreplace(subs)) != 0:
                return None, None  # on the curve to rounding only: the numbers decide
            value = sp.simplify(s.slope.xreplace(subs))
            if not value.is_number or value.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
                return None, None
            shown = formula(value, s.names)
            program = a_side.entries[0].program
            if proof._decides(program) or _decimals(program):  # noqa: SLF001 - the same test
                return None, shown  # one path only; or a rounded number: the tolerances
            answer = on_curve.answer_expr(a_side, s, limits).xreplace(subs)
            if answer.has(sp.Float) or value.has(sp.Float):
                return None, shown  # not exact in float64: the tolerances decide
            gap = sp.simplify(value - answer)
            if gap == 0:
                return True, shown
            return (False if gap.is_number and gap.is_zero is False and gap.is_finite
                    else None), shown
    except Timeout:
        return None, None
    except Exception:  # noqa: BLE001 - sympy fails in many ways; the numbers decide
        return None, None

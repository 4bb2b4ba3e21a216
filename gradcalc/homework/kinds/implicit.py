"""Implicit differentiation: dy/dx (or d²y/dx²) of a curve F(x, y) = G(x, y).

`check "x^2 + y^2 = 25" --implicit y --answer "-x/y"`. The equation's one top-level `=`
splits it; H = F - G is read as a program like any function. The answer may use x and
y, and is judged only on points of the curve, never off it: seeded values of x, and for
each several seeded starts of y, are taken to the curve by Newton's method on y, whose
step H/H_y uses the tape's own derivative. Where H_y is 0 (a vertical tangent, a
crossing) there is no dy/dx and the point is dropped. The truth at each point is
dy/dx = -H_x/H_y, and d²y/dx² = -(H_xx + 2·H_xy·y' + H_yy·y'²)/H_y, every partial from
the tape (higher.py).

sympy's -F_x/F_y (on_curve.py) is the expected text and a second, exact check,
within one time budget (`check_seconds`): on a polynomial curve an answer proved to be
dy/dx is correct whatever the points gave, and a wrong one is confirmed at an exact point
of the curve; either makes the method `symbolic`. Where sympy cannot tell, the points
decide (`numeric`).

Branches: where one x has several points of the curve, each is named by its rank
(lower, middle, upper). An answer that agrees everywhere is correct on every branch; one
that agrees on all the points of some branches only (`-x/sqrt(25 - x^2)`, the upper half
of the circle) is correct there, and the verdict says on which (`branch`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from gradcalc.errors import GradcalcError
from gradcalc.homework import higher, proof
from gradcalc.homework.judge import Settings, Verdict
from gradcalc.homework.kinds import on_curve as implicit_exact
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.problem import Side, free_names, read_side
from gradcalc.homework.sample import evaluate
from gradcalc.language.parse import quote
from gradcalc.language.program import EULER
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.budget import Timeout, time_budget

#: x values drawn per round, starts of y per x, rounds at most, Newton steps at most
XS, STARTS, ROUNDS, NEWTON_STEPS = 16, 6, 4, 60
#: a Newton point is on the curve when |H| is below this (relative to H's terms' scale)
ON_CURVE = 1e-10
#: at least this many points of a branch agree before a branch-only verdict is correct
BRANCH_POINTS = 3


def split_equation(text: str) -> tuple[str, str]:
    """The two sides of the equation's one top-level `=` (not ==, <=, >=, !=)."""
    found = [i for i, c in enumerate(text) if c == "=" and text[i - 1:i] not in "=<>!"
             and text[i + 1:i + 2] != "="] if "=" in text else []
    found = [i for i in found if text[i - 1:i] not in ("=", "<", ">", "!") or i == 0]
    if len(found) != 1:
        raise GradcalcError("--implicit: the function is an equation with one '=', e.g. "
                            "'x^2 + y^2 = 25'", kind="usage")
    i = found[0]
    left, right = text[:i].strip(), text[i + 1:].strip()
    if not left or not right:
        raise GradcalcError("--implicit: the equation needs a left and a right side",
                            kind="usage")
    return left, right


@dataclass(frozen=True)
class _Curve:
    """What a class's rows on one equation share: its reading, the points of the curve and
    dy/dx there, and sympy's formula (kept only when sympy gave one)."""

    left: str
    right: str
    side: Side
    x: str
    pts: dict[str, np.ndarray]
    labels: np.ndarray
    truth: np.ndarray | None
    exact: implicit_exact.Slope | None
    expected: str


#: equations already read, by (text, y, order, seed, samples, limits); at most MEMO kept
_MEMO: dict[tuple, _Curve] = {}
MEMO = 256


def forget() -> int:
    """Empty the memo of equations (a benchmark's cold start); how many were kept."""
    kept = len(_MEMO)
    _MEMO.clear()
    return kept


def judge(function: str, answer: str, wrt: list[str] | None, kind: Kind, settings: Settings,
          limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt") -> Verdict:
    """The verdict on dy/dx (or d²y/dx²) of the equation `function`, judged on points of
    its curve; the curve's variables are its own (`wrt` plays no part)."""
    y = kind.implicit or "y"
    started = time.monotonic()
    c = _curve(function, y, kind.order, settings, limits)
    left, right, x, pts, labels, exact = c.left, c.right, c.x, c.pts, c.labels, c.exact
    a_side = read_side(answer, "answer", 0, limits, (x, y))
    for n in free_names(a_side.program):
        if n not in (x, y, EULER):
            raise GradcalcError(f"the answer uses {quote(n)}; it may use {x} and {y}",
                                kind="input")
    order = kind.order
    said = f"d{y}/d{x}" if order == 1 else f"d^2{y}/d{x}^2"
    # one budget for all of sympy's work on this row, the formula's included when it was
    # not in the memo
    deadline = started + limits.check_seconds
    base: dict[str, Any] = {"expected": c.expected,
                            "kind": "implicit", "wrt": (x,), "read": {
                                "function": f"{left} = {right}",
                                "answer": f"{said} = {a_side.entries[0].text}"}}
    if not len(pts[x]):
        return Verdict("undetermined", "numeric", reason=(
            f"no point of the curve was found where d{y}/d{x} exists"), score=None, **base)
    truth = c.truth
    with np.errstate(all="ignore"):
        got = evaluate(a_side.entries[0], pts, (), limits).value
        ok = np.abs(got - truth) <= settings.atol + settings.rtol * np.maximum(
            np.abs(got), np.abs(truth))
    defined = np.isfinite(got)
    points = [{x: float(a), y: float(b)} for a, b in zip(pts[x], pts[y], strict=True)]
    base["points"] = [p for p, d in zip(points, defined, strict=True) if d]
    if not defined.any():
        return Verdict("undetermined", "numeric", score=None, reason=(
            "the answer is not a real number at any point found on the curve"), **base)
    names = sorted(set(labels[defined]), key=_RANK.index)
    proven = exact is not None and _decide(exact, a_side, None, settings, limits, deadline)
    if proven or ok[defined].all():
        return Verdict("correct", "symbolic" if proven else "numeric", score=1.0,
                       branch=_branches(names, True), **base)
    right = [b for b in names if (labels == b)[defined].sum() >= BRANCH_POINTS
             and ok[defined & (labels == b)].all()]
    if right and len(names) > 1:
        return Verdict("correct", "numeric", score=1.0, branch=_branches(right, False),
                       feedback=(f"correct on the {_branches(right, False)} only: elsewhere "
                                 f"on the curve the answer is not d{y}/d{x}; an answer in "
                                 f"{x} and {y} holds on every branch"), **base)
    k = int(np.flatnonzero(defined & ~ok)[0])
    counter = {"at": points[k], "expected": float(truth[k]), "answer": float(got[k])}
    method = "symbolic" if exact is not None and _decide(exact, a_side, points[k], settings,
                                                         limits, deadline) else "numeric"
    return Verdict("incorrect", method, counterexample=counter, score=0.0,
                   branch=_branches(names, True), feedback=_feedback(got, truth, defined),
                   **base)


def _key(function: str, y: str, order: int, settings: Settings, limits: Limits) -> tuple:
    return (function, y, order, settings.seed, settings.samples, limits)


def _curve(function: str, y: str, order: int, settings: Settings, limits: Limits) -> _Curve:
    """The equation read, its points and sympy's slope: from the memo, or computed (and
    kept when sympy gave a formula, so that a slow moment never sticks)."""
    key = _key(function, y, order, settings, limits)
    if key in _MEMO:
        return _MEMO[key]
    left, right, side, x = read_equation(function, y, limits)
    pts, labels = curve_points(side, x, y, settings, limits)
    exact, expected = _exact(side, x, y, order, limits)
    truth = slope(side, pts, x, y, order, limits) if len(pts[x]) else None
    found = _Curve(left, right, side, x, pts, labels, truth, exact, expected)
    if exact is not None:
        while len(_MEMO) >= MEMO:
            del _MEMO[next(iter(_MEMO))]
        _MEMO[key] = found
    return found


def read_equation(function: str, y: str, limits: Limits) -> tuple[str, str, Side, str]:
    """The equation's two sides, F - G read as one side, and its other variable."""
    left, right = split_equation(function)
    side = read_side(f"({left}) - ({right})", "equation", 0, limits)
    names = [n for n in free_names(side.program) if n != EULER]
    if y not in names:
        raise GradcalcError(f"--implicit {quote(y)}: the equation does not use it (its "
                            f"names: {', '.join(names)})", kind="usage")
    others = [n for n in names if n != y]
    if len(others) != 1:
        raise GradcalcError(f"--implicit: the equation should have one other variable "
                            f"besides {y} (it has: {', '.join(others) or 'none'})",
                            kind="usage")
    return left, right, side, others[0]


def solve(function: str, wrt: list[str] | None, kind: Kind, settings: Settings,
          limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt",
          answer: str | None = None) -> Any:
    """The worked solution (homework/solutions/both_sides.py): both sides differentiated,
    the dy/dx terms collected, solved; a second derivative on points of the curve."""
    from gradcalc.homework.solutions.both_sides import solution

    y = kind.implicit or "y"
    left, right, side, x = read_equation(function, y, limits)
    return solution(left, right, side, x, y, kind.order, settings, limits,
                    lambda: curve_points(side, x, y, settings, limits)[0])


_RANK = ["only", "lower", "middle", "upper", "other"]


def _branches(names: list[str], every: bool) -> str:
    if names == ["only"]:
        return "the one branch sampled"
    named = [n for n in names if n != "only"]
    words = " and ".join(named) + " branch" + "es" * (len(named) > 1)
    return words if not every or len(named) < 2 else f"{words} (every branch sampled)"


def _feedback(got: np.ndarray, truth: np.ndarray, defined: np.ndarray) -> str | None:
    from gradcalc.homework.feedback.recognise import same

    a, d = got[defined], truth[defined]
    if same(a, -d) and not same(d, 0 * d):
        return "sign error: the answer is the negative of dy/dx (dy/dx = -F_x/F_y)"
    with np.errstate(all="ignore"):
        if same(a, 1 / d):
            return "the answer is dx/dy, the reciprocal of dy/dx (dy/dx = -F_x/F_y)"
        if same(a, -1 / d):
            return "the answer is -F_y/F_x: dy/dx = -F_x/F_y, x's partial over y's"
    return None


def curve_points(side: Side, x: str, y: str, settings: Settings, limits: Limits
                 ) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Points of H = 0 where H_y ≠ 0 (seeded), and each one's branch name."""
    from gradcalc.homework.sample import _regions

    rng = np.random.default_rng(settings.seed)
    entry = side.entries[0]
    want = 3 * settings.samples
    xs_all: list[float] = []
    ys_all: list[float] = []
    labels: list[str] = []
    for _ in range(ROUNDS):
        xs = np.concatenate([rng.uniform(-3, 3, XS // 2), _regions(rng, XS - XS // 2)])
        starts = np.concatenate([rng.uniform(-3, 3, (XS, STARTS // 2)),
                                 _regions(rng, XS * (STARTS - STARTS // 2)).reshape(
                                     XS, -1)], axis=1)
        X = np.repeat(xs, STARTS)
        Y = _newton(entry, X, starts.reshape(-1), x, y, limits)
        for i, x0 in enumerate(xs):
            found = _distinct(Y[i * STARTS:(i + 1) * STARTS])
            for r, y0 in enumerate(found):
                xs_all.append(float(x0))
                ys_all.append(float(y0))
                labels.append(_label(r, len(found)))
        if len(xs_all) >= want:
            break
    return ({x: np.asarray(xs_all[:want]), y: np.asarray(ys_all[:want])},
            np.asarray(labels[:want], dtype=object))


def _label(rank: int, count: int) -> str:
    if count == 1:
        return "only"
    if rank == 0:
        return "lower"
    if rank == count - 1:
        return "upper"
    return "middle"


def _distinct(ys: np.ndarray) -> list[float]:
    out: list[float] = []
    for v in sorted(float(t) for t in ys[np.isfinite(ys)]):
        if not out or abs(v - out[-1]) > 1e-6 * (1 + abs(v)):
            out.append(v)
    return out


def _newton(entry: Any, X: np.ndarray, Y: np.ndarray, x: str, y: str, limits: Limits
            ) -> np.ndarray:
    """Newton's method on y for every (x, start) at once; nan where it does not land on
    the curve or where H_y is 0 there."""
    Y = Y.astype(np.float64).copy()
    with np.errstate(all="ignore"):
        for _ in range(NEWTON_STEPS):
            v = evaluate(entry, {x: X, y: Y}, (y,), limits)
            step = v.value / v.grad[y]
            step[~np.isfinite(step)] = np.nan
            Y = Y - step
            if np.all(~np.isfinite(step) | (np.abs(step) <= 1e-15 * (1 + np.abs(Y)))):
                break
        v = evaluate(entry, {x: X, y: Y}, (x, y), limits)
        scale = 1 + np.abs(X) ** 3 + np.abs(Y) ** 3 + np.abs(v.grad[x] * X) + np.abs(
            v.grad[y] * Y)
        ok = (np.abs(v.value) <= ON_CURVE * scale) & (np.abs(v.grad[y]) > 1e-8 * (
            1 + np.abs(v.grad[x]))) & np.isfinite(v.grad[x])
    return np.where(ok, Y, np.nan)


def slope(side: Side, pts: dict[str, np.ndarray], x: str, y: str, order: int,
          limits: Limits) -> np.ndarray:
    """dy/dx (order 1) or d²y/dx² (order 2) at points of the curve, from H's partials."""
    entry = side.entries[0]
    if order == 1:
        d = higher.along(entry, pts, ((x,), (y,)), limits)
        with np.errstate(all="ignore"):
            return -d[(x,)] / d[(y,)]
    d = higher.along(entry, pts, ((x,), (y,), (x, x), (x, y), (y, y)), limits)
    with np.errstate(all="ignore"):
        p = -d[(x,)] / d[(y,)]
        return -(d[(x, x)] + 2 * d[(x, y)] * p + d[(y, y)] * p**2) / d[(y,)]


def _exact(side: Side, x: str, y: str, order: int, limits: Limits
           ) -> tuple[implicit_exact.Slope | None, str]:
    """dy/dx (or d²y/dx²) from sympy and its text, within the budget; (None, why not)
    when sympy cannot."""
    try:
        with time_budget(limits.check_seconds):
            exact = implicit_exact.slope(side, x, y, order, limits)
            return exact, implicit_exact.text(exact)
    except Timeout:
        return None, f"(no formula: sympy exceeded {limits.check_seconds:g} s)"
    except Exception as exc:  # noqa: BLE001 - sympy fails in many ways; say which, go on
        return None, f"(no formula: {type(exc).__name__})"


def _decide(exact: implicit_exact.Slope, a_side: Side, point: dict[str, float] | None,
            settings: Settings, limits: Limits, deadline: float) -> bool:
    """With no point: whether sympy proves the answer is the slope on the whole curve.
    With the numeric counterexample: whether the two differ at the exact point of the
    curve there. False when sympy cannot tell within the budget (the numeric check
    stands): so is the budget's end, `deadline` (time.monotonic), having passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        return False
    if proof._decides(a_side.entries[0].program):  # noqa: SLF001 - the same test
        return False  # its symbolic run would hold on one path only
    try:
        with time_budget(left):
            answer = implicit_exact.answer_expr(a_side, exact, limits)
            if point is None:
                return implicit_exact.proved(exact, answer)
            return implicit_exact.refuted(exact, answer, point, settings.rtol,
                                          settings.atol)
    except Timeout:
        return False
    except Exception:  # noqa: BLE001 - sympy fails in many ways; the numeric check stands
        return False

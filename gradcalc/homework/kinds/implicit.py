"""Implicit differentiation: dy/dx (or d²y/dx²) of a curve F(x, y) = G(x, y).

`check "x^2 + y^2 = 25" --implicit y --answer "-x/y"`. The equation's one top-level `=`
splits it; H = F - G is read as a program like any function. The answer may use x and
y, and is judged only on points of the curve, never off it (curve.py finds them with the
tape's own derivatives); the truth at each point is dy/dx = -H_x/H_y.

Variables and constants: y is `--implicit`'s name, and x the equation's one other name.
An equation with more names (`x^2 + y^2 = r^2`, `(x-a)^3 + y^3 = a^3`) holds named
constants: x is the one `--wrt` names, else the one of them the answer uses, else x
itself; the rest are constants, drawn anew with each point (the answer must hold for every value of
them), and the reading says so. `--at` asks for the value at one point of the curve
(at_point.py).

sympy's -F_x/F_y (on_curve.py) is the expected text and a second, exact check: on a
polynomial curve an answer proved to be dy/dx is correct whatever the points gave, and a
wrong one is confirmed at an exact point of the curve; either makes the method
`symbolic`. Where sympy cannot tell, the points decide (`numeric`). Each of sympy's
steps has its own budget of CPU time (`check_seconds`), so a verdict does not depend on
the machine's load, nor on whether the equation's formula was already kept.

Branches: where one x has several points of the curve, each is named by its rank
(lower, middle, upper). An answer that agrees everywhere is correct on every branch; one
that agrees on all the points of some branches only (`-x/sqrt(25 - x^2)`, the upper half
of the circle) is correct there, and the verdict says on which (`branch`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from gradcalc.engine.ops import FUNCTIONS
from gradcalc.errors import GradcalcError
from gradcalc.homework import proof
from gradcalc.homework.judge import Settings, Verdict
from gradcalc.homework.kinds import at_point, on_curve
from gradcalc.homework.kinds.curve import curve_points, slope
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.problem import Side, free_names, read_side
from gradcalc.homework.reading import wording
from gradcalc.homework.sample import evaluate
from gradcalc.homework.traps import Piece, Reading, located
from gradcalc.language.glued import variables_in
from gradcalc.language.parse import quote
from gradcalc.language.program import EULER
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.budget import Timeout, backstops, time_budget

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
    """What a class's rows on one equation share: its points, dy/dx there, and sympy's
    formula."""

    pts: dict[str, np.ndarray]
    labels: np.ndarray
    truth: np.ndarray | None
    exact: on_curve.Slope | None
    expected: str


#: equations already read, by text; curves by (text, y, x, constants, order, seed,
#: samples, limits); at most MEMO of each kept
_READ: dict[tuple, tuple[str, str, Side]] = {}
_MEMO: dict[tuple, _Curve] = {}
MEMO = 256


def forget() -> int:
    """Empty the memo of equations and of their sides read apart (a benchmark's cold
    start); how many curves were kept."""
    kept = len(_MEMO)
    _MEMO.clear()
    _READ.clear()
    _halves.cache_clear()
    return kept


def judge(function: str, answer: str, wrt: list[str] | None, kind: Kind, settings: Settings,
          limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt") -> Verdict:
    """The verdict on dy/dx (or d²y/dx²) of the equation `function`, judged on points of
    its curve (or at the one point `--at` gives)."""
    y = kind.implicit or "y"
    names = declared(y, wrt)
    left, right, side = _equation(function, limits, names)
    a_side = read_side(answer, "answer", 0, limits, equation_names(side, y))
    x, constants = variables(side, y, wrt, free_names(a_side.program), wrt_from)
    allowed = (x, y, *constants)
    for n in free_names(a_side.program):
        if n not in (*allowed, EULER):
            wording.refuse_words("answer", answer, allowed, FUNCTIONS)
            raise GradcalcError(f"the answer uses {quote(n)}; it may use "
                                f"{_listed(allowed)}", kind="input")
    order = kind.order
    said = f"d{y}/d{x}" if order == 1 else f"d^2{y}/d{x}^2"
    shown = " = ".join(_sides(function, side, limits, names)) + (f" ({_listed(constants)}: constant"
                                   f"{'s' * (len(constants) > 1)})" if constants else "")
    base: dict[str, Any] = {"kind": "implicit", "wrt": (x,), "read": {
        "function": shown, "answer": f"{said} = {a_side.entries[0].text}"}}
    if kind.at:
        return at_point.judge(side, a_side, (x, y, constants), order, kind.at, settings,
                              limits, base)
    c = _curve(function, side, y, x, constants, order, settings, limits)
    base["expected"] = c.expected
    pts, labels, exact = c.pts, c.labels, c.exact
    if not len(pts[x]):
        return Verdict("undetermined", "numeric", reason=(
            f"no point of the curve was found where d{y}/d{x} exists"), score=None, **base)
    truth = c.truth
    with np.errstate(all="ignore"):
        got = evaluate(a_side.entries[0], pts, (), limits).value
        ok = np.abs(got - truth) <= settings.atol + settings.rtol * np.maximum(
            np.abs(got), np.abs(truth))
    defined = np.isfinite(got)
    points = [{n: float(pts[n][k]) for n in allowed} for k in range(len(pts[x]))]
    base["points"] = [p for p, d in zip(points, defined, strict=True) if d]
    if not defined.any():
        return Verdict("undetermined", "numeric", score=None, reason=(
            "the answer is not a real number at any point found on the curve"), **base)
    names = sorted(set(labels[defined]), key=_RANK.index)
    proven = exact is not None and decide(exact, a_side, None, settings, limits)
    if proven or ok[defined].all():
        return Verdict("correct", "symbolic" if proven else "numeric", score=1.0,
                       branch=_branches(names, True), **base)
    right_on = [b for b in names if (labels == b)[defined].sum() >= BRANCH_POINTS
                and ok[defined & (labels == b)].all()]
    if right_on and len(names) > 1:
        return Verdict("correct", "numeric", score=1.0, branch=_branches(right_on, False),
                       feedback=(f"correct on the {_branches(right_on, False)} only: "
                                 f"elsewhere on the curve the answer is not d{y}/d{x}; an "
                                 f"answer in {x} and {y} holds on every branch"), **base)
    k = int(np.flatnonzero(defined & ~ok)[0])
    counter = {"at": points[k], "expected": float(truth[k]), "answer": float(got[k])}
    method = "symbolic" if exact is not None and decide(exact, a_side, points[k], settings,
                                                        limits) else "numeric"
    return Verdict("incorrect", method, counterexample=counter, score=0.0,
                   branch=_branches(names, True), feedback=_feedback(got, truth, defined),
                   **base)


def _listed(names: tuple[str, ...]) -> str:
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]


def _equation(function: str, limits: Limits, declared: tuple[str, ...] = ()
              ) -> tuple[str, str, Side]:
    """The equation's two sides and H = F - G read as one side (kept per text), names
    glued to the `declared` variables read apart (`xy = 1` is x·y = 1)."""
    key = (function, limits, declared)
    if key not in _READ:
        left, right = split_equation(function)
        text = f"({left}) - ({right})"
        side = read_side(text, "equation", 0, limits, variables_in([text], FUNCTIONS,
                                                                   declared))
        while len(_READ) >= MEMO:
            del _READ[next(iter(_READ))]
        _READ[key] = (left, right, side)
    return _READ[key]


def declared(y: str, wrt: list[str] | None) -> tuple[str, ...]:
    """The variables the problem names: y, and x (or the one `wrt` names)."""
    return (y, *(wrt or ["x"]))


def _sides(function: str, side: Side, limits: Limits, names: tuple[str, ...]
           ) -> tuple[str, str]:
    """The equation's two sides as typed, or as read when a name glued to a variable was
    read apart (`xy = 1` is x·y = 1: the reading said)."""
    if not any(t.kind == "glued name" for t in side.traps):
        return split_equation(function)
    left, right = (p.side.entries[0].text for p in _halves(function, limits, names))
    return left, right


def reading(function: str, answer: str, wrt: list[str] | None, kind: Kind,
            limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt") -> Reading:
    """How the two texts read (for traps.py): the equation's two sides, each where it
    was typed, and the answer as `judge` reads it."""
    names = declared(kind.implicit or "y", wrt)
    side = _equation(function, limits, names)[2]
    a_side = read_side(answer, "answer", 0, limits, equation_names(side, kind.implicit or "y"))
    return Reading(_halves(function, limits, names), located(answer, a_side))


@lru_cache(maxsize=MEMO)
def _halves(function: str, limits: Limits, declared: tuple[str, ...] = ()
            ) -> tuple[Piece, Piece]:
    """The equation's two sides read apart, with the names the whole is read with."""
    left, right = split_equation(function)
    names = variables_in([f"({left}) - ({right})"], FUNCTIONS, declared)
    starts = (len(function) - len(function.lstrip()), len(function.rstrip()) - len(right))
    return tuple(located(function, read_side(text, "equation", 0, limits, names), at)
                 for text, at in zip((left, right), starts, strict=True))  # type: ignore


def variables(side: Side, y: str, wrt: list[str] | None, answer_names: list[str],
              wrt_from: str = "--wrt") -> tuple[str, tuple[str, ...]]:
    """(x, the constants): x is the equation's one name besides y, or the one `wrt`
    names, or the one of them the answer uses, or the name x; GradcalcError when none of
    these says."""
    names = [n for n in free_names(side.program) if n != EULER]
    if y not in names:
        raise GradcalcError(f"--implicit {quote(y)}: the equation does not use it (its "
                            f"names: {', '.join(names)})", kind="usage")
    others = [n for n in names if n != y]
    if not others:
        raise GradcalcError(f"--implicit: the equation should have a variable besides {y} "
                            "(it has none)", kind="usage")
    if wrt:
        if len(wrt) != 1 or wrt[0] not in others:
            raise GradcalcError(f"{wrt_from} {','.join(wrt)}: with --implicit {y}, name the "
                                f"one variable {y} depends on, one of {', '.join(others)}",
                                kind="usage")
        x = wrt[0]
    elif len(others) == 1:
        x = others[0]
    else:
        used = [n for n in others if n in answer_names]
        if len(used) != 1 and "x" in others:
            used = ["x"]  # dy/dx: x unless the answer says otherwise (the reading names it)
        if len(used) != 1:
            raise GradcalcError(f"--implicit {y}: the equation has {', '.join(others)} "
                                f"besides {y}; name the variable with {wrt_from} (the "
                                f"others are constants), e.g. {wrt_from} {others[0]}",
                                kind="usage")
        x = used[0]
    return x, tuple(n for n in others if n != x)


def _curve(function: str, side: Side, y: str, x: str, constants: tuple[str, ...],
           order: int, settings: Settings, limits: Limits) -> _Curve:
    """The equation's points and sympy's slope: from the memo, or computed (and kept
    unless the wall-clock backstop cut sympy short, so that a hang never sticks)."""
    key = (function, y, x, constants, order, settings.seed, settings.samples, limits)
    if key in _MEMO:
        return _MEMO[key]
    fired = backstops()
    pts, labels = curve_points(side, x, y, settings, limits, constants)
    exact, expected = _exact(side, x, y, order, limits, constants)
    truth = slope(side, pts, x, y, order, limits) if len(pts[x]) else None
    found = _Curve(pts, labels, truth, exact, expected)
    if backstops() == fired:
        while len(_MEMO) >= MEMO:
            del _MEMO[next(iter(_MEMO))]
        _MEMO[key] = found
    return found


_RANK = ["only", "lower", "middle", "upper", "other"]


def _branches(names: list[str], every: bool) -> str:
    if names == ["only"]:
        return "the one branch sampled"
    named = [n for n in names if n != "only"]
    words = " and ".join(named) + " branch" + "es" * (len(named) > 1)
    return words if not every or len(named) < 2 else f"{words} (every branch sampled)"


def _feedback(got: np.ndarray, truth: np.ndarray, defined: np.ndarray) -> str | None:
    from gradcalc.homework.feedback import messages
    from gradcalc.homework.feedback.recognise import same

    a, d = got[defined], truth[defined]
    if same(a, -d) and not same(d, 0 * d):
        return messages.sign_error("dy/dx", why="dy/dx = -F_x/F_y")
    with np.errstate(all="ignore"):
        if same(a, 1 / d):
            return "the answer is dx/dy, the reciprocal of dy/dx (dy/dx = -F_x/F_y)"
        if same(a, -1 / d):
            return "the answer is -F_y/F_x: dy/dx = -F_x/F_y, x's partial over y's"
    return None


def _exact(side: Side, x: str, y: str, order: int, limits: Limits,
           constants: tuple[str, ...] = ()) -> tuple[on_curve.Slope | None, str]:
    """dy/dx (or d²y/dx²) from sympy and its text, within the budget; (None, why not)
    when sympy cannot."""
    try:
        with time_budget(limits.check_seconds):
            exact = on_curve.slope(side, x, y, order, limits, constants)
            return exact, on_curve.text(exact)
    except Timeout:
        return None, f"(no formula: sympy exceeded {limits.check_seconds:g} s of CPU time)"
    except Exception:  # noqa: BLE001 - sympy fails in many ways; said plainly, go on
        return None, "(no formula: sympy could not follow the equation)"


def decide(exact: on_curve.Slope, a_side: Side, point: dict[str, float] | None,
           settings: Settings, limits: Limits) -> bool:
    """With no point: whether sympy proves the answer is the slope on the whole curve.
    With the numeric counterexample: whether the two differ at the exact point of the
    curve there. False when sympy cannot tell within its budget of CPU time (the
    numeric check stands)."""
    if proof._decides(a_side.entries[0].program):  # noqa: SLF001 - the same test
        return False  # its symbolic run would hold on one path only
    try:
        with time_budget(limits.check_seconds):
            answer = on_curve.answer_expr(a_side, exact, limits)
            if point is None:
                return on_curve.proved(exact, answer)
            return on_curve.refuted(exact, answer, point, settings.rtol,
                                          settings.atol)
    except Timeout:
        return False
    except Exception:  # noqa: BLE001 - sympy fails in many ways; the numeric check stands
        return False


def equation_names(side: Side, y: str) -> tuple[str, ...]:
    """The names an answer may use: y and the equation's other names (its variable and
    its constants), so that names glued to them (`cosx`, `xy`) read as the student meant."""
    return tuple(dict.fromkeys([y, *(n for n in free_names(side.program) if n != EULER)]))


def solve(function: str, wrt: list[str] | None, kind: Kind, settings: Settings,
          limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt",
          answer: str | None = None) -> Any:
    """The worked solution (homework/solutions/both_sides.py): both sides differentiated,
    the dy/dx terms collected, solved; a second derivative on points of the curve; with
    --at, the value at that point of the curve (refused as `check` refuses it)."""
    from gradcalc.homework.solutions.both_sides import solution

    y = kind.implicit or "y"
    side = _equation(function, limits, declared(y, wrt))[2]
    left, right = _sides(function, side, limits, declared(y, wrt))
    names = free_names(read_side(answer, "answer", 0, limits, equation_names(side, y))
                       .program) if answer else []
    x, constants = variables(side, y, wrt, names, wrt_from)
    point = (at_point._point(side, x, y, constants, kind.at, limits)  # noqa: SLF001 - as judged
             if kind.at else None)
    return solution(left, right, side, x, y, kind.order, settings, limits,
                    lambda: curve_points(side, x, y, settings, limits, constants)[0],
                    constants, point)


def prompt(kind: Kind, asked: str, wrt: tuple[str, ...]) -> str:
    """What a sheet asks: dy/dx (or d²y/dx²) by implicit differentiation."""
    return f"Find {asked or 'dy/dx'} by implicit differentiation."


def departure(solution: Any, answer: str, limits: Limits) -> Any:
    """The worked solution with the step where a wrong dy/dx left the path marked
    (`homework.solutions.departure.place_implicit`)."""
    from gradcalc.homework.solutions.departure import place_implicit

    return place_implicit(solution, answer, limits)

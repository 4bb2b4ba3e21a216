"""The verdict on one answer: correct, incorrect or undetermined, and what decided it.

1. Points: seeded candidates until `samples` points lie inside both sides' domain (and
   inside `--domain`, when given: points.py).
2. A point where the answer and the true derivative differ beyond the tolerances, the
   difference confirmed in 30-digit arithmetic, proves `incorrect` at once.
3. A point where the true derivative is a real number and the answer is not, confirmed
   in exact arithmetic, proves `incorrect` too: the answer is judged on the function's
   whole real domain, every part of it (undefined.py).
4. `correct` needs a symbolic proof (the difference is 0 after sympy's automatic form,
   `expand` or, for rational functions, `cancel`; also `simplify` with `prove`, or when
   too few points were found) or agreement at all `samples` points. Before a numeric
   `correct`, exact arithmetic settles what it can cheaply (`proof.settle`): a
   difference proved not 0 is `incorrect` whatever the tolerances, unless the answer
   has decimals typed in it, which the tolerances are for (the verdict says so).
   Otherwise `undetermined`, with the reason.

Tolerances: |answer - derivative| <= atol + rtol * max(|answer|, |derivative|), defaults
rtol 1e-6 and atol 1e-9 (docs/homework.md compares them with WeBWorK's and STACK's).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.homework import (
    credit,
    higher,
    judged_points,
    proof,
    read_as,
    true_derivative,
    undefined,
)
from gradcalc.homework.domain import Bound, check_names, inside, shown
from gradcalc.homework.feedback import misconceptions
from gradcalc.homework.feedback.recognise import Evidence, recognise
from gradcalc.homework.problem import Problem, forget_functions
from gradcalc.homework.reading import student
from gradcalc.homework.sample import Values, evaluate, kinked
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.budget import Timeout, backstops, time_budget

#: at most this many numeric mismatches are confirmed in exact arithmetic
MAX_CONFIRM = 4
#: a decimal typed in an answer that is not a whole number (0.333, 1.5e-3, .5)
_DECIMAL = re.compile(r"(?<![\w.])(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|(?<![\w.])\d+[eE]-\d+")
CACHE_SIZE = judged_points.CACHE_SIZE
#: a float64 difference above this (relative) is more than rounding
ROUNDING = 64 * np.finfo(float).eps


@dataclass(frozen=True)
class Settings:
    rtol: float = 1e-6
    atol: float = 1e-9
    samples: int = 8
    seed: int = 0
    prove: bool = False  # always try sympy's simplify (slow) before the numeric verdict
    #: where answers are judged (a problem's `--domain`); () is the function's real domain
    domain: tuple[Bound, ...] = ()


@dataclass
class Verdict:
    verdict: str  # 'correct' | 'incorrect' | 'undetermined'
    method: str  # 'symbolic' | 'numeric'
    expected: str
    kind: str
    wrt: tuple[str, ...]
    counterexample: dict[str, Any] | None = None
    feedback: str | None = None
    reason: str | None = None
    points: list[dict[str, float]] = field(default_factory=list)
    #: per entry of a list answer: {"index": [..], "verdict": ...} (credit.py)
    entries: list[dict[str, Any]] | None = None
    score: float | None = None  # the share of right entries, in [0, 1]
    misconception: dict[str, str] | None = None  # {"rule": ..., "at": ...}
    branch: str | None = None  # implicit differentiation: the branches judged on
    #: the true derivative as LaTeX (None when there is no formula)
    expected_latex: str | None = None
    #: how each side was read, in the student's notation: {"function": ..., "answer": ...}
    read: dict[str, str] | None = None
    #: the other reading of a notation trap, when it would change the verdict
    note: str | None = None
    #: both sides at each point: {"expected": [[entries] per point], "answer": [...]}
    values: dict[str, list[list[float]]] = field(default_factory=dict)
    #: what decided it, to judge it again (set by the command that ran it)
    receipt: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.verdict == "correct"

    @property
    def failed(self) -> bool:
        return not self.ok


def _shape_problem(problem: Problem) -> str | None:
    """Why the answer's shape cannot be the derivative's (None if it can)."""
    want, got = problem.shape, problem.answer.shape
    size = math.prod(want)
    if got == want or (math.prod(got) == size and len(got) <= 1 and len(want) <= 1):
        return None
    if problem.kind == "jacobian" and problem.shape[1] == 1 and got == (size,):
        return None
    names = ", ".join(f"d/d{w}" for w in problem.wrt)
    if problem.kind == "derivative":
        what = "the derivative is one expression"
    elif problem.kind == "gradient":
        what = f"the gradient has {size} entries ({names})"
    else:
        what = (f"the Jacobian is {want[0]}×{want[1]} (rows: the function's outputs; "
                f"columns: {names})")
    return f"{what}; the answer has {'shape ' + str(got) if got else 'one expression'}"


# --------------------------------------------------------------------------- symbolic side

#: the function's symbolic side per (source, inputs, wrt): a class checks few functions
_CACHE: dict[tuple, tuple[list, list, str, str | None]] = {}


def forget_formulas() -> int:
    """Empty the cache of functions' formulas (a benchmark's cold start); how many were
    kept."""
    kept = len(_CACHE)
    _CACHE.clear()
    judged_points.forget()
    _ROUNDED.clear()
    forget_functions()
    misconceptions.forget()
    read_as.forget()
    proof.forget()
    return kept


def _nowhere(exprs: list) -> bool:
    """Whether sympy finds the function undefined everywhere (complex infinity, nan)."""
    import sympy as sp

    return any(isinstance(e, sp.Basic) and e.has(sp.zoo, sp.nan)
               for e in np.asarray(exprs, dtype=object).flat)


def _function_side(problem: Problem, point: dict[str, float], limits: Limits
                   ) -> tuple[list, list, str, str | None]:
    """(function exprs, derivative exprs, the derivative's text and LaTeX, in its shortest
    form found); ([], [], reason, None) when sympy cannot follow within the budget."""
    key = (problem.function.program.source, problem.inputs, problem.wrt, problem.paths,
           problem.pinned)
    if key in _CACHE and problem.function.straight:
        return _CACHE[key]
    fired = backstops()
    try:
        with time_budget(limits.check_seconds):
            f = proof.side_exprs(problem.function, problem.inputs, point, limits)
            d = true_derivative.derivatives(f, problem.wrt, problem.paths, problem.pinned)
            if _nowhere(f):  # x/sin(π): exactly x/0, though the tape's sin(π) is 1.2e-16
                return [], [], ("(no formula: the function divides by zero everywhere in "
                                "exact arithmetic)"), None
            text, tex = student.grid(d, problem.shape, problem.inputs)
        result = (f, d, text, tex)
    except Timeout:
        result = ([], [], f"(no formula: sympy exceeded {limits.check_seconds:g} s of CPU "
                  "time)", None)
    except Exception:  # noqa: BLE001 - sympy fails in many ways; said plainly, go on
        result = ([], [], "(no formula: sympy could not follow the function)", None)
    if backstops() > fired:  # a wall-clock verdict on this machine's load: not kept
        return result
    if len(_CACHE) >= CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = result
    return result


def _answer_side(problem: Problem, point: dict[str, float], limits: Limits) -> list:
    if not problem.function.straight or not problem.answer.straight:
        return []
    try:
        with time_budget(limits.check_seconds):
            answer = proof.side_exprs(problem.answer, problem.inputs, point, limits)
            return true_derivative.pin(answer, problem.pinned)
    except (Timeout, Exception):  # noqa: BLE001 - no answer formula: numbers decide
        return []


# --------------------------------------------------------------------------- the verdict


def judge(problem: Problem, settings: Settings = Settings(),
          limits: Limits = DEFAULT_LIMITS) -> Verdict:
    """The verdict on `problem`'s answer (see the module's docstring for the method)."""
    bounds = settings.domain
    if bounds:
        check_names(bounds, problem.inputs, problem.pinned)
    found = judged_points.sample(problem, settings.samples, settings.seed, limits, bounds)
    ev = found.evidence()
    lost = found.uncovered_points()
    first = {n: (v[0] if v else lost[0][n] if lost else 0.5) for n, v in found.points.items()}
    f_exprs, d_exprs, expected, tex = _function_side(problem, first, limits)
    read = read_as.read_as(problem)
    base: dict[str, Any] = {"expected": expected, "kind": problem.kind, "wrt": problem.wrt,
                            "points": _points(ev.points), "expected_latex": tex,
                            "read": {**read, "domain": shown(bounds)} if bounds else read,
                            "values": _values(ev)}
    shape = _shape_problem(problem)
    if shape:
        return Verdict("incorrect", "symbolic", feedback=shape, score=0.0, **base)
    a_exprs = _answer_side(problem, first, limits) if d_exprs else []
    wrong = _counterexample(ev, d_exprs, a_exprs, settings)
    if wrong is not None and wrong[0] is not None:
        k, i = wrong
        at = _readable(problem, ev, i, settings, limits) or _at(problem, ev, k)
        found_wrong = credit.wrong_entries(ev.points, ev.expected, ev.answer, d_exprs,
                                           a_exprs, settings.rtol, settings.atol, known=i)
        entries, score = credit.entries(found_wrong, problem.shape, _labels(problem))
        said, mistake = recognise(problem, ev, i, limits)
        return Verdict("incorrect", "numeric", counterexample=at, feedback=said,
                       entries=entries, score=score, misconception=mistake, **base)
    skipped: list[dict[str, float]] = []
    point = undefined.confirmed(problem, found, f_exprs, d_exprs, a_exprs, bounds,
                                limits, skipped) if lost and proof.one_formula(
        problem.function, problem.answer) else None
    if point is not None:
        return Verdict("incorrect", "numeric", score=0.0,
                       counterexample=undefined.counterexample(problem, point, limits),
                       feedback=undefined.describe(problem, point, found, bounds, (
                           a_exprs if problem.turned else d_exprs), limits),
                       **base)
    base.update(zip(("entries", "score"), credit.entries(
        [False] * len(ev.answer), problem.shape, _labels(problem))))
    base["note"] = undefined.generic(problem, skipped)  # x^(k+1)/(k+1): but k = -1
    agreed = found.count - (wrong[1] if wrong else 0)
    enough = agreed >= settings.samples
    settled = _settled(problem, ev, d_exprs, a_exprs, settings, limits, full=(
        settings.prove or not enough))
    if settled is True:
        return _noted(Verdict("correct", "symbolic", **base))
    decimals = typed_decimals(problem.student.program.source)
    if settled and not decimals:
        base.update(zip(("entries", "score"), credit.entries(
            [d is not None for d in settled], problem.shape, _labels(problem))))
        return Verdict("incorrect", "symbolic", counterexample=_exact_at(
            problem, settled, d_exprs, a_exprs), feedback=_unequal(problem, settled), **base)
    if enough:
        return _noted(Verdict("correct", "numeric", feedback=_tolerated(
            problem, decimals, settled, settings), **base))
    reason = (f"only {agreed} of the {settings.samples} points needed were found where both "
              f"sides are defined real numbers (tried {found.tried} candidates), and the "
              "difference did not simplify to 0" if agreed else
              f"no point found where both sides are defined real numbers (tried "
              f"{found.tried} candidates)")
    base.update(entries=None, score=None)
    return Verdict("undetermined", "numeric", reason=reason, **base)


def typed_decimals(text: str) -> list[str]:
    """The decimals typed in a text that are not whole numbers (0.333, 1.5e-3; not 2.0)."""
    return [t for t in _DECIMAL.findall(text) if float(t) != round(float(t))]


def _labels(problem: Problem) -> list[str]:
    return credit.labels(problem.kind, problem.wrt, problem.paths, problem.shape)


# --------------------------------------------------------------------------- exactness


def _settled(problem: Problem, ev: Evidence, d_exprs: list, a_exprs: list,
             settings: Settings, limits: Limits, full: bool
             ) -> bool | list[proof.Difference | None] | None:
    """True when every entry is proved equal; per entry the difference proved not 0 (or
    None) when some entry's is; None when nothing is proved either way."""
    if not a_exprs or len(a_exprs) != len(d_exprs):
        return None
    if not proof.one_formula(problem.function, problem.answer):
        return None  # a formula of one path: proofs only (proves), no exact verdicts
    held = {n for n, _ in problem.pinned}
    names = [n for n in problem.inputs if n not in held]
    pts = [{n: p[n] for n in names} for p in _points(ev.points)]
    bounds = settings.domain

    def allowed(pt: dict[str, float]) -> bool:
        return bool(inside({n: np.array([v]) for n, v in pt.items()}, bounds)[0])

    equal, out = True, []
    for d, a, expected, given in zip(d_exprs, a_exprs, ev.expected, ev.answer, strict=True):
        if proof.proves(d, a, limits.check_seconds, full):
            out.append(None)
            continue
        reference, answer = (a, d) if problem.turned else (d, a)
        with np.errstate(all="ignore"):
            seen = bool(np.any(np.abs(given - expected) > ROUNDING * np.maximum(
                np.abs(given), np.abs(expected)) + 1e-300))
        found = proof.settle(reference, answer, pts, names, limits.check_seconds,
                             allowed if bounds else None, seen)
        equal = equal and found is True
        out.append(found if isinstance(found, proof.Difference) else None)
    if equal:
        return True
    return out if any(d is not None for d in out) else None


def _what(problem: Problem) -> str:
    return ("the answer's derivative minus the function" if problem.turned else
            "the answer minus the derivative")


def _difference_text(diff: proof.Difference, inputs: tuple[str, ...]) -> str:
    text = student.formula(diff.value, inputs)
    if not diff.value.free_symbols and not diff.value.is_Rational:
        text = f"{text} ≈ {float(diff.value):.3g}" if len(text) <= 40 else \
            f"{float(diff.value):.6g}"
    return text if len(text) <= 120 else f"a formula of {len(text)} characters, not 0"


def _unequal(problem: Problem, settled: list) -> str:
    """The feedback on a difference proved not 0 that the tolerances did not see."""
    diff = next(d for d in settled if d is not None)
    text = _difference_text(diff, problem.inputs)
    if diff.everywhere:
        return (f"within the tolerances at every point tried, but not equal: "
                f"{_what(problem)} is exactly {text}")
    where = ", ".join(f"{n} = {float(v):.6g}" for n, v in diff.at.items())
    return (f"within the tolerances at every point tried, but not equal: at {where}, "
            f"{_what(problem)} is {text}, not 0 (in exact arithmetic)")


def _tolerated(problem: Problem, decimals: list[str], settled: Any, settings: Settings
               ) -> str | None:
    """What a numeric `correct` owes to the tolerances: the decimals typed, and the
    exact difference when it is known."""
    if not decimals:
        return None
    typed = ", ".join(dict.fromkeys(decimals))
    said = (f"the decimals typed ({typed}) are judged within the tolerances (rtol "
            f"{settings.rtol:g}, atol {settings.atol:g})")
    diff = next((d for d in settled if d is not None), None) if isinstance(
        settled, list) else None
    if diff is not None:
        said += f"; exactly, {_what(problem)} is {_difference_text(diff, problem.inputs)}"
    return said


def _exact_at(problem: Problem, settled: list, d_exprs: list, a_exprs: list
              ) -> dict[str, Any]:
    """The counterexample of a difference proved not 0: both sides at its exact point,
    and the difference as text."""
    diff = next(d for d in settled if d is not None)
    subs = {proof.symbol(n): v for n, v in diff.at.items()}

    def value(e: Any) -> float:
        try:
            return float(proof.as_expr(e).xreplace(subs).evalf(20))
        except (TypeError, ValueError):
            return math.nan

    def grid(exprs: list, shape: tuple[int, ...]) -> Any:
        flat = np.array([value(e) for e in exprs])
        return flat.reshape(shape).tolist() if shape else float(flat[0])

    at = {n: float(v) for n, v in diff.at.items()} | {n: float(v) for n, v in problem.pinned}
    return {"at": {n: at[n] for n in problem.inputs if n in at},
            "expected": grid(d_exprs, problem.shape),
            "answer": grid(a_exprs, problem.answer.shape),
            "difference": _difference_text(diff, problem.inputs)}


def _counterexample(ev: Evidence, d_exprs: list, a_exprs: list, settings: Settings
                    ) -> tuple[int | None, int] | None:
    """(point index, entry index) of a confirmed mismatch; or (None, n) when the n
    mismatching points all agree in exact arithmetic (rounding) or were not confirmed;
    None when nothing differs."""
    bad_entries = []
    for a, e in zip(ev.answer, ev.expected, strict=True):
        with np.errstate(all="ignore"):
            bad_entries.append(~(np.abs(a - e) <= settings.atol + settings.rtol * np.maximum(
                np.abs(a), np.abs(e))))
    bad = np.logical_or.reduce(bad_entries) if bad_entries else np.zeros(0, dtype=bool)
    points = np.flatnonzero(bad)
    if not len(points):
        return None
    for k in points[:MAX_CONFIRM]:
        pt = {n: float(v[k]) for n, v in ev.points.items()}
        for i, mask in enumerate(bad_entries):
            if not mask[k]:
                continue
            differs = (proof.differ_exactly(d_exprs[i], a_exprs[i], pt, settings.rtol,
                                            settings.atol)
                       if a_exprs and len(a_exprs) == len(d_exprs) else None)
            if differs is not False:
                return int(k), i
    return None, len(points)


def _points(points: dict[str, np.ndarray]) -> list[dict[str, float]]:
    count = len(next(iter(points.values()))) if points else 0
    return [{n: float(v[k]) for n, v in points.items()} for k in range(count)]


def _values(ev: Evidence) -> dict[str, list[list[float]]]:
    """Both sides' entries at each point (a receipt's numbers)."""
    count = len(ev.answer[0]) if ev.answer else 0
    return {side: [[float(e[k]) for e in entries] for k in range(count)]
            for side, entries in (("expected", ev.expected), ("answer", ev.answer))}


def _at(problem: Problem, ev: Evidence, k: int) -> dict[str, Any]:
    def grid(values: list[np.ndarray], shape: tuple[int, ...]) -> Any:
        flat = np.array([float(v[k]) for v in values])
        return flat.reshape(shape).tolist() if shape else float(flat[0])

    return {"at": {n: float(v[k]) for n, v in ev.points.items()},
            "expected": grid(ev.expected, problem.shape),
            "answer": grid(ev.answer, problem.answer.shape)}


#: a rounded counterexample must differ by at least this (relative), far beyond rounding
CLEAR_GAP = 1e-3


#: the function's values and derivatives at a rounded point, per function and point:
#: the answers to one function are mostly shown at the same few round points
_ROUNDED: dict[tuple, tuple[list[Values], list[np.ndarray]]] = {}


def _function_at(problem: Problem, pt: dict[str, np.ndarray], limits: Limits
                 ) -> tuple[list[Values], list[np.ndarray]]:
    key = (problem.function.program.source, problem.inputs, problem.wrt, problem.paths,
           tuple((n, v.tobytes()) for n, v in pt.items()), limits)  # the bits: -0.0 too
    if key not in _ROUNDED:
        entries = problem.function.entries
        fv = [evaluate(e, pt, problem.wrt, limits) for e in entries]
        d = [g[w] for g in (v.grad for v in fv) for w in problem.wrt] if not \
            problem.paths else [higher.along(e, pt, problem.paths, limits)[p] for e in
                                entries for p in problem.paths]
        for array in [*d, *(v.value for v in fv), *(g for v in fv for g in v.grad.values())]:
            array.setflags(write=False)  # shared by every answer to this function
        if len(_ROUNDED) >= CACHE_SIZE * 8:
            _ROUNDED.pop(next(iter(_ROUNDED)))
        _ROUNDED[key] = (fv, d)
    return _ROUNDED[key]


def _readable(problem: Problem, ev: Evidence, i: int, settings: Settings, limits: Limits
              ) -> dict[str, Any] | None:
    """The counterexample at a point a person can check by hand: a valid point rounded to
    one or two significant digits, where entry `i` still differs clearly (None: keep the
    drawn point). Points nearest 1 in size are tried first; kinked formulas keep theirs."""
    entries = list(problem.function.entries) + list(problem.answer.entries)
    if kinked(entries) or problem.pinned:
        return None
    count = len(ev.answer[0])
    order = sorted(range(count), key=lambda k: sum(
        abs(math.log10(abs(v[k]) or 1e-300)) for v in ev.points.values()))
    for k in order[:4]:
        for digits in (1, 2):
            pt = {n: np.array([float(f"{v[k]:.{digits}g}")]) for n, v in ev.points.items()}
            fv, d = _function_at(problem, pt, limits)
            av = [evaluate(e, pt, (), limits) for e in problem.answer.entries]
            a = [v.value for v in av]
            values = np.concatenate([*d, *a, *(v.value for v in fv)])
            if not np.all(np.isfinite(values)):
                continue
            gap = abs(a[i][0] - d[i][0])
            if gap > CLEAR_GAP * max(abs(a[i][0]), abs(d[i][0])) + 1e3 * settings.atol:
                return _at(problem, Evidence(pt, d, a, [], []), 0)
    return None


def _noted(verdict: Verdict) -> Verdict:
    """A correct verdict says its note (a parameter's excepted value) as its feedback."""
    if verdict.note and not verdict.feedback:
        verdict.feedback = verdict.note
    return verdict

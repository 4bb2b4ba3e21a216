"""The verdict on one answer: correct, incorrect or undetermined, and what decided it.

1. Points: seeded candidates until `samples` points lie inside both sides' domain.
2. A point where the answer and the true derivative differ beyond the tolerances, the
   difference confirmed in 30-digit arithmetic, proves `incorrect` at once.
3. `correct` needs a symbolic proof (the difference is 0 after sympy's automatic form or
   `expand`; also `simplify` with `prove`, or when too few points were found) or
   agreement at all `samples` points. Otherwise `undetermined`, with the reason.

Tolerances: |answer - derivative| <= atol + rtol * max(|answer|, |derivative|), defaults
rtol 1e-6 and atol 1e-9 (docs/homework.md compares them with WeBWorK's and STACK's).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.homework import credit, higher, proof
from gradcalc.homework import read_as as reading
from gradcalc.homework.feedback import misconceptions
from gradcalc.homework.feedback.recognise import Evidence, recognise
from gradcalc.homework.problem import Problem, forget_functions
from gradcalc.homework.reading import student
from gradcalc.homework.sample import (
    ROUNDS,
    Values,
    candidates,
    evaluate,
    kinked,
    on_kink,
)
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.budget import Timeout, backstops, time_budget

#: at most this many numeric mismatches are confirmed in exact arithmetic
MAX_CONFIRM = 4


@dataclass(frozen=True)
class Settings:
    rtol: float = 1e-6
    atol: float = 1e-9
    samples: int = 8
    seed: int = 0
    prove: bool = False  # always try sympy's simplify (slow) before the numeric verdict


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


@dataclass
class _Found:
    """The valid points so far, and every value there (lists of K-arrays)."""

    points: dict[str, list[float]]
    expected: list[list[float]]
    answer: list[list[float]]
    function: list[list[float]]
    partials: list[dict[str, list[float]]]
    tried: int = 0

    @property
    def count(self) -> int:
        return len(next(iter(self.points.values())))

    def evidence(self) -> Evidence:
        arr = np.asarray
        return Evidence({n: arr(v) for n, v in self.points.items()},
                        [arr(v) for v in self.expected], [arr(v) for v in self.answer],
                        [arr(v) for v in self.function],
                        [{n: arr(v) for n, v in p.items()} for p in self.partials])


def _sample(problem: Problem, settings: Settings, limits: Limits) -> _Found:
    f_entries, a_entries = list(problem.function.entries), list(problem.answer.entries)
    inputs = problem.inputs
    found = _Found({n: [] for n in inputs}, [[] for _ in range(len(f_entries) * len(
        problem.paths or problem.wrt))], [[] for _ in a_entries], [[] for _ in f_entries],
        [{n: [] for n in inputs} for _ in f_entries])
    rng = np.random.default_rng(settings.seed)
    kinky = kinked(f_entries + a_entries)
    for round_no in range(ROUNDS):
        if round_no:
            pts = candidates(rng, inputs, round_no, found.points)
            fv = _function_values(problem, pts, limits)
        else:
            pts, fv, state = _first_round(problem, settings.seed, limits)
            rng.bit_generator.state = state
        found.tried += len(pts[inputs[0]])
        av = [evaluate(e, pts, (), limits) for e in a_entries]
        arrays = [v.value for v in fv + av] + [g for v in fv for g in v.grad.values()]
        ok = np.logical_and.reduce([np.isfinite(x) for x in arrays])
        if kinky and ok.any():
            ok &= ~on_kink(f_entries + a_entries, pts, inputs, limits)
        for k in np.flatnonzero(ok)[: settings.samples - found.count]:
            _keep(found, problem, pts, fv, av, int(k))
        if found.count >= settings.samples:
            break
    return found


def _function_values(problem: Problem, pts: dict[str, np.ndarray], limits: Limits
                     ) -> list[Values]:
    """The function's entries and their derivatives at the points (pinned inputs put in)."""
    for n, x in problem.pinned:
        pts[n] = np.full(len(pts[n]), x)
    f_entries = problem.function.entries
    fv = [evaluate(e, pts, problem.inputs, limits) for e in f_entries]
    if problem.paths:
        for v, e in zip(fv, f_entries, strict=True):
            v.grad.update(higher.along(e, pts, problem.paths, limits))
    return fv


#: the first round's candidates, the function's values there and the generator's state
#: after drawing them, per function and seed: they do not depend on the answer
_FIRST: dict[tuple, tuple[dict[str, np.ndarray], list[Values], dict]] = {}


def _first_round(problem: Problem, seed: int, limits: Limits
                 ) -> tuple[dict[str, np.ndarray], list[Values], dict]:
    key = (problem.function.program.source, problem.inputs, problem.wrt, problem.paths,
           problem.pinned, seed, limits)
    if key not in _FIRST:
        rng = np.random.default_rng(seed)
        pts = candidates(rng, problem.inputs, 0, {n: [] for n in problem.inputs})
        fv = _function_values(problem, pts, limits)
        for array in [*pts.values(), *(v.value for v in fv),
                      *(g for v in fv for g in v.grad.values())]:
            array.setflags(write=False)  # shared by every answer to this function
        if len(_FIRST) >= CACHE_SIZE:
            _FIRST.pop(next(iter(_FIRST)))
        _FIRST[key] = (pts, fv, rng.bit_generator.state)
    pts, fv, state = _FIRST[key]
    return dict(pts), fv, state


def _keep(found: _Found, problem: Problem, pts: dict[str, np.ndarray], fv: list, av: list,
          k: int) -> None:
    for n in problem.inputs:
        found.points[n].append(float(pts[n][k]))
    for r, v in enumerate(fv):
        found.function[r].append(float(v.value[k]))
        for n in problem.inputs:
            found.partials[r][n].append(float(v.grad[n][k]))
        for c, w in enumerate(problem.paths or problem.wrt):
            found.expected[r * len(problem.paths or problem.wrt) + c].append(
                float(v.grad[w][k]))
    for i, v in enumerate(av):
        found.answer[i].append(float(v.value[k]))


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
CACHE_SIZE = 512


def forget_formulas() -> int:
    """Empty the cache of functions' formulas (a benchmark's cold start); how many were
    kept."""
    kept = len(_CACHE)
    _CACHE.clear()
    _FIRST.clear()
    _ROUNDED.clear()
    forget_functions()
    misconceptions.forget()
    reading.forget()
    proof.forget()
    return kept


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
            d = proof.derivatives(f, problem.wrt, problem.paths, problem.pinned)
            text, tex = student.grid(d, problem.shape, problem.inputs,
                                     min(student.SIMPLIFY_SECONDS, limits.check_seconds / 4))
        result = (f, d, text, tex)
    except Timeout:
        result = ([], [], f"(no formula: sympy exceeded {limits.check_seconds:g} s of CPU "
                  "time)", None)
    except Exception as exc:  # noqa: BLE001 - sympy fails in many ways; say which, go on
        result = ([], [], f"(no formula: {type(exc).__name__})", None)
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
            return proof.pin(proof.side_exprs(problem.answer, problem.inputs, point, limits),
                             problem.pinned)
    except (Timeout, Exception):  # noqa: BLE001 - no answer formula: numbers decide
        return []


# --------------------------------------------------------------------------- the verdict


def judge(problem: Problem, settings: Settings = Settings(),
          limits: Limits = DEFAULT_LIMITS) -> Verdict:
    """The verdict on `problem`'s answer (see the module's docstring for the method)."""
    found = _sample(problem, settings, limits)
    ev = found.evidence()
    first = {n: (v[0] if v else 0.5) for n, v in found.points.items()}
    f_exprs, d_exprs, expected, tex = _function_side(problem, first, limits)
    base: dict[str, Any] = {"expected": expected, "kind": problem.kind, "wrt": problem.wrt,
                            "points": _points(ev.points), "expected_latex": tex,
                            "read": reading.read_as(problem), "values": _values(ev)}
    shape = _shape_problem(problem)
    if shape:
        return Verdict("incorrect", "symbolic", feedback=shape, score=0.0, **base)
    a_exprs = _answer_side(problem, first, limits) if d_exprs else []
    wrong = _counterexample(ev, d_exprs, a_exprs, settings)
    if wrong is not None and wrong[0] is not None:
        k, i = wrong
        shown = _readable(problem, ev, i, settings, limits) or _at(problem, ev, k)
        found_wrong = credit.wrong_entries(ev.points, ev.expected, ev.answer, d_exprs,
                                           a_exprs, settings.rtol, settings.atol, known=i)
        entries, score = credit.entries(found_wrong, problem.shape, credit.labels(
            problem.kind, problem.wrt, problem.paths, problem.shape))
        said, mistake = recognise(problem, ev, i, limits)
        return Verdict("incorrect", "numeric", counterexample=shown, feedback=said,
                       entries=entries, score=score, misconception=mistake, **base)
    base.update(zip(("entries", "score"), credit.entries(
        [False] * len(ev.answer), problem.shape, credit.labels(
            problem.kind, problem.wrt, problem.paths, problem.shape))))
    agreed = found.count - (wrong[1] if wrong else 0)
    enough = agreed >= settings.samples
    full = settings.prove or not enough
    if a_exprs and len(a_exprs) == len(d_exprs) and all(
            proof.proves(d, a, limits.check_seconds, full)
            for d, a in zip(d_exprs, a_exprs, strict=True)):
        return Verdict("correct", "symbolic", **base)
    if enough:
        return Verdict("correct", "numeric", **base)
    reason = (f"only {agreed} of the {settings.samples} points needed were found where both "
              f"sides are defined real numbers (tried {found.tried} candidates), and the "
              "difference did not simplify to 0" if agreed else
              f"no point found where both sides are defined real numbers (tried "
              f"{found.tried} candidates)")
    base.update(entries=None, score=None)
    return Verdict("undetermined", "numeric", reason=reason, **base)


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

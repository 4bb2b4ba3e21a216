"""The points a problem is judged at, and every value there.

Seeded rounds of candidates (`sample.candidates`, inside the domain when one is given)
until `samples` of them lie where both sides are defined real numbers, off kinks. Beside
them, the candidates where the reference side is defined and the student's is not (the
true derivative and not the answer; for an antiderivative, the function and not the
answer or its derivative): an answer undefined on a part of the function's domain is
found there (`undefined.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gradcalc.engine.primitive import derived, named
from gradcalc.homework import higher
from gradcalc.homework.domain import Bound, inside, probes
from gradcalc.homework.feedback.recognise import Evidence
from gradcalc.homework.problem import Problem, Side
from gradcalc.homework.sample import ROUNDS, Values, candidates, evaluate, kinked, on_kink
from gradcalc.language.ir import walk
from gradcalc.language.program import Binary, Call, Name, Num, Unary
from gradcalc.limits import Limits

#: at most this many points where only the reference side is defined are kept
UNCOVERED_KEPT = 8
#: the first rounds kept per function, seed and domain
CACHE_SIZE = 512


@dataclass
class Found:
    """The valid points so far, and every value there (lists of K-arrays); and the
    candidates where the reference side is defined and the student's is not."""

    points: dict[str, list[float]]
    expected: list[list[float]]
    answer: list[list[float]]
    function: list[list[float]]
    partials: list[dict[str, list[float]]]
    tried: int = 0
    uncovered: dict[str, list[float]] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(next(iter(self.points.values())))

    def evidence(self) -> Evidence:
        arr = np.asarray
        return Evidence({n: arr(v) for n, v in self.points.items()},
                        [arr(v) for v in self.expected], [arr(v) for v in self.answer],
                        [arr(v) for v in self.function],
                        [{n: arr(v) for n, v in p.items()} for p in self.partials])

    def uncovered_points(self) -> list[dict[str, float]]:
        count = len(next(iter(self.uncovered.values()), []))
        return [{n: v[k] for n, v in self.uncovered.items()} for k in range(count)]


def sample(problem: Problem, samples: int, seed: int, limits: Limits,
           bounds: tuple[Bound, ...] = ()) -> Found:
    """Seeded rounds of candidates until `samples` valid points are found (or the rounds
    run out), inside `bounds` when given."""
    f_entries, a_entries = list(problem.function.entries), list(problem.answer.entries)
    inputs = problem.inputs
    found = Found({n: [] for n in inputs}, [[] for _ in range(len(f_entries) * len(
        problem.paths or problem.wrt))], [[] for _ in a_entries], [[] for _ in f_entries],
        [{n: [] for n in inputs} for _ in f_entries], uncovered={n: [] for n in inputs})
    rng = np.random.default_rng(seed)
    kinky = kinked(f_entries + a_entries)
    for round_no in range(ROUNDS):
        if round_no:
            pts = candidates(rng, inputs, round_no, found.points, bounds)
            fv = function_values(problem, pts, limits)
        else:
            pts, fv, state = _first_round(problem, seed, limits, bounds)
            rng.bit_generator.state = state
        found.tried += len(pts[inputs[0]])
        av = [evaluate(e, pts, (), limits) for e in a_entries]
        f_ok = _finite([v.value for v in fv] + [g for v in fv for g in v.grad.values()])
        a_ok = _finite([v.value for v in av])
        ok = f_ok & a_ok
        if bounds:
            ok &= inside(pts, bounds)
        if kinky and ok.any():
            ok &= ~on_kink(f_entries + a_entries, pts, inputs, limits)
        for k in np.flatnonzero(ok)[: samples - found.count]:
            _keep(found, problem, pts, fv, av, int(k))
        reference, student = (a_ok, f_ok) if problem.turned else (f_ok, a_ok)
        lost = reference & ~student & (inside(pts, bounds) if bounds else True)
        if problem.constants and lost.any():  # undefined for the constant's value only?
            lost &= ~_student_ok(problem, {**pts, **{c: np.ones(len(lost)) for c in
                                                          problem.constants}}, limits)
        for k in np.flatnonzero(lost)[: UNCOVERED_KEPT - len(found.uncovered[inputs[0]])]:
            for n in inputs:
                found.uncovered[n].append(float(pts[n][k]))
        if found.count >= samples:
            break
    if restricted(problem.student):
        _probe(problem, found, limits, bounds)
    return found


def total() -> frozenset[str]:
    """The functions defined on all the reals but isolated points (tan's poles, csc's
    zeros), from the table's entries: a formula made of these, + - * / and whole powers
    is never undefined on a whole part."""
    return derived("total", lambda: named(lambda p: p.facts.defined in TOTAL_DOMAINS))


#: where a total function is defined (gradcalc.engine.primitive.DEFINED)
TOTAL_DOMAINS = ("everywhere", "isolated")


def restricted(side: Side) -> bool:
    """Whether the side may be undefined on a whole interval (a logarithm, a root, an
    inverse sine, a power by a fraction or a variable, control flow): only then are the
    probes worth their evaluation."""
    if not side.straight or len(side.program.body) > 1:
        return True
    exprs = [e.expr for e in side.entries]
    return any(e is None for e in exprs) or not all(_total(n) for n in walk(*exprs))


def _total(node: object) -> bool:
    """Whether a node is defined wherever its parts are."""
    if isinstance(node, Call):
        return node.func in total()
    if isinstance(node, Binary):
        exponent = node.right.operand if isinstance(node.right, Unary) else node.right
        return node.op != "**" or (isinstance(exponent, Num) and
                                   float(exponent.value).is_integer())
    return isinstance(node, (Unary, Name, Num))


def _probe(problem: Problem, found: Found, limits: Limits, bounds: tuple[Bound, ...]
           ) -> None:
    """Add the fixed probes where only the reference side is defined (`domain.probes`):
    a part of the function's domain that the draws missed is still met. A probe is kept
    only if the points just beside it are lost too (0 alone, the end of √t's domain, is
    no part)."""
    inputs = problem.inputs
    room = UNCOVERED_KEPT - len(found.uncovered[inputs[0]])
    if room <= 0:
        return
    grids, reference = _reference_at_probes(problem, limits, bounds)
    lost = reference[0] & ~_student_ok(problem, grids[0], limits)
    if lost.any():
        for shifted, ok in zip(grids[1:], reference[1:], strict=True):
            lost &= ok & ~_student_ok(problem, shifted, limits)
    if problem.constants and lost.any():  # undefined for the constant's value only?
        size = len(lost)
        lost &= ~_student_ok(problem, {**grids[0], **{c: np.ones(size) for c in
                                                      problem.constants}}, limits)
    for k in np.flatnonzero(lost)[:room]:
        for n in inputs:
            found.uncovered[n].append(float(grids[0][n][k]))


#: the probes and where the reference side is defined there (and just beside), per
#: reference formula, inputs and domain: they do not depend on the student's answer
_PROBES: dict[tuple, tuple[list[dict[str, np.ndarray]], list[np.ndarray]]] = {}


def _reference_at_probes(problem: Problem, limits: Limits, bounds: tuple[Bound, ...]
                         ) -> tuple[list[dict[str, np.ndarray]], list[np.ndarray]]:
    reference = problem.answer if problem.turned else problem.function
    key = (reference.program.source, problem.inputs, problem.wrt, problem.paths,
           problem.pinned, problem.turned, bounds, limits)
    if key not in _PROBES:
        where = {b.name: b for b in bounds}
        lists = [probes(where.get(n)) for n in problem.inputs]
        size = max(len(g) for g in lists)
        # several inputs: each grid cycled at its own offset, so the pairs spread out
        pts = {n: np.resize(np.roll(g, 37 * k), size) for k, (n, g) in enumerate(
            zip(problem.inputs, lists, strict=True))}
        grids = [pts, *({n: v * (1 + step) + step for n, v in pts.items()}
                        for step in (1e-7, -1e-7))]
        for grid in grids:  # an input held by --at is held at the probes too
            grid.update({n: np.full(size, v) for n, v in problem.pinned})
        ok = [_reference_ok(problem, g, limits) & (inside(g, bounds) if bounds else True)
              for g in grids]
        if len(_PROBES) >= CACHE_SIZE:
            _PROBES.pop(next(iter(_PROBES)))
        _PROBES[key] = (grids, ok)
    return _PROBES[key]


def _reference_ok(problem: Problem, pts: dict[str, np.ndarray], limits: Limits
                  ) -> np.ndarray:
    """Per point: whether the reference side (the true derivative; for an antiderivative,
    the function) is a finite real number there."""
    if problem.turned:
        return _finite([evaluate(e, pts, (), limits).value for e in problem.answer.entries])
    with np.errstate(all="ignore"):
        fv = function_values(problem, dict(pts), limits)
    return _finite([v.value for v in fv] + [g for v in fv for g in v.grad.values()])


def _student_ok(problem: Problem, pts: dict[str, np.ndarray], limits: Limits
                ) -> np.ndarray:
    """Per point: whether the student's side is a finite real number there."""
    with np.errstate(all="ignore"):
        if problem.turned:
            fv = function_values(problem, dict(pts), limits)
            return _finite([v.value for v in fv] + [g for v in fv for g in v.grad.values()])
        return _finite([evaluate(e, pts, (), limits).value for e in problem.answer.entries])


def _finite(arrays: list[np.ndarray]) -> np.ndarray:
    return np.logical_and.reduce([np.isfinite(x) for x in arrays])


def function_values(problem: Problem, pts: dict[str, np.ndarray], limits: Limits
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
#: after drawing them, per function, seed and domain: they do not depend on the answer
_FIRST: dict[tuple, tuple[dict[str, np.ndarray], list[Values], dict]] = {}


def forget() -> None:
    """Empty the kept first rounds and probes (a benchmark's cold start)."""
    _FIRST.clear()
    _PROBES.clear()


def _first_round(problem: Problem, seed: int, limits: Limits, bounds: tuple[Bound, ...]
                 ) -> tuple[dict[str, np.ndarray], list[Values], dict]:
    key = (problem.function.program.source, problem.inputs, problem.wrt, problem.paths,
           problem.pinned, seed, limits, bounds)
    if key not in _FIRST:
        rng = np.random.default_rng(seed)
        pts = candidates(rng, problem.inputs, 0, {n: [] for n in problem.inputs}, bounds)
        fv = function_values(problem, pts, limits)
        for array in [*pts.values(), *(v.value for v in fv),
                      *(g for v in fv for g in v.grad.values())]:
            array.setflags(write=False)  # shared by every answer to this function
        if len(_FIRST) >= CACHE_SIZE:
            _FIRST.pop(next(iter(_FIRST)))
        _FIRST[key] = (pts, fv, rng.bit_generator.state)
    pts, fv, state = _FIRST[key]
    return dict(pts), fv, state


def _keep(found: Found, problem: Problem, pts: dict[str, np.ndarray], fv: list, av: list,
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

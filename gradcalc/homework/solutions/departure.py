"""Where a wrong answer left the path: the step of the worked solution where the
misapplied rule acts, and the student's version of that step.

The judge names the mistake (`homework.feedback.misconceptions`: one rule misapplied at
one step of the function's tape, `{"rule", "at"}`). The solution's step acting on that
sub-expression is found by its text (the search and the steps print sub-expressions with
the same printer), else by value. For a first derivative the search is run again on the
verdict's own points and answer values, which finds the same step and the very
misapplication; the symbolic tape then gives that step as the student did it and as the
rule does it: "you wrote cos(3x) here; the chain rule gives 3cos(3x)".

Bounded by counted work, never by time: each piece of sympy work (the steps compared by
value, the student's version of a step and the rule's, an implicit departure's search)
is given up past `MAX_DEPARTURE_CALLS` counted Python calls (`gradcalc.verify.counted.
decide`: run here when it takes a tenth of that, else counted exactly in a fresh
process), so the same wrong answer is placed at the same step, or at none, on any
machine and under any load.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import sympy as sp

from gradcalc.homework import proof
from gradcalc.homework.feedback import misconceptions, second_steps
from gradcalc.homework.feedback.recognise import same
from gradcalc.homework.problem import Problem, read_problem
from gradcalc.homework.reading.student import formula, simplest
from gradcalc.homework.solutions.subexpressions import Unsupported, from_ir, inline
from gradcalc.homework.solutions.worked import Solution
from gradcalc.language.parse import parse
from gradcalc.verify import counted

#: the Python calls (counted) one piece of a departure's sympy work may make
MAX_DEPARTURE_CALLS = 2_000_000


def place(solution: Solution, job: Any, verdict: Any, problem: Problem | None = None,
          derivative: bool = True) -> Solution:
    """The solution with the step where the verdict's misconception acts marked (and
    `departs_at` set); unchanged when no step acts there. `problem`: the problem as the
    kind read it (with a second derivative's paths), when it has one; `derivative`: a
    problem of the default kind, whose step the student's version is shown for."""
    found = verdict.misconception or {}
    at, rule = found.get("at", ""), found.get("rule", "")
    n = step_of(solution, at, found.get("differentiation"))
    if n is None:
        return solution
    student, right = "", ""
    if derivative:
        student, right = versions(job, verdict, rule, at, problem)
    step = solution.steps[n - 1][2]
    said = (f"you wrote {student} here; the {step.name} gives {right}" if student and right
            else verdict.feedback or "")
    marked = solution.marked(n, student)
    marked.departs_at = {"step": n, "rule": rule, "at": at, "student": student or None,
                         "right": right or None, "said": said}
    return marked


def step_of(solution: Solution, at: str, differentiation: int | None = None) -> int | None:
    """The number of the step acting on `at` (in a second differentiation's part when
    the mistake was made there)."""
    steps = solution.steps
    if differentiation == 2 and len(solution.parts) > 1:
        steps = [s for s in steps if s[1] >= 1]
    pieces = [p.strip() for p in at.split(", ")] if at else []
    for first in (True, False):  # what a step acts on first, then all it covers
        for n, _, step in steps:
            covers = step.covers[:1] if first else step.covers
            if any(_same_text(p, c) for p in [at, *pieces] for c in covers):
                return n
    value = _value(at)
    if value is None:
        return None
    values = [(n, other) for n, _, step in steps for text in step.covers
              if (other := _value(text)) is not None]
    return _counted(_first_equal, value, values, default=None)


def _counted(work: Callable[..., Any], *args: Any, default: Any) -> Any:
    """`work(*args)` as counted work (`MAX_DEPARTURE_CALLS`); `default` when it is stopped
    or fails."""
    try:
        done = counted.decide(work, *args, calls=MAX_DEPARTURE_CALLS)
    except Exception:  # noqa: BLE001 - sympy fails in many ways: no departure found
        return default
    return default if done.over else done.result


def _same_text(at: str, text: str) -> bool:
    """Whether a mistake's `at` names this text (`where(c, …)` names where(c, a, b))."""
    if at.endswith("…)"):
        return text.startswith(at[:-2])
    return at == text


def _value(text: str) -> Any:
    try:
        program = parse(text)
        names = {n: proof.symbol(n) for n in program.names_used()}
        return from_ir(inline(program), names).value
    except (Unsupported, Exception):  # noqa: BLE001 - a text that does not read: no value
        return None


def _first_equal(value: Any, values: list[tuple[int, Any]]) -> int | None:
    """The first n whose value equals `value` (as it is, or expanded)."""
    return next((n for n, other in values if _equal(value, other)), None)


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b or (a - b).expand() == 0)
    except Exception:  # noqa: BLE001 - not shown equal
        return False


def versions(job: Any, verdict: Any, rule: str, at: str, problem: Problem | None = None
             ) -> tuple[str, str]:
    """(the student's version of the step, the rule's): the search run again on the
    verdict's points and answer values (a second derivative's in the differentiation it
    went wrong in), then its misapplication of that one step taken on the symbolic tape."""
    try:
        problem = problem or read_problem(job.function, job.answer, job.wrt, job.limits,
                                          job.wrt_from)
    except Exception:  # noqa: BLE001 - the problem does not read as a plain one
        return "", ""
    if not verdict.points or not verdict.values:
        return "", ""
    points = {n: np.asarray([p[n] for p in verdict.points]) for n in verdict.points[0]}
    answers = verdict.values.get("answer") or []
    if problem.paths is not None:
        return _second(problem, points, answers, verdict.values.get("expected") or [],
                       rule, at, job.limits)
    n_wrt = len(problem.wrt)
    for i in range(len(answers[0]) if answers else 0):
        row, col = divmod(i, n_wrt)
        if row >= len(problem.function.entries):
            break
        program = problem.function.entries[row].program
        answer = np.asarray([v[i] for v in answers])
        w = problem.wrt[col]
        try:
            mistake = misconceptions.search(program, points, w, answer, same, job.limits)
        except Exception:  # noqa: BLE001 - the search is bounded; no mistake, no versions
            mistake = None
        if mistake is None or mistake.rule != rule or mistake.at != at:
            continue
        return _local(program, points, w, mistake)
    return "", ""


def _second(problem: Any, points: dict[str, np.ndarray], answers: list, expected: list,
            rule: str, at: str, limits: Any) -> tuple[str, str]:
    """The versions for a second derivative's entry whose mistake is `rule` at `at`."""
    for i in range(len(answers[0]) if answers else 0):
        answer = np.asarray([v[i] for v in answers])
        right = np.asarray([v[i] for v in expected])
        found = second_steps.located(problem, points, i, answer, right, same, limits)
        if found is None or found[1].get("rule") != rule or found[1].get("at") != at:
            continue
        step = found[2]
        return _local(step.program, points, step.by, step)
    return "", ""


def _local(program: Any, points: dict[str, np.ndarray], w: str, mistake: Any
           ) -> tuple[str, str]:
    """The step `mistake.step` of `program`'s derivative by `w`, as the misapplication
    `mistake.variant` takes it and as the rule does (counted work; none past its count:
    the step is marked alone)."""
    return _counted(_versions_on_tape, program, tuple(points), w, mistake, default=("", ""))


def _versions_on_tape(program: Any, inputs: tuple[str, ...], w: str, mistake: Any
                      ) -> tuple[str, str]:
    tape = misconceptions.FormulaTape(program, {n: proof.symbol(n) for n in inputs}, w,
                                      symbolic=True)
    student = tape.sweep(mistake.variant, mistake.step, upto=mistake.step)
    right = tape.sweep(None, -1, upto=mistake.step)
    return (formula(simplest(proof.exact(student), inputs), inputs),
            formula(simplest(proof.exact(right), inputs), inputs))


# --------------------------------------------------------------------------- implicit


#: how many operations longer than the right derivative of a term its version may be
SLACK = 2


def place_implicit(solution: Solution, answer: str, limits: Any) -> Solution:
    """An implicit solution with the step where a wrong dy/dx left the path marked: the
    solve step when the answer is the slope times a number (a factor lost in dividing),
    else the differentiation of the one term whose change makes the answer solve the
    differentiated equation, the simplest such change (its version: the term's
    derivative minus what the answer leaves over; no longer than the right one by more
    than `SLACK` operations, and with no name it lacks). Unchanged when none is found
    (or none within its counted work: the verdict stands)."""
    path = solution.path
    if path is None:
        return solution
    found = _counted(_implicit_departure, solution, path, answer, limits, default=None)
    if found is None:
        return solution
    n, at, student, right = found
    step = solution.steps[n - 1][2]
    by = "solving gives" if step.rule == "solve" else f"the {step.name} gives"
    marked = solution.marked(n, student)
    marked.departs_at = {"step": n, "rule": step.rule, "at": at, "student": student,
                         "right": right, "said": f"you wrote {student} here; {by} {right}"}
    return marked


def _implicit_departure(solution: Solution, path: Any, answer: str, limits: Any
                        ) -> tuple[int, str, str, str] | None:
    from gradcalc.homework.problem import read_side

    names = tuple(n for n in path.symbols if not n.endswith("'"))
    side = read_side(answer, "answer", 0, limits, names)
    given = proof.side_exprs(side, names, {n: 0.5 for n in names}, limits)[0]
    given = given.xreplace({proof.symbol(n): path.symbols[n] for n in names})
    ratio = sp.simplify(given / path.slope)
    prime = path.prime.name
    if ratio.is_number and ratio != 1:
        solve = [n for n, _, s in solution.steps if s.rule == "solve"]
        if not solve:
            return None
        return (solve[-1], prime, f"{prime} = {formula(given)}",
                f"{prime} = {formula(path.slope)}")
    left = sp.simplify(path.residual.xreplace({path.prime: given}))
    best: tuple[int, str, Any, Any] | None = None
    for text, d, side_sign in path.terms:
        theirs = sp.simplify(d - side_sign * left)
        if theirs == d:
            continue
        ops = int(sp.count_ops(theirs))
        if not theirs.free_symbols <= d.free_symbols or ops > sp.count_ops(d) + SLACK:
            continue  # not a slip in this term: a new name, or a longer formula
        if best is None or ops < best[0]:
            best = (ops, text, theirs, d)
    if best is None:
        return None
    _, text, theirs, d = best
    n = step_of(solution, text)
    return None if n is None else (n, text, formula(theirs), formula(d))

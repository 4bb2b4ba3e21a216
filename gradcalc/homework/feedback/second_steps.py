"""The step that went wrong in a second derivative (f'', f_xy, a Hessian's entry).

A second derivative is two differentiations, and one misapplied rule in either gives a
wrong answer. Both are searched with the catalogue of the misconception search (misconceptions.py):

- in the second differentiation: the first derivative is right (sympy's, from the tape's
  own rules), read back as a formula, and the search runs on it, so the feedback names a
  step of f'(x) ("in the second differentiation (of f'(x) = 3cos(3x)), at cos(3x): …");
- in the first differentiation: each misapplication of the first sweep gives a wrong
  first derivative as a formula (the symbolic tape), differentiated again correctly; the
  feedback names a step of f.

Either is reported only when it reproduces the answer at every point and differs from
the right second derivative; the second differentiation is tried first. Each wrong first
derivative is printed in the language and differentiated on the tape, like an answer.
The search is bounded by counted work: it runs on functions of at most `MAX_STEPS` steps,
so it tries at most a few candidates a step, each a formula of bounded size; the CPU
time of the check (`--check-seconds`) is only a safety net, never what decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gradcalc.errors import GradcalcError
from gradcalc.homework import proof
from gradcalc.homework.feedback import misconceptions
from gradcalc.homework.problem import Entry, Problem, free_names
from gradcalc.homework.reading.student import formula
from gradcalc.homework.sample import evaluate
from gradcalc.language.parse import parse
from gradcalc.language.program import Program
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.budget import Timeout, time_budget

#: functions with more steps than this are not searched (each step brings up to three
#: wrong first derivatives, each read back, differentiated and compared)
MAX_STEPS = 40


@dataclass(frozen=True)
class Retraced:
    """Where a second derivative went wrong, to take that step again on the symbolic
    tape: the program differentiated there (f, or the right f' read back as a formula),
    by which input, and the misapplication (the search's variant at the tape's step)."""

    program: Program
    by: str
    variant: str
    step: int


def search(problem: Problem, points: dict[str, np.ndarray], wrong: int, answer: np.ndarray,
           expected: np.ndarray, same: Any, limits: Limits = DEFAULT_LIMITS
           ) -> tuple[str, dict[str, Any]] | None:
    """(feedback, misconception) for the wrong entry of a second-derivative problem, or
    None (another kind of problem, or no single misapplied rule reproduces it)."""
    found = located(problem, points, wrong, answer, expected, same, limits)
    return None if found is None else found[:2]


def located(problem: Problem, points: dict[str, np.ndarray], wrong: int, answer: np.ndarray,
            expected: np.ndarray, same: Any, limits: Limits = DEFAULT_LIMITS
            ) -> tuple[str, dict[str, Any], Retraced] | None:
    """`search`'s feedback and misconception, and the step that went wrong (`Retraced`)."""
    assert problem.paths is not None
    path = problem.paths[wrong % len(problem.paths)]
    row = wrong // len(problem.paths)
    if len(path) != 2 or not problem.function.straight or problem.pinned:
        return None
    program = problem.function.entries[row].program
    try:
        with time_budget(limits.check_seconds):
            return _search(program, points, path, answer, expected, same, problem.inputs,
                           limits)
    except (Timeout, GradcalcError, misconceptions._Unsupported, ValueError, TypeError,
            ZeroDivisionError, RecursionError):
        return None


def _search(program: Program, points: dict[str, np.ndarray], path: tuple[str, ...],
            answer: np.ndarray, right: np.ndarray, same: Any, inputs: tuple[str, ...],
            limits: Limits) -> tuple[str, dict[str, Any], Retraced] | None:
    a, b = path
    tape = misconceptions.FormulaTape(program, {n: proof.symbol(n) for n in points}, a,
                                      symbolic=True)
    if len(tape.steps) > MAX_STEPS:
        return None
    first = proof.exact(tape.sweep())
    label = f"f'({a})" if len(inputs) == 1 else f"∂f/∂{a}"
    # the second differentiation, of the right first derivative
    derivative = _program(first, inputs)
    found = misconceptions.search(derivative, points, b, answer, same, limits)
    if found is not None:
        return (f"in the second differentiation (of {label} = {formula(first, inputs)}), "
                f"{found.message}", {**found.as_json(), "differentiation": 2},
                Retraced(derivative, b, found.variant, found.step))
    # the first differentiation, then the second done right
    numeric = misconceptions.FormulaTape(program, points, a)
    for k, mistake in tape.candidates():
        got = _derivative(_program(proof.exact(tape.sweep(mistake, k)), inputs), points, b,
                          limits)
        if same(got, answer) and not same(got, right):
            said = misconceptions.message(numeric, k, mistake)
            return (f"in the first differentiation, {said}",
                    {"rule": misconceptions.rule_id(mistake), "at": tape.steps[k].text,
                     "differentiation": 1}, Retraced(program, a, mistake, k))
    return None


def _program(expr: Any, inputs: tuple[str, ...]) -> Program:
    """A sympy expression as a program of the language (printed, then parsed)."""
    return parse(proof.text(expr, inputs))


def _derivative(program: Program, points: dict[str, np.ndarray], by: str,
                limits: Limits) -> np.ndarray:
    """The program's derivative by `by` at the points, on the tape."""
    k = len(next(iter(points.values())))
    if by not in free_names(program):
        return np.zeros(k)
    entry = Entry(program, None)
    return np.broadcast_to(evaluate(entry, points, (by,), limits).grad[by], (k,))

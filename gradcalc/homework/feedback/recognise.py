"""Naming a wrong answer's mistake, from values at the points where both sides are defined.

A mistake in applying a rule (the chain, product, quotient, power and exponential rules,
a sign, a constant multiple) is found by one mechanism: the search for one rule
misapplied at one step of the function's tape that reproduces the answer
(misconceptions.py). The other recognised mistakes are relations between the whole
answer A, the true derivative D and the function F that hold at every valid point:
a constant of integration in a derivative (A = D + C, or A' = F with its + C), swapped
entries or a transposed Jacobian, A = ∂F/∂y (another variable), A' = F (an
antiderivative), A = F, A = -D, A = c·D, A = D + c. None holding is no feedback, never
a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gradcalc.homework.feedback import messages
from gradcalc.homework.feedback.misconceptions import search
from gradcalc.homework.problem import Problem
from gradcalc.homework.sample import evaluate
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: how closely a relation must hold at every point (looser than the verdict's tolerance:
#: the relations are built from several float64 values)
RTOL, ATOL = 1e-6, 1e-9


@dataclass
class Evidence:
    """Everything at the valid points (arrays of length K)."""

    points: dict[str, np.ndarray]
    expected: list[np.ndarray]  # row-major over (function entry, wrt input)
    answer: list[np.ndarray]
    function: list[np.ndarray]
    partials: list[dict[str, np.ndarray]]  # per function entry: d/d every input


def same(a: np.ndarray, b: np.ndarray) -> bool:
    with np.errstate(all="ignore"):
        return bool(np.all(np.abs(a - b) <= ATOL + RTOL * (np.abs(a) + np.abs(b))))


def recognise(problem: Problem, ev: Evidence, wrong: int,
              limits: Limits = DEFAULT_LIMITS) -> tuple[str | None, dict[str, str] | None]:
    """Feedback on the wrong entry `wrong` (row-major index), or None; and, when the
    mistake is a rule misapplied at one step, {"rule": ..., "at": ...}.

    Whole-answer relations first (swapped entries, another variable, an antiderivative),
    then the search for the step that went wrong (misconceptions.py), then what is left:
    the function itself, the negative, a constant factor, a constant term."""
    if len(next(iter(ev.points.values()), ())) < 2:
        return None, None  # one point (every input given with --at) shows no relation
    n = len(problem.paths or problem.wrt)
    row, col = divmod(wrong, n)
    a, d, f = ev.answer[wrong], ev.expected[wrong], ev.function[row]
    if problem.paths is not None:
        from gradcalc.homework.feedback import second_steps

        found = _lower_order(problem, ev, wrong), None
        if found[0] is None:
            found = second_steps.search(problem, ev.points, wrong, a, d, same, limits) or (
                _constant_term(a, d), None)
        return found
    if problem.constants and not problem.turned:
        said = _constant_of_integration(problem, ev, wrong, limits)
        if said:
            return said, None
    for check in (_order, _another_variable):
        said = check(problem, ev, wrong)
        if said:
            return said, None
    w = problem.wrt[col]
    if problem.function.straight:
        found = search(problem.function.entries[row].program, ev.points, w, a, same)
        if found is not None:
            return found.message, found.as_json()
    entry = problem.answer.entries[wrong]
    da = evaluate(entry, ev.points, (w,), limits).grad[w]
    if same(da, f):
        return f"the answer is {messages.ANTIDERIVATIVE_FOR_DERIVATIVE}", None
    if same(a, f) and not same(d, f):
        return messages.the_function_itself(", not its derivative"), None
    if same(a, -d) and not same(d, 0 * d):
        return messages.sign_error("the derivative"), None
    return _factor(a, d) or _constant_term(a, d), None


def _constant_of_integration(problem: Problem, ev: Evidence, wrong: int,
                             limits: Limits) -> str:
    """A derivative's answer with a constant (+ C): the derivative plus it, an
    antiderivative, or neither."""
    row, col = divmod(wrong, len(problem.wrt))
    entry, w = problem.answer.entries[wrong], problem.wrt[col]
    names = " + ".join(problem.constants)
    zero = {**ev.points, **{c: 0 * ev.points[c] for c in problem.constants}}
    if same(evaluate(entry, zero, (), limits).value, ev.expected[wrong]):
        return f"a derivative has no constant of integration: leave out + {names}"
    if same(evaluate(entry, ev.points, (w,), limits).grad[w], ev.function[row]):
        return f"this is {messages.ANTIDERIVATIVE_FOR_DERIVATIVE}"
    return (f"a derivative has no constant of integration ({names}), and without it the "
            "answer is not the derivative either")


def _order(problem: Problem, ev: Evidence, wrong: int) -> str | None:
    a, e = ev.answer, ev.expected
    if len(a) < 2:
        return None
    if problem.kind == "jacobian":
        m, n = problem.shape
        if m != n:
            return None
        transposed = all(same(a[i * n + j], e[j * n + i]) for i in range(m) for j in range(n))
        if transposed:
            return ("the Jacobian is transposed: its rows are the function's outputs and its "
                    f"columns the inputs ({', '.join(problem.wrt)})")
    for j in range(len(a)):
        if j != wrong and same(a[wrong], e[j]) and same(a[j], e[wrong]):
            return (f"entries {wrong + 1} and {j + 1} are swapped: the order is "
                    + ", ".join(f"d/d{w}" for w in problem.wrt))
    return None


def _another_variable(problem: Problem, ev: Evidence, wrong: int) -> str | None:
    row, col = divmod(wrong, len(problem.wrt))
    w = problem.wrt[col]
    for other in problem.inputs:
        if other != w and same(ev.answer[wrong], ev.partials[row][other]) and not same(
                ev.partials[row][other], ev.expected[wrong]):
            return f"this is the derivative with respect to {other}, not {w}"
    return None


def constant_ratio(top: np.ndarray, bottom: np.ndarray) -> float | None:
    """The constant c ≠ 1 with top = c·bottom wherever their ratio is finite (at two points
    at least), else None."""
    with np.errstate(all="ignore"):
        ratio = top / bottom
    r = ratio[np.isfinite(ratio)]
    if r.size >= 2 and same(r, np.full_like(r, r[0])) and not same(r, np.ones_like(r)):
        return float(r[0])
    return None


def _factor(a: np.ndarray, d: np.ndarray) -> str | None:
    """A = c·D for a constant c (no step of the formula explains it)."""
    r = constant_ratio(d, a)
    if not r:  # None, or 0: D is 0 wherever A is finite
        return None
    if abs(1 / r - 1) < 1e-2:
        return (f"close, but off by {abs(1 / r - 1):.2g} (relative) everywhere: a "
                "rounded number? Write exact constants such as pi, e, sqrt(2) or 1/3")
    return messages.constant_factor(messages.number(1 / r), "the derivative")


def _constant_term(a: np.ndarray, d: np.ndarray) -> str | None:
    gap = a - d
    if same(gap, np.full_like(gap, gap[0])) and not same(gap, 0 * gap):
        constant = messages.number(float(gap[0]))
        return (f"the answer differs from the derivative by a constant ({constant}): "
                "a term is missing or extra")
    return None


def _lower_order(problem: Problem, ev: Evidence, wrong: int) -> str | None:
    """A higher or mixed derivative's answer that is the first derivative instead."""
    assert problem.paths is not None
    path = problem.paths[wrong % len(problem.paths)]
    first = ev.partials[wrong // len(problem.paths)][path[0]]
    if len(path) < 2 or not same(ev.answer[wrong], first) or same(first, ev.expected[wrong]):
        return None
    asked = (f"{ORDINALS.get(len(path), f'{len(path)}th')} derivative" if len(set(path)) == 1
             else "mixed partial f_" + "".join(path))
    return f"this is the first derivative d/d{path[0]}; the question asks for the {asked}"


ORDINALS = {2: "second", 3: "third"}

"""Naming a wrong answer's mistake, from values at the points where both sides are defined.

Each recognised mistake is a relation between the answer A, the true derivative D, the
function F and parts of F's formula that holds at every valid point: A = -D (sign),
A = c·D (a constant factor, or a chain-rule factor when c is an inner derivative),
D = A·u' (a missing chain-rule factor u'), A = u'v or uv' (a term of the product rule),
A' = F (an antiderivative), A = ∂F/∂y (another variable), swapped entries. The first
relation that holds is the feedback; none holding is no feedback, never a guess.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from gradcalc.language.program import EULER, Binary, Call, ExprStmt, Name, Num, Program, Unary
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.homework.problem import Entry, Problem
from gradcalc.verify.homework.sample import evaluate

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


def _number(v: float) -> str:
    """A number as the student would write it: 3, 1/2, π, ln(3), √2; else 6 digits."""
    if np.isfinite(v) and abs(v - round(v)) <= 1e-9:
        return str(int(round(v)))
    if np.isfinite(v):
        from gradcalc.verify.homework.proof import exact_number
        from gradcalc.verify.homework.student import formula

        near = exact_number(float(v))
        if not near.is_Float:
            return formula(near)
    return f"{v:g}"


def recognise(problem: Problem, ev: Evidence, wrong: int,
              limits: Limits = DEFAULT_LIMITS) -> str | None:
    """Feedback on the wrong entry `wrong` (row-major index), or None."""
    n = len(problem.wrt)
    row, col = divmod(wrong, n)
    w = problem.wrt[col]
    a, d, f = ev.answer[wrong], ev.expected[wrong], ev.function[row]
    for check in (_order, _another_variable):
        said = check(problem, ev, wrong)
        if said:
            return said
    if same(a, -d) and not same(d, 0 * d):
        return "sign error: the answer is the negative of the derivative"
    entry = problem.answer.entries[wrong]
    da = evaluate(entry, ev.points, (w,), limits).grad[w]
    if same(da, f):
        return ("the answer is an antiderivative of the function (its derivative is the "
                "function): differentiate, don't integrate")
    parts = [_sub(problem, u) for u in _inner(problem, row)]
    said = _factor(a, d, parts, ev, w, limits)
    if said:
        return said
    if same(a, f) and not same(d, f):
        return "the answer is the function itself, not its derivative"
    return _rules(problem, row, a, ev, w, limits) or _constant_term(a, d)


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


def _sub(problem: Problem, expr: object) -> Entry:
    body = problem.function.program.body[:-1]
    return Entry(Program((*body, ExprStmt(expr, expr.pos))), expr)  # type: ignore[union-attr]


def _inner(problem: Problem, row: int) -> Iterator[object]:
    """Inner functions of the entry's formula: arguments of calls, bases of constant
    powers, exponents of constant bases (outermost first)."""
    top = problem.function.entries[row].expr
    stack = [top] if top is not None else []
    while stack:
        e = stack.pop(0)
        if isinstance(e, Call):
            yield from (x for x in e.args if not isinstance(x, (Num, Name)))
            stack.extend(e.args)
        elif isinstance(e, Binary):
            if e.op == "**" and isinstance(e.right, Num) and not isinstance(e.left, (Num, Name)):
                yield e.left
            if e.op == "**" and (isinstance(e.left, Num) or (
                    isinstance(e.left, Name) and e.left.id == EULER)) \
                    and not isinstance(e.right, (Num, Name)):
                yield e.right
            stack += [e.left, e.right]
        elif isinstance(e, Unary):
            stack.append(e.operand)


def _factor(a: np.ndarray, d: np.ndarray, parts: list[Entry], ev: Evidence, w: str,
            limits: Limits) -> str | None:
    """A = c·D, or D = A·u' for an inner u: a constant factor or a chain-rule factor."""
    with np.errstate(all="ignore"):
        ratio = d / a
    usable = np.isfinite(ratio)
    if usable.sum() < 2:
        return None
    for entry in parts:
        du = evaluate(entry, ev.points, (w,), limits).grad[w]
        if same(d, a * du) and not same(du, du * 0 + 1):
            return (f"missing the chain rule's factor: the derivative of the inner "
                    f"{entry.text}" + (f", which is {_number(float(du[0]))}"
                                       if same(du, np.full_like(du, du[0])) else ""))
    r = ratio[usable]
    if r[0] != 0 and same(r, np.full_like(r, r[0])) and not same(r, np.ones_like(r)):
        if abs(1 / r[0] - 1) < 1e-2:
            return (f"close, but off by {abs(1 / r[0] - 1):.2g} (relative) everywhere: a "
                    "rounded number? Write exact constants such as pi, e, sqrt(2) or 1/3")
        return f"off by a constant factor: the answer is {_number(1 / r[0])} times the derivative"
    return None


def _rules(problem: Problem, row: int, a: np.ndarray, ev: Evidence, w: str,
           limits: Limits) -> str | None:
    """The product and quotient rules, and the power rule's lowered exponent."""
    top = problem.function.entries[row].expr
    while isinstance(top, Unary):
        top = top.operand
    if not isinstance(top, Binary) or top.op not in ("*", "/", "**"):
        return None
    u = evaluate(_sub(problem, top.left), ev.points, (w,), limits)
    v = evaluate(_sub(problem, top.right), ev.points, (w,), limits)
    du, dv = u.grad[w], v.grad[w]
    if top.op == "*":
        if same(a, du * dv):
            return ("the derivative of a product is not the product of the derivatives: "
                    "(u·v)' = u'·v + u·v'")
        if same(a, du * v.value) or same(a, u.value * dv):
            return "a term of the product rule is missing: (u·v)' = u'·v + u·v'"
    elif top.op == "/":
        with np.errstate(all="ignore"):
            if same(a, du / dv):
                return ("the derivative of a quotient is not the quotient of the derivatives: "
                        "(u/v)' = (u'·v − u·v')/v²")
            if same(a, (du * v.value + u.value * dv) / v.value**2):
                return "sign error in the quotient rule: (u/v)' = (u'·v − u·v')/v²"
    elif isinstance(top.right, Num):
        p = top.right.value
        with np.errstate(all="ignore"):
            if same(a, p * u.value**p * du):
                return "the power rule lowers the exponent by one: (u^n)' = n·u^(n−1)·u'"
    return None


def _constant_term(a: np.ndarray, d: np.ndarray) -> str | None:
    gap = a - d
    if same(gap, np.full_like(gap, gap[0])) and not same(gap, 0 * gap):
        return (f"the answer differs from the derivative by a constant ({_number(gap[0])}): "
                "a term is missing or extra")
    return None

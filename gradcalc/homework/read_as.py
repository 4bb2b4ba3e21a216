"""How both sides were read ("read as"), for every verdict.

`read_as` prints each side from the IR in the student's notation, with what is being
compared: `f(x) = x^2·sin(x)` and `f'(x) = 2x·sin(x) + x^2·cos(x)`, or `∂f/∂y = ...`,
`∇f = [...]`, `Jf = [[...]]`. Printed from the IR, not from sympy, so that the grouping
the parser chose shows: `1/2x` is `(1/2)·x`.
"""

from __future__ import annotations

from functools import lru_cache

from gradcalc.homework.problem import Problem, Side, free_names
from gradcalc.homework.reading.student import expression
from gradcalc.language.program import RESULT_NAME, Assign, ExprStmt


def side_text(side: Side) -> str:
    """A side as read: its statements, then its value (entries as one list)."""
    parts = []
    for stmt in side.program.body:
        if isinstance(stmt, Assign):
            last = stmt is side.program.body[-1]
            parts.append(expression(stmt.value) if last else
                         f"{stmt.target} = {expression(stmt.value)}")
        elif isinstance(stmt, ExprStmt):
            parts.append(expression(stmt.value))
        else:
            return "(a program with control flow)"
    return "; ".join(parts)


def _name(problem: Problem) -> str:
    last = problem.function.program.body[-1]
    if isinstance(last, Assign) and last.target != RESULT_NAME and len(last.target) <= 2:
        return last.target
    return "f"


def labels(problem: Problem) -> tuple[str, str]:
    """What the function and the answer are called: `f(x)` and `f'(x)`, `∂f/∂x`, `∇f`."""
    f = _name(problem)
    inputs = [n for n in problem.inputs if n not in problem.constants]
    order = [n for n in (*problem.function.program.inputs, *free_names(
        problem.function.program)) if n in inputs]
    order = list(dict.fromkeys(order + inputs))
    of = f"{f}({', '.join(order)})"
    if problem.kind == "jacobian":
        return of, f"J{f}"
    if problem.kind == "gradient":
        return of, f"∇{f}" if len(problem.wrt) == len(problem.inputs) else \
            f"[{', '.join(f'∂{f}/∂{w}' for w in problem.wrt)}]"
    w = problem.wrt[0]
    return of, (f"{f}'({w})" if len(inputs) == 1 else f"∂{f}/∂{w}")


#: the function's text per Side read (a class reads each function once: problem.py)
_FUNCTIONS: dict[int, tuple[Side, str]] = {}
KEPT = 512


def _function_text(side: Side) -> str:
    kept = _FUNCTIONS.get(id(side))
    if kept is not None and kept[0] is side:  # the very object: its id is not reused
        return kept[1]
    text = side_text(side)
    if len(_FUNCTIONS) >= KEPT:
        _FUNCTIONS.pop(next(iter(_FUNCTIONS)))
    _FUNCTIONS[id(side)] = (side, text)
    return text


def forget() -> None:
    """Empty the kept texts of functions (a benchmark's cold start)."""
    _FUNCTIONS.clear()


def read_as(problem: Problem) -> dict[str, str]:
    """{"function": "f(x) = ...", "answer": "f'(x) = ..."} in the student's notation."""
    of, d = labels(problem)
    return {"function": f"{of} = {_function_text(problem.function)}",
            "answer": f"{d} = {side_text(problem.answer)}"}


@lru_cache(maxsize=4096)
def text_read(text: str) -> str:
    """A function's text as gradcalc reads it, in the student's notation (`exp((-6))*x`
    is `e^(-6)·x`), each side of an equation so; the text itself where it cannot be
    read (a program, a typo)."""
    from gradcalc.errors import GradcalcError
    from gradcalc.homework.problem import read_side

    for sides in ([text], text.split("=")):
        try:
            return " = ".join(side_text(read_side(s.strip(), "function", 2)) for s in sides)
        except GradcalcError:
            continue
    return text.strip()

"""Where a wrong antiderivative left the worked path: the step whose integral, worked out
differently, gives the student's answer, and the student's version of it.

The antiderivative the steps build is a sum of the integrals they worked out, each times
a factor (`integrating.Piece`): F = A + c·P. An answer G differs from F by D = G − F
(up to a constant); the step is the one whose P, changed to P + D/c, is the simplest
change (no name or function P lacks, at most `SLACK` operations longer than P): "you wrote sin(u)
here; the table integral gives −cos(u)". An answer a constant multiple of F (a factor
lost) marks the substitution (its du) or, without one, the first constant multiple.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from gradcalc.homework import proof
from gradcalc.homework.problem import answer_variables, read_side
from gradcalc.homework.reading.student import formula
from gradcalc.homework.solutions.worked import Solution
from gradcalc.language.program import EULER

#: how much longer (sympy's count_ops) a step's version may be than the right one
SLACK = 3
#: the largest difference of answers the search takes apart
MAX_DIFFERENCE_OPS = 60


def place(solution: Solution, answer: str, limits: Any) -> Solution:
    """The solution with the step where the wrong antiderivative left the path marked
    (`departs_at`); unchanged when none is found."""
    path = solution.path
    if path is None or not getattr(path, "pieces", None):
        return solution
    try:
        found = _found(solution, path, answer, limits)
    except Exception:  # noqa: BLE001 - no departure found: the verdict stands
        return solution
    if found is None:
        return solution
    n, student, right, said = found
    marked = solution.marked(n, student)
    step = solution.steps[n - 1][2]
    marked.departs_at = {"step": n, "rule": step.rule, "at": step.at, "student": student,
                         "right": right, "said": said}
    return marked


def _given(path: Any, answer: str, limits: Any) -> Any:
    """The answer in the path's variable, each constant of integration put to 0."""
    text = answer.split("=", 1)[1] if "=" in answer else answer
    x = path.x.name
    function = read_side(x, "function", 0, limits)
    names = tuple(n for n in answer_variables(text, function, [x]) if n != EULER)
    side = read_side(text, "answer", 0, limits, names)
    given = proof.side_exprs(side, names, {n: 0.5 for n in names}, limits)[0]
    return given.xreplace({proof.symbol(n): 0 for n in names if n != x}
                          ).xreplace({proof.symbol(x): path.x})


def _found(solution: Solution, path: Any, answer: str, limits: Any
           ) -> tuple[int, str, str, str] | None:
    x, value = path.x, path.value
    given = _given(path, answer, limits)
    difference = sp.expand(given - value)
    difference = sp.Add(*[t for t in sp.Add.make_args(difference) if t.has(x)])
    if sp.count_ops(difference) > MAX_DIFFERENCE_OPS or sp.simplify(
            sp.diff(difference, x)) == 0:
        return None
    ratio = sp.simplify(sp.diff(given, x) / sp.diff(value, x))
    if ratio.is_number:
        return _factor(solution, given, value, ratio)
    best: tuple[int, Any, Any] | None = None
    for piece in path.pieces:
        theirs = sp.simplify(piece.in_x + difference / piece.factor)
        ops = int(sp.count_ops(theirs))
        if _within(theirs, piece.in_x, x) and ops <= sp.count_ops(piece.in_x) + SLACK and (
                best is None or ops < best[0]):
            best = (ops, piece, theirs)
    if best is None:
        return None
    _, piece, theirs = best
    if piece.to_x is not None:  # written in the step's own variable where it can be
        back = sp.simplify(theirs.subs(piece.to_x, piece.by))
        theirs = back if not back.has(x) else theirs
    step = solution.steps[piece.step - 1][2]
    student, right = formula(theirs), formula(piece.value)
    return (piece.step, student, right,
            f"you wrote {student} here; {_the(step.name)} gives {right}")


def _within(theirs: Any, right: Any, x: Any) -> bool:
    """Whether a step's version has no name and no function its right result lacks."""
    def functions(e: Any) -> set[Any]:
        return {f.func for f in e.atoms(sp.Function)}
    return theirs.free_symbols <= right.free_symbols | {x} and \
        functions(theirs) <= functions(right)


def _the(name: str) -> str:
    """A rule's name after 'the', unless it has its own article ('a table integral')."""
    return name if name.startswith(("a ", "an ")) else f"the {name}"


#: where a factor is lost, in turn: a sign (−1) in parts' minus or a constant multiple's;
#: any other factor in a substitution's du or a constant multiple
FACTOR_STEPS = {True: ("parts", "integral-constant-multiple"),
                False: ("substitution", "integral-constant-multiple")}


def _factor(solution: Solution, given: Any, value: Any, ratio: Any
            ) -> tuple[int, str, str, str] | None:
    """A constant multiple of the antiderivative: the step whose factor was lost."""
    order = FACTOR_STEPS[bool(ratio == -1)]
    rules = sorted(((n, s) for n, _, s in solution.steps if s.rule in order),
                   key=lambda r: order.index(r[1].rule))
    if not rules:
        return None
    n, step = rules[0]
    student, right = formula(given), formula(value)
    where = f"{_the(step.name)} ({step.note})" if step.note else _the(step.name)
    what = "the negative of" if ratio == -1 else f"{formula(ratio)} times"
    return n, student, right, (f"your answer {student} is {what} the right one; look "
                               f"again at {where}: it gives {right}")

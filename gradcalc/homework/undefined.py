"""An answer undefined on a part of the function's domain: found, confirmed, and named.

The reference side (the true derivative of any order, a mixed partial, the Hessian, the
value at a point; for an antiderivative, the function) is judged on its whole real
domain, every part of it. Where it is a finite real number and the student's side is
not (`points.sample` keeps such candidates), the answer is incorrect once exact
arithmetic agrees at the point, every step of the formula as written (sympy's automatic
form would read (√x)^2 as x), since float64 overflows where the formula does not. The
feedback names the subexpression that is undefined there (the innermost one, with the
condition it needs: `ln(x)` needs x > 0) and the part of the function's domain where it
fails, found by bisection in the one variable that subexpression depends on (spans.py):
"ln(x) is defined only for x > 0, but 1/x is defined for x < 0 too: write ln|x| + C".
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import sympy as sp

from gradcalc.engine.primitive import PRIMITIVES, by_name, derived
from gradcalc.engine.twins import sympy_name
from gradcalc.homework import judged_points, proof, spans
from gradcalc.homework.domain import Bound
from gradcalc.homework.problem import Entry, Problem, Side
from gradcalc.homework.read_as import side_text
from gradcalc.homework.reading.student import expression
from gradcalc.homework.sample import evaluate
from gradcalc.language.ir import walk
from gradcalc.language.program import Binary, Call, ExprStmt, Name, Num, Program, Unary
from gradcalc.limits import Limits
from gradcalc.verify.budget import Timeout, time_budget

#: points where only the reference side is defined that are confirmed, at most
MAX_CONFIRM = 4
#: digits of the arithmetic that confirms a point
DIGITS = 20


def confirmed(problem: Problem, found: judged_points.Found, f_exprs: list, d_exprs: list,
              a_exprs: list, bounds: tuple[Bound, ...], limits: Limits,
              skipped: list[dict[str, float]] | None = None) -> dict[str, float] | None:
    """The first kept point (or a rounder one near it: -1 rather than -291.57) where, in
    exact arithmetic, the reference side is a finite real number and the student's side
    is not; None without formulas to confirm with. `skipped` gathers the points passed
    over as a parameter's exceptional values (`exceptional`)."""
    if problem.turned:
        reference, student = a_exprs, [*f_exprs, *d_exprs]
    else:
        reference, student = [*f_exprs, *d_exprs], a_exprs
    if not reference or not student:
        return None
    valid = {n: v[0] for n, v in found.points.items()} if found.count else None
    for k, drawn in enumerate(found.uncovered_points()[:MAX_CONFIRM]):
        rounder = _rounder(problem, drawn, bounds, limits) if k == 0 else []
        for point in (*rounder, drawn):
            if all(_real(e, point) for e in reference) and not (all(
                    _real(e, point) for e in student) and _written_real(
                    problem.student, point, valid or point, problem.inputs, limits)) \
                    and not _endpoint(problem, reference, f_exprs, point):
                if not exceptional(problem, reference, student, point):
                    return point
                if skipped is not None:
                    skipped.append(point)
    return None


def generic(problem: Problem, skipped: list[dict[str, float]]) -> str | None:
    """The note on an answer judged for generic parameters: the value it excepts."""
    if not skipped:
        return None
    point = skipped[0]
    held = ", ".join(f"{n} = {point[n]:g}" for n in problem.inputs
                     if n not in problem.wrt and n not in problem.constants)
    return (f"judged for every value of the parameters but {held}, where the answer is "
            "not defined (an antiderivative there is another formula)")


def exceptional(problem: Problem, reference: list, student: list,
                point: dict[str, float]) -> bool:
    """Whether an antiderivative with parameters fails at the point only for its
    parameters' values there: moved a little, both sides are real (k = -1 in
    x^(k+1)/(k+1) + C for ∫x^k dx, judged for a generic k as books and STACK judge it)."""
    params = [n for n in problem.inputs if n not in problem.wrt and n not in problem.constants]
    if not problem.turned or not params:
        return False
    moved = {**point, **{n: sp.Rational(point[n]) + _BESIDE for n in params}}
    return all(_real(e, moved) for e in [*reference, *student])


#: how far beside a point the reference is looked at, to tell an end of its domain
_BESIDE = sp.Rational(1, 10**9)


def _endpoint(problem: Problem, reference: list, f_exprs: list,
              point: dict[str, float]) -> bool:
    """Whether an antiderivative F is a real number at the point, its derivative is not
    (only one-sided there), and the point ends the function's domain: x = 1 for
    ∫√(1 - x²) dx, where every book's F has no two-sided derivative. Not a counterexample."""
    if not problem.turned or not all(_real(e, point) for e in f_exprs):
        return False
    for name, value in point.items():
        for step in (_BESIDE, -_BESIDE):
            beside = {**point, name: sp.Rational(value) + step}
            if not all(_real(e, beside) for e in reference):
                return True
    return False


def _written_real(side: Side, point: dict[str, float], valid: dict[str, float],
                  inputs: tuple[str, ...], limits: Limits) -> bool:
    """Whether every step of the side as written is a finite real number at the point,
    in exact arithmetic. sympy's automatic form drops steps ((√x)^2 is x, (1/√y)^2 is
    1/y, e^(ln(x)) is x), so each step where float64 first fails is confirmed on its
    own; one that float64 alone found undefined (e^1000 overflows) is not counted. A
    step's formula is built at a `valid` point (one whose symbols cancel is the number
    there, e^x/e^x is 1, not float64's 0/0 at the point)."""
    for entry in side.entries:
        for node in _first_failures(entry, side, point, limits):
            try:
                with time_budget(1.0):
                    step = proof.side_exprs(Side(side.program, (_entry(node, side),), ()),
                                            inputs, valid, limits)[0]
            except (Timeout, Exception):  # noqa: BLE001 - not confirmed: not counted
                continue
            if not _real(step, point):
                return False
    return True


def _first_failures(entry: Entry, side: Side, point: dict[str, float], limits: Limits
                    ) -> list[Any]:
    """The steps of an entry that float64 finds undefined at the point although their
    own parts are defined: where the formula first fails."""
    if entry.expr is None or _finite(entry, point, limits):
        return []
    out, stack = [], [entry.expr]
    while stack:
        node = stack.pop()
        bad = [c for c in _children(node) if not isinstance(c, (Name, Num)) and
               not _finite(_entry(c, side), point, limits)]
        stack.extend(bad)
        if not bad:
            out.append(node)
    return out


#: round values tried first for the counterexample, in one variable
ROUND_VALUES = (1, -1, 2, -2, 0.5, -0.5, 3, -3, 5, -5, 10, -10, 0.1, -0.1, 100, -100)
#: round sizes tried for every input at once, each keeping its input's sign
ROUND_SIZES = (1, 2, 0.5, 3, 5, 10, 0.1, 100)


def _rounder(problem: Problem, point: dict[str, float], bounds: tuple[Bound, ...],
             limits: Limits) -> list[dict[str, float]]:
    """Rounder points than `point` where the floats agree that only the reference side
    is defined: in one variable a round value; in several, every free input at a round
    size of its sign, else the point to two digits."""
    variable = _variable(problem)
    if variable is not None:
        xs = np.array(ROUND_VALUES, dtype=float)
        ok = spans.status(problem, point, variable, xs, bounds, limits)
        return [{**point, variable: float(v)} for v in xs[ok][:2]]
    free = _free(problem)
    tries = [{**point, **{n: math.copysign(size, point[n]) for n in free}}
             for size in ROUND_SIZES]
    tries.append({**point, **{n: float(f"{point[n]:.2g}") for n in free}})
    pts = {n: np.array([t[n] for t in tries]) for n in point}
    ok = spans.lost_at(problem, pts, bounds, limits)
    return [t for t, good in zip(tries, ok, strict=True) if good and t != point][:2]


def _real(expr: Any, point: dict[str, float]) -> bool:
    """Whether the formula is a finite real number at the point, every step of it (in
    real arithmetic √-3·√-1 is undefined, though sympy's complex one gives -√3)."""
    subs = {proof.symbol(n): sp.Rational(v) for n, v in point.items()}
    try:
        with time_budget(1.0):
            whole = proof.as_expr(expr)
            steps = [whole, *(e for e in sp.preorder_traversal(whole)
                              if isinstance(e, (sp.Function, sp.Pow)))]
            values = [sp.N(e.xreplace(subs), DIGITS) for e in steps]
    except (Timeout, Exception):  # noqa: BLE001 - not shown real: not counted as real
        return False
    return all(v.is_number and v.is_real and v.is_finite for v in values)


def counterexample(problem: Problem, point: dict[str, float], limits: Limits
                   ) -> dict[str, Any]:
    """Both sides' values at the point (the student's side is not a number there)."""
    pts = {n: np.array([v]) for n, v in point.items()}
    fv = judged_points.function_values(problem, dict(pts), limits)
    # where the student's F is undefined, so is F' (the tape's sweep may still give one)
    d = [v.grad[w][0] if np.isfinite(v.value[0]) or not problem.turned else math.nan
         for v in fv for w in (problem.paths or problem.wrt)]
    a = [evaluate(e, pts, (), limits).value[0] for e in problem.answer.entries]

    def grid(values: list[float], shape: tuple[int, ...]) -> Any:
        flat = np.array(values, dtype=float)
        return flat.reshape(shape).tolist() if shape else float(flat[0])

    return {"at": dict(point), "expected": grid(d, problem.shape),
            "answer": grid(a, problem.answer.shape)}


# --------------------------------------------------------------------------- the words


def describe(problem: Problem, point: dict[str, float], found: judged_points.Found,
             bounds: tuple[Bound, ...], reference: list, limits: Limits) -> str:
    """The feedback: what is undefined, what it needs, and where the function is
    defined although the answer is not (`reference`: the reference side's formulas,
    whose poles split those parts)."""
    side = problem.student
    entry = next((e for e in side.entries if not _finite(e, point, limits)), side.entries[0])
    ref = f"{side_text(problem.answer)}" if problem.turned else asked(problem)
    culprit = _culprit(entry, side, point, limits)
    variable = _variable(problem, culprit[0] if culprit else None, side, reference)
    need, roots = (culprit[1], _roots(culprit[0], culprit[1], side, problem, variable,
                                      limits)) if culprit else (None, [])
    held = dict(problem.pinned)
    if culprit and _names(culprit[0]) and _names(culprit[0]) <= set(held):
        # undefined at the values held by --at, whatever the free inputs are
        parts = "at " + ", ".join(f"{n} = {held[n]:g}" for n in sorted(_names(culprit[0])))
    else:
        parts = spans.parts(problem, found, point, variable, bounds, roots,
                            spans.poles(reference, variable), limits)
    elsewhere = found.count > 0
    if culprit is None or need is None:
        return (f"the answer is not defined {parts}, where {ref} is"
                if elsewhere else f"the answer is not a real number anywhere {ref} is "
                f"({parts})")
    node = culprit[0]
    said = (f"{expression(node)} is defined only for "
            f"{_condition(node, need, roots, variable, side, problem, limits)}, but {ref} "
            f"is defined {parts}" + (" too" if elsewhere else
                                     ", where the answer is not a real number"))
    if problem.turned and isinstance(node, Call) and _logarithm(node.func):
        said += f": write {_absolute(entry, found, side, limits)}"
    return said


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
             "ninth", "tenth")


def asked(problem: Problem) -> str:
    """The true derivative named as the problem asks for it: the second derivative,
    f_xy, the Hessian (the first derivative, gradient and Jacobian: the derivative)."""
    path = problem.paths[0] if problem.paths else ()
    if problem.kind == "higher derivative" and len(path) <= len(_ORDINALS):
        return f"the {_ORDINALS[len(path) - 1]} derivative"
    if problem.kind == "partial":
        return "f_" + ("".join(path) if all(len(n) == 1 for n in path) else ",".join(path))
    return "the Hessian" if problem.kind == "hessian" else "the derivative"


def _free(problem: Problem) -> list[str]:
    """The inputs that vary: neither held by --at nor a constant of the answer."""
    held = {n for n, _ in problem.pinned} | set(problem.constants)
    return [n for n in problem.inputs if n not in held]


def _variable(problem: Problem, node: Any = None, side: Side | None = None,
              reference: list | None = None) -> str | None:
    """The one input the answer varies in, or the one that the subexpression `node`
    (written in the last statement of `side`) depends on when no formula of the
    `reference` side is restricted in it jointly with another input (4x/y, not
    1/(x + y)), so its parts are the same whatever the others are; None: several, so
    parts are points."""
    free = _free(problem)
    if node is not None and side is not None and len(side.program.body) == 1:
        names = [n for n in free if n in _names(node)]
        if len(names) == 1 and len(free) > 1 and _alone(reference or [], names[0], free):
            free = names
    return free[0] if len(free) == 1 else None


def _entire() -> frozenset[str]:
    """sympy's names of the functions defined for every real argument (the table's
    entries that say so): they restrict no domain."""
    return derived("entire", lambda: frozenset(
        sympy_name(p) for p in PRIMITIVES.values() if p.facts.defined == "everywhere"))


def _alone(reference: list, name: str, free: list[str]) -> bool:
    """Whether every step of the reference formulas that can be undefined (a power
    that is not a natural number, a function not defined everywhere) depends on at
    most one free input, or on `name` not at all."""
    symbols = {proof.symbol(n) for n in free}
    x = proof.symbol(name)
    entire = _entire()
    try:
        with time_budget(1.0):
            for e in reference:
                for step in sp.preorder_traversal(proof.as_expr(e)):
                    if type(step).__name__ in entire or not isinstance(
                            step, (sp.Function, sp.Pow)) or isinstance(step, sp.Pow) and \
                            step.exp.is_Integer and step.exp >= 0:
                        continue
                    used = step.free_symbols & symbols
                    if x in used and len(used) > 1:
                        return False
    except (Timeout, Exception):  # noqa: BLE001 - not known: parts are points
        return False
    return True


def _names(node: Any) -> set[str]:
    """The names a subexpression uses."""
    return {n.id for n in walk(node) if isinstance(n, Name)}


def _entry(node: Any, side: Side) -> Entry:
    program = side.program
    return Entry(Program((*program.body[:-1], ExprStmt(node, node.pos)), program.source,
                         program.inputs), node)


def _finite(entry: Entry, point: dict[str, float], limits: Limits) -> bool:
    pts = {n: np.array([v]) for n, v in point.items()}
    with np.errstate(all="ignore"):
        return bool(np.all(np.isfinite(evaluate(entry, pts, (), limits).value)))


def _children(node: Any) -> list[Any]:
    if isinstance(node, Binary):
        return [node.left, node.right]
    if isinstance(node, Unary):
        return [node.operand]
    if isinstance(node, Call):
        return list(node.args)
    return []


def _culprit(entry: Entry, side: Side, point: dict[str, float], limits: Limits
             ) -> tuple[Any, str] | None:
    """The innermost subexpression undefined at the point whose parts are defined, and
    what its function needs of its argument ('positive', 'nonnegative', 'unit', ...)."""
    node = entry.expr
    if node is None:
        return None
    while True:
        bad = [c for c in _children(node) if not isinstance(c, (Name, Num)) and
               not _finite(_entry(c, side), point, limits)]
        if not bad:
            break
        node = bad[0]
    need = _need(node)
    return (node, need) if need else None


def _logarithm(name: str) -> bool:
    """Whether the function is a logarithm (ln, log2, log10, log_b), by its entry."""
    prim = by_name().get(name)
    return prim is not None and prim.facts.rule == "logarithm"


def _need(node: Any) -> str | None:
    if isinstance(node, Call):
        prim = by_name().get(node.func)
        defined = prim.facts.defined if prim is not None else ""
        return defined if defined in _NEEDS else None
    if isinstance(node, Binary) and node.op == "**":
        p = _number(node.right)
        if p is not None and p != int(p):
            return "nonnegative" if p > 0 else "positive"
    return None


def _number(node: Any) -> float | None:
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Unary) and isinstance(node.operand, Num):
        return -node.operand.value if node.op == "-" else node.operand.value
    if isinstance(node, Binary) and node.op == "/":
        a, b = _number(node.left), _number(node.right)
        return a / b if a is not None and b else None
    return None


_NEEDS = {"positive": "{} > 0", "nonnegative": "{} ≥ 0", "unit": "-1 ≤ {} ≤ 1",
          "one": "{} ≥ 1", "open unit": "-1 < {} < 1"}
_HOLDS = {"positive": lambda v: v > 0, "nonnegative": lambda v: v >= 0,
          "unit": lambda v: -1 <= v <= 1, "one": lambda v: v >= 1,
          "open unit": lambda v: -1 < v < 1}
_THRESHOLDS = {"positive": (0,), "nonnegative": (0,), "unit": (-1, 1), "one": (1,),
               "open unit": (-1, 1)}


def _argument(node: Any) -> Any:
    return node.left if isinstance(node, Binary) else node.args[0]


def _polynomial(node: Any, side: Side, problem: Problem, variable: str | None,
                limits: Limits) -> Any:
    """The culprit's argument as a polynomial in the variable (degree 1 to 4), or None."""
    if variable is None:
        return None
    expr = proof.side_exprs(Side(side.program, (_entry(_argument(node), side),), ()),
                            problem.inputs, {n: 0.5 for n in problem.inputs}, limits)[0]
    x = proof.symbol(variable)
    if not isinstance(expr, sp.Basic) or not expr.free_symbols <= {x} or \
            not expr.is_polynomial(x) or not 1 <= sp.degree(expr, x) <= 4:
        return None
    return expr


def _roots(node: Any, need: str, side: Side, problem: Problem, variable: str | None,
           limits: Limits) -> list[Any]:
    """Where the culprit's argument meets its function's thresholds (exact real roots),
    when the argument is a polynomial in the variable."""
    try:
        with time_budget(1.0):
            expr = _polynomial(node, side, problem, variable, limits)
            if expr is None:
                return []
            x = proof.symbol(variable)  # type: ignore[arg-type]
            return sorted({r for c in _THRESHOLDS[need] for r in
                           sp.Poly(expr - c, x).real_roots()}, key=float)
    except (Timeout, Exception):  # noqa: BLE001 - no exact ends: the condition as written
        return []


def _condition(node: Any, need: str, roots: list[Any], variable: str | None, side: Side,
               problem: Problem, limits: Limits) -> str:
    """What the culprit needs, solved for the variable when its argument is a polynomial
    in it (x > 3, x ≤ -1 or x ≥ 1), else of its argument (√t - 5 > 0)."""
    said = _NEEDS[need].format(expression(_argument(node)))
    if not roots or variable is None:
        return said
    try:
        with time_budget(1.0):
            expr = _polynomial(node, side, problem, variable, limits)
            solved = _solved(expr, proof.symbol(variable), roots, _HOLDS[need], variable)
    except (Timeout, Exception):  # noqa: BLE001 - the condition as written then
        return said
    return solved if solved and len(solved) <= 60 else said


def _solved(expr: Any, x: Any, ends: list[Any], holds: Any, name: str) -> str | None:
    """The set where `holds(expr)` as inequalities in `name`, from the sign of expr on
    each piece between its critical points and at them."""
    if not ends:
        return None
    probes = [ends[0] - 1, *[(a + b) / 2 for a, b in zip(ends, ends[1:], strict=False)],
              ends[-1] + 1]
    inner = [bool(holds(expr.subs(x, p))) for p in probes]
    at = [bool(holds(expr.subs(x, e))) for e in ends]
    pieces: list[str] = []
    for k, ok in enumerate(inner):
        if not ok:
            continue
        lo = ends[k - 1] if k else None
        hi = ends[k] if k < len(ends) else None
        lo_in = lo is not None and at[k - 1]
        hi_in = hi is not None and at[k]
        pieces.append(spans.interval_text(name, lo, hi, lo_in, hi_in))
    return " or ".join(pieces) or None


# --------------------------------------------------------------------------- the fix


def _absolute(entry: Entry, found: judged_points.Found, side: Side, limits: Limits) -> str:
    """The student's formula with every logarithm that fails somewhere on the kept points
    taken of the absolute value: ln(x) + C becomes ln|x| + C."""
    uncovered = found.uncovered_points() or []

    def fails(node: Any) -> bool:
        return any(not _finite(_entry(node, side), p, limits) for p in uncovered)

    def fixed(node: Any) -> Any:
        if isinstance(node, Call):
            args = tuple(fixed(a) for a in node.args)
            if _logarithm(node.func) and fails(node):
                return Call(node.func, (Call("abs", (args[0],), node.pos), *args[1:]),
                            node.pos)
            return Call(node.func, args, node.pos)
        if isinstance(node, Binary):
            return Binary(node.op, fixed(node.left), fixed(node.right), node.pos)
        if isinstance(node, Unary):
            return Unary(node.op, fixed(node.operand), node.pos)
        return node

    text = expression(fixed(entry.expr))
    return re.sub(r"ln\(\|([^|]*)\|\)", r"ln|\1|", text)

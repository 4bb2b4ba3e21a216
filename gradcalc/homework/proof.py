"""The symbolic side of a homework check: sympy expressions built from the IR, never text.

Each entry runs on the symbolic backend (`local=False`: a Piecewise twin stays whole,
valid at every point). The backend folds constants in float64, so numbers are read back
exactly where float64 holds them: 0.5 is 1/2, 6.283185307179586 is 2π, 1.4142135623730951
is √2. The true derivative is sympy's `diff`, printed in the language (`^`, `abs`, `e`,
`where`) so that it can be typed back as an answer. A proof is `difference == 0` after
sympy's automatic simplification, after `expand`, or after `simplify`, each bounded by
the time budget; a numeric mismatch is confirmed in 30-digit arithmetic before it counts.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
import sympy as sp
from sympy.printing.str import StrPrinter

from gradcalc.backends.symbolic import PathDecisions, as_expr, symbolic_output
from gradcalc.homework.exact import exact_number
from gradcalc.homework.problem import Side
from gradcalc.language.program import (
    EULER,
    RESULT_NAME,
    Assign,
    Binary,
    Call,
    ExprStmt,
    ListLit,
    Name,
    Num,
    Program,
    Unary,
)
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.budget import Timeout, time_budget

#: digits of the arithmetic that confirms a numeric mismatch
CONFIRM_DIGITS = 30


def symbol(name: str) -> sp.Symbol:
    return sp.Symbol(name, real=True)


def side_exprs(side: Side, inputs: tuple[str, ...], point: dict[str, float],
               limits: Limits = DEFAULT_LIMITS) -> list[Any]:
    """Each entry as a sympy expression of the inputs (path recorded at `point`)."""
    values = {n: np.asarray(point[n], dtype=np.float64) for n in inputs}
    out = []
    for entry in side.entries:
        # a formula that decides nothing has one path: no numeric run to record it
        path = None if _decides(entry.program) else PathDecisions()
        expr, _ = symbolic_output(entry.program, values, list(inputs), {}, RESULT_NAME,
                                  path, limits=limits, local=False)
        out.append(exact(np.asarray(expr, dtype=object).reshape(()).item()))
    return out


def _decides(program: Program) -> bool:
    """Whether running the program may take a value-dependent decision (a branch, a loop,
    a comparison or an index: the symbolic run replays those from a numeric one). Only
    assignments, arithmetic, calls, lists, names and numbers decide nothing."""
    stack: list[object] = list(program.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (Assign, ExprStmt)):
            stack.append(node.value)
        elif isinstance(node, Binary):
            stack += [node.left, node.right]
        elif isinstance(node, Unary):
            stack.append(node.operand)
        elif isinstance(node, (Call, ListLit)):
            stack.extend(node.args if isinstance(node, Call) else node.items)
        elif not isinstance(node, (Name, Num)):
            return True
    return False


def exact(expr: Any) -> Any:
    if not isinstance(expr, sp.Basic):
        return exact_number(float(expr))
    floats = expr.atoms(sp.Float)
    if not floats:
        return expr
    return expr.xreplace({f: exact_number(float(f)) for f in floats})


def derivatives(function: list[Any], wrt: tuple[str, ...],
                paths: tuple[tuple[str, ...], ...] | None = None,
                pinned: tuple[tuple[str, float], ...] = ()) -> list[Any]:
    """d f_i / d w_j for every entry and input, row-major (or along each path: f_xy is
    ("x", "y")), with the pinned inputs put in afterwards."""
    columns = paths or tuple((w,) for w in wrt)
    return pin([sp.diff(f, *(symbol(n) for n in p)) for f in function for p in columns],
               pinned)


def pin(exprs: list[Any], pinned: tuple[tuple[str, float], ...]) -> list[Any]:
    """The expressions with the pinned inputs replaced by their (exact) values."""
    if not pinned:
        return exprs
    subs = {symbol(n): exact_number(v) for n, v in pinned}
    return [e.xreplace(subs) if isinstance(e, sp.Basic) else e for e in exprs]


# --------------------------------------------------------------------------- text


class _Printer(StrPrinter):
    """sympy's text, in gradcalc's language (what `check` prints can be typed back)."""

    def __init__(self, euler: str) -> None:
        super().__init__({"order": None})
        self.euler = euler

    def _print_Abs(self, e: Any) -> str:
        return f"abs({self._print(e.args[0])})"

    def _print_Exp1(self, e: Any) -> str:
        return self.euler

    def _print_Piecewise(self, e: Any) -> str:
        *cases, (last, cond) = e.args
        text = self._print(last) if cond is sp.true else "nan"
        for value, cond in reversed(cases):
            text = f"where({self._print(cond)}, {self._print(value)}, {text})"
        return text


def text(expr: Any, inputs: tuple[str, ...] = ()) -> str:
    """A readable text of an expression, in the language (powers as ^)."""
    printer = _Printer("E" if EULER in inputs else "e")
    return printer.doprint(expr).replace("**", "^")


def grid_text(exprs: list[Any], shape: tuple[int, ...], inputs: tuple[str, ...]) -> str:
    items = [text(e, inputs) for e in exprs]
    if not shape:
        return items[0]
    if len(shape) == 1:
        return "[" + ", ".join(items) + "]"
    rows = [items[i * shape[1]:(i + 1) * shape[1]] for i in range(shape[0])]
    return "[" + ", ".join("[" + ", ".join(r) + "]" for r in rows) + "]"


# --------------------------------------------------------------------------- proof


def proves(expected: Any, answer: Any, seconds: float, full: bool) -> bool:
    """Whether expected - answer simplifies to 0 within `seconds` (`full`: also try
    sympy's `simplify`, the slow general route; else only the automatic form and
    `expand`)."""
    d = expected - answer
    if d == 0:
        return True
    try:
        with time_budget(seconds):
            if sp.expand(d) == 0:
                return True
            return bool(full and sp.simplify(d) == 0)
    except Timeout:
        return False
    except Exception:  # noqa: BLE001 - sympy fails in many ways; no proof is no proof
        return False


def _exactly_at(expr: Any, at: tuple[tuple[str, str], ...]) -> Any:
    """The expression at a point (inputs' float64 values as hex) in 30-digit arithmetic."""
    subs = {symbol(n): sp.Float(float.fromhex(h), CONFIRM_DIGITS) for n, h in at}
    return as_expr(expr).xreplace(subs).evalf(CONFIRM_DIGITS)


#: the true derivative's exact values: a function's wrong answers share its points
_expected_at = lru_cache(maxsize=4096)(_exactly_at)


def _hashable(x: Any) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def forget() -> None:
    """Empty the kept exact values (a benchmark's cold start)."""
    _expected_at.cache_clear()


def differ_exactly(expected: Any, answer: Any, point: dict[str, float], rtol: float,
                   atol: float) -> bool | None:
    """At `point`, in 30-digit arithmetic: True if the two differ beyond the tolerances,
    False if they agree (a float64 mismatch was rounding), None if not both are real."""
    at = tuple((n, float(v).hex()) for n, v in point.items())
    try:
        with time_budget(1.0):
            a = (_expected_at if _hashable(expected) else _exactly_at)(expected, at)
            b = _exactly_at(answer, at)
            if not (a.is_real and b.is_real and a.is_finite and b.is_finite):
                return None
            return bool(abs(a - b) > atol + rtol * max(abs(a), abs(b)))
    except (Timeout, Exception):  # noqa: BLE001 - no confirmation: the float64 result stands
        return None

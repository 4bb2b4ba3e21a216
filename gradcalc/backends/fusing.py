"""A straight-line program as a fused kernel (gradcalc/engine/fused.py): assignments of
arithmetic and elementwise functions over the inputs, the output optionally summed.
Anything else (a branch, a loop, an index, a matrix product, another function) raises
`Unfusable`, and the tape runs the program as always."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gradcalc.engine.fused import FUNCS, Graph, Kernel, Unfusable
from gradcalc.language.program import (
    EULER,
    RESULT_NAME,
    Assign,
    Binary,
    Call,
    Expr,
    ExprStmt,
    Name,
    Num,
    Program,
    Unary,
)

OPS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "**": "pow"}
#: the language's names of the fused functions
NAMES = {**{name: name for name in FUNCS}, "arctan": "atan"}


class _Summed:
    """A value that is the sum of node `k`: only the output may be one."""

    def __init__(self, k: int) -> None:
        self.k = k


def kernel(program: Program, names: list[str], constants: dict[str, Any], of: str,
           point: tuple[Any, ...]) -> Kernel:
    """The program's fused kernel at `point` (the values of `names`)."""
    g = Graph()
    env: dict[str, Any] = {}
    consts: dict[int, Any] = {}
    for n, v in constants.items():
        env[n] = k = g.node("in", n)
        consts[k] = _array(v)
    inputs = [g.node("in", n) for n in names]
    env.update(zip(names, inputs))
    for stmt in program.body:
        if not isinstance(stmt, (Assign, ExprStmt)):
            raise Unfusable(type(stmt).__name__)
        target = stmt.target if isinstance(stmt, Assign) else RESULT_NAME
        env[target] = _expr(g, env, stmt.value)
    if of not in env:
        raise Unfusable("the output is not assigned")
    top = env[of]
    summed = isinstance(top, _Summed)
    return Kernel(g, top.k if summed else top, summed, inputs,
                  [_array(v) for v in point], consts)


def _array(v: Any) -> np.ndarray:
    a = np.asarray(getattr(v, "value", v))
    if a.dtype.kind != "f":
        raise Unfusable("not float64")
    return a.astype(np.float64, copy=False)


def _expr(g: Graph, env: dict[str, Any], e: Expr) -> Any:
    if isinstance(e, Num):
        return g.num(e.value)
    if isinstance(e, Name):
        if e.id in env:
            return env[e.id]
        if e.id == EULER:
            return g.num(math.e)
        raise Unfusable(e.id)
    if isinstance(e, Call) and e.func == "sum" and len(e.args) == 1:
        return _Summed(_operand(g, env, e.args[0]))
    if isinstance(e, Call) and e.func in NAMES and len(e.args) == 1:
        return g.apply(NAMES[e.func], _operand(g, env, e.args[0]))
    if isinstance(e, Unary):
        x = _operand(g, env, e.operand)
        return x if e.op == "+" else g.apply("neg", x)
    if isinstance(e, Binary) and e.op in OPS:
        return g.apply(OPS[e.op], _operand(g, env, e.left), _operand(g, env, e.right))
    raise Unfusable(type(e).__name__)


def _operand(g: Graph, env: dict[str, Any], e: Expr) -> int:
    k = _expr(g, env, e)
    if isinstance(k, _Summed):
        raise Unfusable("a sum inside the program")
    return k

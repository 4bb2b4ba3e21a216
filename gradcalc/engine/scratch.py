"""A VJP's result written into its cotangent's own buffer, when the sweep owns it.

A reverse sweep hands the last rule of a node its cotangent `g` as `state.spare` when
nothing but the sweep holds that array (no other name, node, view or caller: NumPy's own
test for eliding a temporary, its reference count). A rule's last use of `g` may then
write into it instead of making a new array: the same ufunc on the same operands, so the
same bits, and the array flows down a chain of elementwise nodes as a hand-written
backward reuses its buffers. Anything else (tensors of a recorded sweep, a broadcast
result, a Diagonal seed) takes the ordinary operator.

A large result that cannot go into `g` goes into a buffer of the engine's pool
(`pool.fresh`), as do the forward results of the elementwise
primitives (`primitive.apply_one`, `apply_two`): the same ufunc on the same operands,
written into memory that is already the process's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.engine import pool
from gradcalc.engine.tape import state

_SCALARS = (float, np.float64)


def _into(g: Any, v: Any) -> bool:
    """Whether `g op v` may be written into the spare g: v is a float64 of g's shape (or
    a scalar), so the result has g's shape and dtype."""
    t = type(v)
    if t is np.ndarray:
        if v.shape != g.shape or v.dtype != np.float64:
            return False
    elif t not in _SCALARS:
        return False
    state.spare = None  # one use: the rule's last
    return True


def times(g: Any, v: Any) -> Any:
    """g * v."""
    if type(g) is np.ndarray:
        if g is state.spare and _into(g, v):
            return np.multiply(g, v, out=g)
        made = pool.fresh(np.multiply, g, v)
        if made is not None:
            return made
    return g * v


def over(g: Any, v: Any) -> Any:
    """g / v."""
    if type(g) is np.ndarray:
        if g is state.spare and _into(g, v):
            return np.true_divide(g, v, out=g)
        made = pool.fresh(np.true_divide, g, v)
        if made is not None:
            return made
    return g / v


def negated(g: Any) -> Any:
    """-g."""
    if type(g) is np.ndarray:
        if g is state.spare and _into(g, 0.0):
            return np.negative(g, out=g)
        made = pool.fresh(np.negative, g)
        if made is not None:
            return made
    return -g


def scaled(c: Any, x: Any) -> Any:
    """c * x (a rule's own product of a plain array by a number), into a pool buffer
    when it is large."""
    if type(x) is np.ndarray:
        made = pool.fresh(np.multiply, c, x)
        if made is not None:
            return made
    return c * x

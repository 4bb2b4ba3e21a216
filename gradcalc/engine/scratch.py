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
_ARRAY = np.ndarray


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
    """g * v; v itself (a read-only view of it) when g is sum's cotangent of a seed of 1."""
    if type(g) is not _ARRAY:
        return g * v  # a scalar program's node, or a recorded sweep's tensor
    if g is state.spare and _into(g, v):
        return np.multiply(g, v, out=g)
    if state.aliases is not None and _ones(g, v):
        return _alias(v)
    made = pool.fresh(np.multiply, g, v)
    return g * v if made is None else made


def over(g: Any, v: Any) -> Any:
    """g / v."""
    if type(g) is not _ARRAY:
        return g / v
    if g is state.spare and _into(g, v):
        return np.true_divide(g, v, out=g)
    made = pool.fresh(np.true_divide, g, v)
    return g / v if made is None else made


def times_own(g: Any, v: Any) -> Any:
    """g * v, where v is the rule's own new array (`fn.cos(x)` in sin's rule): written
    into g when the sweep lends it, else into v (no third array)."""
    if type(g) is not _ARRAY:
        return g * v  # a scalar program's node, or a recorded sweep's tensor
    if g is not state.spare and type(v) is np.ndarray and v.base is None and \
            v.shape == g.shape and v.dtype == np.float64 and g.dtype == np.float64:
        return np.multiply(g, v, out=v)
    return times(g, v)


def _ones(g: np.ndarray, v: Any) -> bool:
    """Whether g is a broadcast of 1.0 (what `sum` sends back from a seed of 1) and v a
    float64 array of its shape: then g·v is v, bit for bit (1·v is v for every float64;
    a NaN keeps its payload, only a signalling one would come out quiet)."""
    return g.base is not None and type(v) is np.ndarray and v.shape == g.shape and \
        v.dtype == np.float64 and g.size > 0 and not any(g.strides) and g.flat[0] == 1.0


def _alias(v: np.ndarray) -> np.ndarray:
    """A read-only view of v as a cotangent: no rule writes into it (it is no one's
    buffer to lend) and a caller gets a copy of it (`tape._handed`)."""
    view = v.view()
    view.flags.writeable = False
    state.aliases.add(id(view))  # type: ignore[union-attr]
    return view


def negated(g: Any) -> Any:
    """-g."""
    if type(g) is not _ARRAY:
        return -g
    if g is state.spare and _into(g, 0.0):
        return np.negative(g, out=g)
    made = pool.fresh(np.negative, g)
    return -g if made is None else made


def minus_times_over_square(g: Any, x: Any, y: Any) -> Any:
    """-g * x / (y * y) (div's rule for its divisor), computed as that expression is (the
    same ufuncs in the same order) into the spare g or one pool buffer, with y * y in
    another: no array made outside the pool. When g is a broadcast of 1.0 (sum's
    cotangent of a seed of 1), -g * x is -1.0 * x element by element: one pass fewer."""
    if type(g) is not _ARRAY or type(x) is not _ARRAY or type(y) is not _ARRAY or \
            not g.shape == x.shape == y.shape or pool.pooled_shape((g, x, y)) is None:
        return -g * x / (y * y)
    if _ones(g, x):
        part = pool.fresh(np.multiply, -1.0, x)
    else:
        part = np.negative(g, out=g) if g is state.spare and _into(g, x) else \
            pool.fresh(np.negative, g)
        np.multiply(part, x, out=part)
    return np.true_divide(part, pool.fresh(np.multiply, y, y), out=part)


def scaled(c: Any, x: Any) -> Any:
    """c * x (a rule's own product of a plain array by a number), into a pool buffer
    when it is large."""
    if type(x) is np.ndarray:
        made = pool.fresh(np.multiply, c, x)
        if made is not None:
            return made
    return c * x


def scaled_once(c: Any, x: Any) -> Any:
    """c * x as `scaled` makes it, made once in a plain sweep for one array x and one c
    (W1's two x**2 each want 2·x): a later rule gets the same array. No rule writes into
    it (a rule writes only into a cotangent the sweep lends it, which this is not, or
    into its own new array), and the sweep keeps x with it, so the id it is found by
    stays x's."""
    once = state.once
    if once is None or type(x) is not np.ndarray:
        return scaled(c, x)
    key = (id(x), float(c))
    kept = once.get(key)
    if kept is not None and kept[0] is x:
        return kept[1]
    made = scaled(c, x)
    once[key] = (x, made)
    return made

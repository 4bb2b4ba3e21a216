"""The transposes of picking entries and of summing along an axis, written as backprop
answers write them in gradcalc's language.

The adjoint of u[key] is g scattered back into zeros of u's shape. The language has no
zeros_like and no assignment into an index, so the scatter is a product with 0/1 lists:
a one-hot vector for a whole-number index (g*[0, 1, 0] for x[1], outer([0, 1, 0], g) for
a row W[1], outer(g, [0, 1]) for a column W[:, 1]) and a selection matrix for a slice
([[0, 0], [1, 0], [0, 1]]@g for the rows W[1:3]). Those lists grow with u, so past
`MAX_ENTRIES` entries there is no formula. The adjoint of sum(u, axis=k) is g repeated
along axis k: outer(ones(n), g) for axis 0 and outer(g, ones(m)) for axis 1 of a matrix
(the language has neither keepdims nor g[:, None]); mean divides by the axis's length.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.homework.backprop.terms import (
    Unsupported,
    call,
    is_number,
    literal,
    matmul,
    mul,
    ones,
)
from gradcalc.language.program import Binary, Index, Num, Slice, Unary

Shape = tuple[int, ...]
#: the largest 0/1 list a scatter may write
MAX_ENTRIES = 64


def key_of(e: Index, shape: Shape) -> tuple[int | slice, ...]:
    """The index as NumPy's key: whole numbers and slices of whole numbers only."""
    if len(e.items) > len(shape) or len(shape) > 2:
        raise Unsupported("an index of this rank")
    key: list[int | slice] = []
    for item in e.items:
        if isinstance(item, Slice):
            parts = [None if p is None else _whole(p) for p in (item.start, item.stop,
                                                                 item.step)]
            key.append(slice(*parts))
        else:
            key.append(_whole(item))
    return tuple(key)


def _whole(e: Any) -> int:
    if isinstance(e, Unary) and e.op == "-":
        return -_whole(e.operand)
    if isinstance(e, Num) and e.value == int(e.value):
        return int(e.value)
    raise Unsupported("an index that is not a whole number")


def index_shape(e: Index, shape: Shape) -> Shape:
    try:
        return tuple(np.empty(shape)[key_of(e, shape)].shape)
    except IndexError:
        raise Unsupported("an index out of range") from None


def scatter(g: Any, e: Index, shape: Shape) -> Any:
    """∂L/∂u for u[key], from g = ∂L/∂(u[key]): g in the picked places, 0 elsewhere."""
    key = key_of(e, shape) + (slice(None),) * (len(shape) - len(e.items))
    picks = []
    for n, k in zip(shape, key, strict=True):
        if isinstance(k, int):
            if not -n <= k < n:
                raise Unsupported("an index out of range")
            picks.append(("one", [int(i == k % n) for i in range(n)]))
            continue
        chosen = list(range(n))[k]
        if chosen == list(range(n)):
            picks.append(("all", None))
        else:  # n × k: column r is the one-hot of the r-th picked place
            picks.append(("some", [[int(i == c) for c in chosen] for i in range(n)]))
    for _, rows in picks:
        if rows is not None and np.size(rows) > MAX_ENTRIES:
            raise Unsupported("a scatter too large to write out")
    if len(picks) == 1:
        (how, rows), = picks
        if how == "one":
            return mul(g, literal(rows))
        return g if how == "all" else matmul(g, literal(np.transpose(rows).tolist()))
    (rh, rows), (ch, cols) = picks
    if rh == "one" and ch == "one":
        return mul(g, literal([[r * c for c in cols] for r in rows]))
    if rh == "one":  # g is the row's picked entries
        h = g if ch == "all" else matmul(g, literal(np.transpose(cols).tolist()))
        return call("outer", literal(rows), h)
    h = g if rh == "all" else matmul(literal(rows), g)
    if ch == "one":
        return call("outer", h, literal(cols))
    return h if ch == "all" else matmul(h, literal(np.transpose(cols).tolist()))


def broadcast_back(g: Any, g_shape: Shape, shape: Shape, axis: int) -> Any:
    """g, the adjoint of a sum along `axis` of something of `shape`, repeated along it."""
    if g_shape == () or isinstance(g, Num):
        return g  # a number stands for every entry
    if len(shape) != 2:
        raise Unsupported("a sum along an axis of more than two dimensions")
    if axis % 2 == 0:
        return call("outer", ones(shape[0]), g)
    return call("outer", g, ones(shape[1]))


def row_of(g: Any) -> Any | None:
    """h when g is outer(ones(n), h) or h*ones(...): h repeated, which NumPy's
    broadcasting does by itself when g meets an array of g's shape."""
    if (getattr(g, "func", None) == "outer" and getattr(g.args[0], "func", None) == "ones"
            and len(g.args[0].args) == 1):
        return g.args[1]
    if isinstance(g, Binary) and g.op == "*" and getattr(g.right, "func", None) == "ones":
        return g.left
    return None


def lean(g: Any, g_shape: Shape, other_shape: Shape) -> Any:
    """g, or the row it repeats when the other factor has g's shape (v*h for v*outer(ones(n),
    h)): what a student writes, relying on broadcasting."""
    h = row_of(g)
    return h if h is not None and other_shape == g_shape and not is_number(h, 0) else g

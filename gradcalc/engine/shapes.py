"""Shapes, axes and broadcasting: the bookkeeping every VJP rule shares.

`unbroadcast` is the one place where broadcasting is undone. A cotangent may carry
leading batch axes beyond the output's shape (a batch of cotangents: a whole Jacobian in
one sweep); every helper here keeps them. The helpers that build arrays go through the
registry's functions (`fn`), so they are recorded when a sweep is.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gradcalc.engine.primitive import fn


def value(x: Any) -> Any:
    """The raw NumPy value of a tensor or array."""
    return getattr(x, "value", x)


def shape(x: Any) -> tuple[int, ...]:
    try:  # arrays, NumPy scalars and tensors know their shape
        return x.shape
    except AttributeError:
        return np.shape(x)


def ndim(x: Any) -> int:
    return np.ndim(value(x))


def batch_of(g: Any, ans: Any) -> tuple[int, ...]:
    """The leading batch axes that a cotangent carries beyond the output's shape."""
    return shape(g)[: ndim(g) - ndim(ans)]


def unbroadcast(g: Any, out_shape: tuple[int, ...], x_shape: tuple[int, ...]) -> Any:
    """Sum a cotangent of shape batch+out_shape down to batch+x_shape (undo broadcasting)."""
    if tuple(out_shape) == tuple(x_shape):
        return g
    nb = ndim(g) - len(out_shape)
    extra = len(out_shape) - len(x_shape)
    axes = tuple(range(nb, nb + extra)) + tuple(
        nb + extra + i for i, d in enumerate(x_shape) if d == 1 and out_shape[extra + i] != 1
    )
    reduced = fn.sum(g, axes, True) if axes else g
    return fn.reshape(reduced, shape(g)[:nb] + tuple(x_shape))


def unb(g: Any, ans: Any, x: Any) -> Any:
    """`g` summed down to `x`'s shape, when `x` was broadcast to make `ans`."""
    try:  # the common case first, without a call: nothing was broadcast
        if ans.shape == x.shape:
            return g
    except AttributeError:  # a Python number
        pass
    return unbroadcast(g, shape(ans), shape(x))


def keepdims_shape(x_shape: tuple[int, ...], axis: tuple[int, ...] | None) -> tuple[int, ...]:
    if axis is None:
        return (1,) * len(x_shape)
    return tuple(1 if i in axis else d for i, d in enumerate(x_shape))


def expand(g: Any, ans: Any, x: Any, axis: tuple[int, ...] | None) -> Any:
    """Broadcast a reduction's cotangent (batch + reduced shape) back to batch + x's shape."""
    batch = batch_of(g, ans)
    kept = fn.reshape(g, batch + keepdims_shape(shape(x), axis))
    return fn.broadcast_to(kept, batch + shape(x))


def keep(r: Any, ans: Any, x: Any, axis: tuple[int, ...] | None) -> Any:
    """A reduction's result `r` (shaped like `ans`, no batch) with the reduced axes kept
    as size 1, so it broadcasts against `x`."""
    return fn.reshape(r, keepdims_shape(shape(x), axis))


def normalize_axis(axis: Any, nd: int) -> tuple[int, ...] | None:
    """`axis` (an int, a sequence, or None for all) as sorted non-negative axes."""
    if axis is None:
        return None
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    if not axes:  # PyTorch: an empty dim list reduces over every dim
        return None
    out = [dim_index(a, nd) for a in axes]
    return tuple(sorted(set(out))) if nd else None  # a 0-d tensor: dim 0 is all of it


def dim_index(dim: Any, nd: int) -> int:
    """`dim` as a non-negative axis of an `nd`-dimensional tensor, or PyTorch's IndexError
    (a 0-d tensor accepts 0 and -1)."""
    d = int(value(dim))
    top = max(nd, 1)
    if not -top <= d < top:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-top}, "
                         f"{top - 1}], but got {d})")
    return d % top if nd else 0


def count(x: Any, axis: tuple[int, ...] | None) -> int:
    """How many elements each result of a reduction over `axis` combines."""
    s = shape(x)
    return math.prod(s) if axis is None else math.prod(s[a] for a in axis)


def swap_last(x: Any) -> Any:
    nd = ndim(x)
    return fn.transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def unsqueeze(x: Any, dim: int) -> Any:
    s = list(shape(x))
    dim = dim_index(dim, len(s) + 1)
    return fn.reshape(x, tuple(s[:dim]) + (1,) + tuple(s[dim:]))


def dims(sizes: tuple) -> tuple[int, ...]:
    """Array dimensions from numbers (or one sequence of them): whole and >= 0."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    out = []
    for d in sizes:
        d = float(value(d))
        if d != int(d) or d < 0:
            raise ValueError(f"array dimensions must be whole numbers >= 0, not {d:g}")
        out.append(int(d))
    return tuple(out)


def ones(*sizes: Any) -> np.ndarray:
    return np.ones(dims(sizes))


def zeros(*sizes: Any) -> np.ndarray:
    return np.zeros(dims(sizes))


def shape_args(args: tuple, current: tuple[int, ...]) -> tuple[int, ...]:
    """A shape given as numbers or one sequence, with -1 inferred from `current`; PyTorch's
    RuntimeError for two -1s or a size that does not fit."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    dims = [int(value(a)) for a in args]
    size = math.prod(current)
    if dims.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(d for d in dims if d != -1)
    if any(d < -1 for d in dims) or (-1 in dims and (known == 0 or size % known)) or (
            -1 not in dims and known != size):
        raise RuntimeError(f"shape '[{', '.join(map(str, dims))}]' is invalid for input of "
                           f"size {size}")
    if -1 in dims:
        dims[dims.index(-1)] = size // known
    return tuple(dims)

"""PyTorch's max and min along a dimension: `(values, indices)`, the gradient to the one
element chosen in each slice.

`x.max(dim)` and `gradcalc.max(x, dim)` return a named pair as `torch.max` does; the index
is the first largest element (the first nan, if any), and the gradient goes to it alone
(PyTorch's `value_selecting_reduction_backward`). Without `dim` they reduce the whole
tensor, ties sharing the gradient (the table's `max`, which the language uses too); with a
tensor as the second argument they are `maximum`/`minimum`. `argmax`/`argmin` give the
indices alone.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from gradcalc.engine.primitive import fn
from gradcalc.engine.shapes import value
from gradcalc.engine.tensor import Tensor, to_tensor

Max = namedtuple("max", ["values", "indices"])
Min = namedtuple("min", ["values", "indices"])


def _indices(a: np.ndarray, dim: int | None, keepdim: bool, largest: bool) -> np.ndarray:
    """The first largest (smallest) element's index along `dim`; nan counts as largest and
    smallest, as in PyTorch."""
    pick = np.argmax if largest else np.argmin
    if dim is None:
        flat = np.asarray(pick(a.reshape(-1)))
        return flat.reshape((1,) * a.ndim) if keepdim else flat
    return pick(a, axis=dim, keepdims=keepdim)


def _axis(dim: Any, nd: int) -> int:
    d = int(dim)
    if not -max(nd, 1) <= d < max(nd, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(nd, 1)}, {max(nd, 1) - 1}], but got {d})")
    return d % max(nd, 1)


def along(x: Any, dim: Any, keepdim: bool = False, largest: bool = True) -> tuple:
    """(values, indices) of the largest (smallest) element of each slice along `dim`."""
    x = to_tensor(x)
    a = np.asarray(value(x))
    d = _axis(dim, a.ndim)
    pair = Max if largest else Min
    if a.ndim == 0:
        return pair(fn.clone(x), Tensor.wrap(np.array(0), None))
    idx = _indices(a, d, False, largest)
    grids = list(np.indices(idx.shape, sparse=True))
    # an index array (never a bare integer) so that the node saves it, as PyTorch's does:
    # a second sweep after the graph was freed raises
    chosen = idx.reshape(1) if idx.ndim == 0 else idx
    values = fn.getitem(x, tuple(grids[:d] + [chosen] + grids[d:]))
    out_shape = a.shape[:d] + (1,) + a.shape[d + 1:] if keepdim else idx.shape
    values = fn.reshape(values, out_shape)
    if keepdim:
        idx = np.expand_dims(idx, d)
    return pair(to_tensor(values), Tensor.wrap(idx, None))


def extreme(largest: bool) -> Any:
    """The library's `max` (`largest`) or `min`: over everything, along a dim, or
    elementwise against another tensor."""
    reduce, pairwise = (fn.max, fn.maximum) if largest else (fn.min, fn.minimum)

    def function(input: Any, dim: Any = None, keepdim: bool = False, **kw: Any) -> Any:  # noqa: A002
        dim = kw.pop("other", dim)
        if kw:
            raise TypeError(f"unexpected keyword arguments: {', '.join(kw)}")
        if isinstance(dim, Tensor) or isinstance(dim, np.ndarray) and dim.ndim > 0:
            return to_tensor(pairwise(input, dim))
        if dim is None:
            return to_tensor(reduce(input))
        return along(input, dim, keepdim, largest)

    function.__name__ = function.__qualname__ = "max" if largest else "min"
    function.__doc__ = __doc__
    return function


def arg(largest: bool) -> Any:
    """The library's `argmax` (`largest`) or `argmin`: indices only, never differentiable."""

    def function(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A002
        a = np.asarray(value(input))
        d = None if dim is None else _axis(dim, a.ndim)
        if a.ndim == 0:
            return Tensor.wrap(np.array(0), None)
        return Tensor.wrap(_indices(a, d, keepdim, largest), None)

    function.__name__ = function.__qualname__ = "argmax" if largest else "argmin"
    return function

"""PyTorch's indexing rules on top of NumPy's.

Two differences matter. An integer is a basic index in PyTorch (a `select`), so
`x[1, :, [0, 2]]` keeps the slice's axis first, shape (3, 2), where NumPy counts the
integer as an index array separated from the other by a slice and puts the indexed axis
first, shape (2, 3). And an index tensor must be an integer or boolean one: a floating
tensor (on the tape, or made floating: `Tensor.floating`) or one holding fractions
raises PyTorch's IndexError instead of being truncated; a whole-valued float64 tensor
made from integers (`tensor([0, 1])`, `arange(3)`) stands for PyTorch's int64 one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.engine.primitive import Traced

NOT_INDICES = "tensors used as indices must be long, int, byte or bool tensors"


def _as_index_array(v: np.ndarray) -> np.ndarray:
    if v.dtype == bool or v.dtype.kind in "iu":
        return v
    if v.dtype.kind != "f" or not np.all(np.isfinite(v)) or np.any(v != np.round(v)):
        raise IndexError(NOT_INDICES)
    return v.astype(np.int64)


def unwrap_index(index: Any, inner: bool = False) -> Any:
    """Tensors, lists and tuples in an index as NumPy index arrays (whole numbers or
    booleans); the index's own tuple stays one, its items each an index (`x[1, (2, 0)]`:
    a tuple inside it is a sequence of indices, as a list is)."""
    if isinstance(index, tuple) and not inner:
        return tuple(unwrap_index(i, inner=True) for i in index)
    if isinstance(index, Traced):
        if getattr(index, "floating", False):
            raise IndexError(NOT_INDICES)
        return _as_index_array(np.asarray(index.value))
    if isinstance(index, (list, tuple)):
        return _as_index_array(np.asarray([unwrap_index(i, inner=True) if isinstance(
            i, (Traced, list, tuple)) else i for i in index]))
    if isinstance(index, (float, np.floating)):
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or "
                         "byte Variables are valid indices (got float)")
    return index


def _is_int(i: Any) -> bool:
    return isinstance(i, (int, np.integer)) and not isinstance(i, bool) or (
        isinstance(i, np.ndarray) and i.ndim == 0 and i.dtype.kind in "iu")


def _is_array(i: Any) -> bool:
    return isinstance(i, np.ndarray) and (i.ndim > 0 or i.dtype == bool) or isinstance(i, bool)


def steps(index: tuple) -> list[tuple]:
    """The index as the NumPy indexing steps that give PyTorch's result: one step, or the
    integers and slices first and then the index arrays, when both kinds are present."""
    if not (any(_is_int(i) for i in index) and any(_is_array(i) for i in index)):
        return [index]
    basic: list[Any] = []
    advanced: list[Any] = []
    for i in index:
        if _is_int(i):
            basic.append(i)
        elif _is_array(i):
            width = np.ndim(i) if isinstance(i, np.ndarray) and i.dtype == bool else 1
            basic.extend([slice(None)] * width)
            advanced.append(i)
        elif i is None:
            basic.append(None)
            advanced.append(slice(None))
        else:  # a slice or Ellipsis: applied in the first step, kept whole in the second
            basic.append(i)
            advanced.append(slice(None) if isinstance(i, slice) else i)
    return [tuple(basic), tuple(advanced)]

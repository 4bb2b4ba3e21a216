"""A diagonal batch of cotangents: the identity seed of a Jacobian, kept cheap.

A whole Jacobian of a vector output is one reverse sweep seeded with the identity: a batch
of n cotangents of n elements. Pushed through elementwise operations, that batch stays
diagonal, so `Diagonal` stores it in O(n): the diagonal `d`, and `z`, the value that every
off-diagonal entry of each column holds (+0.0 at the start; kept exactly as the dense
array would compute it, signed zeros and nan included). Elementwise NumPy operations with
operands of n elements (or one) act on `d` and `z`; anything else sees the dense (n, n)
array through `__array__`, so every VJP rule stays correct unchanged, and only the
operations that mix elements (a sum, an outer broadcast, a matrix product) pay for density.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: whether NumPy sums negative zeros to -0.0 (it does in 1.x; 2.x starts a sum from +0.0)
_NEGATIVE_ZERO_SUMS = bool(np.signbit(np.add.reduce(np.full((1, 1), -0.0), axis=1)[0]))


class Diagonal:
    """The (n, n) array whose row k is d[k] at column k and z[j] at every other column j."""

    __slots__ = ("d", "z")

    def __init__(self, d: np.ndarray, z: np.ndarray) -> None:
        self.d, self.z = d, z

    @classmethod
    def identity(cls, n: int) -> Diagonal:
        return cls(np.ones(n), np.zeros(n))

    # what the sweep and the VJP rules ask of an array ----------------------------------
    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.d), len(self.d))

    @property
    def ndim(self) -> int:
        return 2

    @property
    def size(self) -> int:
        return len(self.d) ** 2

    @property
    def dtype(self) -> np.dtype:
        return np.result_type(self.d, self.z)

    def __len__(self) -> int:
        return len(self.d)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        n = len(self.d)
        out = np.empty((n, n), dtype=self.dtype)
        out[...] = self.z
        out.flat[:: n + 1] = self.d
        return out if dtype is None else out.astype(dtype, copy=False)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        n = len(self.d)
        # elementwise ufuncs only: a generalised one (matmul) mixes elements
        if method == "__call__" and not kwargs and ufunc.nout == 1 and ufunc.signature is None:
            shapes = [None if isinstance(x, Diagonal) else np.shape(x) for x in inputs]
            if all(s is None or s in ((), (1,), (n,)) for s in shapes):  # stays diagonal
                return Diagonal(ufunc(*[x.d if isinstance(x, Diagonal) else x for x in inputs]),
                                ufunc(*[x.z if isinstance(x, Diagonal) else x for x in inputs]))
            if ufunc.nin == 2 and all(s is None or s == (n, n) for s in shapes):
                return self._with_dense(ufunc, inputs)
        dense = [np.asarray(x) if isinstance(x, Diagonal) else x for x in inputs]
        return getattr(ufunc, method)(*dense, **kwargs)

    def _with_dense(self, ufunc: Any, inputs: tuple) -> np.ndarray:
        """ufunc(self, B) for a dense (n, n) B in one pass: columns of z, then the diagonal."""
        n = len(self.d)
        cols = [np.broadcast_to(x.z, (n, n)) if isinstance(x, Diagonal) else x for x in inputs]
        out = ufunc(*cols)
        diag = [x.d if isinstance(x, Diagonal) else np.asarray(x).diagonal() for x in inputs]
        out.flat[:: n + 1] = ufunc(*diag)
        return out

    def sum(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False,
            **kwargs: Any) -> Any:
        """Row sums (axis 1) in O(n) while the off-diagonal entries are zeros."""
        axes = axis if isinstance(axis, tuple) else (axis,)
        if axes in ((1,), (-1,)) and dtype is None and out is None and not kwargs \
                and np.all(self.z == 0):
            rows = self._row_sums()
            return rows[:, None] if keepdims else rows
        return np.asarray(self).sum(axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                                    **kwargs)

    def masked(self, keep: Any) -> Any:
        """Exactly 0 where `keep` is False, inf and nan included (a masked fill), still
        diagonal when `keep` is one flag per column."""
        if np.shape(keep) in ((), (1,), (len(self.d),)):
            return Diagonal(np.where(keep, self.d, 0.0), np.where(keep, self.z, 0.0))
        return np.where(keep, np.asarray(self), 0.0)

    def _row_sums(self) -> np.ndarray:
        # d[k] plus zeros is d[k], except that a sum of zeros is -0.0 only if all are -0.0
        # and NumPy starts a sum from its first element (1.x), not from +0.0 (2.x)
        positive = np.signbit(self.z) == 0
        others = np.count_nonzero(positive) - positive  # +0.0 entries beside row k's own
        negative_zero = (self.d == 0) & np.signbit(self.d) & (others == 0) & _NEGATIVE_ZERO_SUMS
        return np.where(self.d == 0, np.where(negative_zero, -0.0, 0.0), self.d)

    # operators, through __array_ufunc__ ------------------------------------------------
    def __add__(self, other: Any) -> Any:
        return np.add(self, other)

    def __radd__(self, other: Any) -> Any:
        return np.add(other, self)

    def __sub__(self, other: Any) -> Any:
        return np.subtract(self, other)

    def __rsub__(self, other: Any) -> Any:
        return np.subtract(other, self)

    def __mul__(self, other: Any) -> Any:
        return np.multiply(self, other)

    def __rmul__(self, other: Any) -> Any:
        return np.multiply(other, self)

    def __truediv__(self, other: Any) -> Any:
        return np.true_divide(self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return np.true_divide(other, self)

    def __neg__(self) -> Any:
        return np.negative(self)

    def __repr__(self) -> str:
        return f"Diagonal(d={self.d!r}, z={self.z!r})"

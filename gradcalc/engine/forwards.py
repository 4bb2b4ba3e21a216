"""NumPy forwards of the primitives that are more than one NumPy call.

Everything computes in float64: `* 1.0` turns NumPy's integer or boolean results of
comparisons-based functions into floats.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def scalar_fast(op: Callable[[Any, Any], Any], ufunc: Any) -> Callable[[Any, Any], Any]:
    """The ufunc; with a NumPy float64 scalar operand, its operator instead: the same
    float64 result (NumPy's scalar math, which has priority over Python's float), at a
    tenth of the cost, which is what scalar programs spend their time on."""

    def forward(x: Any, y: Any) -> Any:
        if type(x) is np.float64 or type(y) is np.float64:
            return op(x, y)
        return ufunc(x, y)

    forward.__name__ = ufunc.__name__
    forward.ufunc = ufunc  # type: ignore[attr-defined]  # what its arrays go through
    return forward


def neg(x):
    return -x if type(x) is np.float64 else np.negative(x)


neg.ufunc = np.negative  # type: ignore[attr-defined]  # what its arrays go through


def relu(x):
    return np.maximum(0.0, x) * 1.0  # a tie keeps x (NumPy returns its second argument):
    # relu(-0.0) is -0.0, as in PyTorch


def threshold_backward(g, result):
    """relu's gradient: g where the result is positive (or nan), exactly 0 elsewhere."""
    return np.where(np.asarray(result) <= 0, 0.0, g)


def cbrt(x):
    """The real cube root, correctly rounded where np.cbrt's vector loop is one ulp off
    (np.cbrt(27.0) is 3.0000000000000004 on some CPUs): one Newton step polishes it."""
    r = np.cbrt(x)
    with np.errstate(all="ignore"):
        polished = r - (r * r * r - x) / (3.0 * r * r)
    return np.where(np.isfinite(polished) & (r != 0), polished, r)[()]


def sigmoid(x):
    return 0.5 * (np.tanh(0.5 * np.asarray(x, dtype=np.float64)) + 1.0)


def softplus(x):
    return np.logaddexp(0.0, x)


def sign(x):
    out = np.sign(x) * 1.0
    if np.isnan(out).any():  # PyTorch: sign(nan) = 0
        out = np.where(np.isnan(out), 0.0, out)
    return out


def add_alpha(x, y, alpha):
    return np.add(x, np.multiply(alpha, y))


def clamp(x, lo, hi):
    return np.minimum(hi, np.maximum(lo, x)) * 1.0  # ties keep x (-0.0 stays), as in PyTorch


def where(a, b, cond):
    return np.where(cond, a, b)


def getitem(x, index):
    return np.asarray(x)[index]


def _is_basic(index: tuple) -> bool:
    return all(isinstance(i, (int, np.integer, slice)) or i is None or i is Ellipsis for i in index)


def scatter(g, index, x_shape, sub_ndim):
    """Zeros of batch + x_shape with `g` added at `index` (the VJP of indexing)."""
    g = np.asarray(g)
    nb = g.ndim - sub_ndim
    out = np.zeros(g.shape[:nb] + tuple(x_shape))
    key = (slice(None),) * nb + index
    if _is_basic(index):
        out[key] += g
    else:
        np.add.at(out, key, g)
    return out


def index_put(x, v, index):
    out = np.array(x, dtype=np.float64, copy=True)
    out[index] = v
    return out


def stack(*items):
    return np.stack([np.asarray(i, dtype=np.float64) for i in items])


def matmul(a, b):
    return np.matmul(a, b)


def norm(x, axis=None):
    return np.sqrt(np.sum(np.square(x), axis=axis))


def clone(x):
    return np.array(x, dtype=np.result_type(x, np.float64), copy=True)


def overwrite(x, src):
    return np.array(np.broadcast_to(src, np.shape(x)), dtype=np.float64)

"""The sympy twins of the primitives, and the kinks where the tape's convention has none.

A twin takes sympy expressions (scalars for elementwise primitives, object arrays for the
rest) and returns the same function's expression; the check differentiates it. Kinks follow
PyTorch (docs/language.md) and are written as Piecewise where an expression can say them.
sympy is imported only when a twin is first used.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from gradcalc.engine.primitive import Kink


def sp():
    import sympy

    return sympy


def elementwise(fn_name: str) -> Callable[[Any], Any]:
    """The twin of an elementwise function that sympy has under `fn_name`."""

    def sym(x: Any) -> Any:
        return np.vectorize(getattr(sp(), fn_name), otypes=[object])(x)

    sym.sympy_name = fn_name  # type: ignore[attr-defined]
    return sym


def sympy_name(prim: Any) -> str:
    """The name of sympy's function for an entry: its twin's when the twin is one of
    sympy's functions (Abs for abs), else the entry's own."""
    return getattr(prim.sym, "sympy_name", prim.name)


def piecewise(build: Callable[..., Any]) -> Callable[..., Any]:
    """Elementwise twin built from scalar expressions: `build(sympy, *operands)`."""

    def sym(*args: Any) -> Any:
        return np.vectorize(lambda *a: build(sp(), *a), otypes=[object])(*args)

    return sym


def cbrt(s, x):
    # the real cube root: -(-x)**(1/3) below 0 (sympy's x**(1/3) is complex there)
    return s.Piecewise((s.root(x, 3), x >= 0), (-s.root(-x, 3), True))


def relu(s, x):
    return s.Piecewise((x, x > 0), (0, True))


def threshold_backward(s, g, result):
    return s.Piecewise((0, result <= 0), (g, True))


def sign(s, x):
    return s.Piecewise((1, x > 0), (-1, x < 0), (0, True))


def maximum(s, a, b):
    return s.Piecewise((a, a > b), (b, a < b), ((a + b) / 2, True))


def minimum(s, a, b):
    return s.Piecewise((a, a < b), (b, a > b), ((a + b) / 2, True))


def clamp(s, x, lo, hi):
    # minimum(maximum(x, lo), hi): when lo > hi the result is hi (as in NumPy and PyTorch)
    return s.Piecewise((hi, (x > hi) | (lo > hi)), (lo, x < lo), (x, True))


# --------------------------------------------------------------------------- reductions


def reduce(x: Any, axis: tuple[int, ...] | None, combine: Callable[..., Any],
           keepdims: bool = False) -> np.ndarray:
    """sympy's n-ary `combine` (Add, Mul, ...) over `axis` (all axes if None): one
    flattening per result, not a pairwise chain."""
    x = np.asarray(x, dtype=object)
    axes = tuple(range(x.ndim)) if axis is None else tuple(axis)
    kept = [i for i in range(x.ndim) if i not in axes]
    lead = tuple(x.shape[i] for i in kept)
    flat = np.transpose(x, kept + list(axes)).reshape(lead + (-1,))
    out = np.empty(lead, dtype=object)
    for idx in np.ndindex(*lead):
        out[idx] = combine(*flat[idx])
    if keepdims:
        out = out.reshape(tuple(1 if i in axes else d for i, d in enumerate(x.shape)))
    return out


def sum_(x, axis=None, keepdims=False):
    return reduce(x, axis, sp().Add, keepdims)


def prod(x, axis=None, keepdims=False):
    return reduce(x, axis, sp().Mul, keepdims)


def mean(x, axis=None, keepdims=False):
    x = np.asarray(x, dtype=object)
    n = x.size if axis is None else math.prod(x.shape[a] for a in axis)
    return reduce(x, axis, lambda *es: sp().Add(*es) / n, keepdims)


def norm(x, axis=None):
    return reduce(x, axis, lambda *es: sp().sqrt(sp().Add(*[e**2 for e in es])))


def apply_each(x: Any, f: Callable[[Any], Any]) -> np.ndarray:
    return np.vectorize(f, otypes=[object])(np.asarray(x, dtype=object))


def overwrite(x, src):
    return np.broadcast_to(np.asarray(src, dtype=object), np.shape(x)).copy()


# --------------------------------------------------------------------------- kinks

#: PyTorch gives no gradient to x, lo or hi of clamp unless x == lo when lo == hi
#: |x| at 0: PyTorch's |x|' is sgn(x), whose own derivative is 0, so a second derivative
#: through |x| at 0 drops a term that sympy keeps (Abs(x)**2 is x**2 to sympy)
ABS_KINK = Kink("abs() at 0", lambda at, symbolic: symbolic[0] and at[0] == 0)

CLAMP_KINK = Kink("clamp() with lo == hi", lambda at, symbolic: at[1] == at[2])

#: PyTorch masks d/dx where y == 0 and d/dy where x == 0 <= y, so a Hessian through
#: those masks differs from the analytic one (when the exponent depends on an input)
POW_KINK = Kink("pow() with a zero exponent or base",
                lambda at, symbolic: symbolic[1] and (at[1] == 0 or (at[0] == 0 and at[1] >= 0)))

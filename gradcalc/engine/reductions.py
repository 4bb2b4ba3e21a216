"""Entries that work along axes beyond sum, mean, prod and norm: max and min (reductions),
softmax and logsumexp. Each takes `axis` (None: all elements), as the language's `axis=`.

Ties follow PyTorch: max() without dim and amax() split the gradient evenly among the
tied elements, so the sympy twin on the branch the float64 values select (`sym_local`)
is the mean of the tied elements.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gradcalc.engine import twins as tw
from gradcalc.engine.primitive import Facts, Prim, fn
from gradcalc.engine.rules import masked
from gradcalc.engine.shapes import expand, ndim, value


def _extreme(reduce: Any) -> Callable[..., Any]:
    def forward(x, axis=None, keepdims=False):
        return reduce(x, axis=axis, keepdims=keepdims)

    return forward


def extreme_vjp(g, ans, x, axis=None, keepdims=False, fill=True):
    """The winners share g evenly (a tie of k elements: g / k each). Over the whole tensor
    (PyTorch's max(): a masked fill) the others get exactly 0 even when g is inf or nan,
    and a nan result is won by the nan elements; along axes, and in amax always, it is a
    product (0 * inf is nan), as in PyTorch."""
    xv = np.asarray(value(x))
    best = np.asarray(value(expand(value(ans), value(ans), xv, axis)))
    fill = fill and axis is None
    if fill and np.isnan(value(ans)).any():
        winners = np.isnan(xv)
    else:
        winners = xv == best
    count = np.sum(winners, axis=axis, keepdims=True)
    if fill:
        return masked(expand(g, ans, x, axis) / count, winners)
    return expand(g, ans, x, axis) * (winners / count)


def amax_vjp(g, ans, x, axis=None, keepdims=False):
    return extreme_vjp(g, ans, x, axis, keepdims, fill=False)


def _shifted(g: Any, ans: Any, x: Any, axis: tuple[int, ...] | None) -> tuple[int, ...]:
    """`axis` of x as axes of a cotangent that carries batch axes in front."""
    nb = ndim(g) - ndim(ans)
    axes = range(ndim(x)) if axis is None else axis
    return tuple(nb + a for a in axes)


def softmax_forward(x, axis=None):
    x = np.asarray(x, dtype=np.float64)
    top = np.max(x, axis=axis, keepdims=True) if x.size else 0.0
    e = np.exp(x - top)  # PyTorch's: a slice whose largest value is inf or -inf is all nan
    return e / np.sum(e, axis=axis, keepdims=True)


def softmax_vjp(g, ans, x, axis=None):
    return ans * (g - fn.sum(g * ans, _shifted(g, ans, x, axis), True))


def logsumexp_forward(x, axis=None, keepdims=False):
    x = np.asarray(x, dtype=np.float64)
    top = np.max(x, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    out = np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)) + top
    return out if keepdims else np.squeeze(out, axis=axis) if axis is not None else out.reshape(())


def logsumexp_vjp(g, ans, x, axis=None, keepdims=False):
    return expand(g, ans, x, axis) * fn.exp(x - expand(ans, ans, x, axis))


# --------------------------------------------------------------------------- sympy twins


def _ties(nums: list[Any], x: Any, axis: Any = None, keepdims: bool = False,
          better: Callable[[Any, Any], Any] = np.greater) -> np.ndarray:
    """The twin on the branch the values select: the mean of each slice's tied best."""
    values = np.asarray(nums[0], dtype=np.float64)
    exprs = np.asarray(x, dtype=object)
    pairs = np.empty(values.shape, dtype=object)
    for idx in np.ndindex(*values.shape):
        pairs[idx] = (float(values[idx]), exprs[idx])

    def combine(*items: tuple[float, Any]) -> Any:
        top = items[0][0]
        for v, _ in items:
            if better(v, top):
                top = v
        tied = [e for v, e in items if v == top]
        return tw.sp().Add(*tied) / len(tied)

    return tw.reduce(pairs, axis, combine, keepdims)


def _softmax_twin(x: Any, axis: Any = None) -> np.ndarray:
    x = np.asarray(x, dtype=object)
    e = tw.apply_each(x, tw.sp().exp)
    total = tw.reduce(e, axis, tw.sp().Add, keepdims=True)
    return e / np.broadcast_to(total, e.shape)


def _logsumexp_twin(x: Any, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    s = tw.sp()
    return tw.reduce(x, axis, lambda *es: s.log(s.Add(*[s.exp(e) for e in es])), keepdims)


def entries(reduction: Any, along: Any) -> list[Prim]:
    """The entries; `reduction` and `along` are the table's signatures for functions with
    `(x, axis, keepdims)` and `(x, axis)`."""
    ties = "ties split the gradient evenly (PyTorch's max() without dim, and amax)"

    def extreme(name: str, forward: Any, combine: str, vjp: Any, grad_fn: str, better: Any,
                rule: str) -> Prim:
        return Prim(name, _extreme(forward), (vjp,),
                    lambda x, axis=None, keepdims=False: tw.reduce(
                        x, axis, getattr(tw.sp(), combine), keepdims),
                    grad_fn, kinks=ties, arity=(1, 2), axis=True, call=reduction,
                    methods=(name,), sym_local=lambda nums, x, axis=None, keepdims=False:
                    _ties(nums, x, axis, keepdims, better), rule=rule,
                    facts=Facts(kinked=True))

    return [
        # max/min: PyTorch's max() over everything (a masked fill) and amax along axes;
        # amax/amin: a product everywhere, as PyTorch's amax
        extreme("max", np.max, "Max", extreme_vjp, "MaxBackward1", np.greater,
                "g shared by the largest"),
        extreme("min", np.min, "Min", extreme_vjp, "MinBackward1", np.less,
                "g shared by the smallest"),
        extreme("amax", np.max, "Max", amax_vjp, "AmaxBackward0", np.greater,
                "g shared by the largest"),
        extreme("amin", np.min, "Min", amax_vjp, "AminBackward0", np.less,
                "g shared by the smallest"),
        Prim("softmax", softmax_forward, (softmax_vjp,), _softmax_twin, "SoftmaxBackward0",
             arity=(1, 2), axis=True, call=along, methods=("softmax",), rule="s·(g − sum(g·s))"),
        Prim("logsumexp", logsumexp_forward, (logsumexp_vjp,), _logsumexp_twin,
             "LogsumexpBackward0", arity=(1, 2), axis=True, call=reduction,
             methods=("logsumexp",), rule="g·softmax(x)"),
    ]

"""The VJP rules of the table's primitives that need more than one line.

Each has the shape `(g, ans, *args, **params) -> cotangent of one argument` and is written
with the registry's functions (`fn`), so it runs on plain arrays (a fast backward) and on
tensors (a recorded backward). `g` may carry leading batch axes beyond `ans`'s shape;
every rule keeps them. Kinks follow PyTorch (docs/language.md).
"""

from __future__ import annotations

import math

import numpy as np

from gradcalc.engine.diagonal import Diagonal
from gradcalc.engine.primitive import fn
from gradcalc.engine.scratch import minus_times_over_square, scaled_once, times
from gradcalc.engine.shapes import (
    batch_of,
    count,
    expand,
    ndim,
    shape,
    swap_last,
    unb,
    unbroadcast,
    unsqueeze,
    value,
)


def prod_others(x, axis):
    """Product of all factors but one, for each factor, without dividing (zeros are fine).

    The reduced axes are moved last and flattened into one. Plain arrays use cumulative
    products; a tensor (a recorded backward) uses a product over rows with each factor in
    turn replaced by 1, built from primitives so that second derivatives are right too.
    """
    nd = ndim(x)
    reduced = tuple(range(nd)) if axis is None else tuple(axis)
    perm = tuple(i for i in range(nd) if i not in reduced) + reduced
    moved = fn.transpose(x, perm)
    lead = shape(moved)[: nd - len(reduced)]
    n = math.prod(shape(moved)[nd - len(reduced):])
    flat = fn.reshape(moved, lead + (n,))
    if value(flat) is flat:
        ones = np.ones(lead + (1,))
        left = np.concatenate((ones, np.cumprod(flat[..., :-1], axis=-1)), axis=-1)
        right = np.concatenate((np.cumprod(flat[..., :0:-1], axis=-1)[..., ::-1], ones), axis=-1)
        others = left * right
    else:
        rows = fn.broadcast_to(unsqueeze(flat, -2), lead + (n, n))
        others = fn.prod(fn.where(np.eye(n, dtype=bool), 1.0, rows), axis=-1)
    return fn.transpose(fn.reshape(others, shape(moved)), tuple(int(i) for i in np.argsort(perm)))



def pow_dx(g, ans, x, y):
    if type(y) in (np.float64, float, int):
        if y == 0 and type(y) is not np.float64:  # a Python number: PyTorch's derivative
            return unb(np.zeros(shape(g)), ans, x)  # is a constant 0, never recorded
        if y == 2 and value(x) is x:  # x**2: x**1.0 is x itself, so one array pass
            return unb(times(g, scaled_once(y, x)), ans, x)  # fewer, the same numbers
    dx = times(g, y * x ** (y - 1.0))
    zero_exponent = value(y) == 0
    if np.any(zero_exponent):  # after the product, as PyTorch: exactly 0 even for g = inf
        dx = fn.where(zero_exponent, 0.0, dx)
    return unb(dx, ans, x)


def pow_dy(g, ans, x, y):
    xv, yv = value(x), value(y)
    masked = (xv == 0) & (yv >= 0)
    if np.any(masked):  # exactly 0 there (PyTorch); log(1) keeps the recorded sweep finite
        dy = fn.where(masked, 0.0, g * (ans * fn.log(fn.where(masked, 1.0, x))))
    else:
        dy = times(g, ans * fn.log(x))
    return unb(dy, ans, y)


def _atan2_rule(sign):
    def rule(g, ans, y, x):
        denom = x * x + y * y
        num = x if sign > 0 else -y
        zero = value(denom) == 0
        recip = 1.0 / denom  # PyTorch: recip is 0 where the denominator is 0, so at
        if np.any(zero):  # (0, 0) the zeros keep their signs: d/dx = -y * 0 = -0
            recip = fn.where(zero, 0.0, recip)
        return g * (num * recip)

    return rule


def atan2_dy(g, ans, y, x):
    return unb(_atan2_rule(+1)(g, ans, y, x), ans, y)


def atan2_dx(g, ans, y, x):
    return unb(_atan2_rule(-1)(g, ans, y, x), ans, x)


def ext_dx(tie_sign):
    """maximum (tie_sign=+1) / minimum (-1): the winner takes g, a tie splits it in halves."""

    def rule(g, ans, a, b):
        av, bv = value(a), value(b)  # PyTorch masks the loser, so a NaN passes g to both
        loser = (av - bv) * tie_sign < 0
        half = av == bv
        return unb(masked(g * 0.5 if np.all(half) else fn.where(half, g * 0.5, g),
                          np.logical_not(loser)), ans, a)

    return rule


def ext_dy(tie_sign):
    def rule(g, ans, a, b):
        av, bv = value(a), value(b)
        loser = (bv - av) * tie_sign < 0
        half = av == bv
        return unb(masked(g * 0.5 if np.all(half) else fn.where(half, g * 0.5, g),
                          np.logical_not(loser)), ans, b)

    return rule


def div_dy(g, ans, x, y):
    if value(y) is y:  # a plain sweep
        return unb(minus_times_over_square(g, x, y), ans, y)
    # recorded: PyTorch's x / y / y, whose derivative at y = 0 is inf (d2(1/y)/dy2 = 2/y**3)
    return unb(-g * (x / y / y), ans, y)


def masked(g, keep):
    """g where `keep`, exactly 0 elsewhere even if g is inf or nan (PyTorch's masked_fill)."""
    if value(g) is not g:  # a recorded sweep
        return fn.where(keep, g, 0.0)
    if type(g) is np.ndarray:
        return np.where(keep, g, 0.0)
    if type(g) in (float, np.float64) and not math.isfinite(g):
        return np.where(keep, g, 0.0)
    if type(g) is Diagonal:  # a Jacobian's identity seed, kept diagonal
        return g.masked(keep)
    return g * keep  # a finite scalar


def relu_vjp(g, ans, x):
    if value(ans) is ans:  # a plain sweep
        return masked(g, np.logical_not(value(x) <= 0))
    # recorded: PyTorch's threshold_backward(g, result), a node on the result even when g
    # is a constant, so higher derivatives through relu are zeros (nan where inf meets them)
    return fn.threshold_backward(g, ans)


def threshold_dg(g, ans, grad, result):
    return unb(fn.threshold_backward(g, result), ans, grad)


def threshold_dresult(g, ans, grad, result):
    return unb(np.zeros(shape(g)), ans, result)  # PyTorch: zeros_like, never recorded


def clamp_dx(g, ans, x, lo, hi):
    xv = value(x)
    return unb(masked(g, (xv >= value(lo)) & (xv <= value(hi))), ans, x)


def clamp_dlo(g, ans, x, lo, hi):  # PyTorch: when lo >= hi the result is hi, not lo
    return unb(masked(g, (value(x) < value(lo)) & (value(lo) < value(hi))), ans, lo)


def clamp_dhi(g, ans, x, lo, hi):
    return unb(masked(g, (value(x) > value(hi)) | (value(lo) > value(hi))), ans, hi)


def sum_vjp(g, ans, x, axis=None, keepdims=False):
    return expand(g, ans, x, axis)


def mean_vjp(g, ans, x, axis=None, keepdims=False):
    return expand(g, ans, x, axis) / count(x, axis)


def prod_vjp(g, ans, x, axis=None, keepdims=False):
    if ndim(x) == 0:  # PyTorch: the gradient itself, whatever x is
        return g
    expanded = expand(g, ans, x, axis)
    if axis is None and value(g) is g and np.count_nonzero(value(x) == 0) > 1:
        return np.zeros(shape(expanded))  # PyTorch, outside create_graph: exactly 0
    if np.all(value(x) != 0):
        return expanded * expand(ans, ans, x, axis) / x
    # a zero factor: the product of the other factors, computed without dividing
    if all(n == 1 for n in (shape(x) if axis is None else [shape(x)[a] for a in axis])):
        return expanded  # one factor: PyTorch passes the gradient on as it is
    return expanded * prod_others(x, axis)


def norm_vjp(g, ans, x, axis=None):
    # PyTorch's g * (x / norm) with 0 where the norm is 0: the gradient there is 0, and a
    # recorded sweep differentiates x / norm, so the second derivative there is nan
    at_zero = value(ans) == 0
    denom = ans if axis is None else expand(ans, ans, x, axis)  # one norm per slice
    ratio = x / denom
    if np.any(at_zero):
        ratio = fn.where(at_zero if axis is None else expand(at_zero, ans, x, axis), 0.0, ratio)
    return expand(g, ans, x, axis) * ratio


def overwritten_vjp(g, ans, x, src):
    return np.zeros(shape(g))  # the old values do not reach the result: a constant 0


def source_vjp(g, ans, x, src):
    return unbroadcast(g, shape(ans), shape(src))


def _as_matrices(g, ans, a, b):
    """The operands as (stacks of) matrices, a vector as a row (a) or a column (b), and the
    cotangent reshaped to match; numpy's batch broadcasting then covers every case."""
    a2 = fn.reshape(a, (1,) + shape(a)) if ndim(a) == 1 else a
    b2 = fn.reshape(b, shape(b) + (1,)) if ndim(b) == 1 else b
    stack_shape = tuple(np.broadcast_shapes(shape(a2)[:-2], shape(b2)[:-2]))
    g2 = fn.reshape(g, batch_of(g, ans) + stack_shape + (shape(a2)[-2], shape(b2)[-1]))
    return g2, a2, b2, stack_shape


def matmul_da(g, ans, a, b):
    g2, a2, b2, stack_shape = _as_matrices(g, ans, a, b)
    da = unbroadcast(fn.matmul(g2, swap_last(b2)), stack_shape + shape(a2)[-2:], shape(a2))
    return fn.reshape(da, batch_of(g, ans) + shape(a))


def matmul_db(g, ans, a, b):
    g2, a2, b2, stack_shape = _as_matrices(g, ans, a, b)
    db = unbroadcast(fn.matmul(swap_last(a2), g2), stack_shape + shape(b2)[-2:], shape(b2))
    return fn.reshape(db, batch_of(g, ans) + shape(b))


def transpose_vjp(g, ans, x, axes=None):
    nd = ndim(x)
    perm = tuple(range(nd))[::-1] if axes is None else axes
    inverse = tuple(int(i) for i in np.argsort(perm))
    nb = ndim(g) - nd
    return fn.transpose(g, tuple(range(nb)) + tuple(nb + i for i in inverse))


def getitem_vjp(g, ans, x, index):
    return fn.scatter(g, index=index, x_shape=shape(x), sub_ndim=ndim(ans))


def scatter_vjp(g, ans, h, index, x_shape, sub_ndim):
    nb = ndim(g) - len(x_shape)
    return fn.getitem(g, (slice(None),) * nb + index)


def index_put_dx(g, ans, x, v, index):
    keep = np.ones(shape(x), dtype=bool)
    keep[index] = False
    return masked(g, keep)  # the overwritten part gets exactly 0, even where g is inf


def index_put_dv(g, ans, x, v, index):
    nb = ndim(g) - ndim(ans)
    part = fn.getitem(g, (slice(None),) * nb + index)
    return unbroadcast(part, np.zeros(shape(ans))[index].shape, shape(v))


def stack_vjp(i, g, ans, *items):
    nb = ndim(g) - ndim(ans)
    part = fn.getitem(g, (slice(None),) * nb + (i,))
    return unbroadcast(part, shape(ans)[1:], shape(items[i]))


def reshape_vjp(g, ans, x, new_shape):
    return fn.reshape(g, batch_of(g, ans) + shape(x))


def broadcast_vjp(g, ans, x, new_shape):
    return unbroadcast(g, shape(ans), shape(x))


def where_da(g, ans, a, b, cond):
    return unb(fn.where(cond, g, 0.0), ans, a)


def where_db(g, ans, a, b, cond):
    return unb(fn.where(cond, 0.0, g), ans, b)



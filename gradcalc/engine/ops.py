"""The table of primitives: one entry per operation, its NumPy forward, VJP and sympy twin.

A VJP rule has the HIPS-autograd shape `(g, ans, *args, **params) -> cotangent of one
argument`. Rules are written with this module's own functions, so the same rule runs on
plain arrays (a fast backward) and on tensors (a recorded backward: `create_graph`,
Hessians). `g` may carry leading batch axes beyond `ans`'s shape; every rule keeps them,
which is what lets a whole Jacobian be one reverse sweep.

Kinks follow PyTorch (docs/language.md): |x|'(0) = 0, relu'(0) = 0, ties in maximum and
minimum split the gradient in halves, clamp passes the gradient at its bounds, norm'(0) =
0, d(x**y)/dx = 0 where y == 0, d(x**y)/dy = 0 where x == 0 and y >= 0, atan2'(0, 0) = 0.
The sympy twins encode the same choices as Piecewise expressions where they can.
sympy is imported only when a symbolic twin is first used.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.engine import tape as _tape
from gradcalc.engine.tape import Node


def _sp():
    import sympy

    return sympy


@dataclass(eq=False)
class Prim:
    """One primitive: forward on NumPy values, a VJP rule per argument, a sympy twin."""

    name: str
    forward: Callable[..., Any]
    vjps: tuple[Callable[..., Any], ...]
    sym: Callable[..., Any] | None = None
    grad_fn: str = ""
    kinks: str = ""
    variadic_vjp: Callable[..., Any] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self.grad_fn:
            self.grad_fn = self.name.title().replace("_", "") + "Backward0"

    def vjp(self, i: int, g: Any, ans: Any, args: list, params: dict) -> Any:
        if self.variadic_vjp is not None:
            return self.variadic_vjp(i, g, ans, *args, **params)
        return self.vjps[i](g, ans, *args, **params)

    def __call__(self, *args: Any, **params: Any) -> Any:
        return apply(self, *args, **params)


def apply(prim: Prim, *args: Any, **params: Any) -> Any:
    """Run `prim` on raw values; if any argument is a tensor, wrap and record the result.

    This is the hot path of every recorded program, so it is written for speed: inside
    `tape.hot()` (interpreter runs, reverse sweeps) NumPy's warnings are already off.
    """
    tensor = _Tensor[0] or _tensor_type()
    values = []
    parents = []
    tensor_seen = needs_grad = False
    for a in args:
        if isinstance(a, tensor):
            tensor_seen = True
            values.append(a._value)
            node = a._node
            parents.append(node)
            if node is not None:
                needs_grad = True
        else:
            values.append(a)
            parents.append(None)
    try:
        if _tape._quiet:
            out = prim.forward(*values, **params)
        else:
            with np.errstate(all="ignore"):
                out = prim.forward(*values, **params)
    except ValueError as exc:  # shapes that do not broadcast: PyTorch's RuntimeError
        if not tensor_seen:
            raise
        raise BroadcastError(str(exc)) from None
    if not tensor_seen:
        return out
    if needs_grad and _tape._grad_enabled:  # tuples of arrays leave the cyclic GC's watch
        return tensor._wrap(out, Node(prim, tuple(parents), (tuple(values), out), params))
    return tensor._wrap(out, None)


_Tensor: list[Any] = [None]


class BroadcastError(RuntimeError, ValueError):
    """Operands whose shapes do not fit: a RuntimeError as in PyTorch, and still the
    ValueError that NumPy raises, which the command line reports as a bad input."""


def _tensor_type() -> type:
    from gradcalc.engine.tensor import (
        Tensor,  # tensor.py imports this module, so it is looked up once here
    )

    _Tensor[0] = Tensor
    return Tensor


# --------------------------------------------------------------------------- shape helpers


def value(x: Any) -> Any:
    """The raw NumPy value of a tensor or array."""
    return getattr(x, "_value", x)


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
    reduced = sum(g, axes, True) if axes else g
    return reshape(reduced, shape(g)[:nb] + tuple(x_shape))


def _unb(g: Any, ans: Any, x: Any) -> Any:
    try:  # the common case first, without a call: nothing was broadcast
        if ans.shape == x.shape:
            return g
    except AttributeError:  # a Python number
        pass
    return unbroadcast(g, shape(ans), shape(x))


def _keepdims_shape(x_shape: tuple[int, ...], axis: tuple[int, ...] | None) -> tuple[int, ...]:
    if axis is None:
        return (1,) * len(x_shape)
    return tuple(1 if i in axis else d for i, d in enumerate(x_shape))


def _expand(g: Any, ans: Any, x: Any, axis: tuple[int, ...] | None) -> Any:
    """Broadcast a reduction's cotangent (batch + reduced shape) back to batch + x's shape."""
    batch = batch_of(g, ans)
    kept = reshape(g, batch + _keepdims_shape(shape(x), axis))
    return broadcast_to(kept, batch + shape(x))


def _normalize_axis(axis: Any, nd: int) -> tuple[int, ...] | None:
    if axis is None:
        return None
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in axes:
        a = int(value(a))
        if not -nd <= a < max(nd, 1):
            raise IndexError(f"axis {a} is out of range for an array of {nd} dimensions")
        out.append(a % nd if nd else 0)
    return tuple(sorted(set(out))) if nd else None  # a 0-d tensor: dim 0 is all of it


def _count(x: Any, axis: tuple[int, ...] | None) -> int:
    s = shape(x)
    return math.prod(s) if axis is None else math.prod(s[a] for a in axis)


# --------------------------------------------------------------------------- sympy helpers


def _elementwise(fn_name: str) -> Callable[[Any], Any]:
    def sym(x: Any) -> Any:
        f = getattr(_sp(), fn_name)
        return np.vectorize(f, otypes=[object])(x)

    return sym


def _piecewise(build: Callable[..., Any]) -> Callable[..., Any]:
    """Elementwise sympy twin built from scalar expressions (for kinks as Piecewise)."""

    def sym(*args: Any) -> Any:
        return np.vectorize(lambda *a: build(_sp(), *a), otypes=[object])(*args)

    return sym


def _sym_relu(sp, x):
    return sp.Piecewise((x, x > 0), (0, True))


def _sym_sign(sp, x):
    return sp.Piecewise((1, x > 0), (-1, x < 0), (0, True))


def _sym_maximum(sp, a, b):
    return sp.Piecewise((a, a > b), (b, a < b), ((a + b) / 2, True))


def _sym_minimum(sp, a, b):
    return sp.Piecewise((a, a < b), (b, a > b), ((a + b) / 2, True))


def _sym_clamp(sp, x, lo, hi):
    # minimum(maximum(x, lo), hi): when lo > hi the result is hi (as in NumPy and PyTorch)
    return sp.Piecewise((hi, (x > hi) | (lo > hi)), (lo, x < lo), (x, True))


def _sym_sum(x, axis=None, keepdims=False):
    return np.sum(np.asarray(x, dtype=object), axis=axis, keepdims=keepdims)


def _sym_prod(x, axis=None, keepdims=False):
    return np.prod(np.asarray(x, dtype=object), axis=axis, keepdims=keepdims)


def _sym_mean(x, axis=None, keepdims=False):
    return _sym_sum(x, axis, keepdims) / _count(x, axis)


def _sym_norm(x, axis=None):
    squares = np.sum(np.asarray(x, dtype=object) ** 2, axis=axis)
    if axis is None:
        return _sp().sqrt(squares)
    return np.vectorize(_sp().sqrt, otypes=[object])(squares)


# --------------------------------------------------------------------------- forwards


def _scalar_fast(op: Callable[[Any, Any], Any], ufunc: Any) -> Callable[[Any, Any], Any]:
    """The ufunc; with a NumPy float64 scalar operand, its operator instead: the same
    float64 result (NumPy's scalar math, which has priority over Python's float), at a
    tenth of the cost, which is what scalar programs spend their time on."""

    def forward(x: Any, y: Any) -> Any:
        if type(x) is np.float64 or type(y) is np.float64:
            return op(x, y)
        return ufunc(x, y)

    forward.__name__ = ufunc.__name__
    return forward


def _neg(x):
    return -x if type(x) is np.float64 else np.negative(x)



def _relu(x):
    return np.maximum(x, 0.0) * 1.0


def _sigmoid(x):
    return 0.5 * (np.tanh(0.5 * np.asarray(x, dtype=np.float64)) + 1.0)


def _softplus(x):
    return np.logaddexp(0.0, x)


def _sign(x):
    out = np.sign(x) * 1.0
    if np.isnan(out).any():  # PyTorch: sign(nan) = 0
        out = np.where(np.isnan(out), 0.0, out)
    return out


def _clamp(x, lo, hi):
    return np.minimum(np.maximum(x, lo), hi) * 1.0


def _where(a, b, cond):
    return np.where(cond, a, b)


def _getitem(x, index):
    return np.asarray(x)[index]


def _is_basic(index: tuple) -> bool:
    return all(isinstance(i, (int, np.integer, slice)) or i is None or i is Ellipsis for i in index)


def _scatter(g, index, x_shape, sub_ndim):
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


def _index_put(x, v, index):
    out = np.array(x, dtype=np.float64, copy=True)
    out[index] = v
    return out


def _stack(*items):
    return np.stack([np.asarray(i, dtype=np.float64) for i in items])


def _matmul(a, b):
    return np.matmul(a, b)


def _prod_others(x, axis):
    """Product of all factors but one, for each factor, without dividing (zeros are fine).

    The reduced axes are moved last and flattened into one. Plain arrays use cumulative
    products; a tensor (a recorded backward) uses a product over rows with each factor in
    turn replaced by 1, built from primitives so that second derivatives are right too.
    """
    nd = ndim(x)
    reduced = tuple(range(nd)) if axis is None else tuple(axis)
    perm = tuple(i for i in range(nd) if i not in reduced) + reduced
    moved = transpose(x, perm)
    lead = shape(moved)[: nd - len(reduced)]
    n = math.prod(shape(moved)[nd - len(reduced):])
    flat = reshape(moved, lead + (n,))
    if value(flat) is flat:
        ones = np.ones(lead + (1,))
        left = np.concatenate((ones, np.cumprod(flat[..., :-1], axis=-1)), axis=-1)
        right = np.concatenate((np.cumprod(flat[..., :0:-1], axis=-1)[..., ::-1], ones), axis=-1)
        others = left * right
    else:
        rows = broadcast_to(unsqueeze(flat, -2), lead + (n, n))
        others = prod(where(np.eye(n, dtype=bool), 1.0, rows), axis=-1)
    return transpose(reshape(others, shape(moved)), tuple(int(i) for i in np.argsort(perm)))


# --------------------------------------------------------------------------- VJP rules


def _pow_dx(g, ans, x, y):
    if type(y) in (np.float64, float, int):
        if y == 0 and type(y) is not np.float64:  # a Python number: PyTorch's derivative
            return _unb(np.zeros(shape(g)), ans, x)  # is a constant 0, never recorded
        if y == 2 and value(x) is x:  # x**2: x**1.0 is x itself, so one array pass
            return _unb(g * (y * x), ans, x)  # fewer, the same numbers (not recorded)
    dx = y * x ** (y - 1.0)
    zero_exponent = value(y) == 0
    if np.any(zero_exponent):
        dx = where(zero_exponent, 0.0, dx)
    return _unb(g * dx, ans, x)


def _pow_dy(g, ans, x, y):
    xv, yv = value(x), value(y)
    masked = (xv == 0) & (yv >= 0)
    if np.any(masked):  # exactly 0 there (PyTorch); log(1) keeps the recorded sweep finite
        dy = where(masked, 0.0, ans * log(where(masked, 1.0, x)))
    else:
        dy = ans * log(x)
    return _unb(g * dy, ans, y)


def _atan2_rule(sign):
    def rule(g, ans, y, x):
        denom = x * x + y * y
        num = x if sign > 0 else -y
        zero = value(denom) == 0
        recip = 1.0 / denom  # PyTorch: recip is 0 where the denominator is 0, so at
        if np.any(zero):  # (0, 0) the zeros keep their signs: d/dx = -y * 0 = -0
            recip = where(zero, 0.0, recip)
        return g * (num * recip)

    return rule


def _atan2_dy(g, ans, y, x):
    return _unb(_atan2_rule(+1)(g, ans, y, x), ans, y)


def _atan2_dx(g, ans, y, x):
    return _unb(_atan2_rule(-1)(g, ans, y, x), ans, x)


def _ext_dx(tie_sign):
    """maximum (tie_sign=+1) / minimum (-1): the winner takes g, a tie splits it in halves."""

    def rule(g, ans, a, b):
        av, bv = value(a), value(b)  # PyTorch masks the loser, so a NaN passes g to both
        loser = (av - bv) * tie_sign < 0
        half = av == bv
        return _unb(_masked(g * 0.5 if np.all(half) else where(half, g * 0.5, g),
                            np.logical_not(loser)), ans, a)

    return rule


def _ext_dy(tie_sign):
    def rule(g, ans, a, b):
        av, bv = value(a), value(b)
        loser = (bv - av) * tie_sign < 0
        half = av == bv
        return _unb(_masked(g * 0.5 if np.all(half) else where(half, g * 0.5, g),
                            np.logical_not(loser)), ans, b)

    return rule


def _div_dy(g, ans, x, y):
    if value(y) is y:  # a plain sweep
        return _unb(-g * x / (y * y), ans, y)
    # recorded: PyTorch's x / y / y, whose derivative at y = 0 is inf (d2(1/y)/dy2 = 2/y**3)
    return _unb(-g * (x / y / y), ans, y)


def _masked(g, keep):
    """g where `keep`, exactly 0 elsewhere even if g is inf or nan (PyTorch's masked_fill)."""
    if value(g) is not g:  # a recorded sweep
        return where(keep, g, 0.0)
    if type(g) is np.ndarray:
        return np.where(keep, g, 0.0)
    if type(g) in (float, np.float64) and not math.isfinite(g):
        return np.where(keep, g, 0.0)
    return g * keep  # a finite scalar, or a structured (diagonal) seed that stays so


def _relu_vjp(g, ans, x):
    out = _masked(g, np.logical_not(value(x) <= 0))
    if value(ans) is not ans and getattr(out, "_node", None) is None:
        # PyTorch's relu backward stays on the recorded graph through its saved output
        # (with a zero derivative), so a second derivative is zeros, not an error
        out = where(np.ones(shape(out), dtype=bool), out, ans)
    return out


def _clamp_dx(g, ans, x, lo, hi):
    xv = value(x)
    return _unb(_masked(g, (xv >= value(lo)) & (xv <= value(hi))), ans, x)


def _clamp_dlo(g, ans, x, lo, hi):  # PyTorch: when lo >= hi the result is hi, not lo
    return _unb(_masked(g, (value(x) < value(lo)) & (value(lo) < value(hi))), ans, lo)


def _clamp_dhi(g, ans, x, lo, hi):
    return _unb(_masked(g, (value(x) > value(hi)) | (value(lo) > value(hi))), ans, hi)


def _sum_vjp(g, ans, x, axis=None, keepdims=False):
    return _expand(g, ans, x, axis)


def _mean_vjp(g, ans, x, axis=None, keepdims=False):
    return _expand(g, ans, x, axis) / _count(x, axis)


def _prod_vjp(g, ans, x, axis=None, keepdims=False):
    if ndim(x) == 0:  # PyTorch: the gradient itself, whatever x is
        return g
    expanded = _expand(g, ans, x, axis)
    if axis is None and value(g) is g and np.count_nonzero(value(x) == 0) > 1:
        return np.zeros(shape(expanded))  # PyTorch, outside create_graph: exactly 0
    if np.all(value(x) != 0):
        return expanded * _expand(ans, ans, x, axis) / x
    # a zero factor: the product of the other factors, computed without dividing
    return expanded * _prod_others(x, axis)


def _norm_vjp(g, ans, x, axis=None):
    # PyTorch's g * (x / norm) with 0 where the norm is 0: the gradient there is 0, and a
    # recorded sweep differentiates x / norm, so the second derivative there is nan
    at_zero = value(ans) == 0
    denom = ans if axis is None else _expand(ans, ans, x, axis)  # one norm per slice
    ratio = x / denom
    if np.any(at_zero):
        ratio = where(at_zero if axis is None else _expand(at_zero, ans, x, axis), 0.0, ratio)
    return _expand(g, ans, x, axis) * ratio


def _as_matrices(g, ans, a, b):
    """The operands as (stacks of) matrices, a vector as a row (a) or a column (b), and the
    cotangent reshaped to match; numpy's batch broadcasting then covers every case."""
    a2 = reshape(a, (1,) + shape(a)) if ndim(a) == 1 else a
    b2 = reshape(b, shape(b) + (1,)) if ndim(b) == 1 else b
    stack_shape = tuple(np.broadcast_shapes(shape(a2)[:-2], shape(b2)[:-2]))
    g2 = reshape(g, batch_of(g, ans) + stack_shape + (shape(a2)[-2], shape(b2)[-1]))
    return g2, a2, b2, stack_shape


def _matmul_da(g, ans, a, b):
    g2, a2, b2, stack_shape = _as_matrices(g, ans, a, b)
    da = unbroadcast(matmul(g2, swap_last(b2)), stack_shape + shape(a2)[-2:], shape(a2))
    return reshape(da, batch_of(g, ans) + shape(a))


def _matmul_db(g, ans, a, b):
    g2, a2, b2, stack_shape = _as_matrices(g, ans, a, b)
    db = unbroadcast(matmul(swap_last(a2), g2), stack_shape + shape(b2)[-2:], shape(b2))
    return reshape(db, batch_of(g, ans) + shape(b))


def _transpose_vjp(g, ans, x, axes=None):
    nd = ndim(x)
    perm = tuple(range(nd))[::-1] if axes is None else axes
    inverse = tuple(int(i) for i in np.argsort(perm))
    nb = ndim(g) - nd
    return transpose(g, tuple(range(nb)) + tuple(nb + i for i in inverse))


def _getitem_vjp(g, ans, x, index):
    return scatter(g, index=index, x_shape=shape(x), sub_ndim=ndim(ans))


def _scatter_vjp(g, ans, h, index, x_shape, sub_ndim):
    nb = ndim(g) - len(x_shape)
    return getitem(g, (slice(None),) * nb + index)


def _index_put_dx(g, ans, x, v, index):
    keep = np.ones(shape(x))
    keep[index] = 0.0
    return g * keep


def _index_put_dv(g, ans, x, v, index):
    nb = ndim(g) - ndim(ans)
    part = getitem(g, (slice(None),) * nb + index)
    return unbroadcast(part, np.zeros(shape(ans))[index].shape, shape(v))


def _stack_vjp(i, g, ans, *items):
    nb = ndim(g) - ndim(ans)
    part = getitem(g, (slice(None),) * nb + (i,))
    return unbroadcast(part, shape(ans)[1:], shape(items[i]))


def _reshape_vjp(g, ans, x, new_shape):
    return reshape(g, batch_of(g, ans) + shape(x))


def _broadcast_vjp(g, ans, x, new_shape):
    return unbroadcast(g, shape(ans), shape(x))


def _where_da(g, ans, a, b, cond):
    return _unb(where(cond, g, 0.0), ans, a)


def _where_db(g, ans, a, b, cond):
    return _unb(where(cond, 0.0, g), ans, b)


LN2, LN10 = math.log(2.0), math.log(10.0)

# --------------------------------------------------------------------------- the table
# name, forward, VJP per argument, sympy twin, [kinks]
P = Prim
PRIMITIVES: dict[str, Prim] = {p.name: p for p in [
    P("neg", _neg, (lambda g, ans, x: -g,), lambda x: -x, "NegBackward0"),
    P("add", _scalar_fast(operator.add, np.add), (lambda g, ans, x, y: _unb(g, ans, x),
                      lambda g, ans, x, y: _unb(g, ans, y)), lambda x, y: x + y),
    P("sub", _scalar_fast(operator.sub, np.subtract), (lambda g, ans, x, y: _unb(g, ans, x),
                           lambda g, ans, x, y: _unb(-g, ans, y)), lambda x, y: x - y),
    P("mul", _scalar_fast(operator.mul, np.multiply), (lambda g, ans, x, y: _unb(g * y, ans, x),
                           lambda g, ans, x, y: _unb(g * x, ans, y)), lambda x, y: x * y),
    P("div", _scalar_fast(operator.truediv, np.true_divide),
      (lambda g, ans, x, y: _unb(g / y, ans, x),
       _div_dy),
      lambda x, y: x / y),
    P("pow", _scalar_fast(operator.pow, np.power), (_pow_dx, _pow_dy), lambda x, y: x**y,
      kinks="d/dx = 0 where y == 0; d/dy = 0 where x == 0 and y >= 0 (PyTorch)"),
    P("matmul", _matmul, (_matmul_da, _matmul_db), lambda a, b: np.matmul(a, b), "MmBackward0"),
    P("sin", np.sin, (lambda g, ans, x: g * cos(x),), _elementwise("sin")),
    P("cos", np.cos, (lambda g, ans, x: -g * sin(x),), _elementwise("cos")),
    P("tan", np.tan, (lambda g, ans, x: g * (1.0 + ans * ans),), _elementwise("tan")),
    P("asin", np.arcsin, (lambda g, ans, x: g / sqrt(1.0 - x * x),), _elementwise("asin")),
    P("acos", np.arccos, (lambda g, ans, x: -g / sqrt(1.0 - x * x),), _elementwise("acos")),
    P("atan", np.arctan, (lambda g, ans, x: g / (1.0 + x * x),), _elementwise("atan")),
    P("atan2", np.arctan2, (_atan2_dy, _atan2_dx), _piecewise(lambda sp, y, x: sp.atan2(y, x)),
      kinks="gradient 0 at (0, 0) (PyTorch)"),
    P("sinh", np.sinh, (lambda g, ans, x: g * cosh(x),), _elementwise("sinh")),
    P("cosh", np.cosh, (lambda g, ans, x: g * sinh(x),), _elementwise("cosh")),
    P("tanh", np.tanh, (lambda g, ans, x: g * (1.0 - ans * ans),), _elementwise("tanh")),
    P("exp", np.exp, (lambda g, ans, x: g * ans,), _elementwise("exp")),
    P("log", np.log, (lambda g, ans, x: g / x,), _elementwise("log")),
    P("log2", np.log2, (lambda g, ans, x: g / (x * LN2),),
      _piecewise(lambda sp, x: sp.log(x) / sp.log(2))),
    P("log10", np.log10, (lambda g, ans, x: g / (x * LN10),),
      _piecewise(lambda sp, x: sp.log(x) / sp.log(10))),
    P("sqrt", np.sqrt, (lambda g, ans, x: g / (2.0 * ans),), _elementwise("sqrt"),
      kinks="sqrt'(0) = inf"),
    P("abs", np.abs, (lambda g, ans, x: g * sign(x),), _elementwise("Abs"),
      kinks="|x|'(0) = 0"),
    P("sign", _sign, (lambda g, ans, x: np.zeros(shape(g)),), _piecewise(_sym_sign),
      kinks="sign' = 0"),
    P("relu", _relu, (_relu_vjp,), _piecewise(_sym_relu),
      kinks="relu'(0) = 0"),
    P("sigmoid", _sigmoid, (lambda g, ans, x: g * ans * (1.0 - ans),),
      _piecewise(lambda sp, x: 1 / (1 + sp.exp(-x)))),
    P("softplus", _softplus, (lambda g, ans, x: g * sigmoid(x),),
      _piecewise(lambda sp, x: sp.log(1 + sp.exp(x)))),
    P("maximum", np.maximum, (_ext_dx(+1), _ext_dy(+1)), _piecewise(_sym_maximum),
      kinks="a tie splits the gradient in halves"),
    P("minimum", np.minimum, (_ext_dx(-1), _ext_dy(-1)), _piecewise(_sym_minimum),
      kinks="a tie splits the gradient in halves"),
    P("clamp", _clamp, (_clamp_dx, _clamp_dlo, _clamp_dhi), _piecewise(_sym_clamp),
      kinks="the gradient passes at the bounds (PyTorch)"),
    P("where", _where, (_where_da, _where_db), lambda a, b, cond: np.where(cond, a, b),
      "WhereBackward0"),
    P("sum", lambda x, axis=None, keepdims=False: np.sum(x, axis=axis, keepdims=keepdims),
      (_sum_vjp,), _sym_sum),
    P("mean", lambda x, axis=None, keepdims=False: np.mean(x, axis=axis, keepdims=keepdims),
      (_mean_vjp,), _sym_mean),
    P("prod", lambda x, axis=None, keepdims=False: np.prod(x, axis=axis, keepdims=keepdims),
      (_prod_vjp,), _sym_prod),
    P("norm", lambda x, axis=None: np.sqrt(np.sum(np.square(x), axis=axis)), (_norm_vjp,),
      _sym_norm,
      "LinalgVectorNormBackward0", kinks="norm'(0) = 0 (PyTorch)"),
    P("transpose", lambda x, axes=None: np.transpose(x, axes), (_transpose_vjp,),
      lambda x, axes=None: np.transpose(x, axes), "PermuteBackward0"),
    P("reshape", lambda x, new_shape: np.reshape(x, new_shape), (_reshape_vjp,),
      lambda x, new_shape: np.reshape(x, new_shape), "ViewBackward0"),
    P("broadcast_to", lambda x, new_shape: np.broadcast_to(x, new_shape), (_broadcast_vjp,),
      lambda x, new_shape: np.broadcast_to(x, new_shape), "ExpandBackward0"),
    P("clone", lambda x: np.array(x, dtype=np.result_type(x, np.float64), copy=True),
      (lambda g, ans, x: g,), lambda x: x),
    P("getitem", _getitem, (_getitem_vjp,), lambda x, index: np.asarray(x, dtype=object)[index],
      "SelectBackward0"),
    P("scatter", _scatter, (_scatter_vjp,), None, "IndexAddBackward0"),
    P("index_put", _index_put, (_index_put_dx, _index_put_dv), None, "IndexPutBackward0"),
    P("stack", _stack, (), lambda *items: np.stack([np.asarray(i, dtype=object) for i in items]),
      "StackBackward0", variadic_vjp=_stack_vjp),
]}
del P


# --------------------------------------------------------------------------- functions
# Thin named wrappers: the VJP rules above, the tensor methods and the language call these.

def _unary(name: str) -> Callable[[Any], Any]:
    prim = PRIMITIVES[name]

    def f(x: Any) -> Any:
        return apply(prim, x)

    f.__name__ = name
    f.__doc__ = f"Elementwise {name} (a primitive; see gradcalc.engine.ops.PRIMITIVES)."
    return f


sin, cos, tan = _unary("sin"), _unary("cos"), _unary("tan")
asin, acos, atan = _unary("asin"), _unary("acos"), _unary("atan")
sinh, cosh, tanh = _unary("sinh"), _unary("cosh"), _unary("tanh")
exp, log, log2, log10 = _unary("exp"), _unary("log"), _unary("log2"), _unary("log10")
sqrt, abs, sign = _unary("sqrt"), _unary("abs"), _unary("sign")  # noqa: A001
relu, sigmoid, softplus = _unary("relu"), _unary("sigmoid"), _unary("softplus")
neg, clone = _unary("neg"), _unary("clone")


def add(x: Any, y: Any) -> Any:
    return apply(PRIMITIVES["add"], x, y)


def sub(x: Any, y: Any) -> Any:
    return apply(PRIMITIVES["sub"], x, y)


def mul(x: Any, y: Any) -> Any:
    return apply(PRIMITIVES["mul"], x, y)


def div(x: Any, y: Any) -> Any:
    return apply(PRIMITIVES["div"], x, y)


def pow(x: Any, y: Any) -> Any:  # noqa: A001
    return apply(PRIMITIVES["pow"], x, y)


def matmul(a: Any, b: Any) -> Any:
    return apply(PRIMITIVES["matmul"], a, b)


def atan2(y: Any, x: Any) -> Any:
    return apply(PRIMITIVES["atan2"], y, x)


def maximum(a: Any, b: Any) -> Any:
    return apply(PRIMITIVES["maximum"], a, b)


def minimum(a: Any, b: Any) -> Any:
    return apply(PRIMITIVES["minimum"], a, b)


def clamp(x: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A002
    """Clip to [min, max]; either bound may be None (PyTorch's clamp)."""
    lo = -np.inf if min is None else min
    hi = np.inf if max is None else max
    return apply(PRIMITIVES["clamp"], x, lo, hi)


def where(cond: Any, a: Any, b: Any) -> Any:
    """Pick `a` where `cond` holds, else `b`; the condition is not differentiated."""
    return apply(PRIMITIVES["where"], a, b, cond=np.asarray(value(cond), dtype=bool))


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    return apply(PRIMITIVES["sum"], x, axis=_normalize_axis(axis, ndim(x)), keepdims=keepdims)


def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return apply(PRIMITIVES["mean"], x, axis=_normalize_axis(axis, ndim(x)), keepdims=keepdims)


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return apply(PRIMITIVES["prod"], x, axis=_normalize_axis(axis, ndim(x)), keepdims=keepdims)


def norm(x: Any, axis: Any = None) -> Any:
    """The 2-norm of all elements (or, given axes, of each slice along them)."""
    if axis is None:
        return apply(PRIMITIVES["norm"], x)
    return apply(PRIMITIVES["norm"], x, axis=_normalize_axis(axis, ndim(x)))


def dot(a: Any, b: Any) -> Any:
    """Dot product of vectors; matrix products for 2-D arguments (like numpy.dot)."""
    return matmul(a, b)


def transpose(x: Any, axes: Any = None) -> Any:
    if axes is not None:
        axes = tuple(int(a) for a in axes)
    return apply(PRIMITIVES["transpose"], x, axes=axes)


def swap_last(x: Any) -> Any:
    nd = ndim(x)
    return transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def reshape(x: Any, new_shape: Any) -> Any:
    new_shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
    if shape(x) == new_shape:
        return x
    return apply(PRIMITIVES["reshape"], x, new_shape=new_shape)


def unsqueeze(x: Any, dim: int) -> Any:
    s = list(shape(x))
    dim = dim % (len(s) + 1)
    return reshape(x, tuple(s[:dim]) + (1,) + tuple(s[dim:]))


def broadcast_to(x: Any, new_shape: tuple[int, ...]) -> Any:
    if shape(x) == tuple(new_shape):
        return x
    return apply(PRIMITIVES["broadcast_to"], x, new_shape=tuple(new_shape))


def getitem(x: Any, index: Any) -> Any:
    index = index if isinstance(index, tuple) else (index,)
    return apply(PRIMITIVES["getitem"], x, index=index)


def scatter(g: Any, index: tuple, x_shape: tuple[int, ...], sub_ndim: int) -> Any:
    return apply(PRIMITIVES["scatter"], g, index=index, x_shape=x_shape, sub_ndim=sub_ndim)


def index_put(x: Any, index: Any, v: Any) -> Any:
    """A copy of `x` with `x[index] = v` (the functional form of index assignment)."""
    index = index if isinstance(index, tuple) else (index,)
    return apply(PRIMITIVES["index_put"], x, v, index=index)


def stack(items: Any) -> Any:
    return apply(PRIMITIVES["stack"], *items)


def ones(*dims: Any) -> np.ndarray:
    return np.ones(_dims(dims))


def zeros(*dims: Any) -> np.ndarray:
    return np.zeros(_dims(dims))


def _dims(dims: tuple) -> tuple[int, ...]:
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    out = []
    for d in dims:
        d = float(value(d))
        if d != int(d) or d < 0:
            raise ValueError(f"array dimensions must be whole numbers >= 0, not {d:g}")
        out.append(int(d))
    return tuple(out)


# --------------------------------------------------------------------------- the language
# name -> (numeric function, number of arguments: (min, max)). The symbolic evaluator maps
# the same names to the primitives' sympy twins (gradcalc.backends.symbolic).

FUNCTIONS: dict[str, tuple[Callable[..., Any], tuple[int, int]]] = {
    **{name: (globals()[name], (1, 1)) for name in (
        "sin cos tan asin acos atan sinh cosh tanh exp log log2 log10 sqrt abs sign relu "
        "sigmoid softplus norm transpose").split()},
    "atan2": (atan2, (2, 2)),
    "maximum": (maximum, (2, 2)),
    "minimum": (minimum, (2, 2)),
    "clamp": (clamp, (3, 3)),
    "where": (where, (3, 3)),
    "sum": (sum, (1, 2)),
    "mean": (mean, (1, 2)),
    "prod": (prod, (1, 2)),
    "dot": (dot, (2, 2)),
    "ones": (ones, (1, 2)),
    "zeros": (zeros, (1, 2)),
}

"""Convolutions as three table entries that are each other's VJPs.

For T(X, W, Y) = <conv(X, W), Y>, the convolution `conv` (X, W -> Y), its input gradient
`conv_input_grad` (Y, W -> X-shaped; also conv_transpose) and its weight gradient
`conv_weight_grad` (X, Y -> W-shaped) are the three partial gradients of one trilinear
form, so the VJP of each is one of the others: derivatives of every order are these three
again. Shapes are PyTorch's: X (N, C_in, *spatial), W (C_out, C_in / groups, *kernel),
with stride, padding (lo, hi per spatial dim), dilation and groups; 1, 2 or 3 spatial dims.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from gradcalc.engine.primitive import PRIMITIVES, Prim, apply, fn
from gradcalc.engine.shapes import ndim, shape

OUT, KER = "xyz", "ijk"


def out_size(n: int, k: int, s: int, pads: tuple[int, int], d: int) -> int:
    return (n + pads[0] + pads[1] - d * (k - 1) - 1) // s + 1


def _windows(x: np.ndarray, ks: tuple[int, ...], stride, padding, dilation) -> np.ndarray:
    """(N, C, *out, *kernel): each output position's receptive field."""
    sp = len(ks)
    xp = np.pad(np.asarray(x, dtype=np.float64), [(0, 0), (0, 0), *padding])
    span = tuple(d * (k - 1) + 1 for k, d in zip(ks, dilation, strict=True))
    w = sliding_window_view(xp, span, axis=tuple(range(2, 2 + sp)))
    index = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride) + tuple(
        slice(None, None, d) for d in dilation)
    return w[index]


def _letters(sp: int) -> tuple[str, str]:
    return OUT[:sp], KER[:sp]


def conv(x, w, stride=(1,), padding=((0, 0),), dilation=(1,), groups=1):
    x, w = np.asarray(x, dtype=np.float64), np.asarray(w, dtype=np.float64)
    sp = w.ndim - 2
    o, k = _letters(sp)
    cols = _windows(x, w.shape[2:], stride, padding, dilation)
    n, c = cols.shape[:2]
    cols = cols.reshape((n, groups, c // groups) + cols.shape[2:])
    wg = w.reshape((groups, w.shape[0] // groups) + w.shape[1:])
    y = np.einsum(f"ngc{o}{k},gfc{k}->ngf{o}", cols, wg, optimize=True)
    return y.reshape((n, w.shape[0]) + y.shape[3:])


def conv_input_grad(y, w, x_shape=(), stride=(1,), padding=((0, 0),), dilation=(1,),
                    groups=1):
    y, w = np.asarray(y, dtype=np.float64), np.asarray(w, dtype=np.float64)
    sp = w.ndim - 2
    o, k = _letters(sp)
    n, cout = y.shape[:2]
    yg = y.reshape((n, groups, cout // groups) + y.shape[2:])
    wg = w.reshape((groups, cout // groups) + w.shape[1:])
    cols = np.einsum(f"ngf{o},gfc{k}->ngc{o}{k}", yg, wg, optimize=True)
    cols = cols.reshape((n, groups * w.shape[1]) + cols.shape[3:])
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(x_shape[2:], padding, strict=True))
    xp = np.zeros(tuple(x_shape[:2]) + padded)
    outs = y.shape[2:]
    for offs in itertools.product(*(range(kk) for kk in w.shape[2:])):
        index = (slice(None), slice(None)) + tuple(
            slice(j * d, j * d + s * (m - 1) + 1, s)
            for j, d, s, m in zip(offs, dilation, stride, outs, strict=True))
        xp[index] += cols[(Ellipsis,) + offs]
    crop = (slice(None), slice(None)) + tuple(
        slice(lo, lo + s) for s, (lo, _hi) in zip(x_shape[2:], padding, strict=True))
    return xp[crop]


def conv_weight_grad(x, y, w_shape=(), stride=(1,), padding=((0, 0),), dilation=(1,),
                     groups=1):
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    sp = len(w_shape) - 2
    o, k = _letters(sp)
    cols = _windows(x, tuple(w_shape[2:]), stride, padding, dilation)
    n, c = cols.shape[:2]
    cols = cols.reshape((n, groups, c // groups) + cols.shape[2:])
    yg = y.reshape((n, groups, y.shape[1] // groups) + y.shape[2:])
    dw = np.einsum(f"ngc{o}{k},ngf{o}->gfc{k}", cols, yg, optimize=True)
    return dw.reshape(w_shape)


def run(name: str, *args: Any, **params: Any) -> Any:
    """One of the three entries on `args` (their public functions take no parameters)."""
    return apply(PRIMITIVES[name], *args, **params)


def _batched(rule):
    """A rule run once per leading batch axis of the cotangent (a Jacobian's sweep)."""

    def vjp(g, ans, *args, **params):
        nb = ndim(g) - ndim(ans)
        if nb == 0:
            return rule(g, ans, *args, **params)
        lead = shape(g)[:nb]
        flat = fn.reshape(g, (-1,) + shape(ans))
        parts = [rule(fn.getitem(flat, (i,)), ans, *args, **params)
                 for i in range(shape(flat)[0])]
        out = fn.stack(parts)
        return fn.reshape(out, lead + shape(parts[0]))

    return vjp


def _geometry(params: dict) -> dict:
    return {k: params[k] for k in ("stride", "padding", "dilation", "groups")}


@_batched
def _conv_dx(g, ans, x, w, **p):
    return run("conv_input_grad", g, w, x_shape=shape(x), **_geometry(p))


@_batched
def _conv_dw(g, ans, x, w, **p):
    return run("conv_weight_grad", x, g, w_shape=shape(w), **_geometry(p))


@_batched
def _input_grad_dy(g, ans, y, w, x_shape=(), **p):
    return run("conv", g, w, **_geometry(p))


@_batched
def _input_grad_dw(g, ans, y, w, x_shape=(), **p):
    return run("conv_weight_grad", g, y, w_shape=shape(w), **_geometry(p))


@_batched
def _weight_grad_dx(g, ans, x, y, w_shape=(), **p):
    return run("conv_input_grad", y, g, x_shape=shape(x), **_geometry(p))


@_batched
def _weight_grad_dy(g, ans, x, y, w_shape=(), **p):
    return run("conv", x, g, **_geometry(p))


# --------------------------------------------------------------------------- sympy twins


def _twin_conv(x, w, stride=(1,), padding=((0, 0),), dilation=(1,), groups=1):
    x, w = np.asarray(x, dtype=object), np.asarray(w, dtype=object)
    xp = np.pad(x, [(0, 0), (0, 0), *padding], constant_values=0)
    ks = w.shape[2:]
    outs = tuple(out_size(n, k, s, p, d) for n, k, s, p, d in
                 zip(x.shape[2:], ks, stride, padding, dilation, strict=True))
    cout, cg = w.shape[0], w.shape[1]
    y = np.empty((x.shape[0], cout) + outs, dtype=object)
    for idx in np.ndindex(*y.shape):
        n, f, pos = idx[0], idx[1], idx[2:]
        g0 = (f // (cout // groups)) * cg
        terms = [xp[(n, g0 + c) + tuple(p * s + j * d for p, s, j, d in
                                          zip(pos, stride, offs, dilation, strict=True))]
                 * w[(f, c) + offs]
                 for c in range(cg) for offs in itertools.product(*(range(k) for k in ks))]
        y[idx] = sum(terms[1:], terms[0])
    return y


def _adjoint(shape, place):
    """Entry by entry, the pairing of a unit basis array (of `shape`) through `place`:
    the adjoint of the linear map conv is in one of its arguments."""
    out = np.zeros(tuple(shape), dtype=object)
    for idx in np.ndindex(*shape):
        e = np.zeros(tuple(shape), dtype=object)
        e[idx] = 1
        out[idx] = place(e)
    return out


def _twin_input_grad(y, w, x_shape=(), **p):
    """The adjoint of conv in x: sum over output positions of y times the weights."""
    y, w = np.asarray(y, dtype=object), np.asarray(w, dtype=object)
    return _adjoint(x_shape, lambda e: np.sum(_twin_conv(e, w, **p) * y))


def _twin_weight_grad(x, y, w_shape=(), **p):
    x, y = np.asarray(x, dtype=object), np.asarray(y, dtype=object)
    return _adjoint(w_shape, lambda e: np.sum(_twin_conv(x, e, **p) * y))


def entries() -> list[Prim]:
    return [
        Prim("conv", conv, (_conv_dx, _conv_dw), _twin_conv, "ConvolutionBackward0",
             library=False, rule=("conv_input_grad(g, w)", "conv_weight_grad(x, g)")),
        Prim("conv_input_grad", conv_input_grad, (_input_grad_dy, _input_grad_dw),
             _twin_input_grad, "ConvolutionBackward0", library=False,
             rule=("conv(g, w)", "conv_weight_grad(g, y)")),
        Prim("conv_weight_grad", conv_weight_grad, (_weight_grad_dx, _weight_grad_dy),
             _twin_weight_grad, "ConvolutionBackwardBackward0", library=False,
             rule=("conv_input_grad(y, g)", "conv(x, g)")),
    ]


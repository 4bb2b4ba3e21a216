"""PyTorch's convolution and pooling functions (conv1d, conv2d, conv3d,
conv_transpose1d/2d, max_pool1d/2d, avg_pool1d/2d) on the convolution entries.

Arguments are PyTorch's (int or tuple stride/padding/dilation, padding 'same'/'valid',
groups, bias). Max pooling picks the first largest element of each window (nan wins) and
reads it with an index, so its gradient goes to that one element, as PyTorch's; average
pooling is a convolution with a constant kernel per channel.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from gradcalc.engine.convolution import out_size, run
from gradcalc.engine.primitive import fn
from gradcalc.engine.shapes import ndim, shape, value
from gradcalc.engine.tensor import Tensor, to_tensor


def _tuple(v: Any, sp: int, name: str) -> tuple[int, ...]:
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            return (int(v[0]),) * sp
        if len(v) != sp:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of "
                               f"{sp} values to match the convolution dimensions, but got "
                               f"{name}={list(v)}")
        return tuple(int(i) for i in v)
    return (int(v),) * sp


def _pads(padding: Any, sp: int, ks: tuple[int, ...], dil: tuple[int, ...],
          stride: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * sp
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        out = []
        for k, d in zip(ks, dil, strict=True):
            total = d * (k - 1)
            out.append((total // 2, total - total // 2))
        return tuple(out)
    return tuple((p, p) for p in _tuple(padding, sp, "padding"))


def _check(x: Any, w: Any, sp: int, groups: int, name: str) -> None:
    if ndim(w) != sp + 2:
        raise RuntimeError(f"{name}: weight should have {sp + 2} dimensions, got {ndim(w)}")
    if ndim(x) not in (sp + 1, sp + 2):
        raise RuntimeError(f"Expected {sp + 1}D (unbatched) or {sp + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(shape(x))}")
    if shape(w)[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size "
                           f"{list(shape(w))} instead")


def _check_args(stride: tuple, padding: Any, dilation: tuple) -> None:
    if not isinstance(padding, str) and min(_tuple(padding, len(stride), "padding")) < 0:
        raise RuntimeError("negative padding is not supported")
    if min(stride) < 1:
        raise RuntimeError("non-positive stride is not supported")
    if min(dilation) < 1:
        raise RuntimeError("dilation should be greater than zero")


def _check_bias(bias: Any, weight: Any, n: int, transposed: str) -> None:
    if bias is not None and tuple(shape(bias)) != (n,):
        raise RuntimeError(f"Given {transposed}weight of size {list(shape(weight))}, expected "
                           f"bias to be 1-dimensional with {n} elements, but got bias of size "
                           f"{list(shape(bias))} instead")


def convolution(sp: int, name: str):
    def function(input: Any, weight: Any, bias: Any = None, stride: Any = 1,  # noqa: A002
                 padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
        x = to_tensor(input)
        st, dil = _tuple(stride, sp, "stride"), _tuple(dilation, sp, "dilation")
        if isinstance(padding, str):  # PyTorch checks the padding string first
            _pads(padding, sp, (1,) * sp, dil, st)
        _check_args(st, padding, dil)
        _check(x, weight, sp, groups, name)
        unbatched = ndim(x) == sp + 1
        if unbatched:
            x = fn.reshape(x, (1,) + shape(x))
        ks = shape(weight)[2:]
        pads = _pads(padding, sp, ks, dil, st)
        if shape(x)[1] != shape(weight)[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {list(shape(weight))}, expected "
                f"input{list(shape(x))} to have {shape(weight)[1] * groups} channels, but got "
                f"{shape(x)[1]} channels instead")
        _check_bias(bias, weight, shape(weight)[0], "")
        for n, k, s, p, d in zip(shape(x)[2:], ks, st, pads, dil, strict=True):
            if out_size(n, k, s, p, d) < 1:
                raise RuntimeError("Calculated padded input size per channel is smaller than "
                                   "kernel size")
        y = run("conv", x, weight, stride=st, padding=pads, dilation=dil, groups=int(groups))
        if bias is not None:
            y = y + fn.reshape(bias, (1, -1) + (1,) * sp)
        return to_tensor(fn.reshape(y, shape(y)[1:]) if unbatched else y)

    function.__name__ = function.__qualname__ = name
    return function


def transposed(sp: int, name: str):
    def function(input: Any, weight: Any, bias: Any = None, stride: Any = 1,  # noqa: A002
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                 dilation: Any = 1) -> Tensor:
        x = to_tensor(input)
        st, dil = _tuple(stride, sp, "stride"), _tuple(dilation, sp, "dilation")
        _check_args(st, padding, dil)
        if ndim(weight) == sp + 2 and shape(weight)[0] % groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                               f"{groups} at dimension 0, but got weight of size "
                               f"[{list(shape(weight))}] instead")  # (sic: PyTorch's [[...]])
        unbatched = ndim(x) == sp + 1
        if unbatched:
            x = fn.reshape(x, (1,) + shape(x))
        if shape(x)[1] != shape(weight)[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {list(shape(weight))}, expected "
                f"input{list(shape(x))} to have {shape(weight)[0]} channels, but got "
                f"{shape(x)[1]} channels instead")
        _check_bias(bias, weight, shape(weight)[1] * groups, "transposed=1, ")
        ks = shape(weight)[2:]
        pad, opad = _tuple(padding, sp, "padding"), _tuple(output_padding, sp, "output_padding")
        for o, s, d in zip(opad, st, dil, strict=True):
            if o >= s and o >= d:
                raise RuntimeError("output padding must be smaller than either stride or "
                                   "dilation")
        size = tuple((n - 1) * s - 2 * p + d * (k - 1) + o + 1 for n, s, p, d, k, o in
                     zip(shape(x)[2:], st, pad, dil, ks, opad, strict=True))
        if min(size) < 1:
            raise RuntimeError(
                f"Given input size per channel: ({' x '.join(map(str, shape(x)[2:]))}). "
                f"Calculated output size per channel: ({' x '.join(map(str, size))}). Output "
                f"size is too small")
        # conv_input_grad's buffer must be a size whose convolution gives x's back (its
        # VJP): an output_padding of a stride or more (allowed below the dilation) pads
        # less at the high end, and past the buffer the output is zeros, appended
        his = [p - s * (o // s) for p, s, o in zip(pad, st, opad, strict=True)]
        zeros = tuple(max(-h, 0) for h in his)
        x_shape = (shape(x)[0], shape(weight)[1] * groups) + tuple(
            n - z for n, z in zip(size, zeros, strict=True))
        y = run("conv_input_grad", x, weight, x_shape=x_shape, stride=st,
                padding=tuple((p, max(h, 0)) for p, h in zip(pad, his, strict=True)),
                dilation=dil, groups=int(groups))
        if any(zeros):
            y = fn.pad(y, tuple(v for z in reversed(zeros) for v in (0, z)))
        if bias is not None:
            y = y + fn.reshape(bias, (1, -1) + (1,) * sp)
        return to_tensor(fn.reshape(y, shape(y)[1:]) if unbatched else y)

    function.__name__ = function.__qualname__ = name
    return function


# --------------------------------------------------------------------------- pooling


def _pool_args(sp, kernel_size, stride, padding, dilation):
    ks = _tuple(kernel_size, sp, "kernel_size")
    st = ks if stride is None or stride == [] or stride == () else _tuple(stride, sp, "stride")
    pad, dil = _tuple(padding, sp, "padding"), _tuple(dilation, sp, "dilation")
    for p, k in zip(pad, ks, strict=True):
        if p > k // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation=1")
    return ks, st, pad, dil


def _pooled_size(n, k, s, p, d, ceil_mode):
    span = d * (k - 1) + 1
    if ceil_mode:
        out = -(-(n + 2 * p - span) // s) + 1
        if (out - 1) * s >= n + p:  # the last window must start inside the input or padding
            out -= 1
        return out
    return (n + 2 * p - span) // s + 1


def _check_pooled(c, size, outs):
    """PyTorch's refusal of a window that leaves no output position."""
    if min(outs) < 1:
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (c, *size)))}). Calculated "
                           f"output size: ({'x'.join(map(str, (c, *outs)))}). Output size is "
                           f"too small")


def max_pool(sp: int, name: str):
    def function(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
                 dilation: Any = 1, ceil_mode: bool = False,
                 return_indices: bool = False) -> Any:
        x = to_tensor(input)
        unbatched = ndim(x) == sp + 1
        if unbatched:
            x = fn.reshape(x, (1,) + shape(x))
        ks, st, pad, dil = _pool_args(sp, kernel_size, stride, padding, dilation)
        n, c, *size = shape(x)
        outs = tuple(_pooled_size(m, k, s, p, d, ceil_mode) for m, k, s, p, d in
                     zip(size, ks, st, pad, dil, strict=True))
        _check_pooled(c, size, outs)
        extra = [max(0, (o - 1) * s + d * (k - 1) + 1 - (m + 2 * p))
                 for o, s, d, k, m, p in zip(outs, st, dil, ks, size, pad, strict=True)]
        xv = np.asarray(value(x), dtype=np.float64)
        xp = np.pad(xv, [(0, 0), (0, 0)] + [(p, p + e) for p, e in zip(pad, extra, strict=True)],
                    constant_values=-np.inf)
        spans = tuple(d * (k - 1) + 1 for k, d in zip(ks, dil, strict=True))
        w = sliding_window_view(xp, spans, axis=tuple(range(2, 2 + sp)))
        w = w[(slice(None), slice(None)) + tuple(slice(None, o * s, s) for o, s in
                                                   zip(outs, st, strict=True))
              + tuple(slice(None, None, d) for d in dil)]
        flat = w.reshape(w.shape[:2 + sp] + (-1,))
        nan = np.isnan(flat)
        best = np.where(nan.any(-1), np.argmax(nan, -1), np.argmax(flat, -1))  # first max
        offs = np.unravel_index(best, ks)
        grids = np.indices(best.shape, sparse=True)
        coords = [grids[2 + i] * st[i] + offs[i] * dil[i] - pad[i] for i in range(sp)]
        index = (grids[0], grids[1], *coords)
        out = fn.getitem(x, index)
        if unbatched:
            out = fn.reshape(out, shape(out)[1:])
        out = to_tensor(out)
        if return_indices:
            flat_index = np.ravel_multi_index(tuple(np.broadcast_arrays(*coords)), tuple(size))
            idx = Tensor.wrap(flat_index[0] if unbatched else flat_index, None)
            return out, idx
        return out

    function.__name__ = function.__qualname__ = name
    return function


def avg_pool(sp: int, name: str):
    def function(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> Tensor:
        x = to_tensor(input)
        unbatched = ndim(x) == sp + 1
        if unbatched:
            x = fn.reshape(x, (1,) + shape(x))
        ks, st, pad, _ = _pool_args(sp, kernel_size, stride, padding, 1)
        n, c, *size = shape(x)
        outs = tuple(_pooled_size(m, k, s, p, 1, ceil_mode) for m, k, s, p in
                     zip(size, ks, st, pad, strict=True))
        _check_pooled(c, size, outs)
        extra = tuple(max(0, (o - 1) * s + k - (m + 2 * p))
                      for o, s, k, m, p in zip(outs, st, ks, size, pad, strict=True))
        grow = tuple((p, p + e) for p, e in zip(pad, extra, strict=True))
        flat = fn.reshape(x, (n * c, 1) + tuple(size))
        geometry = dict(stride=st, padding=grow, dilation=(1,) * sp, groups=1)
        ones = np.ones((1, 1) + ks)
        total = run("conv", flat, ones, **geometry)
        if divisor_override:
            out = total / float(divisor_override)
        else:
            # PyTorch divides by the window's cells inside the input (and its padding when
            # count_include_pad), never the cells that ceil_mode adds past the padding
            inside = np.ones((1, 1) + tuple(m + 2 * p for m, p in zip(size, pad, strict=True)))
            if not count_include_pad:
                inside = np.pad(np.ones((1, 1) + tuple(size)), [(0, 0), (0, 0)]
                                + [(p, p) for p in pad])
            mask = np.pad(inside, [(0, 0), (0, 0)] + [(0, e) for e in extra])
            counts = value(run("conv", mask, ones, stride=st, padding=((0, 0),) * sp,
                               dilation=(1,) * sp, groups=1))
            out = total / counts
        out = fn.reshape(out, (n, c) + shape(out)[2:])
        return to_tensor(fn.reshape(out, shape(out)[1:]) if unbatched else out)

    function.__name__ = function.__qualname__ = name
    return function


conv1d, conv2d, conv3d = (convolution(k, f"conv{k}d") for k in (1, 2, 3))
conv_transpose1d, conv_transpose2d = (transposed(k, f"conv_transpose{k}d") for k in (1, 2))
max_pool1d, max_pool2d = (max_pool(k, f"max_pool{k}d") for k in (1, 2))
avg_pool1d, avg_pool2d = (avg_pool(k, f"avg_pool{k}d") for k in (1, 2))

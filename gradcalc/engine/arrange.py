"""Table entries that rearrange or accumulate along dims: cat, flip, repeat, roll, tril,
triu, pad (constant), cumsum and cumprod.

Each VJP is written with the registry's functions (so it records for higher derivatives)
and keeps a cotangent's leading batch axes (`nb` below). cumprod's VJP is PyTorch's: a
reversed cumulative sum divided by x where no element is zero, and where one is, the
product of the other factors without dividing, so its derivatives of every order exist.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.engine.primitive import Prim, apply, fn
from gradcalc.engine.shapes import dim_index, ndim, shape, value


def _nb(g: Any, ans: Any) -> int:
    return ndim(g) - ndim(ans)


def _index_along(nd: int, axis: int, part: Any) -> tuple:
    return (slice(None),) * axis + (part,) + (slice(None),) * (nd - axis - 1)


# --------------------------------------------------------------------------- cat


def _cat(*items, axis=0):
    return np.concatenate([np.asarray(i, dtype=np.float64) for i in items], axis=axis)


def _cat_vjp(i, g, ans, *items, axis=0):
    nb = _nb(g, ans)
    start = sum(shape(t)[axis] for t in items[:i])
    part = slice(start, start + shape(items[i])[axis])
    return fn.getitem(g, _index_along(ndim(g), nb + axis, part))


def _cat_twin(*items, axis=0):
    return np.concatenate([np.asarray(i, dtype=object) for i in items], axis=axis)


def _cat_call(prim: Prim, tensors: Any, dim: int = 0, axis: Any = None) -> Any:
    items = list(tensors)
    if not items:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for k, t in enumerate(items):  # checked before any shape, as PyTorch
        if ndim(t) == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {k}) cannot be "
                               f"concatenated")
    items = [i for i in items if shape(i) != (0,)] or items[:1]  # PyTorch skips empty 1-d
    nd = ndim(items[0])
    d = dim_index(dim if axis is None else axis, nd)
    first = shape(items[0])
    for k, t in enumerate(items[1:], 1):
        s = shape(t)
        if len(s) != nd:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and "
                               f"{len(s)}")
        for j in range(nd):
            if j != d and s[j] != first[j]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{first[j]} but got size {s[j]} for tensor number {k} in the list.")
    return items[0] if len(items) == 1 else apply(prim, *items, axis=d)


# --------------------------------------------------------------------------- flip, roll


def _flip_vjp(g, ans, x, dims=()):
    nb = _nb(g, ans)
    return fn.flip(g, tuple(nb + d for d in dims))


def _flip_call(prim: Prim, input: Any, *dims: Any) -> Any:  # noqa: A002
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    axes = tuple(dim_index(d, ndim(input)) for d in dims)
    for a in axes:
        if axes.count(a) > 1:
            raise RuntimeError(f"dim {a} appears multiple times in the list of dims")
    return apply(prim, input, dims=axes) if ndim(input) else apply(prim, input, dims=())


def _roll(x, shifts=(), dims=()):
    x = np.asarray(x, dtype=np.float64)
    if not dims:
        return np.roll(x.reshape(-1), shifts).reshape(x.shape)
    return np.roll(x, shifts, dims)


def _roll_vjp(g, ans, x, shifts=(), dims=()):
    nb = _nb(g, ans)
    if not dims:
        flat = fn.reshape(g, shape(g)[:nb] + (-1,))
        return fn.reshape(fn.roll(flat, tuple(-s for s in shifts), (nb,)), shape(g))
    return fn.roll(g, tuple(-s for s in shifts), tuple(nb + d for d in dims))


def _roll_call(prim: Prim, input: Any, shifts: Any, dims: Any = None) -> Any:  # noqa: A002
    shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else (int(shifts),)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               "dims:0")
        return apply(prim, input, shifts=(int(shifts[0]),), dims=())
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(dims) != len(shifts):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    axes = tuple(dim_index(d, ndim(input)) for d in dims)
    return apply(prim, input, shifts=tuple(int(s) for s in shifts), dims=axes)


def _roll_twin(x, shifts=(), dims=()):
    x = np.asarray(x, dtype=object)
    return np.roll(x.reshape(-1), shifts).reshape(x.shape) if not dims else np.roll(x, shifts,
                                                                                     dims)


# --------------------------------------------------------------------------- repeat


def _repeat(x, repeats=()):
    x = np.asarray(x, dtype=np.float64)
    return np.tile(x.reshape((1,) * (len(repeats) - x.ndim) + x.shape), repeats)


def _repeat_vjp(g, ans, x, repeats=()):
    nb = _nb(g, ans)
    full = (1,) * (len(repeats) - ndim(x)) + shape(x)
    split: tuple[int, ...] = ()
    for r, s in zip(repeats, full, strict=True):
        split += (r, s)
    folded = fn.reshape(g, shape(g)[:nb] + split)
    summed = fn.sum(folded, tuple(nb + 2 * i for i in range(len(repeats))), False)
    return fn.reshape(summed, shape(g)[:nb] + shape(x))


def _repeat_call(prim: Prim, input: Any, *repeats: Any) -> Any:  # noqa: A002
    if len(repeats) == 1 and isinstance(repeats[0], (tuple, list)):
        repeats = tuple(repeats[0])
    repeats = tuple(int(r) for r in repeats)
    if len(repeats) < ndim(input):
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    return apply(prim, input, repeats=repeats)


# --------------------------------------------------------------------------- tril, triu


def _tri(lower: bool):
    def forward(x, diagonal=0):
        return (np.tril if lower else np.triu)(np.asarray(x), diagonal)  # booleans stay

    def vjp(g, ans, x, diagonal=0):
        return (fn.tril if lower else fn.triu)(g, diagonal)

    def twin(x, diagonal=0):
        x = np.asarray(x, dtype=object)
        keep = (np.tril if lower else np.triu)(np.ones(x.shape[-2:], dtype=bool), diagonal)
        return np.where(keep, x, 0)

    def call(prim: Prim, input: Any, diagonal: int = 0) -> Any:  # noqa: A002
        if ndim(input) < 2:
            raise RuntimeError(f"{'tril' if lower else 'triu'}: input tensor must have at "
                               "least 2 dimensions")
        return apply(prim, input, diagonal=int(diagonal))

    return forward, vjp, twin, call


# --------------------------------------------------------------------------- pad


def _pad(x, pads=(), value=0.0):
    return np.pad(np.asarray(x, dtype=np.float64), pads, constant_values=value)


def _pad_vjp(g, ans, x, pads=(), value=0.0):
    nb = _nb(g, ans)
    index = tuple(slice(lo, lo + n) for (lo, _hi), n in zip(pads, shape(x), strict=True))
    return fn.getitem(g, (slice(None),) * nb + index)


def _pad_twin(x, pads=(), value=0.0):
    x = np.asarray(x, dtype=object)
    out = np.full(tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, pads, strict=True)), value,
                  dtype=object)
    out[tuple(slice(lo, lo + n) for n, (lo, _hi) in zip(x.shape, pads, strict=True))] = x
    return out


def pad(prim: Prim, input: Any, pad: Any, mode: str = "constant",  # noqa: A002
        value: float | None = None) -> Any:
    """PyTorch's F.pad: (left, right) of the last dim first, then the one before, ...;
    negative padding crops. Constant mode only."""
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    nd = ndim(input)
    if len(pad) // 2 > nd:
        raise RuntimeError("Padding length should be less than or equal to two times the "
                           "input dimension but got padding length "
                           f"{len(pad)} and input of dimension {nd}")
    pairs = [(0, 0)] * nd
    for k in range(len(pad) // 2):
        pairs[nd - 1 - k] = (pad[2 * k], pad[2 * k + 1])
    if any(n - max(-lo, 0) - max(-hi, 0) < 0 for n, (lo, hi) in
           zip(shape(input), pairs, strict=True)):  # cropping more than there is
        raise RuntimeError("narrow(): length must be non-negative.")
    if mode != "constant":  # (nothing to pad: the constant path's copy, as PyTorch's)
        if mode in _MODES and nd - len(pad) // 2 not in (1, 2) or len(pad) > 6:
            raise NotImplementedError(
                f"Padding size {len(pad)} is not supported for {nd}D input tensor.\n"
                "Supported combinations for non-constant padding:\n"
                "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
        if any(pad) or mode not in _MODES:
            return _pad_by_index(input, pairs, mode, len(pad) // 2)
    crop = tuple(slice(max(-lo, 0), n - max(-hi, 0)) for n, (lo, hi) in
                 zip(shape(input), pairs, strict=True))
    x = input if all(lo >= 0 and hi >= 0 for lo, hi in pairs) else fn.getitem(input, crop)
    grow = tuple((max(lo, 0), max(hi, 0)) for lo, hi in pairs)
    return apply(prim, x, pads=grow, value=0.0 if value is None else float(value))


_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _pad_by_index(x: Any, pairs: list[tuple[int, int]], mode: str, k: int) -> Any:
    """reflect, replicate and circular padding as reading x at computed indices (so the
    gradient adds up where one element is read several times)."""
    if mode not in _MODES:
        raise NotImplementedError(f"Unsupported padding mode: {mode}")
    if mode == "reflect":  # PyTorch's order (the last dim first) and argument numbers
        for d in reversed(range(len(pairs) - k, len(pairs))):
            (lo, hi), n = pairs[d], shape(x)[d]
            if lo >= n or hi >= n:
                raise RuntimeError(f"Argument #{4 + 2 * (len(pairs) - 1 - d)}: Padding size "
                                   f"should be less than the corresponding input dimension, "
                                   f"but got: "
                                   f"padding ({lo}, {hi}) at dimension {d} of input "
                                   f"{list(shape(x))}")
    out = x
    for d, (lo, hi) in enumerate(pairs):
        if lo == 0 and hi == 0:
            continue
        n = shape(out)[d]
        if mode == "circular" and (lo < 0 or hi < 0):  # PyTorch crops first, then wraps
            out = fn.getitem(out, (slice(None),) * d + (slice(max(-lo, 0), n - max(-hi, 0)),))
            n = shape(out)[d]
            lo, hi = max(lo, 0), max(hi, 0)
        if mode == "circular" and (lo > n or hi > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        # reflect and replicate pad the whole dim, then crop the negative parts
        index = np.pad(np.arange(n), (max(lo, 0), max(hi, 0)), mode=_MODES[mode])
        index = index[max(-lo, 0): len(index) - max(-hi, 0)]
        out = fn.getitem(out, (slice(None),) * d + (index,))
    return out


# --------------------------------------------------------------------------- cumsum, cumprod


def _cumsum_vjp(g, ans, x, axis=0):
    a = _nb(g, ans) + axis
    return fn.flip(fn.cumsum(fn.flip(g, (a,)), a), (a,))


def _cum_twin(combine):
    def twin(x, axis=0):
        x = np.asarray(x, dtype=object)
        out = np.empty(x.shape, dtype=object)
        moved, res = np.moveaxis(x, axis, -1), np.moveaxis(out, axis, -1)
        for idx in np.ndindex(*moved.shape[:-1]):
            acc = None
            for j in range(moved.shape[-1]):
                acc = moved[idx + (j,)] if acc is None else combine(acc, moved[idx + (j,)])
                res[idx + (j,)] = acc
        return out

    return twin


def _cumprod_vjp(g, ans, x, axis=0):
    if (shape(x)[axis] if ndim(x) else 1) == 1:  # PyTorch passes g through, off x's graph
        return g
    nb = _nb(g, ans)
    a = nb + axis
    xv = value(x)
    if np.all(xv != 0):  # PyTorch: reversed cumsum of g·out, divided by x
        gy = g * ans
        return fn.flip(fn.cumsum(fn.flip(gy, (a,)), a), (a,)) / x
    # a zero: d out_j / d x_i = prod_{k <= j, k != i} x_k, summed against g_j for j >= i
    n = shape(x)[axis]
    moved = fn.transpose(x, _to_last(ndim(x), axis))
    rows = fn.broadcast_to(fn.reshape(moved, shape(moved)[:-1] + (1, n)),
                           shape(moved)[:-1] + (n, n))
    others = fn.cumprod(fn.where(np.eye(n, dtype=bool), 1.0, rows), ndim(moved))  # [i, j]
    gm = fn.transpose(g, tuple(range(nb)) + tuple(nb + i for i in _to_last(ndim(x), axis)))
    upper = np.triu(np.ones((n, n), dtype=bool))
    gj = fn.reshape(gm, shape(gm)[:-1] + (1, n))
    d = fn.sum(fn.where(upper, others * gj, 0.0), (ndim(gm),), False)
    if value(g) is g:
        # a plain sweep: as PyTorch's O(n) formula outside grad mode, 0 past the first
        # zero (every product there holds it) even where another factor is nan or inf;
        # a recorded sweep keeps the products, whose derivatives are the second ones
        xm = np.moveaxis(np.asarray(xv), axis, -1)
        first = np.where((xm == 0).any(-1), np.argmax(xm == 0, -1), n)[..., None]
        d = np.where(np.arange(n) > first, 0.0, d)
        # before it, PyTorch's reversed cumulative sum of g·out divided by x
        before = np.arange(n) < first
        w = np.where(before, np.moveaxis(np.asarray(ans), axis, -1) * np.asarray(gm), 0.0)
        early = np.flip(np.cumsum(np.flip(w, -1), -1), -1) / np.where(before, xm, 1.0)
        d = np.where(before, early, d)
    back = tuple(int(i) for i in np.argsort(_to_last(ndim(x), axis)))
    return fn.transpose(d, tuple(range(nb)) + tuple(nb + i for i in back))


def _to_last(nd: int, axis: int) -> tuple[int, ...]:
    return tuple(i for i in range(nd) if i != axis) + (axis,)


def _cum_call(prim: Prim, input: Any, dim: Any = None, axis: Any = None,  # noqa: A002
              dtype: Any = None) -> Any:
    d = dim if axis is None else axis
    if d is None:
        raise TypeError(f"{prim.name}() missing required argument 'dim'")
    nd = ndim(input)
    d = dim_index(d, nd)
    if nd == 0:
        return fn.reshape(apply(prim, fn.reshape(input, (1,)), axis=0), ())
    return apply(prim, input, axis=d)


def entries() -> list[Prim]:
    P = Prim
    tril_f, tril_v, tril_t, tril_c = _tri(True)
    triu_f, triu_v, triu_t, triu_c = _tri(False)
    return [
        P("cat", _cat, (), _cat_twin, "CatBackward0", variadic_vjp=_cat_vjp, call=_cat_call,
          saves=False, aliases=("concat", "concatenate"), rule="g cut into the pieces"),
        P("flip", lambda x, dims=(): np.flip(np.asarray(x, dtype=np.float64), dims),
          (_flip_vjp,), lambda x, dims=(): np.flip(np.asarray(x, dtype=object), dims),
          call=_flip_call, methods=("flip",), saves=False, rule="g flipped back"),
        P("roll", _roll, (_roll_vjp,), _roll_twin, call=_roll_call, methods=("roll",),
          saves=False, rule="g rolled back"),
        P("repeat", _repeat, (_repeat_vjp,),
          lambda x, repeats=(): np.tile(np.asarray(x, dtype=object).reshape(
              (1,) * (len(repeats) - np.ndim(x)) + np.shape(x)), repeats),
          call=_repeat_call, methods=("repeat",), saves=False, rule="g summed over the copies"),
        P("tril", tril_f, (tril_v,), tril_t, call=tril_c, methods=("tril",), saves=False,
          rule="g's lower triangle"),
        P("triu", triu_f, (triu_v,), triu_t, call=triu_c, methods=("triu",), saves=False,
          rule="g's upper triangle"),
        P("pad", _pad, (_pad_vjp,), _pad_twin, "ConstantPadNdBackward0", call=pad,
          saves=False, rule="g without the padding"),
        P("cumsum", lambda x, axis=0: np.cumsum(x, axis=axis, dtype=np.float64),
          (_cumsum_vjp,), _cum_twin(lambda a, b: a + b), call=_cum_call,
          methods=("cumsum",), saves=False, rule="reversed cumulative sum of g"),
        P("cumprod", lambda x, axis=0: np.cumprod(x, axis=axis, dtype=np.float64),
          (_cumprod_vjp,), _cum_twin(lambda a, b: a * b), call=_cum_call,
          methods=("cumprod",), rule="reversed cumulative sum of g·out, over x"),
    ]

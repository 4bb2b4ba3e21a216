"""Generated scripts over PyTorch's library ops, for the differential test.

tests/differential_scripts.py generates autograd scripts; this module adds scripts over
conv1d/conv2d (stride, padding, dilation, groups), conv_transpose2d, max_pool2d and
avg_pool2d, einsum, cat, pad and the losses (mse, l1, nll, cross_entropy,
binary_cross_entropy and its logits form), drawn at random and now and then out of range
(wrong channels, windows larger than the input, shapes that do not fit, bad targets),
so that PyTorch's errors are compared too. Each script weighs the result with fixed
numbers, sweeps backward, and sometimes differentiates the gradient again.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from differential_scripts import _numbers
from differential_scripts import generate as generate_autograd

#: the share of seeds that give a library script (the rest give autograd scripts)
LIBRARY_SHARE = 0.4


def generate(seed: int) -> list[str]:
    """One script from `seed`: a library script for about LIBRARY_SHARE of the seeds."""
    rng = random.Random(f"library {seed}")
    if rng.random() >= LIBRARY_SHARE:
        return generate_autograd(seed)
    kinks = rng.random() < 0.3
    family = rng.choice(FAMILIES)
    lines = ["F = lib.nn.functional"] + family(rng, kinks)
    # (the gradient of pooling and of reflect/replicate/circular padding does not depend
    # on x, yet PyTorch's backward of these takes x as an argument and so marks it
    # requires_grad: a known deviation, see docs/pytorch.md)
    index_only = family is _pool or family is _pad and "mode='constant'" not in lines[-1]
    return lines + _sweep(rng, higher=not index_only)


def _leaf(name: str, rng: random.Random, shape: tuple[int, ...], kinks: bool,
          grad: bool = True) -> str:
    flag = ", requires_grad=True" if grad else ""
    return f"{name} = lib.tensor({_numbers(rng, shape, kinks)}{flag})"


def _sweep(rng: random.Random, higher: bool) -> list[str]:
    """Weigh e with fixed numbers and sweep; sometimes differentiate the gradient again."""
    lines = ["out = (e * (lib.arange(e.numel()) * 0.7 + 0.2).cos().reshape(e.shape)).sum()"]
    if higher and rng.random() < 0.3:
        return lines + ["(gx,) = lib.autograd.grad(out, x, create_graph=True)",
                        "(gx * gx).sum().backward()"]
    return lines + ["out.backward()"]


def _pick(rng: random.Random, *options: Any) -> Any:
    return rng.choice(options)


def _geometry_text(**params: Any) -> str:
    return "".join(f", {k}={v!r}" for k, v in params.items() if v is not None)


# --------------------------------------------------------------------------- convolution


def _conv(rng: random.Random, kinks: bool) -> list[str]:
    sp = _pick(rng, 1, 2, 2)
    groups = _pick(rng, 1, 1, 2)
    cin, cout = groups * rng.randint(1, 2), groups * rng.randint(1, 2)
    kernel = tuple(rng.randint(1, 3) for _ in range(sp))
    size = tuple(rng.randint(2, 6) for _ in range(sp))
    one = (lambda *v: rng.choice(v)) if sp == 1 else \
        (lambda *v: rng.choice(v + tuple((a, b) for a in v for b in v if a != b)))
    params = {"stride": one(1, 1, 2, 3), "padding": _pick(rng, 0, 1, 2, "valid", "same"),
              "dilation": one(1, 1, 2), "groups": groups}
    if sp == 2 and isinstance(params["padding"], int) and rng.random() < 0.3:
        params["padding"] = (rng.randint(0, 2), rng.randint(0, 2))
    w_shape = (cout, cin // groups) + kernel
    x_shape: tuple[int, ...] = (rng.randint(1, 2), cin) + size
    wrong = rng.random() < 0.15
    if wrong:  # an input PyTorch refuses
        what = rng.randrange(4)
        if what == 0:
            w_shape = (cout, cin // groups + 1) + kernel
        elif what == 1:
            params["groups"] = 3
        elif what == 2:
            x_shape = x_shape[:2] + (1,) * sp
            params["padding"] = 0
        else:
            params["padding"] = -1
    if rng.random() < 0.2:
        x_shape = x_shape[1:]  # unbatched
    bias = rng.random() < 0.5
    lines = [_leaf("x", rng, x_shape, kinks), _leaf("w", rng, w_shape, kinks)]
    if bias:
        lines.append(_leaf("b", rng, (cout + (1 if wrong and rng.random() < 0.3 else 0),),
                           kinks))
    fn = f"F.conv{sp}d"
    return lines + [f"e = {fn}(x, w{', b' if bias else ''}{_geometry_text(**params)})"]


def _conv_transpose(rng: random.Random, kinks: bool) -> list[str]:
    groups = _pick(rng, 1, 1, 2)
    cin, per_group = groups * rng.randint(1, 2), rng.randint(1, 2)
    kernel = (rng.randint(1, 3), rng.randint(1, 3))
    stride = _pick(rng, 1, 2, (2, 1), 3)
    dilation = _pick(rng, 1, 1, 2, (1, 2))
    biggest = np.maximum(np.broadcast_to(stride, 2), np.broadcast_to(dilation, 2))
    # output_padding must be below max(stride, dilation): now and then it is not
    top = int(biggest.min()) if rng.random() < 0.85 else int(biggest.max()) + 1
    params = {"stride": stride, "padding": _pick(rng, 0, 0, 1, (1, 0)),
              "output_padding": rng.randrange(top) if top else 0, "groups": groups,
              "dilation": dilation}
    x_shape: tuple[int, ...] = (rng.randint(1, 2), cin, rng.randint(1, 4), rng.randint(1, 4))
    w_shape = (cin + (1 if rng.random() < 0.08 else 0), per_group) + kernel
    if rng.random() < 0.2:
        x_shape = x_shape[1:]
    bias = rng.random() < 0.5
    lines = [_leaf("x", rng, x_shape, kinks), _leaf("w", rng, w_shape, kinks)]
    if bias:
        lines.append(_leaf("b", rng, (per_group * groups,), kinks))
    return lines + [f"e = F.conv_transpose2d(x, w{', b' if bias else ''}"
                    f"{_geometry_text(**params)})"]


# --------------------------------------------------------------------------- pooling


def _pool(rng: random.Random, kinks: bool) -> list[str]:
    kernel = _pick(rng, 1, 2, 2, 3, (2, 3), (3, 1))
    kmin = min(np.broadcast_to(kernel, 2))
    params: dict[str, Any] = {
        "stride": _pick(rng, None, None, 1, 2, (1, 2)),
        "padding": rng.randint(0, kmin // 2 + (1 if rng.random() < 0.1 else 0)),
        "ceil_mode": rng.random() < 0.3,
    }
    size = (rng.randint(1, 5), rng.randint(1, 5))
    x_shape: tuple[int, ...] = (rng.randint(1, 2), rng.randint(1, 2)) + size
    if rng.random() < 0.2:
        x_shape = x_shape[1:]
    lines = [_leaf("x", rng, x_shape, kinks)]
    if rng.random() < 0.5:
        params["dilation"] = _pick(rng, 1, 2, (1, 2))
        if params["dilation"] != 1:
            # no padding: a dilated window could then hold padding only, where torch 2.13
            # returns -inf with an index past the input and its backward writes out of
            # bounds (heap corruption)
            params["padding"] = 0
        if rng.random() < 0.3:
            return lines + [f"e, i = F.max_pool2d(x, {kernel!r}{_geometry_text(**params)}, "
                            f"return_indices=True)"]
        return lines + [f"e = F.max_pool2d(x, {kernel!r}{_geometry_text(**params)})"]
    params["count_include_pad"] = rng.random() < 0.6
    params["divisor_override"] = _pick(rng, None, None, None, 2, 5)
    return lines + [f"e = F.avg_pool2d(x, {kernel!r}{_geometry_text(**params)})"]


# --------------------------------------------------------------------------- einsum, cat, pad

EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 2)]), ("ij,ij->", [(2, 3), (2, 3)]), ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]), ("i,j->ij", [(3,), (2,)]),
    ("...ij->...ji", [(2, 2, 3)]), ("ij->j", [(2, 3)]), ("i,i->", [(3,), (3,)]),
    ("ij,kj->ik", [(2, 3), (4, 3)]), ("ijk->kji", [(2, 3, 2)]), ("ij,j->i", [(2, 3), (3,)]),
    ("i,ij,j->", [(2,), (2, 3), (3,)]), ("ij,jk", [(2, 3), (3, 2)]),
    ("bi,bi->b", [(3, 2), (3, 2)]), ("ij,ij->ij", [(2, 1), (1, 3)]), ("ij,jk->", [(1, 3), (3, 2)]),
    ("ii->", [(2, 2)]), ("i...,i...->...", [(2, 3), (2, 3)]), ("iij->j", [(2, 2, 3)]),
    # refused: shapes that do not fit, an output letter not in the inputs, too few operands
    ("ij,jk->ik", [(2, 3), (2, 3)]), ("ij->ijk", [(2, 3)]), ("ij,jk->ik", [(2, 3)]),
    ("ii->i", [(2, 3)]), ("ijk->ij", [(2, 3)]),
]


def _einsum(rng: random.Random, kinks: bool) -> list[str]:
    spec, shapes = rng.choice(EINSUM)
    names = ["x", "y", "z"][:len(shapes)]
    lines = [_leaf(n, rng, s, kinks) for n, s in zip(names, shapes, strict=True)]
    operands = ", ".join(names)
    call = (f"lib.einsum({spec!r}, [{operands}])" if rng.random() < 0.2
            else f"lib.einsum({spec!r}, {operands})")
    return lines + [f"e = {call}"]


def _cat(rng: random.Random, kinks: bool) -> list[str]:
    base = rng.choice([(3,), (2, 3), (2, 3, 2), (1, 2)])
    dim = rng.randrange(-len(base), len(base))
    names = ["x", "y", "c"][:rng.randint(2, 3)]
    lines = []
    for name in names:
        shape = list(base)
        shape[dim] = rng.randint(1, 3)
        if rng.random() < 0.07 and len(shape) > 1:  # another axis that does not match
            other = (dim + 1) % len(shape)
            shape[other] += 1
        lines.append(_leaf(name, rng, tuple(shape), kinks, grad=name != "c"))
    if rng.random() < 0.08:
        dim = len(base) + 1  # out of range
    if rng.random() < 0.05:
        lines.append("c = lib.tensor(1.5)")  # a 0-d tensor cannot be concatenated
    seq = ", ".join(names)
    call = _pick(rng, f"lib.cat([{seq}], {dim})", f"lib.cat(({seq}), dim={dim})",
                 f"lib.cat([{seq}])")
    return lines + [f"e = {call}"]


def _pad(rng: random.Random, kinks: bool) -> list[str]:
    shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 4)))
    mode = _pick(rng, "constant", "constant", "constant", "reflect", "replicate", "circular")
    pairs = rng.randint(1, 3) if rng.random() > 0.05 else len(shape) + 1
    low = -1 if mode == "constant" else 0
    pads = [rng.randint(low, 2) for _ in range(2 * pairs)]
    if rng.random() < 0.05:
        pads = pads[:-1]  # an odd length
    lines = [_leaf("x", rng, shape, kinks)]
    extra = f", value={rng.choice([-1.5, 0.5])}" if mode == "constant" and rng.random() < 0.5 \
        else ""
    return lines + [f"e = F.pad(x, {tuple(pads)!r}, mode={mode!r}{extra})"]


# --------------------------------------------------------------------------- losses


def _targets(rng: random.Random, n: int, c: int, shape: tuple[int, ...]) -> str:
    values = np.array([rng.randrange(c) for _ in range(int(np.prod(shape)))])
    if rng.random() < 0.05:
        values[0] = c  # a class out of range
    return f"lib.tensor({values.reshape(shape).tolist()!r}).long()"


def _probabilities(rng: random.Random, shape: tuple[int, ...]) -> str:
    raw = np.array([rng.uniform(0.1, 1.0) for _ in range(int(np.prod(shape)))]).reshape(shape)
    return f"lib.tensor({np.round(raw / raw.sum(1, keepdims=True), 6).tolist()!r})"


def _loss(rng: random.Random, kinks: bool) -> list[str]:
    n, c = rng.randint(1, 4), rng.randint(2, 4)
    spatial = (rng.randint(1, 3),) if rng.random() < 0.2 else ()
    x_shape = (n, c) + spatial
    reduction = _pick(rng, "mean", "mean", "sum", "none")
    if rng.random() < 0.03:
        reduction = "average"  # not a reduction
    red = f", reduction={reduction!r}"
    lines = [_leaf("x", rng, x_shape, kinks)]
    kind = rng.choice(["mse", "l1", "nll", "ce", "ce_prob", "bce", "bce_logits"])
    wrong = rng.random() < 0.08  # a target of another batch size
    t_shape = ((n + 1,) if wrong else (n,)) + x_shape[1:]
    if kind in ("mse", "l1"):
        lines.append(_leaf("t", rng, t_shape, kinks, grad=False))
        fn = "F.mse_loss" if kind == "mse" else "F.l1_loss"
        return lines + [f"e = {fn}(x, t{red})"]
    weight = (f", weight=lib.tensor({[round(rng.uniform(0.2, 2), 2) for _ in range(c)]!r})"
              if rng.random() < 0.3 else "")
    if kind in ("nll", "ce"):
        lines.append(f"t = {_targets(rng, n, c, ((n + 1,) if wrong else (n,)) + spatial)}")
        ignore = f", ignore_index={rng.randrange(c)}" if rng.random() < 0.2 else ""
        if kind == "nll":
            return lines + [f"e = F.nll_loss(F.log_softmax(x, 1), t{weight}{ignore}{red})"]
        smooth = f", label_smoothing={rng.choice([0.1, 0.3])}" if rng.random() < 0.3 else ""
        if not spatial and rng.random() < 0.15:  # one sample: (C,) and a 0-d target
            return lines + [f"e = F.cross_entropy(x[0], t[0]{weight}{smooth}{red})"]
        return lines + [f"e = F.cross_entropy(x, t{weight}{ignore}{smooth}{red})"]
    lines.append(f"t = {_probabilities(rng, t_shape)}")
    if kind == "ce_prob":
        return lines + [f"e = F.cross_entropy(x, t{weight}{red})"]
    weight = weight if not spatial else ""
    if kind == "bce":
        return lines + [f"e = F.binary_cross_entropy(lib.sigmoid(x), t{weight}{red})"]
    pos = (f", pos_weight=lib.tensor({[round(rng.uniform(0.5, 3), 2) for _ in range(c)]!r})"
           if rng.random() < 0.3 and not spatial else "")
    return lines + [f"e = F.binary_cross_entropy_with_logits(x, t{weight}{pos}{red})"]


FAMILIES = [_conv, _conv, _conv_transpose, _pool, _pool, _einsum, _cat, _pad, _loss, _loss]

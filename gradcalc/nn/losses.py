"""PyTorch's loss functions: mse, l1, smooth l1/huber, nll, cross entropy (class indices
or probabilities, weights, ignore_index, label smoothing), binary cross entropy (on
probabilities, or on logits with pos_weight). `reduction` is 'mean', 'sum' or 'none'.
Built from the table's entries, so they record and differentiate to any order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import gradcalc as _gc
from gradcalc.engine.tensor import Tensor, to_tensor


def _reduce(loss: Any, reduction: str) -> Tensor:
    if reduction == "mean":
        return to_tensor(loss).mean()
    if reduction == "sum":
        return to_tensor(loss).sum()
    if reduction == "none":
        return to_tensor(loss)
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _same_shape(input: Any, target: Any, name: str) -> None:  # noqa: A002
    have, want = list(to_tensor(target).shape), list(to_tensor(input).shape)
    if have == want:
        return
    if name == "binary_cross_entropy_with_logits":
        raise ValueError(f"Target size (Size({have})) must be the same as input size "
                         f"(Size({want}))")
    raise ValueError(f"Using a target size (Size({have})) that is different to the input "
                     f"size (Size({want})) is deprecated. Please ensure they have the same "
                     f"size.")


def mse_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,  # noqa: A002
             reduction: str = "mean", weight: Any = None) -> Tensor:
    d = to_tensor(input) - target
    loss = d * d if weight is None else weight * (d * d)
    return _reduce(loss, reduction)


def l1_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,  # noqa: A002
            reduction: str = "mean") -> Tensor:
    return _reduce((to_tensor(input) - target).abs(), reduction)


def huber_loss(input: Any, target: Any, reduction: str = "mean", delta: float = 1.0) -> Tensor:  # noqa: A002
    d = to_tensor(input) - target
    a = d.abs()
    loss = _gc.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))
    return _reduce(loss, reduction)


def smooth_l1_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,  # noqa: A002
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    d = to_tensor(input) - target
    a = d.abs()
    if beta == 0:
        return _reduce(a, reduction)
    return _reduce(_gc.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta), reduction)


def _classes_last(x: Tensor) -> Tensor:
    """(N, C, d1, ...) as (N·d1·..., C); (C,) as (1, C)."""
    if x.ndim == 1:
        return x.reshape(1, -1)
    if x.ndim == 2:
        return x
    dims = (0, *range(2, x.ndim), 1)
    return x.permute(*dims).reshape(-1, x.shape[1])


def _mean_over(total: Tensor, weight: float) -> Tensor:
    """total / weight; with every sample ignored (weight 0), PyTorch's nan with a zero
    gradient (the ignored terms carry no weight, so no 0·inf)."""
    return total / weight if weight else total + float("nan")


def nll_loss(input: Any, target: Any, weight: Any = None, size_average: Any = None,  # noqa: A002
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """-weight[t] · input[i, t] for each sample i with class t; 'mean' divides by the sum
    of the weights of the classes picked (ignored samples left out)."""
    x = to_tensor(input)
    t = np.asarray(to_tensor(target).value)
    if t.dtype.kind == "f" and np.any(t != np.round(t)):
        raise RuntimeError("expected scalar type Long but found Double")
    t = t.astype(np.int64)
    flat = _classes_last(x)
    tf = t.reshape(-1)
    if flat.shape[0] != tf.shape[0]:
        raise ValueError(f"Expected input batch_size ({flat.shape[0]}) to match target "
                         f"batch_size ({tf.shape[0]}).")
    c = flat.shape[1]
    keep = tf != ignore_index
    if np.any((tf[keep] < 0) | (tf[keep] >= c)):
        raise IndexError(f"Target {int(tf[keep][(tf[keep] < 0) | (tf[keep] >= c)][0])} is out "
                         "of bounds.")
    safe = np.where(keep, tf, 0)
    w = np.ones(c) if weight is None else np.asarray(to_tensor(weight).value, dtype=np.float64)
    wt = np.where(keep, w[safe], 0.0)
    picked = flat[np.arange(flat.shape[0]), safe]
    losses = -(picked * wt)
    if reduction == "none":
        return losses.reshape(t.shape) if x.ndim != 1 else losses.reshape(())
    if reduction == "sum":
        return losses.sum()
    if reduction == "mean":
        return _mean_over(losses.sum(), float(wt.sum()))
    raise ValueError(f"{reduction} is not a valid value for reduction")


def cross_entropy(input: Any, target: Any, weight: Any = None, size_average: Any = None,  # noqa: A002
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """log_softmax over the class dim (1; 0 for one unbatched sample), then the negative
    log-likelihood: of class indices, or against class probabilities (a target of the
    input's shape)."""
    if reduction not in ("mean", "sum", "none"):  # PyTorch checks it first
        raise ValueError(f"{reduction} is not a valid value for reduction")
    x = to_tensor(input)
    dim = 0 if x.ndim == 1 else 1
    logp = _gc.log_softmax(x, dim)
    target = to_tensor(target)
    if x.ndim > 1 and target.ndim and target.shape[0] != x.shape[0]:
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target "
                         f"batch_size ({target.shape[0]}).")
    c = x.shape[dim]
    w = None if weight is None else to_tensor(weight)
    wshape = (c,) + (1,) * (x.ndim - dim - 1)
    if target.shape == x.shape:  # class probabilities
        if label_smoothing:
            target = target * (1.0 - label_smoothing) + label_smoothing / c
        terms = logp * target if w is None else logp * target * w.reshape(*wshape)
        loss = -terms.sum(dim)
        if reduction == "mean":
            return loss.sum() / float(max(loss.numel(), 1)) if loss.ndim else loss
        return _reduce(loss, reduction)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return nll
    t = np.asarray(target.value).astype(np.int64)
    keep = Tensor.wrap((t != ignore_index).astype(np.float64), None)
    per_class = logp if w is None else logp * w.reshape(*wshape)
    smooth = -per_class.sum(dim) * keep
    if reduction == "mean":
        if w is None:
            smooth = _mean_over(smooth.sum(), float(keep.value.sum()))
        else:
            picked = np.asarray(w.value)[np.where(t != ignore_index, t, 0)] * keep.value
            smooth = _mean_over(smooth.sum(), float(picked.sum()))
    else:
        smooth = _reduce(smooth, reduction)
    return nll * (1.0 - label_smoothing) + smooth * (label_smoothing / c)


def binary_cross_entropy(input: Any, target: Any, weight: Any = None,  # noqa: A002
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    """-(t·log x + (1 − t)·log(1 − x)), each log clamped at -100 as PyTorch does."""
    x = to_tensor(input)
    _same_shape(x, target, "binary_cross_entropy")
    v = np.asarray(x.value)
    if np.any((v < 0) | (v > 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    loss = -(target * _gc.log(x).clamp(min=-100.0) + (1.0 - to_tensor(target))
             * _gc.log(1.0 - x).clamp(min=-100.0))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input: Any, target: Any, weight: Any = None,  # noqa: A002
                                     size_average: Any = None, reduce: Any = None,
                                     reduction: str = "mean", pos_weight: Any = None) -> Tensor:
    """(1 − t)·x + (1 + (pos_weight − 1)·t)·softplus(−x): stable for any logit."""
    x = to_tensor(input)
    _same_shape(x, target, "binary_cross_entropy_with_logits")
    t = to_tensor(target)
    sp = _gc.softplus(-x)
    if pos_weight is None:
        loss = (1.0 - t) * x + sp
    else:
        loss = (1.0 - t) * x + (1.0 + (to_tensor(pos_weight) - 1.0) * t) * sp
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)

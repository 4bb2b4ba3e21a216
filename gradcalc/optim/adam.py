"""Adam (and AdamW's decoupled weight decay) with PyTorch's single-tensor update: moments
by lerp and by multiply-add, bias corrections, and p + (−lr / bc1)·m / (sqrt(v) / sqrt(bc2)
+ eps)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gradcalc.optim.optimizer import Optimizer


def _lerp(start: np.ndarray, end: np.ndarray, weight: float) -> np.ndarray:
    """PyTorch's lerp: start + w·(end − start) for w < 0.5, end − (end − start)·(1 − w)
    otherwise (the same rounding)."""
    if weight < 0.5:
        return start + weight * (end - start)
    return end - (end - start) * (1.0 - weight)


class Adam(Optimizer):
    decoupled = False

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, amsgrad: bool = False,
                 *, maximize: bool = False, **_: Any) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize))

    def step(self, closure: Any = None) -> Any:
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
            wd = group["weight_decay"]
            for p, grad in self.grads(group):
                if group["maximize"]:
                    grad = -grad
                state = self.state_for(p)
                if not state:
                    state.update(step=0, exp_avg=np.zeros(p.shape), exp_avg_sq=np.zeros(p.shape))
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = np.zeros(p.shape)
                state["step"] += 1
                t = state["step"]
                value = p.value
                if wd:
                    if self.decoupled:
                        value = value * (1.0 - lr * wd)
                    else:
                        grad = grad + wd * value
                m = state["exp_avg"] = _lerp(state["exp_avg"], grad, 1.0 - b1)
                v = state["exp_avg_sq"] = state["exp_avg_sq"] * b2 + (1.0 - b2) * grad * grad
                bc1, bc2 = 1.0 - b1**t, 1.0 - b2**t
                step_size = lr / bc1
                if group["amsgrad"]:
                    v = state["max_exp_avg_sq"] = np.maximum(state["max_exp_avg_sq"], v)
                denom = np.sqrt(v) / math.sqrt(bc2) + eps
                p.value = np.asarray(value + (-step_size) * m / denom, dtype=np.float64)
        return loss


class AdamW(Adam):
    decoupled = True

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False,
                 **kw: Any) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, **kw)

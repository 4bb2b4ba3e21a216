"""Stochastic gradient descent with PyTorch's update, in the same order of operations:
weight decay added to the gradient, then momentum (a buffer that starts as the first
gradient), dampening and Nesterov, then p − lr·d."""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.optim.optimizer import Optimizer


class SGD(Optimizer):
    def __init__(self, params: Any, lr: float = 1e-3, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
                 *, maximize: bool = False, **_: Any) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize))

    def step(self, closure: Any = None) -> Any:
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            lr, mom, damp = group["lr"], group["momentum"], group["dampening"]
            wd, nesterov = group["weight_decay"], group["nesterov"]
            for p, d in self.grads(group):
                if group["maximize"]:
                    d = -d
                if wd:
                    d = d + wd * p.value
                if mom:
                    state = self.state_for(p)
                    buf = state.get("momentum_buffer")
                    buf = d.copy() if buf is None else mom * buf + (1.0 - damp) * d
                    state["momentum_buffer"] = buf
                    d = d + mom * buf if nesterov else buf
                p.value = np.asarray(p.value + (-lr) * d, dtype=np.float64)
        return loss

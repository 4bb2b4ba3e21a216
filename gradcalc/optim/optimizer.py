"""The base of gradcalc's optimizers: parameter groups, per-parameter state, zero_grad and
state_dict, as PyTorch's `torch.optim.Optimizer`."""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.engine.tensor import Tensor


class Optimizer:
    defaults: dict

    def __init__(self, params: Any, defaults: dict) -> None:
        self.defaults = defaults
        self.state: dict[int, dict] = {}
        self.param_groups: list[dict] = []
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, group: dict) -> None:
        group = dict(group)
        group["params"] = list(group["params"])
        for k, v in self.defaults.items():
            group.setdefault(k, v)
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for g in self.param_groups:
            for p in g["params"]:
                if set_to_none:
                    p.grad = None
                elif p.grad is not None:
                    p.grad = Tensor.wrap(np.zeros(p.shape), None)

    def state_for(self, p: Tensor) -> dict:
        return self.state.setdefault(id(p), {})

    def state_dict(self) -> dict:
        ids = {id(p): i for i, p in enumerate(p for g in self.param_groups for p in g["params"])}
        return {"state": {ids[k]: {n: (v.copy() if isinstance(v, np.ndarray) else v)
                                   for n, v in s.items()} for k, s in self.state.items()},
                "param_groups": [{**{k: v for k, v in g.items() if k != "params"},
                                  "params": [ids[id(p)] for p in g["params"]]}
                                 for g in self.param_groups]}

    def load_state_dict(self, state_dict: dict) -> None:
        params = [p for g in self.param_groups for p in g["params"]]
        self.state = {id(params[i]): {n: (v.copy() if isinstance(v, np.ndarray) else v)
                                      for n, v in s.items()}
                      for i, s in state_dict["state"].items()}
        for g, saved in zip(self.param_groups, state_dict["param_groups"], strict=True):
            g.update({k: v for k, v in saved.items() if k != "params"})

    def step(self, closure: Any = None) -> Any:
        raise NotImplementedError

    @staticmethod
    def grads(group: dict) -> list[tuple[Tensor, np.ndarray]]:
        """(parameter, its gradient as an array) for the group's parameters that have one."""
        return [(p, np.asarray(p.grad.value, dtype=np.float64)) for p in group["params"]
                if p.grad is not None]

"""`gradcalc.nn.init`: fill a parameter in place (without recording), from gradcalc's
seeded stream or with a constant."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gradcalc.engine import library


def _fill(t: Any, value: np.ndarray) -> Any:
    t.value = np.asarray(value, dtype=np.float64).reshape(t.shape)
    return t


def constant_(tensor: Any, val: float) -> Any:
    return _fill(tensor, np.full(tensor.shape, float(val)))


def zeros_(tensor: Any) -> Any:
    return constant_(tensor, 0.0)


def ones_(tensor: Any) -> Any:
    return constant_(tensor, 1.0)


def uniform_(tensor: Any, a: float = 0.0, b: float = 1.0) -> Any:
    return _fill(tensor, library._state["rng"].uniform(a, b, tensor.shape))


def normal_(tensor: Any, mean: float = 0.0, std: float = 1.0) -> Any:
    return _fill(tensor, library._state["rng"].normal(mean, std, tensor.shape))


def _fans(shape: tuple[int, ...]) -> tuple[int, int]:
    field = math.prod(shape[2:]) if len(shape) > 2 else 1
    return shape[1] * field, shape[0] * field


def xavier_uniform_(tensor: Any, gain: float = 1.0) -> Any:
    fan_in, fan_out = _fans(tensor.shape)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound)


def kaiming_uniform_(tensor: Any, a: float = 0.0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu") -> Any:
    fan_in, fan_out = _fans(tensor.shape)
    gain = math.sqrt(2.0 / (1 + a * a)) if nonlinearity in ("leaky_relu", "relu") else 1.0
    bound = gain * math.sqrt(3.0 / (fan_in if mode == "fan_in" else fan_out))
    return uniform_(tensor, -bound, bound)

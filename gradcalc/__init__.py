"""gradcalc: gradients, VJPs, Jacobians and Hessians on a small tape-based autograd engine.

`import gradcalc` gives a PyTorch-shaped library (tensors, backward, autograd.grad,
custom Functions) and functional helpers (grad, vjp, jvp, jacobian, hessian). It never
imports sympy; only the symbolic check does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import autograd
from .functional import grad, hessian, jacobian, jvp, vjp
from .ops import (
    abs, acos, asin, atan, atan2, clamp, cos, cosh, dot, exp, log, log2, log10, matmul,
    maximum, mean, minimum, norm, prod, relu, sigmoid, sign, sin, sinh, softplus, sqrt, sum,
    tan, tanh, transpose, where,
)
from .tape import no_grad
from .tensor import Tensor

__version__ = "0.1.0"
float64 = np.float64


def tensor(data: Any, requires_grad: bool = False, dtype: Any = None) -> Tensor:
    """A new leaf tensor holding a float64 copy of `data` (dtype is accepted and ignored)."""
    return Tensor(data, requires_grad=requires_grad)


def ones(*size: Any, requires_grad: bool = False) -> Tensor:
    return Tensor(np.ones(_size(size)), requires_grad=requires_grad)


def zeros(*size: Any, requires_grad: bool = False) -> Tensor:
    return Tensor(np.zeros(_size(size)), requires_grad=requires_grad)


def ones_like(t: Any, requires_grad: bool = False) -> Tensor:
    return Tensor(np.ones(np.shape(getattr(t, "_value", t))), requires_grad=requires_grad)


def zeros_like(t: Any, requires_grad: bool = False) -> Tensor:
    return Tensor(np.zeros(np.shape(getattr(t, "_value", t))), requires_grad=requires_grad)


def stack(tensors: Any, dim: int = 0) -> Any:
    from .ops import stack as _stack
    from .ops import transpose as _transpose

    out = _stack(list(tensors))
    if dim != 0:
        nd = np.ndim(getattr(out, "_value", out))
        dim = dim % nd
        axes = list(range(1, nd))
        axes.insert(dim, 0)
        out = _transpose(out, axes)
    return out if isinstance(out, Tensor) else Tensor(out)


def _size(size: tuple) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


__all__ = [
    "Tensor", "tensor", "ones", "zeros", "ones_like", "zeros_like", "stack", "no_grad",
    "autograd", "grad", "vjp", "jvp", "jacobian", "hessian", "float64",
    "abs", "acos", "asin", "atan", "atan2", "clamp", "cos", "cosh", "dot", "exp", "log", "log2",
    "log10", "matmul", "maximum", "mean", "minimum", "norm", "prod", "relu", "sigmoid", "sign",
    "sin", "sinh", "softplus", "sqrt", "sum", "tan", "tanh", "transpose", "where",
]

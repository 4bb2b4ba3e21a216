"""`gradcalc.nn.functional` (as `F`): PyTorch's functional neural-network API on gradcalc's
tensors. Activations, linear, convolution, pooling and padding come from the table's
entries (gradcalc/engine); the losses are in gradcalc/nn/losses.py. Imported only when
used, so `import gradcalc` stays as quick as before.
"""

from __future__ import annotations

from typing import Any

import gradcalc as _gc
from gradcalc.engine import library, spatial
from gradcalc.engine.primitive import PRIMITIVES
from gradcalc.engine.tensor import Tensor, to_tensor
from gradcalc.nn.losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    huber_loss,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)

conv1d, conv2d, conv3d = spatial.conv1d, spatial.conv2d, spatial.conv3d
conv_transpose1d, conv_transpose2d = spatial.conv_transpose1d, spatial.conv_transpose2d
max_pool1d, max_pool2d = spatial.max_pool1d, spatial.max_pool2d
avg_pool1d, avg_pool2d = spatial.avg_pool1d, spatial.avg_pool2d
dropout = library.dropout


def relu(input: Any, inplace: bool = False) -> Tensor:  # noqa: A002
    return _gc.relu(input)


def relu6(input: Any, inplace: bool = False) -> Tensor:  # noqa: A002
    return _gc.hardtanh(input, 0.0, 6.0)


def sigmoid(input: Any) -> Tensor:  # noqa: A002
    return _gc.sigmoid(input)


def logsigmoid(input: Any) -> Tensor:  # noqa: A002
    """log(sigmoid(x)) = −softplus(−x), stable for any x."""
    return -_gc.softplus(-to_tensor(input))


log_sigmoid = logsigmoid


def tanh(input: Any) -> Tensor:  # noqa: A002
    return _gc.tanh(input)


def softplus(input: Any, beta: float = 1.0, threshold: float = 20.0) -> Tensor:  # noqa: A002
    if beta == 1.0:
        return _gc.softplus(input)
    return _gc.softplus(input * beta) / beta


def softmax(input: Any, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    return to_tensor(_gc.softmax(input, dim))


def log_softmax(input: Any, dim: Any = None, _stacklevel: int = 3,  # noqa: A002
                dtype: Any = None) -> Tensor:
    return to_tensor(_gc.log_softmax(input, dim))


def gelu(input: Any, approximate: str = "none") -> Tensor:  # noqa: A002
    return _gc.gelu(input, approximate=approximate)


def silu(input: Any, inplace: bool = False) -> Tensor:  # noqa: A002
    return _gc.silu(input)


def elu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    return _gc.elu(input, alpha)


def leaky_relu(input: Any, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:  # noqa: A002
    return _gc.leaky_relu(input, negative_slope)


def hardtanh(input: Any, min_val: float = -1.0, max_val: float = 1.0,  # noqa: A002
             inplace: bool = False) -> Tensor:
    return _gc.hardtanh(input, min_val, max_val)


def linear(input: Any, weight: Any, bias: Any = None) -> Tensor:  # noqa: A002
    """input @ weight.T + bias."""
    out = to_tensor(input) @ to_tensor(weight).t()
    return out if bias is None else out + bias


def pad(input: Any, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:  # noqa: A002
    return to_tensor(PRIMITIVES["pad"].call(PRIMITIVES["pad"], input, pad, mode, value))


def one_hot(tensor: Any, num_classes: int = -1) -> Tensor:
    """Rows of the identity picked by whole-number class indices (float64 values)."""
    import numpy as np

    idx = np.asarray(to_tensor(tensor).value).astype(np.int64)
    n = int(idx.max()) + 1 if num_classes < 0 else num_classes
    return Tensor.wrap(np.eye(n)[idx], None)


def normalize(input: Any, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:  # noqa: A002
    x = to_tensor(input)
    if p == 0:  # the count of nonzero elements (a constant)
        import numpy as np

        norm = Tensor.wrap(np.sum(x.value != 0, axis=dim, keepdims=True) * 1.0, None)
    else:
        norm = (x.abs() ** p).sum(dim, keepdim=True) ** (1.0 / p)
    return x / norm.clamp(min=eps)


__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "max_pool1d",
    "max_pool2d", "avg_pool1d", "avg_pool2d", "dropout", "relu", "relu6", "sigmoid", "tanh",
    "softplus", "logsigmoid", "softmax", "log_softmax", "gelu", "silu", "elu", "leaky_relu",
    "hardtanh", "linear", "pad", "one_hot", "normalize", "mse_loss", "l1_loss", "smooth_l1_loss",
    "huber_loss", "nll_loss", "cross_entropy", "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
]

"""PyTorch's layers: Linear, Conv1d/Conv2d, pooling, Flatten, Dropout, the activations,
Sequential, ModuleList and Identity. Initial weights are PyTorch's distributions (uniform
in ±1/sqrt(fan_in)) drawn from gradcalc's seeded stream, so they are not PyTorch's numbers:
to compare with PyTorch, load the same weights into both (`load_state_dict`)."""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

import numpy as np

from gradcalc.engine import library
from gradcalc.nn import functional as F
from gradcalc.nn.module import Module, Parameter


def _uniform(shape: tuple[int, ...], bound: float) -> Parameter:
    return Parameter(library.rng().uniform(-bound, bound, shape))


def _pair(v: Any, n: int) -> tuple[int, ...]:
    return tuple(v) if isinstance(v, (tuple, list)) else (int(v),) * n


class Identity(Module):
    def forward(self, input: Any) -> Any:  # noqa: A002
        return input


class Linear(Module):
    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bound = 1.0 / math.sqrt(in_features) if in_features else 0.0
        self.weight = _uniform((out_features, in_features), bound)
        self.bias = _uniform((out_features,), bound) if bias else None

    def forward(self, input: Any) -> Any:  # noqa: A002
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class _ConvNd(Module):
    sp = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        ks = _pair(kernel_size, self.sp)
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, ks
        self.stride, self.dilation = _pair(stride, self.sp), _pair(dilation, self.sp)
        self.groups = groups
        self.padding = padding if isinstance(padding, str) else _pair(padding, self.sp)
        fan_in = in_channels // groups * math.prod(ks)
        bound = 1.0 / math.sqrt(fan_in)
        self.weight = _uniform((out_channels, in_channels // groups) + ks, bound)
        self.bias = _uniform((out_channels,), bound) if bias else None

    def forward(self, input: Any) -> Any:  # noqa: A002
        conv = F.conv1d if self.sp == 1 else F.conv2d
        return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                    self.groups)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")


class Conv1d(_ConvNd):
    sp = 1


class Conv2d(_ConvNd):
    sp = 2


class MaxPool2d(Module):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 dilation: Any = 1, return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.args = (kernel_size, stride, padding, dilation, ceil_mode, return_indices)

    def forward(self, input: Any) -> Any:  # noqa: A002
        return F.max_pool2d(input, *self.args)


class AvgPool2d(Module):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: Any = None) -> None:
        super().__init__()
        self.args = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)

    def forward(self, input: Any) -> Any:  # noqa: A002
        return F.avg_pool2d(input, *self.args)


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Any) -> Any:  # noqa: A002
        return input.flatten(self.start_dim, self.end_dim)


class Dropout(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p

    def forward(self, input: Any) -> Any:  # noqa: A002
        return F.dropout(input, self.p, self.training)


def _activation(name: str, function: Any, *fields: str) -> type:
    def __init__(self: Module, *args: Any, **kwargs: Any) -> None:
        Module.__init__(self)
        kwargs.pop("inplace", None)
        self.args, self.kwargs = args, kwargs

    def forward(self: Module, input: Any) -> Any:  # noqa: A002
        return function(input, *self.args, **self.kwargs)

    return type(name, (Module,), {"__init__": __init__, "forward": forward})


ReLU = _activation("ReLU", F.relu)
ReLU6 = _activation("ReLU6", F.relu6)
Tanh = _activation("Tanh", F.tanh)
Sigmoid = _activation("Sigmoid", F.sigmoid)
GELU = _activation("GELU", F.gelu)
SiLU = _activation("SiLU", F.silu)
ELU = _activation("ELU", F.elu)
LeakyReLU = _activation("LeakyReLU", F.leaky_relu)
Hardtanh = _activation("Hardtanh", F.hardtanh)
Softplus = _activation("Softplus", F.softplus)
Softmax = _activation("Softmax", F.softmax)
LogSoftmax = _activation("LogSoftmax", F.log_softmax)


class Sequential(Module):
    def __init__(self, *modules: Any) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, m in modules[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(modules):
                self.add_module(str(i), m)

    def forward(self, input: Any) -> Any:  # noqa: A002
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, i: Any) -> Any:
        mods = list(self._modules.values())
        if isinstance(i, slice):
            return Sequential(*mods[i])
        return mods[i]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self


class ModuleList(Module):
    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        for i, m in enumerate(modules or []):
            self.add_module(str(i), m)

    def __getitem__(self, i: int) -> Any:
        return list(self._modules.values())[i]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self


def _loss(name: str, function: Any) -> type:
    def __init__(self: Module, *args: Any, reduction: str = "mean", **kwargs: Any) -> None:
        Module.__init__(self)
        kwargs.pop("size_average", None)
        kwargs.pop("reduce", None)
        self.reduction, self.kwargs = reduction, kwargs
        if args:  # the weight, as PyTorch's positional first argument
            self.kwargs["weight"] = args[0]

    def forward(self: Module, input: Any, target: Any) -> Any:  # noqa: A002
        return function(input, target, reduction=self.reduction, **self.kwargs)

    return type(name, (Module,), {"__init__": __init__, "forward": forward})


MSELoss = _loss("MSELoss", F.mse_loss)
L1Loss = _loss("L1Loss", F.l1_loss)
SmoothL1Loss = _loss("SmoothL1Loss", F.smooth_l1_loss)
HuberLoss = _loss("HuberLoss", F.huber_loss)
NLLLoss = _loss("NLLLoss", F.nll_loss)
CrossEntropyLoss = _loss("CrossEntropyLoss", F.cross_entropy)
BCELoss = _loss("BCELoss", F.binary_cross_entropy)
BCEWithLogitsLoss = _loss("BCEWithLogitsLoss", F.binary_cross_entropy_with_logits)

_ = np  # numpy is the layers' array type

"""`gradcalc.nn`: a small PyTorch-shaped neural-network library on gradcalc's tensors
(Module, Parameter, the common layers and losses, and `functional` as F). Imported only
when used: `import gradcalc` does not load it."""

from gradcalc.nn import functional, init
from gradcalc.nn.layers import (
    ELU,
    GELU,
    AvgPool2d,
    BCELoss,
    BCEWithLogitsLoss,
    Conv1d,
    Conv2d,
    CrossEntropyLoss,
    Dropout,
    Flatten,
    Hardtanh,
    HuberLoss,
    Identity,
    L1Loss,
    LeakyReLU,
    Linear,
    LogSoftmax,
    MaxPool2d,
    ModuleList,
    MSELoss,
    NLLLoss,
    ReLU,
    ReLU6,
    Sequential,
    Sigmoid,
    SiLU,
    SmoothL1Loss,
    Softmax,
    Softplus,
    Tanh,
)
from gradcalc.nn.module import Module, Parameter

__all__ = [
    "functional", "init", "Module", "Parameter", "GELU", "ELU", "AvgPool2d", "BCELoss",
    "BCEWithLogitsLoss", "Conv1d", "Conv2d", "CrossEntropyLoss", "Dropout", "Flatten",
    "Hardtanh", "HuberLoss", "Identity", "L1Loss", "LeakyReLU", "Linear", "LogSoftmax",
    "MaxPool2d", "ModuleList", "MSELoss", "NLLLoss", "ReLU", "ReLU6", "Sequential", "Sigmoid",
    "SiLU", "SmoothL1Loss", "Softmax", "Softplus", "Tanh",
]

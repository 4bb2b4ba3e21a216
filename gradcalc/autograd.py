"""`gradcalc.autograd`: the public face of the engine's autograd (PyTorch's `torch.autograd`).

The code lives in gradcalc.engine.autograd; this module is the name the tutorials import.
"""

from gradcalc.engine.autograd import (
    Function,
    FunctionCtx,
    Variable,
    backward,
    enable_grad,
    grad,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from gradcalc.engine.gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = [
    "Function", "FunctionCtx", "Variable", "backward", "grad", "no_grad", "enable_grad",
    "set_grad_enabled", "is_grad_enabled", "gradcheck", "gradgradcheck", "GradcheckError",
]

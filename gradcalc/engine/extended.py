"""The entries beyond gradcalc/engine/table.py's own, which the registry reads too: PyTorch's
activations and rounding (activations), rearranging and accumulating (arrange), einsum
(contract) and convolution (convolution); and, once they are registered, the Tensor's
methods with PyTorch's conventions (views, library)."""

from __future__ import annotations

from gradcalc.engine import activations, arrange, contract, convolution, library, views
from gradcalc.engine.primitive import Prim


def entries() -> list[Prim]:
    return [*activations.entries(), *arrange.entries(), *contract.entries(),
            *convolution.entries()]


def attach() -> None:
    """The Tensor methods that are not one entry's function (after registering)."""
    views.attach()
    library.attach()

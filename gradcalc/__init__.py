"""gradcalc: gradients, VJPs, Jacobians and Hessians on a small tape-based autograd engine.

`import gradcalc` gives a PyTorch-shaped library, so the tutorials' code runs with
`torch` replaced by `gradcalc`:

- tensors: `gradcalc.tensor(data, requires_grad=False)`, `ones`, `zeros`, `ones_like`,
  `zeros_like`, `full`, `arange`, `linspace`, `eye`, `stack`; everything is float64
  (`dtype=` accepts the float types and keeps float64);
- `y.backward(gradient=None, retain_graph=None, create_graph=False, inputs=None)`,
  `.grad` that accumulates, `x.grad.zero_()`, `gradcalc.autograd.grad`, custom
  `gradcalc.autograd.Function`s (see gradcalc.autograd);
- module-level functions with the command-line language's names (`gradcalc.sin`,
  `gradcalc.relu`, `gradcalc.sum`, ...): the same table of primitives (gradcalc.engine.table);
- functional helpers that take `f` and a point and return NumPy values: `grad`, `vjp`,
  `jvp`, `jacobian`, `hessian` (tuples of inputs allowed).

It never imports sympy; only the symbolic check does. The names live in gradcalc.api,
imported on the first use of one of them: the command line, which does not use them,
never loads the library.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """A subpackage (`gradcalc.nn`, `from gradcalc import autograd`) imported as such; any
    other name taken from gradcalc.api, imported on first use, and kept here."""
    if name.startswith("__") and name != "__all__":
        raise AttributeError(f"module 'gradcalc' has no attribute {name!r}")
    if importlib.util.find_spec(f"gradcalc.{name}") is not None:
        return importlib.import_module(f"gradcalc.{name}")
    from gradcalc import api

    value = getattr(api, name)  # its AttributeError names gradcalc for an unknown name
    if name in vars(api):  # not a primitive registered later: those can be taken out again
        globals()[name] = value
    return value


def __dir__() -> list[str]:
    from gradcalc import api

    return sorted(set(globals()) | set(api.__all__) | {"nn", "optim", "testing"})

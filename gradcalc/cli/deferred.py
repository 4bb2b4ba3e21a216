"""sympy's tensor module, loaded when it is used rather than on sympy's first sum.

Every `Add.flatten` in sympy runs `from sympy.tensor.tensor import TensExpr, TensAdd`
to ask whether a term is a tensor expression, so the first sum of a check imports
`sympy.tensor.tensor` and with it `sympy.combinatorics` (about 20 ms of a command's
start-up, docs/performance.md, W5). No term is a tensor expression until that module is
loaded (its classes are what make one), so until then the answer is no without it.
After `defer_sympy_tensors`, the first import of the module gives a stand-in that
answers that question and imports the real module for anything else asked of it (a
name, a tensor built): from then on, everyone gets the real one.
"""

from __future__ import annotations

import importlib
import sys
import types
from importlib.machinery import ModuleSpec
from typing import Any

#: sympy's module of tensor expressions
TENSORS = "sympy.tensor.tensor"
#: the names `Add.flatten` imports from it to test each term
ASKED_BY_SUMS = ("TensExpr", "TensAdd")


class _NoTensor:
    """`TensExpr` and `TensAdd` while sympy's tensor module is not loaded: no object is
    an instance, as no tensor expression can exist yet."""


class _TensorsOnFirstUse(types.ModuleType):
    """The stand-in for `sympy.tensor.tensor` (see the module's docstring)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the import system's questions (__path__, __file__)
            raise AttributeError(name)
        if name in ASKED_BY_SUMS and sys.modules.get(TENSORS) is self:
            return _NoTensor
        if sys.modules.get(TENSORS) is self:
            del sys.modules[TENSORS]  # so that the import below finds sympy's own
        return getattr(importlib.import_module(TENSORS), name)


class _StandInFinder:
    """On the import path until the first import of sympy's tensor module, which it
    answers with the stand-in (the import system then sets `sympy.tensor.tensor`)."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if name != TENSORS:
            return None
        sys.meta_path.remove(self)
        return ModuleSpec(name, self)

    def create_module(self, spec: ModuleSpec) -> types.ModuleType:
        return _TensorsOnFirstUse(spec.name, __doc__)

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the stand-in answers by `__getattr__`."""


def defer_sympy_tensors() -> None:
    """Answer the first import of sympy's tensor module with the stand-in (nothing is
    imported now; where that module is loaded already, nothing changes)."""
    if TENSORS not in sys.modules and not any(isinstance(f, _StandInFinder)
                                              for f in sys.meta_path):
        sys.meta_path.insert(0, _StandInFinder())

"""Each kind of problem's module, registered by its entry's name: the registry
(`registry.KINDS`) says what a kind is, its module here decides it.

A kind's module has `judge(function, answer, wrt, kind, settings, limits, wrt_from)`, the
verdict; `solve(function, wrt, kind, settings, limits, wrt_from, answer)`, the worked
solution; `prompt(kind, asked, wrt)`, what a sheet asks; and may have `reading` (how it
reads the two texts, for the notation traps) and `forget` (what it keeps between rows).
A new kind is its module, its entry in `registry.KINDS` and its line here.

A kind's module is imported when a problem of its kind is first met (a derivative's job
loads no curve, tangent or tensor judge: start-up is the product).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from gradcalc.homework.kinds.registry import ProblemKind

#: each kind's module by its entry's name: its dotted name until first used, then itself
MODULES: dict[str, ModuleType | str] = {
    "derivative": "gradcalc.homework.kinds.derivative",
    "antiderivative": "gradcalc.homework.kinds.antiderivative",
    "implicit": "gradcalc.homework.kinds.implicit",
    "tensor": "gradcalc.homework.kinds.tensor_loss",
    "tangent": "gradcalc.homework.kinds.tangent",
}


def module_of(entry: ProblemKind) -> ModuleType:
    """The module that decides problems of kind `entry` (imported on first use)."""
    module = MODULES[entry.name]
    if isinstance(module, str):
        module = MODULES[entry.name] = importlib.import_module(module)
    return module


def register(entry: ProblemKind, module: ModuleType) -> None:
    """A kind's module registered beside its entry (which `registry.register` added
    first, before anything took `Kind`)."""
    MODULES[entry.name] = module

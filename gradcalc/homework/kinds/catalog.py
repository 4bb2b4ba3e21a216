"""Each kind of problem's module, registered by its entry's name: the registry
(`registry.KINDS`) says what a kind is, its module here decides it.

A kind's module has `judge(function, answer, wrt, kind, settings, limits, wrt_from)`, the
verdict; `solve(function, wrt, kind, settings, limits, wrt_from, answer)`, the worked
solution; `prompt(kind, asked, wrt)`, what a sheet asks; and may have `reading` (how it
reads the two texts, for the notation traps) and `forget` (what it keeps between rows).
A new kind is its module, its entry in `registry.KINDS` and its line here.
"""

from __future__ import annotations

from types import ModuleType

from gradcalc.homework.kinds import antiderivative, derivative, implicit, tangent, tensor_loss
from gradcalc.homework.kinds.registry import ProblemKind

MODULES: dict[str, ModuleType] = {
    "derivative": derivative,
    "antiderivative": antiderivative,
    "implicit": implicit,
    "tensor": tensor_loss,
    "tangent": tangent,
}


def module_of(entry: ProblemKind) -> ModuleType:
    """The module that decides problems of kind `entry`."""
    return MODULES[entry.name]


def register(entry: ProblemKind, module: ModuleType) -> None:
    """A kind's module registered beside its entry (which `registry.register` added
    first, before anything took `Kind`)."""
    MODULES[entry.name] = module

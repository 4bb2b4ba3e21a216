"""`Module` and `Parameter`: PyTorch's container for parameters and sub-modules.

A `Parameter` is a leaf tensor that requires grad and that a Module registers when it is
assigned as an attribute; results of operations on it are plain tensors.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import numpy as np

from gradcalc.engine.tensor import Tensor, as_array


class Parameter(Tensor):
    """A tensor that is a module's parameter (requires grad unless told otherwise)."""

    __slots__ = ()

    def __new__(cls, data: Any = None, requires_grad: bool = True) -> Parameter:
        t = Tensor.__new__(cls)
        value = np.zeros(0) if data is None else (
            data.value if isinstance(data, Tensor) else as_array(data))
        t.value, t.node, t.grad, t._retain_grad = np.array(value, dtype=np.float64), None, None, \
            False
        t.requires_grad_(requires_grad)
        return t

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        pass

    @classmethod
    def wrap(cls, value: Any, node: Any) -> Tensor:
        return Tensor.wrap(value, node)  # what an operation makes is a plain tensor

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


class Module:
    """Base class: assign Parameters and Modules as attributes; define `forward`."""

    training: bool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign before Module.__init__() call")
        for table in (self._parameters, self._buffers, self._modules):
            table.pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        for table in ("_parameters", "_buffers", "_modules"):
            found = self.__dict__.get(table, {})
            if name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                return
        object.__delattr__(self, name)

    def register_buffer(self, name: str, tensor: Any, persistent: bool = True) -> None:
        self._buffers[name] = tensor

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        self._modules[name] = module

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    # the tree ---------------------------------------------------------------------------
    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        yield from ((n, m) for n, m in self._modules.items() if m is not None)

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def named_parameters(self, prefix: str = "", recurse: bool = True) -> Iterator[
            tuple[str, Parameter]]:
        seen: set[int] = set()
        mods = self.named_modules(prefix) if recurse else iter([(prefix, self)])
        for mod_prefix, m in mods:
            for name, p in m._parameters.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{mod_prefix}.{name}" if mod_prefix else name), p

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "") -> Iterator[tuple[str, Any]]:
        for mod_prefix, m in self.named_modules(prefix):
            for name, b in m._buffers.items():
                if b is not None:
                    yield (f"{mod_prefix}.{name}" if mod_prefix else name), b

    def buffers(self) -> Iterator[Any]:
        for _, b in self.named_buffers():
            yield b

    # modes, gradients, state ----------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad = Tensor.wrap(np.zeros(p.shape), None)

    def state_dict(self) -> OrderedDict:
        """Every parameter and buffer by its dotted name, as tensors cut from the graph."""
        out: OrderedDict = OrderedDict()
        for name, p in self.named_parameters():
            out[name] = p.detach()
        for name, b in self.named_buffers():
            out[name] = b.detach() if isinstance(b, Tensor) else b
        return out

    def load_state_dict(self, state_dict: Any, strict: bool = True) -> Any:
        own = dict(self.named_parameters())
        own.update(dict(self.named_buffers()))
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            parts = []
            if missing:
                parts.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing)
                             + ". ")
            if unexpected:
                parts.append("Unexpected key(s) in state_dict: "
                             + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(parts))
        for k, target in own.items():
            if k in state_dict:
                new = as_array(state_dict[k])
                if new.shape != target.shape:
                    raise RuntimeError(
                        f"Error(s) in loading state_dict for {type(self).__name__}:\n\tsize "
                        f"mismatch for {k}: copying a param with shape {list(new.shape)} from "
                        f"checkpoint, the shape in current model is {list(target.shape)}.")
                target.value = new
        return _Keys(missing, unexpected)

    def apply(self, fn: Any) -> Module:
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        return self  # one device, one dtype

    def double(self) -> Module:
        return self

    float = double
    cpu = double

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = [f"({n}): " + repr(m).replace("\n", "\n  ") for n, m in self._modules.items()]
        head = f"{type(self).__name__}({self.extra_repr()}"
        if not lines:
            return head + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"


class _Keys(tuple):
    def __new__(cls, missing: list, unexpected: list) -> _Keys:
        t = super().__new__(cls, (missing, unexpected))
        t.missing_keys, t.unexpected_keys = missing, unexpected
        return t

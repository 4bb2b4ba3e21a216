"""The Tensor's shape and arithmetic methods, with PyTorch's argument conventions.

Negative dims everywhere (a 0-d tensor accepts 0 and -1), `dim=` and NumPy's `axis=` both
accepted, `reshape`/`view` with one inferred -1, `expand(-1, ...)`, `squeeze` and
`unsqueeze` range errors, `permute` with negative or duplicate dims, and the methods
`add`/`sub` with `alpha=`, `mul`, `div` with `rounding_mode=`, `neg`, `pow`. The errors are
PyTorch's (same built-in class, same message). Everything here is built from the table's
primitives, so it records and differentiates like any other operation.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gradcalc.engine.primitive import PRIMITIVES, apply, fn
from gradcalc.engine.shapes import dim_index, shape_args, value
from gradcalc.engine.shapes import unsqueeze as _unsqueeze
from gradcalc.engine.tensor import Tensor, to_tensor


def pick_dim(dim: Any = None, axis: Any = None) -> Any:
    """PyTorch's `dim`, or NumPy's `axis` (torch takes both)."""
    if dim is not None and axis is not None:
        raise TypeError("received both dim and axis")
    return axis if dim is None else dim


def dims_of(dims: tuple, nd: int) -> tuple[int, ...]:
    """Dims given as numbers or one sequence, each in PyTorch's range."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    return tuple(dim_index(d, nd) for d in dims)


# --------------------------------------------------------------------------- reductions


def reduction(name: str) -> Any:
    def method(self: Any, dim: Any = None, keepdim: bool = False, *, axis: Any = None,
               keepdims: bool | None = None, dtype: Any = None) -> Tensor:
        keep = keepdim if keepdims is None else keepdims
        return to_tensor(getattr(fn, name)(self, pick_dim(dim, axis), keep))

    method.__name__ = method.__qualname__ = name
    return method


def along(name: str) -> Any:
    def method(self: Any, dim: Any = None, *, axis: Any = None, dtype: Any = None) -> Tensor:
        return to_tensor(getattr(fn, name)(self, pick_dim(dim, axis)))

    method.__name__ = method.__qualname__ = name
    return method


# --------------------------------------------------------------------------- arithmetic


def add(self: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """self + alpha * other (one node, as PyTorch's AddBackward0)."""
    if alpha == 1:
        return to_tensor(fn.add(self, other))
    return to_tensor(apply(PRIMITIVES["add_alpha"], self, other, alpha=float(alpha)))


def sub(self: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    if alpha == 1:
        return to_tensor(fn.sub(self, other))
    return to_tensor(apply(PRIMITIVES["add_alpha"], self, other, alpha=-float(alpha)))


def mul(self: Any, other: Any) -> Tensor:
    return to_tensor(fn.mul(self, other))


def div(self: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode not in (None, "trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or "
                           f"'floor' but found '{rounding_mode}'")
    out = to_tensor(fn.div(self, other))
    if rounding_mode is not None:
        out = to_tensor(getattr(fn, "trunc" if rounding_mode == "trunc" else "floor")(out))
    return out


def neg(self: Any) -> Tensor:
    return to_tensor(fn.neg(self))


def pow_(self: Any, exponent: Any) -> Tensor:
    return to_tensor(fn.pow(self, exponent))


def floor_divide(self: Any, other: Any) -> Tensor:
    """floor(self / other): a zero gradient, as PyTorch's."""
    return to_tensor(fn.floor(fn.div(self, other)))


def remainder(self: Any, other: Any) -> Tensor:
    """self − floor(self / other)·other (the sign of other, PyTorch's %): d/dself = 1,
    d/dother = −floor(self / other)."""
    return to_tensor(fn.sub(self, fn.mul(fn.floor(fn.div(self, other)), other)))


def fmod(self: Any, other: Any) -> Tensor:
    """self − trunc(self / other)·other (the sign of self)."""
    return to_tensor(fn.sub(self, fn.mul(fn.trunc(fn.div(self, other)), other)))


# --------------------------------------------------------------------------- shapes


def view_to(self: Tensor, new_shape: tuple[int, ...]) -> Tensor:
    """A reshape that is recorded even to the same shape: PyTorch's view is a new,
    non-leaf tensor."""
    if tuple(new_shape) == self.shape:
        return to_tensor(apply(PRIMITIVES["reshape"], self, new_shape=self.shape))
    return to_tensor(fn.reshape(self, new_shape))


def reshape(self: Tensor, *new_shape: Any) -> Tensor:
    return view_to(self, shape_args(new_shape, self.shape))


def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    s = self.shape
    if not s:
        return view_to(self, (1,))
    a, b = dim_index(start_dim, len(s)), dim_index(end_dim, len(s))
    if a > b:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if a == b:
        return self
    return view_to(self, s[:a] + (math.prod(s[a:b + 1]),) + s[b + 1:])


def unflatten(self: Tensor, dim: int, sizes: Any) -> Tensor:
    s = self.shape
    d = dim_index(dim, len(s))
    inner = shape_args((tuple(sizes),), (s[d],))
    return view_to(self, s[:d] + inner + s[d + 1:])


def unsqueeze(self: Tensor, dim: int) -> Tensor:
    return to_tensor(_unsqueeze(self, dim))


def squeeze(self: Tensor, dim: Any = None) -> Tensor:
    s = self.shape
    if dim is None:
        return view_to(self, tuple(d for d in s if d != 1))
    drop = set(dims_of((dim,) if not isinstance(dim, (tuple, list)) else tuple(dim), len(s)))
    return view_to(self, tuple(d for i, d in enumerate(s) if not (i in drop and d == 1)))


def t(self: Tensor) -> Tensor:
    if self.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{self.ndim}D")
    return view_to(self, self.shape) if self.ndim < 2 else to_tensor(fn.transpose(self))


def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    axes = list(range(self.ndim))
    a, b = dim_index(dim0, self.ndim), dim_index(dim1, self.ndim)
    if self.ndim < 2:
        return view_to(self, self.shape)
    axes[a], axes[b] = axes[b], axes[a]
    return to_tensor(fn.transpose(self, axes))


def permute(self: Tensor, *dims: Any) -> Tensor:
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    if len(dims) != self.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match "
            "the length of the desired ordering of dimensions i.e. input.dim() = "
            f"{self.ndim} is not equal to len(dims) = {len(dims)}")
    axes = dims_of(dims, self.ndim)
    if len(set(axes)) != len(axes):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    if self.ndim == 0:
        return view_to(self, ())
    return to_tensor(fn.transpose(self, axes))


def expand(self: Tensor, *sizes: Any) -> Tensor:
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    sizes = tuple(int(value(d)) for d in sizes)
    s = self.shape
    if len(sizes) < len(s):
        raise RuntimeError(
            f"expand(torch.DoubleTensor{{[{', '.join(map(str, s))}]}}, size=["
            f"{', '.join(map(str, sizes))}]): the number of sizes provided ({len(sizes)}) must "
            f"be greater or equal to the number of dimensions in the tensor ({len(s)})")
    lead = len(sizes) - len(s)
    out = []
    for i, d in enumerate(sizes):
        if i < lead:
            if d < 0:
                raise RuntimeError(f"The expanded size of the tensor ({d}) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            out.append(d)
            continue
        have = s[i - lead]
        if d == -1:
            d = have
        if have != d and have != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({d}) must match the existing size ({have}) "
                f"at non-singleton dimension {i}.  Target sizes: [{', '.join(map(str, sizes))}]"
                f".  Tensor sizes: [{', '.join(map(str, s))}]")
        out.append(d)
    new = tuple(out)
    return view_to(self, new) if new == s else to_tensor(fn.broadcast_to(self, new))


def as_float(self: Tensor) -> Tensor:
    """A floating-point tensor: itself when it is one already (like torch's double() on
    a double tensor), else a float64 constant marked floating."""
    if self.floating:
        return self
    return Tensor.wrap(np.asarray(self.value, dtype=np.float64), None).as_floating()


def as_bool(self: Tensor) -> Tensor:
    return Tensor.wrap(np.asarray(self.value) != 0, None)


def as_long(self: Tensor) -> Tensor:
    """Whole numbers (truncated toward zero) as an index tensor, never differentiated."""
    return Tensor.wrap(np.trunc(np.asarray(self.value, dtype=np.float64)).astype(np.int64), None)


METHODS: dict[str, Any] = {
    "sum": reduction("sum"), "mean": reduction("mean"), "prod": reduction("prod"),
    "add": add, "sub": sub, "subtract": sub, "mul": mul, "multiply": mul, "div": div,
    "divide": div, "true_divide": div, "neg": neg, "negative": neg, "pow": pow_,
    "reshape": reshape, "view": reshape, "flatten": flatten, "unflatten": unflatten,
    "unsqueeze": unsqueeze, "squeeze": squeeze, "t": t, "transpose": transpose,
    "swapaxes": transpose, "permute": permute, "expand": expand,
    "expand_as": lambda self, other: expand(self, *other.shape),
    "reshape_as": lambda self, other: reshape(self, *other.shape),
    "view_as": lambda self, other: reshape(self, *other.shape),
    "contiguous": lambda self, *a, **k: self,
    "float": as_float, "double": as_float, "bool": as_bool, "long": as_long, "int": as_long,
    "dot": lambda self, other: to_tensor(fn.matmul(self, other)),
    "norm": lambda self: to_tensor(fn.norm(self)),
    "floor_divide": floor_divide, "__floordiv__": floor_divide,
    "__rfloordiv__": lambda self, other: floor_divide(other, self),
    "remainder": remainder, "__mod__": remainder,
    "__rmod__": lambda self, other: remainder(other, self), "fmod": fmod,
}


def attach() -> None:
    """The methods on the Tensor class, and `dim=`/`axis=` for every entry along axes."""
    for prim in PRIMITIVES.values():
        if prim.axis and prim.methods:
            keeps = prim.call is not None and "keepdims" in prim.call.__code__.co_varnames
            for name in prim.methods:
                setattr(Tensor, name, reduction(name) if keeps else along(name))
    for name, method in METHODS.items():
        setattr(Tensor, name, method)

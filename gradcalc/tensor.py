"""The Tensor: a NumPy value plus, when it takes part in differentiation, its tape node.

Shaped like torch.Tensor, so the tutorials' code runs with `torch` replaced by
`gradcalc`. Every operation is a primitive from `ops.PRIMITIVES`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import ops
from .tape import Node, leaf_node


def as_array(data: Any) -> np.ndarray:
    """float64 (or bool) NumPy value of any array-like, tensors and lists of tensors included."""
    if isinstance(data, Tensor):
        return np.array(data._value, copy=True)
    if isinstance(data, (list, tuple)) and any(isinstance(d, Tensor) for d in data):
        data = [as_array(d) for d in data]
    array = np.asarray(data)
    if array.dtype == bool:
        return array
    return array.astype(np.float64)


def _unwrap_index(index: Any) -> Any:
    if isinstance(index, tuple):
        return tuple(_unwrap_index(i) for i in index)
    if isinstance(index, Tensor):
        v = index._value
        return v if v.dtype == bool else v.astype(np.int64)
    return index


class Tensor:
    """An n-dimensional float64 array that can record the operations applied to it."""

    __slots__ = ("_value", "_node", "grad", "_retain_grad", "__weakref__")
    __array_ufunc__ = None  # NumPy defers to our reflected operators
    __array_priority__ = 1000

    def __init__(self, data: Any, requires_grad: bool = False) -> None:
        self._value = as_array(data)
        self.grad: Tensor | None = None
        self._retain_grad = False
        self._node: Node | None = None
        if requires_grad:
            self.requires_grad_(True)

    @classmethod
    def _wrap(cls, value: Any, node: Node | None) -> Tensor:
        t = cls.__new__(cls)
        t._value, t._node, t.grad, t._retain_grad = value, node, None, False
        return t

    # attributes -----------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._node is not None

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if not self.is_leaf:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables.")
        if requires_grad and np.asarray(self._value).dtype == bool:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._node = leaf_node(self) if requires_grad else None
        return self

    @property
    def is_leaf(self) -> bool:
        return self._node is None or self._node.prim is None

    @property
    def grad_fn(self) -> Node | None:
        return None if self.is_leaf else self._node

    @property
    def shape(self) -> tuple[int, ...]:
        return np.shape(self._value)

    def size(self, dim: int | None = None) -> Any:
        return self.shape if dim is None else self.shape[dim]

    @property
    def ndim(self) -> int:
        return np.ndim(self._value)

    def dim(self) -> int:
        return self.ndim

    def numel(self) -> int:
        return int(np.size(self._value))

    @property
    def dtype(self) -> np.dtype:
        return np.asarray(self._value).dtype

    @property
    def data(self) -> Tensor:
        return Tensor._wrap(self._value, None)

    @property
    def T(self) -> Tensor:  # noqa: N802 - PyTorch's name
        return ops.transpose(self)

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    # conversions ----------------------------------------------------------------------
    def item(self) -> float:
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        return np.asarray(self._value).reshape(-1)[0].item()

    def tolist(self) -> Any:
        return np.asarray(self._value).tolist()

    def numpy(self) -> np.ndarray:
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead.")
        return np.asarray(self._value)

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with {self.numel()} values is ambiguous")
        return bool(self.item())

    def __index__(self) -> int:
        return int(self.item())

    def detach(self) -> Tensor:
        return Tensor._wrap(self._value, None)

    def clone(self) -> Tensor:
        return ops.clone(self)

    def zero_(self) -> Tensor:
        self._value = np.zeros_like(np.asarray(self._value, dtype=np.float64))
        return self

    def retain_grad(self) -> None:
        self._retain_grad = True

    def __repr__(self) -> str:
        body = np.array2string(np.asarray(self._value), separator=", ", precision=4,
                               floatmode="maxprec_equal", prefix="tensor(")
        extra = ""
        if self.grad_fn is not None:
            extra = f", grad_fn=<{self.grad_fn.name()}>"
        elif self.requires_grad:
            extra = ", requires_grad=True"
        return f"tensor({body}{extra})"

    # arithmetic -----------------------------------------------------------------------
    def __add__(self, other: Any) -> Tensor:
        return ops.add(self, other)

    def __radd__(self, other: Any) -> Tensor:
        return ops.add(other, self)

    def __sub__(self, other: Any) -> Tensor:
        return ops.sub(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return ops.sub(other, self)

    def __mul__(self, other: Any) -> Tensor:
        return ops.mul(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return ops.mul(other, self)

    def __truediv__(self, other: Any) -> Tensor:
        return ops.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return ops.div(other, self)

    def __pow__(self, other: Any) -> Tensor:
        return ops.pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return ops.pow(other, self)

    def __matmul__(self, other: Any) -> Tensor:
        return ops.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return ops.matmul(other, self)

    def __neg__(self) -> Tensor:
        return ops.neg(self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return ops.abs(self)

    # comparisons give boolean tensors that are never differentiated
    def _compare(self, other: Any, fn: Any) -> Tensor:
        return Tensor._wrap(fn(self._value, ops.value(other)), None)

    def __lt__(self, other: Any) -> Tensor:
        return self._compare(other, np.less)

    def __le__(self, other: Any) -> Tensor:
        return self._compare(other, np.less_equal)

    def __gt__(self, other: Any) -> Tensor:
        return self._compare(other, np.greater)

    def __ge__(self, other: Any) -> Tensor:
        return self._compare(other, np.greater_equal)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return self._compare(other, np.equal)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return self._compare(other, np.not_equal)

    def __and__(self, other: Any) -> Tensor:
        return self._compare(other, np.logical_and)

    def __or__(self, other: Any) -> Tensor:
        return self._compare(other, np.logical_or)

    def __invert__(self) -> Tensor:
        return Tensor._wrap(np.logical_not(self._value), None)

    __hash__ = object.__hash__

    # indexing -------------------------------------------------------------------------
    def __getitem__(self, index: Any) -> Tensor:
        return ops.getitem(self, _unwrap_index(index))

    def __setitem__(self, index: Any, v: Any) -> None:
        if self.requires_grad and self.is_leaf:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation.")
        result = ops.index_put(self, _unwrap_index(index), v)
        if not isinstance(result, Tensor):
            result = Tensor._wrap(result, None)
        self._value, self._node = result._value, result._node

    # reductions and shape -------------------------------------------------------------
    def sum(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        return ops.sum(self, dim, keepdim)

    def mean(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        return ops.mean(self, dim, keepdim)

    def prod(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        return ops.prod(self, dim, keepdim)

    def norm(self) -> Tensor:
        return ops.norm(self)

    def reshape(self, *new_shape: Any) -> Tensor:
        return _as_tensor(ops.reshape(self, _shape_args(new_shape, self.shape)))

    view = reshape

    def unsqueeze(self, dim: int) -> Tensor:
        return _as_tensor(ops.unsqueeze(self, dim))

    def squeeze(self, dim: int | None = None) -> Tensor:
        s = self.shape
        if dim is None:
            new = tuple(d for d in s if d != 1)
        else:
            dim = dim % max(len(s), 1)
            new = s[:dim] + s[dim + 1:] if s and s[dim] == 1 else s
        return _as_tensor(ops.reshape(self, new))

    def t(self) -> Tensor:
        if self.ndim > 2:
            raise RuntimeError("t() expects a tensor with <= 2 dimensions")
        return self if self.ndim < 2 else ops.transpose(self)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        axes = list(range(self.ndim))
        axes[dim0], axes[dim1] = axes[dim1], axes[dim0]
        return ops.transpose(self, axes)

    def expand(self, *new_shape: Any) -> Tensor:
        return _as_tensor(ops.broadcast_to(self, _shape_args(new_shape, self.shape)))

    # elementwise functions ------------------------------------------------------------
    def clamp(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        return ops.clamp(self, min, max)

    clip = clamp

    def pow(self, exponent: Any) -> Tensor:
        return ops.pow(self, exponent)

    def matmul(self, other: Any) -> Tensor:
        return ops.matmul(self, other)

    def dot(self, other: Any) -> Tensor:
        return ops.dot(self, other)

    def backward(self, gradient: Any = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Any = None) -> None:
        from .autograd import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _shape_args(args: tuple, current: tuple[int, ...]) -> tuple[int, ...]:
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    dims = [int(a) for a in args]
    if -1 in dims:
        known = int(np.prod([d for d in dims if d != -1]))
        dims[dims.index(-1)] = int(np.prod(current)) // max(known, 1)
    return tuple(dims)


def _as_tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor._wrap(x, None)


_METHODS = ("exp log log2 log10 sin cos tan asin acos atan sinh cosh tanh sqrt abs sign "
            "relu sigmoid softplus").split()
for _name in _METHODS:
    setattr(Tensor, _name, getattr(ops, _name))
del _name

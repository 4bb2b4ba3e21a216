"""The Tensor: a NumPy value plus, when it takes part in differentiation, its tape node.

Shaped like torch.Tensor, so the tutorials' code runs with `torch` replaced by
`gradcalc`. Every differentiable operation is a primitive from `ops.PRIMITIVES`.

Values are float64 (comparisons give booleans). A tensor never shares its array with
another one that could change it: operations, index assignment and in-place methods
all build a new array and rebind it, so values saved on the tape stay as they were.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np

from gradcalc.engine import ops, tape
from gradcalc.engine.tape import Node, leaf_node

LEAF_INPLACE_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."

# Non-leaf tensors whose .grad is kept (Tensor.retain_grad), by their tape node.
_retained: weakref.WeakKeyDictionary[Node, weakref.ref] = weakref.WeakKeyDictionary()


def _plain(data: Any) -> Any:
    """`data` with every tensor inside (nested lists and tuples too) replaced by its value."""
    if isinstance(data, Tensor):
        return data._value
    if isinstance(data, (list, tuple)):
        return [_plain(d) for d in data]
    return data


def as_array(data: Any) -> np.ndarray:
    """float64 (or bool) NumPy copy of any array-like, tensors and lists of tensors included."""
    array = np.array(_plain(data), copy=True)
    if array.dtype == bool:
        return array
    if array.dtype == object or array.dtype.kind in "USV":
        raise TypeError(f"can't make a float64 tensor from {type(data).__name__} data "
                        f"{_short(data)}")
    if np.iscomplexobj(array):
        raise TypeError("complex tensors are not supported (gradcalc computes in float64)")
    return array.astype(np.float64)


def _short(data: Any) -> str:
    text = repr(data)
    return text if len(text) <= 60 else text[:57] + "..."


def _unwrap_index(index: Any) -> Any:
    if isinstance(index, tuple):
        return tuple(_unwrap_index(i) for i in index)
    if isinstance(index, Tensor):
        v = index._value
        return v if v.dtype == bool else v.astype(np.int64)
    if isinstance(index, list):
        v = np.asarray(_plain(index))
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

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if not self.is_leaf:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if requires_grad and np.asarray(self._value).dtype == bool:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients")
        if requires_grad and self._node is None:
            self._node = leaf_node(self)
        elif not requires_grad:
            self._node = None
        return self

    @property
    def is_leaf(self) -> bool:
        return self._node is None or self._node.prim is None

    @property
    def grad_fn(self) -> Node | None:
        """The tape node that made this tensor (None for leaves), named like PyTorch's."""
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
        """The same values, cut from the graph (like torch's .data)."""
        return Tensor._wrap(self._value, None)

    @data.setter
    def data(self, new: Any) -> None:
        self._value = as_array(new)

    @property
    def T(self) -> Tensor:  # noqa: N802 - PyTorch's name
        return ops.transpose(self)

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self)))

    # conversions ----------------------------------------------------------------------
    def item(self) -> Any:
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

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __index__(self) -> int:
        if self.numel() != 1 or self.dtype == bool or self.item() != int(self.item()):
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:
            return format(self.item(), spec)
        return format(repr(self), spec)

    def detach(self) -> Tensor:
        return Tensor._wrap(self._value, None)

    def clone(self) -> Tensor:
        return _as_tensor(ops.clone(self))

    def double(self) -> Tensor:
        """Already float64: the tensor itself (like torch's double() on a double tensor)."""
        return self

    float = double  # everything is float64; float() keeps it so

    def retain_grad(self) -> None:
        """Keep .grad for this non-leaf tensor after backward (leaves always keep theirs)."""
        if self._node is None:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        self._retain_grad = True
        if not self.is_leaf:
            _retained[self._node] = weakref.ref(self)

    @property
    def retains_grad(self) -> bool:
        return self._retain_grad and not self.is_leaf

    def __repr__(self) -> str:
        return _tensor_repr(self)

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

    # in place: the tensor is rebound to the result (see the module's docstring)
    def _check_inplace(self) -> None:
        if self.requires_grad and self.is_leaf and tape.grad_enabled():
            raise RuntimeError(LEAF_INPLACE_MESSAGE)

    def _rebind(self, result: Any) -> Tensor:
        result = _as_tensor(result)
        if result.shape != self.shape:
            raise RuntimeError(
                f"output with shape {list(self.shape)} doesn't match the broadcast shape "
                f"{list(result.shape)}")
        self._value = result._value
        if tape.grad_enabled():
            self._node = result._node
        return self

    def _inplace(self, fn: Any, other: Any) -> Tensor:
        self._check_inplace()
        return self._rebind(fn(self, other))

    def __iadd__(self, other: Any) -> Tensor:
        return self._inplace(ops.add, other)

    def __isub__(self, other: Any) -> Tensor:
        return self._inplace(ops.sub, other)

    def __imul__(self, other: Any) -> Tensor:
        return self._inplace(ops.mul, other)

    def __itruediv__(self, other: Any) -> Tensor:
        return self._inplace(ops.div, other)

    def add_(self, other: Any, alpha: Any = 1) -> Tensor:
        if alpha == 1:
            return self._inplace(ops.add, other)
        self._check_inplace()
        return self._rebind(ops.apply(_ADD_ALPHA, self, other, alpha=float(alpha)))

    def sub_(self, other: Any, alpha: Any = 1) -> Tensor:
        if alpha == 1:
            return self._inplace(ops.sub, other)
        self._check_inplace()
        return self._rebind(ops.apply(_ADD_ALPHA, self, other, alpha=-float(alpha)))

    def mul_(self, other: Any) -> Tensor:
        return self._inplace(ops.mul, other)

    def div_(self, other: Any) -> Tensor:
        return self._inplace(ops.div, other)

    def copy_(self, src: Any) -> Tensor:
        self._check_inplace()
        src = src if isinstance(src, Tensor) else as_array(src)
        return self._rebind(ops.apply(_OVERWRITE["copy_"], self, src))

    def fill_(self, number: Any) -> Tensor:
        self._check_inplace()
        return self._rebind(ops.apply(_OVERWRITE["fill_"], self, float(ops.value(number))))

    def zero_(self) -> Tensor:
        """Set every element to 0 (how `x.grad.zero_()` clears accumulated gradients)."""
        self._check_inplace()
        return self._rebind(ops.apply(_OVERWRITE["zero_"], self, 0.0))

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

    def equal(self, other: Any) -> bool:
        """True when the shapes and all values agree (torch.equal)."""
        o = ops.value(other)
        return self.shape == np.shape(o) and bool(np.all(self._value == o))

    def allclose(self, other: Any, rtol: float = 1e-05, atol: float = 1e-08) -> bool:
        return bool(np.allclose(self._value, ops.value(other), rtol=rtol, atol=atol))

    # indexing -------------------------------------------------------------------------
    def __getitem__(self, index: Any) -> Tensor:
        return ops.getitem(self, _unwrap_index(index))

    def __setitem__(self, index: Any, v: Any) -> None:
        """`t[index] = v`, differentiable in `v` (and in the rest of `t`)."""
        self._check_inplace()
        if isinstance(v, (list, tuple)):
            v = as_array(v)
        result = _as_tensor(ops.index_put(self, _unwrap_index(index), v))
        self._value = result._value
        if tape.grad_enabled():
            self._node = result._node

    # reductions and shape -------------------------------------------------------------
    def sum(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        return _as_tensor(ops.sum(self, dim, keepdim))

    def mean(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        return _as_tensor(ops.mean(self, dim, keepdim))

    def prod(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        return _as_tensor(ops.prod(self, dim, keepdim))

    def norm(self) -> Tensor:
        """The 2-norm of all elements."""
        return _as_tensor(ops.norm(self))

    def _view(self, new_shape: tuple[int, ...]) -> Tensor:
        """A reshape that is recorded even to the same shape: PyTorch's view is a new,
        non-leaf tensor."""
        if tuple(new_shape) == self.shape:
            return _as_tensor(ops.apply(ops.PRIMITIVES["reshape"], self, new_shape=self.shape))
        return _as_tensor(ops.reshape(self, new_shape))

    def reshape(self, *new_shape: Any) -> Tensor:
        return self._view(_shape_args(new_shape, self.shape))

    view = reshape

    def flatten(self) -> Tensor:
        return self if self.ndim == 1 else self.reshape(-1)

    def unsqueeze(self, dim: int) -> Tensor:
        return _as_tensor(ops.unsqueeze(self, dim))

    def squeeze(self, dim: int | None = None) -> Tensor:
        s = self.shape
        if dim is None:
            new = tuple(d for d in s if d != 1)
        else:
            dim = dim % max(len(s), 1)
            new = s[:dim] + s[dim + 1:] if s and s[dim] == 1 else s
        return self._view(new)

    def t(self) -> Tensor:
        if self.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                               f"{self.ndim}D")
        return self._view(self.shape) if self.ndim < 2 else _as_tensor(ops.transpose(self))

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        axes = list(range(self.ndim))
        axes[dim0], axes[dim1] = axes[dim1], axes[dim0]
        return _as_tensor(ops.transpose(self, axes))

    def permute(self, *dims: Any) -> Tensor:
        axes = _shape_args(dims, self.shape)
        if len(axes) != self.ndim:
            raise RuntimeError(
                "permute(sparse_coo): number of dimensions in the tensor input does not match "
                "the length of the desired ordering of dimensions i.e. input.dim() = "
                f"{self.ndim} is not equal to len(dims) = {len(axes)}")
        return _as_tensor(ops.transpose(self, axes))

    def expand(self, *new_shape: Any) -> Tensor:
        shape = _shape_args(new_shape, self.shape)
        return self._view(shape) if shape == self.shape else _as_tensor(
            ops.broadcast_to(self, shape))

    # elementwise functions ------------------------------------------------------------
    def clamp(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        return ops.clamp(self, min, max)

    clip = clamp

    def pow(self, exponent: Any) -> Tensor:
        return ops.pow(self, exponent)

    def matmul(self, other: Any) -> Tensor:
        return ops.matmul(self, other)

    mm = mv = matmul

    def dot(self, other: Any) -> Tensor:
        return ops.dot(self, other)

    def maximum(self, other: Any) -> Tensor:
        return ops.maximum(self, other)

    def minimum(self, other: Any) -> Tensor:
        return ops.minimum(self, other)

    def atan2(self, other: Any) -> Tensor:
        return ops.atan2(self, other)

    def backward(self, gradient: Any = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Any = None) -> None:
        """Accumulate d(self)/d(leaf), weighted by `gradient`, into every leaf's .grad."""
        from gradcalc.engine.autograd import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _overwrite(x: Any, src: Any) -> np.ndarray:
    return np.array(np.broadcast_to(src, np.shape(x)), dtype=np.float64)


def _overwritten_vjp(g: Any, ans: Any, x: Any, src: Any) -> np.ndarray:
    return np.zeros(ops.shape(g))  # the old values do not reach the result: a constant 0


def _source_vjp(g: Any, ans: Any, x: Any, src: Any) -> Any:
    return ops.unbroadcast(g, ops.shape(ans), ops.shape(src))


# In-place overwrites keep the tensor's history, as PyTorch's ZeroBackward0, FillBackward2
# and CopyBackwards do: the old values get a zero gradient, copy_'s source gets g.
_OVERWRITE = {name: ops.Prim(name, _overwrite, (_overwritten_vjp, _source_vjp), grad_fn=fn)
              for name, fn in (("zero_", "ZeroBackward0"), ("fill_", "FillBackward2"),
                               ("copy_", "CopyBackwards"))}


# x + alpha * y as one node that, like PyTorch's AddBackward0, saves no tensor
_ADD_ALPHA = ops.Prim(
    "add_alpha", lambda x, y, alpha: np.add(x, np.multiply(alpha, y)),
    (lambda g, ans, x, y, alpha: ops.unbroadcast(g, ops.shape(ans), ops.shape(x)),
     lambda g, ans, x, y, alpha: ops.unbroadcast(g * alpha, ops.shape(ans), ops.shape(y))),
    grad_fn="AddBackward0")


def _shape_args(args: tuple, current: tuple[int, ...]) -> tuple[int, ...]:
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    dims = [int(a) for a in args]
    if -1 in dims:
        known = int(np.prod([d for d in dims if d != -1]))
        dims[dims.index(-1)] = int(np.prod(current)) // max(known, 1)
    return tuple(dims)


def _as_tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor._wrap(np.asarray(x), None)


_METHODS = ("exp log log2 log10 sin cos tan asin acos atan sinh cosh tanh sqrt abs sign "
            "relu sigmoid softplus").split()
for _name in _METHODS:
    setattr(Tensor, _name, getattr(ops, _name))
del _name
Tensor.arcsin, Tensor.arccos, Tensor.arctan = Tensor.asin, Tensor.acos, Tensor.atan  # type: ignore


# --------------------------------------------------------------------------- printing
# A port of PyTorch's tensor printing (torch/_tensor_str.py) with its default options, so a
# tensor prints as it does in the tutorials: `tensor([ 512.,  768., 1024.])`,
# `tensor(91.5000, grad_fn=<MeanBackward0>)`. gradcalc's dtype is float64 throughout, so
# it is never shown (as PyTorch omits the default dtype).

PRECISION, LINEWIDTH, THRESHOLD, EDGEITEMS = 4, 80, 1000, 3


class _Formatter:
    """Chooses one format for all elements: integers `4.`, fixed `1.5000`, or `1.0000e-05`."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype != bool
        self.int_mode, self.sci_mode, self.width = True, False, 1
        flat = values.reshape(-1)
        if not self.floating:
            self.width = max((len(str(bool(v))) for v in flat), default=1)
            return
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        magnitudes = np.abs(finite)
        low, high = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        self.sci_mode = high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4
        if self.sci_mode:
            self.width = max(len(f"{v:.{PRECISION}e}") for v in finite)
        elif self.int_mode:
            self.width = max(len(f"{v:.0f}") + 1 for v in finite)
        else:
            self.width = max(len(f"{v:.{PRECISION}f}") for v in finite)

    def format(self, v: Any) -> str:
        if not self.floating:
            text = str(bool(v))
        elif self.sci_mode:
            text = f"{v:{self.width}.{PRECISION}e}"
        elif self.int_mode:
            text = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            text = f"{v:.{PRECISION}f}"
        return text.rjust(self.width)


def _summarized(v: np.ndarray) -> np.ndarray:
    """The elements that a summarized print shows (the first and last EDGEITEMS per axis)."""
    if v.ndim == 0:
        return v
    if v.ndim == 1:
        return np.concatenate((v[:EDGEITEMS], v[-EDGEITEMS:])) if len(v) > 2 * EDGEITEMS else v
    rows = (list(range(EDGEITEMS)) + list(range(len(v) - EDGEITEMS, len(v)))
            if len(v) > 2 * EDGEITEMS else range(len(v)))
    return np.stack([_summarized(v[i]) for i in rows])


def _vector_str(v: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    per_line = max(1, math.floor((LINEWIDTH - indent) / (fmt.width + 2)))
    if summarize and len(v) > 2 * EDGEITEMS:
        data = ([fmt.format(x) for x in v[:EDGEITEMS].tolist()] + [" ..."]
                + [fmt.format(x) for x in v[-EDGEITEMS:].tolist()])
    else:
        data = [fmt.format(x) for x in v.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _array_str(v: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if v.ndim == 0:
        return fmt.format(v.item())
    if v.ndim == 1:
        return _vector_str(v, indent, summarize, fmt)
    if summarize and len(v) > 2 * EDGEITEMS:
        slices = ([_array_str(v[i], indent + 1, summarize, fmt) for i in range(EDGEITEMS)]
                  + ["..."]
                  + [_array_str(v[i], indent + 1, summarize, fmt)
                     for i in range(len(v) - EDGEITEMS, len(v))])
    else:
        slices = [_array_str(v[i], indent + 1, summarize, fmt) for i in range(len(v))]
    return "[" + ("," + "\n" * (v.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def format_array(value: Any, indent: int = len("tensor(")) -> str:
    """The body of a tensor's print, as PyTorch lays it out."""
    v = np.asarray(value)
    if v.size == 0:
        return "[]"
    summarize = v.size > THRESHOLD
    return _array_str(v, indent, summarize, _Formatter(_summarized(v) if summarize else v))


def _tensor_repr(t: Tensor) -> str:
    prefix = "tensor("
    indent = len(prefix)
    body = format_array(t._value, indent)
    suffixes = []
    if t.numel() == 0 and t.ndim != 1:
        suffixes.append(f"size={tuple(t.shape)}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    text = prefix + body
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > LINEWIDTH:
            text += ",\n" + " " * indent + suffix
            last_line = indent + len(suffix)
        else:
            text += ", " + suffix
            last_line += len(suffix) + 2
    return text + ")"

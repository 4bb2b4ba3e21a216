"""The Tensor: a NumPy value plus, when it takes part in differentiation, its tape node.

Shaped like torch.Tensor, so the tutorials' code runs with `torch` replaced by
`gradcalc`. Every differentiable operation is a primitive from `fn.PRIMITIVES`.

Values are float64 (comparisons give booleans). A tensor never shares its array with
another one that could change it: operations, index assignment and in-place methods
all build a new array and rebind it, so values saved on the tape stay as they were.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from gradcalc.engine import tape
from gradcalc.engine.indexing import steps, unwrap_index
from gradcalc.engine.primitive import PRIMITIVES, Traced, apply, fn, make_plainly
from gradcalc.engine.printing import tensor_repr
from gradcalc.engine.shapes import value
from gradcalc.engine.tape import Node, leaf_node

LEAF_INPLACE_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."

#: non-leaf tensors whose .grad is kept (Tensor.retain_grad), by their tape node
retained: weakref.WeakKeyDictionary[Node, weakref.ref] = weakref.WeakKeyDictionary()


def _plain(data: Any) -> Any:
    """`data` with every tensor inside (nested lists and tuples too) replaced by its value."""
    if isinstance(data, Tensor):
        return data.value
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
    return array.astype(np.float64, copy=False)  # already a copy: no second one


def made_floating(data: Any) -> bool:
    """Whether PyTorch makes a floating-point tensor of `data`: fractions' dtype, or a
    floating tensor, not integers (`tensor([0, 1])` is an int64 one there)."""
    if isinstance(data, Tensor):
        return data.floating
    return np.asarray(_plain(data)).dtype.kind == "f"


def _short(data: Any) -> str:
    text = repr(data)
    return text if len(text) <= 60 else text[:57] + "..."


class Tensor(Traced):
    """An n-dimensional float64 array that can record the operations applied to it.

    `value` is its NumPy array and `node` the tape node that made it (a leaf's own node
    when it requires grad; None for a constant). `backward` comes from
    gradcalc/engine/autograd.py, which sits above this module."""

    __slots__ = ("grad", "_retain_grad", "__weakref__")
    __array_ufunc__ = None  # NumPy defers to our reflected operators
    __array_priority__ = 1000

    def __init__(self, data: Any, requires_grad: bool = False) -> None:
        self.value = as_array(data)
        self.grad: Tensor | None = None
        self._retain_grad = False
        self._floating = True  # torch.Tensor(data) makes a floating-point tensor
        self.node: Node | None = None
        if requires_grad:
            self.requires_grad_(True)

    @classmethod
    def wrap(cls, value: Any, node: Node | None) -> Tensor:
        """A tensor around `value` (not copied) made by `node` (None: a constant)."""
        t = cls.__new__(cls)
        t.value, t.node, t.grad, t._retain_grad = value, node, None, False
        return t

    # attributes -----------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self.node is not None

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
        if requires_grad and np.asarray(self.value).dtype == bool:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients")
        if requires_grad and self.node is None:
            self.node = leaf_node(self)
        elif not requires_grad:
            self.node = None
        return self

    @property
    def is_leaf(self) -> bool:
        return self.node is None or self.node.prim is None

    @property
    def grad_fn(self) -> Node | None:
        """The tape node that made this tensor (None for leaves), named like PyTorch's."""
        return None if self.is_leaf else self.node

    @property
    def shape(self) -> tuple[int, ...]:
        return np.shape(self.value)

    def size(self, dim: int | None = None) -> Any:
        return self.shape if dim is None else self.shape[dim]

    @property
    def ndim(self) -> int:
        return np.ndim(self.value)

    def dim(self) -> int:
        return self.ndim

    def numel(self) -> int:
        return int(np.size(self.value))

    @property
    def dtype(self) -> np.dtype:
        return np.asarray(self.value).dtype

    @property
    def data(self) -> Tensor:
        """The same values, cut from the graph (like torch's .data)."""
        return Tensor.wrap(self.value, None)

    @data.setter
    def data(self, new: Any) -> None:
        self.value = as_array(new)

    @property
    def T(self) -> Tensor:  # noqa: N802 - PyTorch's name
        return fn.transpose(self)

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
        return np.asarray(self.value).reshape(-1)[0].item()

    def tolist(self) -> Any:
        return np.asarray(self.value).tolist()

    def numpy(self) -> np.ndarray:
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead.")
        return np.asarray(self.value)

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

    @property
    def floating(self) -> bool:
        """Whether PyTorch would hold this tensor as a floating-point one, so that it may
        not index: a float64 tensor on the tape (only those can require grad), or one
        made floating (`_floating`: from fractions' data, by ones, rand or linspace,
        `.float()`, or computed from such a tensor). A whole-valued float64 tensor made
        from integers (`tensor([0, 1])`, `arange(3)`) stands for PyTorch's int64 one."""
        return self.value.dtype.kind == "f" and (self.node is not None or getattr(
            self, "_floating", False))

    def as_floating(self) -> Tensor:
        """This tensor marked as made floating (a constructor's result)."""
        self._floating = True
        return self

    def detach(self) -> Tensor:
        out = Tensor.wrap(self.value, None)
        return out.as_floating() if self.floating else out

    def clone(self) -> Tensor:
        out = to_tensor(fn.clone(self))
        return out.as_floating() if self.floating and out.node is None else out


    def graph(self) -> Any:
        """This tensor's graph with values and gradients, for a notebook (gradcalc.graph)."""
        from gradcalc.engine.pictures import graph

        return graph(self)

    def retain_grad(self) -> None:
        """Keep .grad for this non-leaf tensor after backward (leaves always keep theirs)."""
        if self.node is None:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        self._retain_grad = True
        if not self.is_leaf:
            retained[self.node] = weakref.ref(self)

    @property
    def retains_grad(self) -> bool:
        return self._retain_grad and not self.is_leaf

    def __repr__(self) -> str:
        return tensor_repr(self)

    # arithmetic -----------------------------------------------------------------------
    def __add__(self, other: Any) -> Tensor:
        return fn.add(self, other)

    def __radd__(self, other: Any) -> Tensor:
        return fn.add(other, self)

    def __sub__(self, other: Any) -> Tensor:
        return fn.sub(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return fn.sub(other, self)

    def __mul__(self, other: Any) -> Tensor:
        return fn.mul(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return fn.mul(other, self)

    def __truediv__(self, other: Any) -> Tensor:
        return fn.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        # PyTorch's `c / t` is reciprocal(t) * c, which rounds differently from c / t
        # (3 / 2.5 is 1.2, 3 * (1 / 2.5) is 1.2000000000000002): the same numbers
        return fn.mul(fn.div(1.0, self), other)

    def __pow__(self, other: Any) -> Tensor:
        return fn.pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return fn.pow(other, self)

    def __matmul__(self, other: Any) -> Tensor:
        return fn.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return fn.matmul(other, self)

    def __neg__(self) -> Tensor:
        return fn.neg(self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return fn.abs(self)

    # in place: the tensor is rebound to the result (see the module's docstring)
    def _check_inplace(self, index: Any = ()) -> None:
        if self.requires_grad and self.is_leaf and tape.grad_enabled():
            raise RuntimeError("a view of " + LEAF_INPLACE_MESSAGE if _views(index)
                               else LEAF_INPLACE_MESSAGE)

    def _rebind(self, result: Any) -> Tensor:
        result = to_tensor(result)
        if result.shape != self.shape:
            raise RuntimeError(
                f"output with shape {list(self.shape)} doesn't match the broadcast shape "
                f"{list(result.shape)}")
        self.value = result.value
        if tape.grad_enabled():
            self.node = result.node
        return self

    def _inplace(self, fn: Any, other: Any) -> Tensor:
        self._check_inplace()
        return self._rebind(fn(self, other))

    def __iadd__(self, other: Any) -> Tensor:
        return self._inplace(fn.add, other)

    def __isub__(self, other: Any) -> Tensor:
        return self._inplace(fn.sub, other)

    def __imul__(self, other: Any) -> Tensor:
        return self._inplace(fn.mul, other)

    def __itruediv__(self, other: Any) -> Tensor:
        return self._inplace(fn.div, other)

    def add_(self, other: Any, alpha: Any = 1) -> Tensor:
        if alpha == 1:
            return self._inplace(fn.add, other)
        self._check_inplace()
        return self._rebind(apply(PRIMITIVES["add_alpha"], self, other, alpha=float(alpha)))

    def sub_(self, other: Any, alpha: Any = 1) -> Tensor:
        if alpha == 1:
            return self._inplace(fn.sub, other)
        self._check_inplace()
        return self._rebind(apply(PRIMITIVES["add_alpha"], self, other, alpha=-float(alpha)))

    def mul_(self, other: Any) -> Tensor:
        return self._inplace(fn.mul, other)

    def div_(self, other: Any) -> Tensor:
        return self._inplace(fn.div, other)

    def copy_(self, src: Any) -> Tensor:
        self._check_inplace()
        src = src if isinstance(src, Tensor) else as_array(src)
        return self._rebind(apply(PRIMITIVES["copy_"], self, src))

    def fill_(self, number: Any) -> Tensor:
        self._check_inplace()
        return self._rebind(apply(PRIMITIVES["fill_"], self, float(value(number))))

    def zero_(self) -> Tensor:
        """Set every element to 0 (how `x.grad.zero_()` clears accumulated gradients)."""
        self._check_inplace()
        return self._rebind(apply(PRIMITIVES["zero_"], self, 0.0))

    # comparisons give boolean tensors that are never differentiated
    def _compare(self, other: Any, fn: Any) -> Tensor:
        return Tensor.wrap(fn(self.value, value(other)), None)

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
        return Tensor.wrap(np.logical_not(self.value), None)

    __hash__ = object.__hash__

    def equal(self, other: Any) -> bool:
        """True when the shapes and all values agree (torch.equal)."""
        o = value(other)
        return self.shape == np.shape(o) and bool(np.all(self.value == o))

    def allclose(self, other: Any, rtol: float = 1e-05, atol: float = 1e-08) -> bool:
        return bool(np.allclose(self.value, value(other), rtol=rtol, atol=atol))

    # indexing -------------------------------------------------------------------------
    def __getitem__(self, index: Any) -> Tensor:
        out: Any = self
        for step in steps(unwrap_index(index if isinstance(index, tuple) else (index,))):
            out = fn.getitem(out, step)
        return out

    def __setitem__(self, index: Any, v: Any) -> None:
        """`t[index] = v`, differentiable in `v` (and in the rest of `t`)."""
        self._check_inplace(index)
        if isinstance(v, (list, tuple)):
            v = as_array(v)
        result = to_tensor(fn.index_put(self, unwrap_index(index), v))
        self.value = result.value
        if tape.grad_enabled():
            self.node = result.node


make_plainly(Tensor)  # what an operation records is made inline (primitive.recorded)


def _views(index: Any) -> bool:
    """Whether PyTorch's indexing takes a view before writing: an int, None or a slice
    that is not the whole axis (`x[0] = 1` writes into a view of x; `x[:]`, `x[...]` and
    `x[mask]` write into x itself)."""
    for i in index if isinstance(index, tuple) else (index,):
        if i is None or isinstance(i, (int, np.integer)) and not isinstance(i, bool):
            return True
        if isinstance(i, Tensor) and i.ndim == 0 and i.dtype.kind in "iu":
            return True
        if isinstance(i, slice) and (i.start not in (None, 0) or i.stop is not None
                                     or i.step not in (None, 1)):
            return True
    return False


def lift(v: Any, node: Node | None) -> Tensor:
    """What a recorded sweep runs its rules on: a saved value as a tensor made by `node`,
    or (node None) a cotangent as a tensor."""
    if node is not None:
        return Tensor.wrap(v, node)
    return v if isinstance(v, Tensor) else Tensor(v)


def to_tensor(x: Any) -> Tensor:
    """`x` if it is a tensor, else a constant tensor around it."""
    return x if isinstance(x, Tensor) else Tensor.wrap(np.asarray(x), None)

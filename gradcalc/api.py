"""The PyTorch-shaped library: every name `import gradcalc` gives.

gradcalc/__init__.py loads this module on the first use of one of its names, so a
command that never touches the library does not pay for it (docs/performance.md, W5).
What the names are: see gradcalc/__init__.py.
"""

from __future__ import annotations

import builtins
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from gradcalc import autograd
from gradcalc.autograd import enable_grad, is_grad_enabled, set_grad_enabled
from gradcalc.engine import library, ops, selecting, spatial, views
from gradcalc.engine.functional import grad, hessian, jacobian, jvp, vjp
from gradcalc.engine.tape import no_grad
from gradcalc.engine.tensor import Tensor, as_array, made_floating

float64 = np.float64
"""The one dtype: every tensor holds float64 values."""
double = float32 = float16 = float64  # accepted wherever PyTorch takes a dtype; still float64

_FLOAT_DTYPES = {None, builtins.float, np.float64, np.float32, np.float16, "float", "double",
                 "float64", "float32", "float16", "torch.float", "torch.float64",
                 "torch.float32", "torch.double"}


def _check_dtype(dtype: Any) -> None:
    if dtype is bool or dtype is np.bool_:
        return
    key = dtype if isinstance(dtype, (str, type)) or dtype is None else str(dtype)
    if key not in _FLOAT_DTYPES and not (isinstance(dtype, np.dtype) and dtype.kind == "f"):
        raise TypeError(f"gradcalc computes in float64 only; dtype={dtype!r} is not supported "
                        "(leave dtype out, or pass gradcalc.float64)")


def set_default_dtype(dtype: Any) -> None:
    """Accepted for PyTorch's code: gradcalc's one dtype is float64 already."""
    _check_dtype(dtype)


def get_default_dtype() -> Any:
    return float64


def _leaf(value: np.ndarray, requires_grad: bool, dtype: Any = None,
          floating: bool = True) -> Tensor:
    """A leaf of `value`; `floating`: PyTorch would make it a floating-point tensor (its
    default for the constructor, or `dtype` says so), which may not index."""
    _check_dtype(dtype)
    if dtype is bool or dtype is np.bool_:
        value = np.asarray(value, dtype=bool)
    out = Tensor.wrap(value, None)
    if value.dtype.kind == "f" and (floating or dtype is not None):
        out.as_floating()
    return out.requires_grad_(requires_grad)


def _size(size: tuple) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


# --------------------------------------------------------------------------- making tensors


def tensor(data: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A new leaf tensor holding a float64 copy of `data` (numbers, nested lists, arrays)."""
    return _leaf(as_array(data), requires_grad, dtype, made_floating(data))


def as_tensor(data: Any, dtype: Any = None) -> Tensor:
    """`data` itself when it is already a tensor, else a new tensor."""
    return data if isinstance(data, Tensor) else tensor(data, dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    return tensor(array)


def FloatTensor(*args: Any) -> Tensor:  # noqa: N802 - PyTorch's legacy constructor
    """Legacy `torch.FloatTensor(data)` (or `FloatTensor(2, 3)`: zeros of that size)."""
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        return tensor(args[0])
    return zeros(*args)


DoubleTensor = FloatTensor


def ones(*size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _leaf(np.ones(_size(size)), requires_grad, dtype)


def zeros(*size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _leaf(np.zeros(_size(size)), requires_grad, dtype)


def full(size: Any, fill_value: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _leaf(np.full(_size((size,)), builtins.float(fill_value)), requires_grad, dtype,
                 made_floating(fill_value))


def ones_like(t: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _leaf(np.ones(ops.shape(t)), requires_grad, dtype, made_floating(t))


def zeros_like(t: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _leaf(np.zeros(ops.shape(t)), requires_grad, dtype, made_floating(t))


def full_like(t: Any, fill_value: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _leaf(np.full(ops.shape(t), builtins.float(fill_value)), requires_grad, dtype,
                 made_floating(t))


def arange(start: Any, end: Any = None, step: Any = 1, dtype: Any = None,
           requires_grad: bool = False) -> Tensor:
    if end is None:
        start, end = 0, start
    return _leaf(np.arange(start, end, step, dtype=np.float64), requires_grad, dtype,
                 builtins.any(made_floating(v) for v in (start, end, step)))


def linspace(start: Any, end: Any, steps: int, dtype: Any = None,
             requires_grad: bool = False) -> Tensor:
    return _leaf(np.linspace(start, end, int(steps)), requires_grad, dtype)


def eye(n: int, m: int | None = None, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _leaf(np.eye(int(n), None if m is None else int(m)), requires_grad, dtype)


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def numel(t: Tensor) -> int:
    return t.numel()


# --------------------------------------------------------------------------- functions
# The table's primitives (gradcalc.engine.table) as module-level functions that return
# tensors, by their names and aliases; those that work along axes also take PyTorch's
# `dim` and `keepdim`. A primitive registered later is found by `__getattr__`.


def _as_tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.wrap(np.asarray(x, dtype=np.float64), None)


def _library_function(prim: ops.Prim) -> Callable[..., Tensor]:
    fn = getattr(ops.fn, prim.name)
    if prim.axis and prim.arity is not None:
        takes_keep = "keepdims" in inspect.signature(prim.forward).parameters

        def function(input: Any, dim: Any = None, keepdim: bool = False, *,  # noqa: A002
                     axis: Any = None, keepdims: Any = None, dtype: Any = None) -> Tensor:
            dim = views.pick_dim(dim, axis)
            keepdim = keepdim if keepdims is None else keepdims
            return _as_tensor(fn(input, dim, keepdim) if takes_keep else fn(input, dim))
    else:
        def function(*args: Any, **kwargs: Any) -> Tensor:
            return _as_tensor(fn(*args, **kwargs))

    function.__name__ = function.__qualname__ = prim.name
    function.__doc__ = fn.__doc__
    return function


def _library_names() -> dict[str, ops.Prim]:
    return {n: p for p in ops.PRIMITIVES.values() if p.library for n in p.names}


_LAZY = {"nn", "optim", "testing"}  # imported on first use: start-up stays as it was


def __getattr__(name: str) -> Any:
    """A primitive registered after import, by name (`gradcalc.<name>`), or one of the
    lazily imported packages (`gradcalc.nn`, `gradcalc.optim`, `gradcalc.testing`)."""
    if name in _LAZY:
        import importlib

        return importlib.import_module(f"gradcalc.{name}")
    prim = _library_names().get(name)
    if prim is None:
        raise AttributeError(f"module 'gradcalc' has no attribute {name!r}")
    return _library_function(prim)


def transpose(input: Any, dim0: int | None = None, dim1: int | None = None) -> Tensor:  # noqa: A002
    """All axes reversed (the language's transpose), or `dim0` and `dim1` swapped (PyTorch's)."""
    if dim0 is None and dim1 is None:
        return _as_tensor(ops.transpose(input))
    axes = list(range(ops.ndim(input)))
    axes[dim0], axes[dim1] = axes[dim1], axes[dim0]
    return _as_tensor(ops.transpose(input, axes))


def dot(a: Any, b: Any) -> Tensor:
    """Dot product of vectors; matrix products for 2-D arguments (like numpy.dot)."""
    return _as_tensor(ops.dot(a, b))


def unsqueeze(input: Any, dim: int) -> Tensor:  # noqa: A002
    return _as_tensor(ops.unsqueeze(input, dim))


def graph(t: Tensor) -> Any:
    """The graph of `t` with each node's value and gradient, as a notebook shows it (SVG
    through Graphviz where installed, else Mermaid; `str()` is a text table); also
    `t.graph()`. Drawn by gradcalc.engine.pictures, imported on first use."""
    from gradcalc.engine import pictures

    return pictures.graph(t)


def explain(t: Tensor) -> Any:
    """The tape and the backward sweep of `t` as a table object (HTML in a notebook)."""
    from gradcalc.engine import pictures

    return pictures.explain(t)


_FUNCTION_NAMES = list(_library_names())
for _name, _prim in _library_names().items():
    globals()[_name] = _library_function(_prim)
del _name, _prim
mm = mv = globals()["matmul"]
# PyTorch's max/min: along a dim a (values, indices) pair, against a tensor elementwise
max = selecting.extreme(largest=True)  # noqa: A001
min = selecting.extreme(largest=False)  # noqa: A001
argmax, argmin = selecting.arg(largest=True), selecting.arg(largest=False)
# PyTorch's functions that are not one entry: pieces, statistics, random numbers, booleans,
# convolution and pooling, and the Tensor's shape methods as functions
globals().update(library.FUNCTIONS)
for _name in ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d"):
    globals()[_name] = getattr(spatial, _name)
for _name in ("reshape", "flatten", "squeeze", "permute", "swapaxes", "t", "neg", "negative",
              "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
              "pow"):
    globals()[_name] = views.METHODS[_name]
del _name

__all__ = [
    "Tensor", "tensor", "as_tensor", "from_numpy", "FloatTensor", "DoubleTensor", "ones",
    "zeros", "full", "ones_like", "zeros_like", "full_like", "arange", "linspace", "eye",
    "is_tensor", "numel", "transpose", "mm", "mv", "no_grad", "enable_grad",
    "set_grad_enabled", "is_grad_enabled", "autograd", "grad", "vjp", "jvp", "jacobian",
    "hessian", "float64", "float32", "float16", "double", "dot", "unsqueeze", "argmax",
    "argmin", "set_default_dtype", "get_default_dtype", *library.FUNCTIONS, "conv1d",
    "conv2d", "conv3d", "conv_transpose1d",
    "conv_transpose2d", "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "reshape",
    "flatten", "squeeze", "permute", "swapaxes", "t", "negative", "subtract", "multiply",
    "divide", "true_divide", "graph", "explain",
]
__all__ += _FUNCTION_NAMES

float = float64  # noqa: A001 - torch.float; defined last so the module's code keeps the builtin

"""A Python function traced into a fused kernel (gradcalc/engine/fused.py), so that the
library's `grad(f, x)`, `vjp`, `jvp`, `jacobian` and `hessian` run an elementwise
function's value and derivatives in one blocked pass, as the interpreter's programs do.

f is called once on stand-ins (`Tracer`s): tensors of the inputs' shapes whose numbers
are not there (`Shapes`). `apply` hands each operation on them to `record`, which adds it
to a `Graph` instead of computing it. Whatever needs a number (`bool()`, `float()`,
`.item()`, a comparison, NumPy on `.value`), an operation the graph does not have (a
matrix product, an index, a sum that is not the last step), an in-place change,
`detach`, `no_grad` or another tensor that requires grad refuses the trace
(`Unfusable`), and the caller runs f on the tape instead. So a trace cannot depend on the
values; it may depend on the shapes, and each call traces anew (nothing is cached).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import numpy as np

from gradcalc.engine import fused, primitive
from gradcalc.engine.fused import Graph, Kernel, Unfusable
from gradcalc.engine.primitive import Prim, Traced
from gradcalc.engine.shapes import value
from gradcalc.engine.tape import grad_enabled
from gradcalc.engine.tensor import Tensor, as_array

#: the table's entries the graph has, by their names there (the same names)
ELEMENTWISE = frozenset((*fused.BINARY, *fused.FUNCS, "neg"))
REDUCTIONS = ("sum", "mean")
#: NumPy's functions that a tensor's value answers without its numbers
SHAPE_FUNCTIONS = (np.shape, np.ndim, np.size)


def refuse(why: str) -> NoReturn:
    raise Unfusable(why)


def _read(self: Any, *_: Any, **__: Any) -> NoReturn:
    raise Unfusable("a number read while tracing")


def _changed(self: Any, *_: Any, **__: Any) -> NoReturn:
    raise Unfusable("an in-place change, detach or retain_grad while tracing")


class Shapes:
    """A traced tensor's value: its shape and dtype, no numbers (reading one refuses)."""

    __slots__ = ("shape",)
    dtype = np.dtype(np.float64)
    __array__ = __array_ufunc__ = _read
    __float__ = __int__ = __index__ = __bool__ = __iter__ = __getitem__ = __len__ = _read
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _read  # type: ignore[assignment]
    __hash__ = object.__hash__

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = tuple(shape)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        """NumPy's functions of the shape alone (which read `shape`, `ndim`, `size`)."""
        if func not in SHAPE_FUNCTIONS:
            _read(self)
        return func._implementation(*args, **kwargs)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)


class Tracer(Tensor):
    """A stand-in for a tensor that f computes from its inputs: node `key` of its trace's
    graph (`summed`: the sum of that node's elements, which are `over`'s shape)."""

    __slots__ = ("trace", "key", "summed", "over", "leaf")

    @classmethod
    def made(cls, trace: Trace, key: int, over: tuple[int, ...], summed: bool = False,
             leaf: bool = False) -> Tracer:
        t = cls.__new__(cls)
        t.value, t.node, t.grad, t._retain_grad, t._floating = (
            Shapes(() if summed else over), None, None, False, True)
        t.trace, t.key, t.summed, t.over, t.leaf = trace, key, summed, over, leaf
        return t

    @property
    def requires_grad(self) -> bool:  # as on the tape: every one depends on an input
        return True

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        refuse("requires_grad set while tracing")

    @property
    def dtype(self) -> np.dtype:
        return Shapes.dtype

    @property
    def is_leaf(self) -> bool:
        return self.leaf

    @property
    def grad_fn(self) -> NoReturn:
        refuse("grad_fn read while tracing")

    @property
    def data(self) -> NoReturn:
        refuse("data read while tracing")

    @data.setter
    def data(self, new: Any) -> None:
        refuse("data set while tracing")

    _check_inplace = requires_grad_ = detach = retain_grad = _changed  # type: ignore[assignment]


class Trace:
    """The graph f's operations on its tracers make, and the constants they read."""

    def __init__(self, shapes: list[tuple[int, ...]]) -> None:
        self.graph = Graph()
        self.constants: dict[int, np.ndarray] = {}
        self.inputs = [self.graph.node("in", i) for i in range(len(shapes))]
        self.tracers = [Tracer.made(self, k, s, leaf=True)
                        for k, s in zip(self.inputs, shapes, strict=True)]

    def record(self, prim: Prim, args: tuple, params: dict) -> Tracer:
        """The tracer of `prim` applied to `args` (some of them this trace's tracers)."""
        if prim.name in REDUCTIONS:
            return self._reduced(prim.name, args, params)
        if prim.name not in ELEMENTWISE or params:
            refuse(prim.name)
        if any(type(a) is Tracer and a.summed for a in args):
            return self._scaled(prim.name, args)
        over = np.broadcast_shapes(*map(_shape_of, args))
        return Tracer.made(self, self.graph.apply(prim.name, *map(self._operand, args)), over)

    def _reduced(self, name: str, args: tuple, params: dict) -> Tracer:
        """A sum or mean of all the elements: only the last step may be one."""
        x = args[0]
        axis = params.get("axis")
        if len(args) != 1 or type(x) is not Tracer or params.get("keepdims"):
            refuse(f"{name} of another shape")
        if axis is not None and tuple(axis) != tuple(range(len(x.over))):
            refuse(f"{name} along an axis")
        key = self._operand(x)
        if name == "mean":
            key = self.graph.apply("div", key, self.graph.num(math.prod(x.over)))
        return Tracer.made(self, key, x.over, summed=True)

    def _scaled(self, name: str, args: tuple) -> Tracer:
        """A sum negated, times a number or divided by one (`0.5 * sum(...)`, `sum(...) /
        n`): the sum of its elements so scaled, so it stays the last step."""
        total = next(a for a in args if type(a) is Tracer and a.summed)
        numbers = [a for a in args if a is not total]
        if name not in ("neg", "mul", "div") or (name == "div" and args[0] is not total) or \
                any(_shape_of(a) or type(a) is Tracer for a in numbers):
            refuse("a sum inside the function")
        keys = [total.key if a is total else self._operand(a) for a in args]
        return Tracer.made(self, self.graph.apply(name, *keys), total.over, summed=True)

    def _operand(self, a: Any) -> int:
        if type(a) is Tracer:
            if a.trace is not self or a.summed:
                refuse("a sum inside the function, or another trace's tensor")
            return a.key
        if isinstance(a, Traced):
            if a.node is not None or isinstance(a.value, Shapes):
                refuse("a tensor on the tape, or a traced one detached")
            a = a.value
        return self._constant(a)

    def _constant(self, v: Any) -> int:
        a = np.asarray(v)
        if a.dtype.kind not in "fiu" or a.dtype.kind == "f" and a.dtype.itemsize > 8:
            refuse(f"a constant of dtype {a.dtype}")  # bool, complex, long double: the tape's
        if a.ndim == 0:
            return self.graph.num(float(a))
        key = self.graph.node("in", ("constant", len(self.constants)))
        self.constants[key] = a.astype(np.float64, copy=False)
        return key

    def kernel(self, out: Any, values: list[np.ndarray]) -> Kernel:
        """The kernel of f's result `out` at the inputs' `values`."""
        if type(out) is not Tracer or out.trace is not self:
            refuse("the result is not computed from the inputs")
        needed = self.graph.needs(out.key)
        made = Kernel(self.graph, out.key, out.summed, self.inputs, values,
                      {k: v for k, v in self.constants.items() if k in needed})
        if made.shape != out.over:
            refuse("the inputs broadcast beyond the result")
        return made


def _shape_of(a: Any) -> Any:
    return a.over if type(a) is Tracer else np.shape(getattr(a, "value", a))


def record(prim: Prim, args: tuple, params: dict) -> Tracer | None:
    """`primitive.tracer` while tracing: the tracer of an operation with a traced operand,
    None for any other (another thread's, or one on constants alone)."""
    traced = [a for a in args if type(a) is Tracer]
    if not traced:
        return None
    if not grad_enabled():
        refuse("no_grad while tracing")
    return traced[0].trace.record(prim, args, params)


_lock = threading.Lock()
_active = [0]  # traces under way, in every thread


@contextmanager
def tracing() -> Iterator[None]:
    """`record` installed as `primitive.tracer` for the block."""
    with _lock:
        _active[0] += 1
        primitive.tracer = record
    try:
        yield
    finally:
        with _lock:
            _active[0] -= 1
            if not _active[0]:
                primitive.tracer = None


def _input(v: Any) -> np.ndarray:
    """A point's array as the tape would take it (float64, not copied when it is one)."""
    a = v if type(v) is np.ndarray and v.dtype == np.float64 else as_array(v)
    if a.dtype != np.float64:
        refuse("an input that is not float64")
    return a


def kernel_for(f: Callable[..., Any], point: tuple[Any, ...]) -> Kernel | None:
    """f's fused kernel at `point`, traced, or None: fusion off, inputs too small, or a
    step the trace does not take (then f runs on the tape, so it is called twice)."""
    if not fused.wanted(max((np.size(value(v)) for v in point), default=0)):
        return None
    try:
        values = [_input(v) for v in point]
        trace = Trace([v.shape for v in values])
        with tracing():
            out = f(*trace.tracers)
        return trace.kernel(out, values)
    except Exception:  # noqa: BLE001 - whatever stops the trace, the tape runs f as always
        return None

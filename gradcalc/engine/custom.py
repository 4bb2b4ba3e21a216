"""PyTorch's custom autograd Functions on gradcalc's tape (torch.autograd.Function).

Subclass `Function` with static `forward(ctx, ...)` and `backward(ctx, grad_output)` and
call `.apply(...)`. The forward runs with recording off; the call then records ONE tape
node whose VJP rule is the subclass's `backward`, so a custom Function takes part in every
sweep like a primitive (retain_graph, create_graph, Jacobians, Hessians). A Function is
one node of the tape and needs nothing of the sweep's entry points, so it sits below
gradcalc/engine/autograd.py (backward, grad), which re-exports its names.

The errors are PyTorch's, as `RuntimeError` with PyTorch's words.
"""

from __future__ import annotations

import math
import weakref
from contextlib import nullcontext
from typing import Any

import numpy as np

from gradcalc.engine import ops, tape
from gradcalc.engine.ops import Prim
from gradcalc.engine.tape import FREED_MESSAGE, Node, no_grad
from gradcalc.engine.tensor import Tensor, as_array, to_tensor

__all__ = ["Function", "FunctionCtx"]

LEGACY_MESSAGE = (
    "Legacy autograd function with non-static forward method is deprecated. Please use "
    "new-style autograd function with static forward method. (Example: "
    "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
)


class FunctionCtx:
    """The `ctx` of a custom Function: what forward leaves for backward."""

    def __init__(self) -> None:
        self._saved: tuple[Any, ...] = ()
        self.node_ref: weakref.ref | None = None
        self._cache: tuple[Any, list] | None = None
        self._shapes: list[tuple[int, ...]] | None = None
        self.needs_input_grad: tuple[bool, ...] = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors (or None) for backward; read them back as `ctx.saved_tensors`."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{i} is of type {type(t).__name__}")
        self._saved = tensors

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        node = None
        if self.node_ref is not None:
            node = self.node_ref()
            if node is None or node.saved is None:
                raise RuntimeError(FREED_MESSAGE)
        return tuple(self._output(e[1], node) if isinstance(e, tuple) else e
                     for e in self._saved)

    def _output(self, k: int, node: Node) -> Tensor:
        """Output k of the Function, on the tape (rebuilt, so the node holds no cycle)."""
        joined = Tensor.wrap(node.saved[1], node)
        if self._shapes is None:
            return joined
        start, stop = _offsets(self._shapes)[k]
        return to_tensor(ops.reshape(ops.getitem(joined, (slice(start, stop),)),
                                      self._shapes[k]))

    def mark_non_differentiable(self, *tensors: Any) -> None:
        """Accepted for compatibility; a gradient through them is simply never asked for."""

    def set_materialize_grads(self, value: bool) -> None:
        """Accepted for compatibility: gradients of unused outputs are always zeros here."""
        self.materialize_grads = bool(value)


class Function:
    """Base class of custom differentiable operations (torch.autograd.Function).

    ```
    class Exp(Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            result, = ctx.saved_tensors
            return grad_output * result

    y = Exp.apply(x)          # y.grad_fn is <ExpBackward>
    ```

    `backward` returns one gradient per input of `forward` (None for inputs that need
    none). With `create_graph=True` it receives tensors on the tape, so the operations in
    it are recorded and its result can be differentiated again. A batch of cotangents
    (a whole Jacobian in one sweep) is handed to `backward` one row at a time.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(LEGACY_MESSAGE)

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD.")

    @classmethod
    def _prim(cls) -> Prim:
        prim = cls.__dict__.get("_gradcalc_prim")
        if prim is None:
            prim = Prim(cls.__name__, _no_forward, (), None, grad_fn=f"{cls.__name__}Backward",
                        variadic_vjp=_custom_vjp(cls), saves=_ctx_saves,
                        passes_zero=False)
            cls._gradcalc_prim = prim
        return prim

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run forward (not recorded) and record one node whose VJP is `backward`."""
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with no_grad():
            result = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(result, tuple)
        outs = [_fresh_output(o, args) for o in ((result,) if single else result)]
        if tape.grad_enabled() and any(ctx.needs_input_grad):
            values = [a.value if isinstance(a, Tensor) else a for a in args]
            parents = tuple(a.node if isinstance(a, Tensor) else None for a in args)
            shapes = None if single else [o.shape for o in outs]
            value = outs[0].value if single else np.concatenate(
                [np.reshape(o.value, -1) for o in outs])
            node = Node(cls._prim(), parents, (values, value), {"ctx": ctx, "shapes": shapes})
            ctx.node_ref = weakref.ref(node)
            if single:
                outs[0].node = node
            else:  # one node for all outputs; each output is a recorded piece of it
                joined = Tensor.wrap(value, node)
                for o, (start, stop) in zip(outs, _offsets(shapes), strict=True):
                    piece = ops.reshape(ops.getitem(joined, (slice(start, stop),)), o.shape)
                    o.value, o.node = piece.value, piece.node
        # The saved tensors as they are now, so that later in-place changes of those objects
        # do not reach backward. A saved output is kept as its index and rebuilt from the
        # node when read: the node holds ctx, and ctx holding the node back would be a cycle.
        output_index = {id(o): k for k, o in enumerate(outs)} if ctx.node_ref is not None else {}
        ctx._shapes = None if single else [o.shape for o in outs]
        ctx._saved = tuple(
            None if t is None else ("output", output_index[id(t)]) if id(t) in output_index
            else Tensor.wrap(t.value, t.node) for t in ctx._saved)
        return outs[0] if single else tuple(outs)


def _ctx_saves(params: dict) -> bool:
    """A custom Function saves what its forward passed to save_for_backward."""
    return any(t is not None for t in params["ctx"]._saved)


def _no_forward(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("a custom Function runs through its apply(), not as a primitive")


def _fresh_output(o: Any, args: tuple) -> Tensor:
    """The tensor forward returned, unless it is an input or on the tape (then a copy)."""
    if not isinstance(o, Tensor):
        return Tensor(o)
    if o.node is not None or any(o is a for a in args):
        return Tensor.wrap(o.value, None)
    return o


def _offsets(shapes: list[tuple[int, ...]]) -> list[tuple[int, int]]:
    bounds, start = [], 0
    for s in shapes:
        n = math.prod(s)
        bounds.append((start, start + n))
        start += n
    return bounds


def _custom_vjp(cls: type[Function]):
    """The VJP rule of a custom Function's node: its `backward`, called once per sweep."""
    name = f"{cls.__name__}Backward"

    def rule(i: int, g: Any, ans: Any, *args: Any, ctx: FunctionCtx, shapes: Any) -> Any:
        if ctx._cache is None or ctx._cache[0] is not g:
            ctx._cache = (g, _call_backward(cls, name, ctx, g, ans, args, shapes))
        grads = ctx._cache[1]
        if i == max(k for k, needed in enumerate(ctx.needs_input_grad) if needed):
            ctx._cache = None
        return grads[i]

    return rule


def _call_backward(cls: type[Function], name: str, ctx: FunctionCtx, g: Any, ans: Any,
                   args: tuple, shapes: Any) -> list:
    recorded = isinstance(g, Tensor)  # create_graph: g and the saved tensors are on the tape
    nb = ops.ndim(g) - ops.ndim(ans)
    if nb == 0:
        return _backward_once(cls, name, ctx, g, args, shapes, recorded)
    batch = ops.shape(g)[:nb]
    rows = math.prod(batch)
    flat = ops.reshape(g, (rows,) + ops.shape(ans))
    per_row = [_backward_once(cls, name, ctx, ops.getitem(flat, (r,)), args, shapes, recorded)
               for r in range(rows)]
    grads: list[Any] = []
    for i, a in enumerate(args):
        if not ctx.needs_input_grad[i]:
            grads.append(None)
            continue
        if all(row[i] is None for row in per_row):
            grads.append(None)
            continue
        stacked = ops.stack([np.zeros(ops.shape(a)) if row[i] is None else row[i]
                             for row in per_row])
        grads.append(ops.reshape(stacked, batch + ops.shape(a)))
    return grads


def _backward_once(cls: type[Function], name: str, ctx: FunctionCtx, g: Any, args: tuple,
                   shapes: Any, recorded: bool) -> list:
    go = g if recorded else Tensor.wrap(np.asarray(g, dtype=np.float64), None)
    if shapes is None:
        grad_outputs = (go,)
    else:
        grad_outputs = tuple(
            to_tensor(ops.reshape(ops.getitem(go, (slice(start, stop),)), s))
            for s, (start, stop) in zip(shapes, _offsets(shapes), strict=True))
    with nullcontext() if recorded else no_grad():
        returned = cls.backward(ctx, *grad_outputs)
    returned = returned if isinstance(returned, tuple) else (returned,)
    n = len(args)
    if len(returned) > n and all(r is None for r in returned[n:]):
        returned = returned[:n]
    if len(returned) != n:
        raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                           f"(expected {n}, got {len(returned)})")
    grads: list[Any] = []
    for i, (r, a) in enumerate(zip(returned, args, strict=True)):
        if not ctx.needs_input_grad[i]:
            grads.append(None)
            continue
        arg_shape = ops.shape(a)
        if r is None:  # no gradient for this input: nothing flows (PyTorch leaves .grad None)
            grads.append(None)
            continue
        if not isinstance(r, Tensor):
            r = as_array(r)
        got = ops.shape(r)
        if got != arg_shape:
            if _expandable(arg_shape, got):
                r = ops.unbroadcast(r, got, arg_shape)
            else:
                raise RuntimeError(
                    f"Function {name} returned an invalid gradient at index {i} - got "
                    f"{list(got)} but expected shape compatible with {list(arg_shape)}")
        grads.append(r if recorded else ops.value(r))
    return grads


def _expandable(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False



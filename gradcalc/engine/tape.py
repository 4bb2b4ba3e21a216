"""The tape: recorded operations and the reverse sweep over them.

Every operation on a value that requires a gradient appends a `Node` with a sequence
number; the numbers order the nodes as they were evaluated, so the part of the tape that
an output depends on is already topologically sorted. Backward pops nodes in decreasing
order from a heap (a reversed walk of that part of the tape), adds cotangents into a
dict, and never recurses, so a program of a million steps differentiates like a short one.
"""

from __future__ import annotations

import gc
import heapq
import itertools
import weakref
from collections.abc import Iterable
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from gradcalc.engine.ops import Prim

_sequence = itertools.count()

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


class Node:
    """One recorded operation (or a leaf when `prim` is None)."""

    __slots__ = ("seq", "prim", "parents", "saved", "params", "leaf", "__weakref__")

    def __init__(self, prim: Prim | None, parents: tuple, saved: Any, params: dict,
                 leaf: Any = None) -> None:
        self.seq = next(_sequence)
        self.prim = prim
        self.parents = parents  # per positional argument: the argument's Node, or None
        self.saved = saved  # (argument values, output value); None once freed
        self.params = params  # static, non-differentiable parameters (axis, index, ...)
        self.leaf = leaf  # weak reference to the leaf tensor, for .grad

    def name(self) -> str:
        return "AccumulateGrad" if self.prim is None else self.prim.grad_fn

    def __repr__(self) -> str:
        return f"<{self.name()}>"


_grad_enabled = True

#: True inside `hot()`: NumPy's floating-point warnings are already off for the block,
#: so each operation need not switch them off itself (that costs more than a scalar op)
_quiet = False


def grad_enabled() -> bool:
    return _grad_enabled


@contextmanager
def hot():
    """The block records or sweeps a whole program: domain errors give nan/inf silently
    (one np.errstate for the block, not one per operation), and Python's cyclic garbage
    collector pauses, since it would otherwise walk the growing tape again and again
    (the tape has no cycles: reference counting frees it)."""
    global _quiet
    previous, collecting = _quiet, gc.isenabled()
    with np.errstate(all="ignore"):
        _quiet = True
        gc.disable()
        try:
            yield
        finally:
            _quiet = previous
            if collecting:
                gc.enable()


@contextmanager
def no_grad():
    """Record nothing inside the block (like torch.no_grad)."""
    global _grad_enabled
    previous, _grad_enabled = _grad_enabled, False
    try:
        yield
    finally:
        _grad_enabled = previous


#: Primitives whose PyTorch twins save no tensor for backward (only shapes): a graph made
#: of them alone can be swept again after it was freed, as in PyTorch.
SAVES_NOTHING = frozenset({
    "neg", "add", "sub", "sum", "mean", "reshape", "transpose", "broadcast_to", "clone",
    "stack", "sign", "scatter", "zero_", "fill_", "copy_", "add_alpha"})


def _saves_tensors(node: Node) -> bool:
    """Whether PyTorch's node for this operation holds saved tensors (so freeing it counts)."""
    params = node.params
    if "ctx" in params:  # a custom Function saves what forward passed to save_for_backward
        return any(t is not None for t in params["ctx"]._saved)
    if node.prim.name == "getitem":  # ints and slices save nothing; index arrays are saved
        return not all(isinstance(i, (int, np.integer, slice)) or i is None or i is Ellipsis
                       or (isinstance(i, np.ndarray) and i.ndim == 0 and i.dtype != bool)
                       for i in params["index"])
    if node.prim.name == "index_put":  # t[...] = v is a plain copy_; a part is CopySlices
        return not all(i is Ellipsis or isinstance(i, slice) and i == slice(None)
                       for i in params["index"])
    return node.prim.name not in SAVES_NOTHING


#: per primitive: True (always saves), False (never); absent: decided per node
_SAVES: dict[Any, bool] = {}

#: Arrays up to this size are kept as they are by a node that saves nothing.
_SMALL = 256


def _shape_only(v: Any) -> Any:
    """An array of v's shape and dtype that takes no memory (what a shape-only rule needs)."""
    if type(v) is np.ndarray and v.size > _SMALL:
        return np.broadcast_to(np.zeros((), v.dtype), v.shape)
    return v


def release(node: Node) -> None:
    """Free what `node` saved after a sweep without retain_graph. A node whose PyTorch twin
    saves no tensors keeps its values (large arrays as zero-cost stand-ins of their shape,
    all its rule needs): sweeping it again works, as in PyTorch; a node that saved tensors
    raises on the next sweep."""
    prim = node.prim
    saves = _SAVES.get(prim)
    if saves is None:
        saves = _saves_tensors(node)
        if prim.name not in ("getitem", "index_put") and prim.variadic_vjp is None:
            _SAVES[prim] = saves  # the same for every node of this primitive
    if saves:
        node.saved = None
        return
    saved = node.saved
    if saved is None:
        return
    values, out = saved
    for v in (out, *values):
        if type(v) is np.ndarray and v.size > _SMALL:
            node.saved = (tuple(_shape_only(v) for v in values), _shape_only(out))
            return


class FreedError(RuntimeError):
    """A sweep met a node whose saved values were freed. `finished` holds the cotangents
    of the leaves that were complete by then: PyTorch has already added those into .grad
    when it raises (its leaves accumulate as soon as their last consumer has run)."""

    def __init__(self, finished: dict[Node, Any]) -> None:
        super().__init__(FREED_MESSAGE)
        self.finished = finished


def _finished_leaves(node: Node, heap: list, cotangent: dict, result: dict) -> dict:
    """The leaves whose cotangent no node still to be swept (`node`, the heap and all they
    lead to) would add to."""
    pending = [node] + [n for _, n in heap]
    reached: set[Node] = set()
    stack = [p for n in pending if n.prim is not None for p in n.parents if p is not None]
    while stack:
        n = stack.pop()
        if n not in reached:
            reached.add(n)
            stack.extend(p for p in n.parents if p is not None)
    finished = dict(result)  # swept leaves, and wanted tensors whose gradient was complete
    finished.update((n, g) for n, g in cotangent.items() if n.prim is None and n not in reached)
    return finished


def leaf_node(tensor: Any) -> Node:
    return Node(None, (), None, {}, weakref.ref(tensor))


def backward(
    roots: Iterable[tuple[Node, Any]],
    *,
    retain_graph: bool = False,
    create_graph: bool = False,
    stop_at: set[Node] | None = None,
    needed: set[Node] | None = None,
) -> dict[Node, Any]:
    """Propagate seeds from `roots` back to the leaves; return the cotangent of each leaf.

    Seeds may carry leading batch axes (a batch of cotangents, e.g. an identity seed for a
    whole Jacobian): every VJP rule works on them unchanged. With `create_graph` the
    cotangents are tensors and the sweep itself is recorded. Nodes in `stop_at` have their
    cotangent reported too (for gradients with respect to intermediate values). Given
    `needed` (the nodes that lead to the wanted ones), a node runs only if one of its
    parents is needed: PyTorch's engine runs only what the requested gradients need (and
    frees only that).
    """
    from gradcalc.engine.tensor import (
        Tensor,  # the tensor type wraps values when the sweep is recorded
    )

    cotangent: dict[Node, Any] = {}
    heap: list[tuple[int, Node]] = []
    push, pop = heapq.heappush, heapq.heappop

    for node, seed in roots:
        if node in cotangent:
            cotangent[node] = cotangent[node] + seed
        else:
            cotangent[node] = seed
            push(heap, (-node.seq, node))
    result: dict[Node, Any] = {}
    with hot():
        while heap:
            node = pop(heap)[1]
            g = cotangent.pop(node)
            prim = node.prim
            if prim is None or (stop_at is not None and node in stop_at):
                result[node] = g
                if prim is None:
                    continue
            if needed is not None and not any(p in needed for p in node.parents):
                continue
            saved = node.saved
            if saved is None:
                raise FreedError(_finished_leaves(node, heap, cotangent, result))
            values, out = saved
            if create_graph:
                args = [v if p is None else Tensor._wrap(v, p)
                        for v, p in zip(values, node.parents)]
                ans = Tensor._wrap(out, node)
                if not isinstance(g, Tensor):
                    g = Tensor(g)
            else:
                args, ans = values, out
            params = node.params
            rules = prim.vjps if prim.variadic_vjp is None else None
            for i, parent in enumerate(node.parents):
                if parent is None:
                    continue
                if rules is not None:  # the common case, without the Prim.vjp indirection
                    gi = rules[i](g, ans, *args, **params)
                else:
                    gi = prim.vjp(i, g, ans, args, params)
                if gi is None or needed is not None and parent not in needed:
                    continue  # no gradient (a custom backward's None), or none wanted
                if parent in cotangent:
                    cotangent[parent] = cotangent[parent] + gi
                else:
                    cotangent[parent] = gi
                    push(heap, (-parent.seq, parent))
            if not retain_graph:
                release(node)
    return result

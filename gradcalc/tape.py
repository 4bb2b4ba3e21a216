"""The tape: recorded operations and the reverse sweep over them.

Every operation on a value that requires a gradient appends a `Node` with a sequence
number; the numbers order the nodes as they were evaluated, so the part of the tape that
an output depends on is already topologically sorted. Backward pops nodes in decreasing
order from a heap (a reversed walk of that part of the tape), adds cotangents into a
dict, and never recurses, so a program of a million steps differentiates like a short one.
"""

from __future__ import annotations

import heapq
import itertools
import weakref
from collections.abc import Iterable
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .ops import Prim

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


def grad_enabled() -> bool:
    return _grad_enabled


@contextmanager
def no_grad():
    """Record nothing inside the block (like torch.no_grad)."""
    global _grad_enabled
    previous, _grad_enabled = _grad_enabled, False
    try:
        yield
    finally:
        _grad_enabled = previous


def leaf_node(tensor: Any) -> Node:
    return Node(None, (), None, {}, weakref.ref(tensor))


def backward(
    roots: Iterable[tuple[Node, Any]],
    *,
    retain_graph: bool = False,
    create_graph: bool = False,
    stop_at: set[Node] | None = None,
) -> dict[Node, Any]:
    """Propagate seeds from `roots` back to the leaves; return the cotangent of each leaf.

    Seeds may carry leading batch axes (a batch of cotangents, e.g. an identity seed for a
    whole Jacobian): every VJP rule works on them unchanged. With `create_graph` the
    cotangents are tensors and the sweep itself is recorded. Nodes in `stop_at` have their
    cotangent reported too (for gradients with respect to intermediate values).
    """
    from .tensor import Tensor  # the tensor type wraps values when the sweep is recorded

    cotangent: dict[Node, Any] = {}
    heap: list[tuple[int, Node]] = []

    def add(node: Node, g: Any) -> None:
        if node in cotangent:
            cotangent[node] = cotangent[node] + g
        else:
            cotangent[node] = g
            heapq.heappush(heap, (-node.seq, node))

    for node, seed in roots:
        add(node, seed)
    result: dict[Node, Any] = {}
    with np.errstate(all="ignore"):
        while heap:
            _, node = heapq.heappop(heap)
            g = cotangent.pop(node)
            if node.prim is None or (stop_at is not None and node in stop_at):
                result[node] = g
                if node.prim is None:
                    continue
            if node.saved is None:
                raise RuntimeError(FREED_MESSAGE)
            values, out = node.saved
            if create_graph:
                args = [v if p is None else Tensor._wrap(v, p) for v, p in zip(values, node.parents)]
                ans = Tensor._wrap(out, node)
                if not isinstance(g, Tensor):
                    g = Tensor(g)
            else:
                args, ans = values, out
            prim, params = node.prim, node.params
            for i, parent in enumerate(node.parents):
                if parent is not None:
                    add(parent, prim.vjp(i, g, ans, args, params))
            if not retain_graph:
                node.saved = None
    return result

"""PyTorch's autograd entry points on gradcalc's tape: backward, grad and custom Functions.

- `backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None)`
  accumulates into `.grad` (what `Tensor.backward` calls);
- `grad(outputs, inputs, grad_outputs=None, ...)` returns the gradients instead;
- `Function`, `FunctionCtx`: custom Functions, whose code lives in
  gradcalc/engine/custom.py (below this module) and whose names are re-exported here.

The errors are PyTorch's, as `RuntimeError` with PyTorch's words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gradcalc.engine import ops, tape
from gradcalc.engine.custom import Function, FunctionCtx
from gradcalc.engine.tape import Node, no_grad
from gradcalc.engine.tensor import Tensor, as_array, lift, retained

__all__ = [
    "Function", "FunctionCtx", "Variable", "backward", "grad", "no_grad", "enable_grad",
    "set_grad_enabled", "is_grad_enabled",
]


# --------------------------------------------------------------------------- grad mode


def is_grad_enabled() -> bool:
    return tape.grad_enabled()


def set_grad_enabled(mode: bool):
    """Record (True) or do not record (False) operations inside the block."""
    return tape.set_grad_enabled(mode)


def enable_grad():
    """Record operations inside the block, even within `no_grad` (torch.enable_grad)."""
    return set_grad_enabled(True)


def Variable(data: Any, requires_grad: bool = False) -> Tensor:  # noqa: N802 - PyTorch's name
    """PyTorch's old `torch.autograd.Variable`: today simply a tensor (a new leaf)."""
    t = Tensor.wrap(as_array(data), None)
    return t.requires_grad_(requires_grad)


# --------------------------------------------------------------------------- backward, grad


def _tensors(x: Any) -> list[Tensor]:
    return [x] if isinstance(x, Tensor) else list(x)


def _size(shape: tuple[int, ...]) -> str:
    return f"Size({list(shape)})"


def _seed(output: Tensor, gradient: Any, position: int, create_graph: bool,
          batched: bool = False) -> Any:
    """The cotangent that starts the sweep at `output` (PyTorch's grad_tensors), checked in
    PyTorch's order: the weights' shape, then whether the output is on a graph."""
    unused = RuntimeError(
        f"element {position} of tensors does not require grad and does not have a grad_fn")
    if not isinstance(output, Tensor) or gradient is None and output.node is None:
        raise unused
    if gradient is None:
        if output.numel() != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        return np.ones(output.shape)
    seed = gradient if create_graph and isinstance(gradient, Tensor) else as_array(gradient)
    shape = tuple(ops.shape(seed))
    if (shape[1:] if batched else shape) != output.shape:
        expected = output.shape if not batched else ("B",) + output.shape
        raise RuntimeError(
            f"Mismatch in shape: grad_output[{position}] has a shape of {_size(shape)} and "
            f"output[{position}] has a shape of {_size(expected)}.")
    if output.node is None:
        raise unused
    return seed


def _check_seeds(outputs: list, grads: Sequence[Any], create_graph: bool,
                 batched: bool = False) -> None:
    """The outputs' errors, raised before any about the inputs (PyTorch's order)."""
    for i, (o, g) in enumerate(zip(outputs, grads)):
        _seed(o, g, i, create_graph, batched)


def _run(outputs: list[Tensor], grads: Sequence[Any], retain_graph: bool | None,
         create_graph: bool, stop_at: set | None, batched: bool = False,
         only: set | None = None) -> dict:
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad_tensors has {len(grads)} entries but there are "
                           f"{len(outputs)} outputs")
    if retain_graph is None:
        retain_graph = create_graph
    roots = [(o.node if isinstance(o, Tensor) else None,
              _seed(o, g, i, create_graph, batched))
             for i, (o, g) in enumerate(zip(outputs, grads, strict=True))]
    # only: the nodes wanted; the sweep runs just what leads to them (None: everything)
    needed = None if only is None else _leading_to([r for r, _ in roots], only)
    return tape.backward(roots, retain_graph=retain_graph, create_graph=create_graph, lift=lift,
                         stop_at=stop_at or None, needed=needed)


def _leading_to(roots: list[Any], targets: set[Node]) -> set[Node]:
    """The nodes from which a target is reachable along parents (what a sweep must run)."""
    leads: dict[Node, bool] = {}
    stack = [(r, False) for r in roots if r is not None]
    while stack:
        node, finished = stack.pop()
        if finished:
            leads[node] = node in targets or any(leads.get(p, False) for p in node.parents)
            continue
        if node in leads:
            continue
        leads[node] = False  # visited; settled once its parents are
        stack.append((node, True))
        stack.extend((p, False) for p in node.parents if p is not None and p not in leads)
    return {n for n, lead in leads.items() if lead}


def _grads_list(grad_tensors: Any, n: int) -> list[Any]:
    if grad_tensors is None:
        return [None] * n
    if isinstance(grad_tensors, Tensor) or n == 1 and not _is_seq_of_seeds(grad_tensors):
        return [grad_tensors]
    return list(grad_tensors)


def _is_seq_of_seeds(x: Any) -> bool:
    """A list/tuple whose items are tensors or None: one seed per output."""
    return isinstance(x, (list, tuple)) and len(x) > 0 and all(
        g is None or isinstance(g, Tensor) for g in x)


def _as_grad(g: Any) -> Tensor:
    return g if isinstance(g, Tensor) else Tensor.wrap(np.asarray(g, dtype=np.float64), None)


def _accumulate(t: Tensor, g: Any, create_graph: bool) -> None:
    """`t.grad += g`: in place (the same .grad object) unless the sum is recorded."""
    g = _as_grad(g)
    if t.grad is None:
        t.grad = g if g.requires_grad else Tensor.wrap(np.array(g.value, copy=True), None)
    elif create_graph or g.requires_grad or t.grad.requires_grad:
        t.grad = t.grad + g
    else:
        t.grad.value = t.grad.value + g.value


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate d(tensors)/d(leaf) into each leaf's `.grad` (torch.autograd.backward).

    `grad_tensors` weights a non-scalar output (a vector-Jacobian product); `retain_graph`
    keeps the saved values for another sweep; `create_graph` records the sweep itself so
    the gradients can be differentiated again; `inputs` limits which tensors accumulate.
    """
    outputs = _tensors(tensors)
    grads = _grads_list(grad_tensors, len(outputs))
    if inputs is not None:
        _check_seeds(outputs, grads, create_graph)
        targets = _tensors(inputs)
        for t in targets:
            if not isinstance(t, Tensor) or t.node is None:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        stop_at = {t.node for t in targets}
    else:
        targets = None
        stop_at = {node for node, ref in list(retained.items()) if ref() is not None}
    try:
        result = _run(outputs, grads, retain_graph, create_graph, stop_at,
                      only=stop_at if targets is not None else None)
    except tape.FreedError as error:  # as PyTorch, keep what finished leaves got
        if targets is None:
            _accumulate_leaves(error.finished, create_graph)
        raise
    if targets is not None:
        for t in targets:
            if t.node in result:
                _accumulate(t, result[t.node], create_graph)
        return
    _accumulate_leaves(result, create_graph)


def tensor_backward(self: Tensor, gradient: Any = None, retain_graph: bool | None = None,
                    create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate d(self)/d(leaf), weighted by `gradient`, into every leaf's .grad."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


Tensor.backward = tensor_backward  # the method lives here: tensor.py does not import autograd


def _accumulate_leaves(result: dict, create_graph: bool) -> None:
    """Add each swept cotangent into its leaf's (or retained tensor's) .grad."""
    for node, g in result.items():
        if node.prim is None:
            leaf = node.leaf() if node.leaf is not None else None
        else:
            ref = retained.get(node)
            leaf = ref() if ref is not None else None
        if leaf is not None and leaf.node is node:
            _accumulate(leaf, g, create_graph)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None,
         retain_graph: bool | None = None, create_graph: bool = False,
         allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple[Tensor | None, ...]:
    """The gradients of `outputs` with respect to `inputs`, returned, not accumulated.

    With `is_grads_batched` each grad_output has a leading batch axis and every result has
    it too: the whole batch is one reverse sweep (the tape's VJP rules take batches).
    """
    outputs_list = _tensors(outputs)
    inputs_list = _tensors(inputs)
    grads = _grads_list(grad_outputs, len(outputs_list))
    _check_seeds(outputs_list, grads, create_graph, is_grads_batched)
    for t in inputs_list:
        if not isinstance(t, Tensor) or t.node is None:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    wanted = {t.node for t in inputs_list}
    kept = {node for node, ref in list(retained.items()) if ref() is not None}
    # PyTorch's retain_grad hook fires in autograd.grad too (even before an error)
    keep = kept if not is_grads_batched else set()
    try:
        result = _run(outputs_list, grads, retain_graph, create_graph, wanted | kept,
                      batched=is_grads_batched, only=wanted)
    except tape.FreedError as error:
        _accumulate_leaves({n: g for n, g in error.finished.items() if n in keep}, False)
        raise
    _accumulate_leaves({n: g for n, g in result.items() if n in keep}, create_graph)
    answer: list[Tensor | None] = []
    for i, t in enumerate(inputs_list):
        if t.node in result:
            answer.append(_as_grad(result[t.node]))
        elif materialize_grads:
            batch = ops.shape(grads[0])[:1] if is_grads_batched else ()
            answer.append(Tensor.wrap(np.zeros(batch + t.shape), None))
        elif allow_unused:
            answer.append(None)
        else:
            raise RuntimeError(
                f"The differentiated Tensor at index {i} appears to not have been used in the "
                "graph. Set allow_unused=True if this is the desired behavior.")
    return tuple(answer)

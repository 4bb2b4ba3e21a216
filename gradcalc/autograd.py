"""PyTorch's autograd entry points on gradcalc's tape: backward, grad and custom Functions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import tape
from .tensor import Tensor, as_array


def _tensors(x: Any) -> list[Tensor]:
    return [x] if isinstance(x, Tensor) else list(x)


def _seed(output: Tensor, gradient: Any, position: int, create_graph: bool) -> Any:
    """The cotangent that starts the sweep at `output` (PyTorch's grad_tensors)."""
    if output._node is None:
        raise RuntimeError(
            f"element {position} of tensors does not require grad and does not have a grad_fn")
    if gradient is None:
        if output.numel() != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        seed: Any = np.ones(output.shape)
    else:
        seed = gradient if create_graph and isinstance(gradient, Tensor) else as_array(gradient)
        if tuple(np.shape(getattr(seed, "_value", seed))) != output.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{position}] has a shape of "
                f"{_size(np.shape(getattr(seed, '_value', seed)))} and output[{position}] has a "
                f"shape of {_size(output.shape)}.")
    return seed


def _size(shape: tuple[int, ...]) -> str:
    return f"Size({list(shape)})"


def _run(outputs: list[Tensor], grads: Sequence[Any], retain_graph: bool | None,
         create_graph: bool, stop_at: set | None) -> dict:
    if retain_graph is None:
        retain_graph = create_graph
    roots = [(o._node, _seed(o, g, i, create_graph))
             for i, (o, g) in enumerate(zip(outputs, grads))]
    return tape.backward(roots, retain_graph=retain_graph, create_graph=create_graph,
                         stop_at=stop_at)


def _as_grad(g: Any) -> Tensor:
    return g if isinstance(g, Tensor) else Tensor._wrap(np.asarray(g, dtype=np.float64), None)


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate d(tensors)/d(leaf) into each leaf's `.grad` (torch.autograd.backward)."""
    outputs = _tensors(tensors)
    grads = [None] * len(outputs) if grad_tensors is None else (
        [grad_tensors] if isinstance(grad_tensors, Tensor) or len(outputs) == 1
        else list(grad_tensors))
    targets = None if inputs is None else {t._node for t in _tensors(inputs)}
    result = _run(outputs, grads, retain_graph, create_graph, targets)
    for node, g in result.items():
        if targets is not None and node not in targets:
            continue
        leaf = node.leaf() if node.leaf is not None else None
        if leaf is None:
            continue
        g = _as_grad(g)
        leaf.grad = g if leaf.grad is None else _as_grad(leaf.grad + g)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None,
         retain_graph: bool | None = None, create_graph: bool = False,
         allow_unused: bool = False) -> tuple[Tensor | None, ...]:
    """The gradients of `outputs` with respect to `inputs`, returned, not accumulated."""
    outputs_list = _tensors(outputs)
    inputs_list = _tensors(inputs)
    if grad_outputs is None:
        grads: list[Any] = [None] * len(outputs_list)
    elif isinstance(grad_outputs, Tensor):
        grads = [grad_outputs]
    else:
        grads = list(grad_outputs)
    for i, t in enumerate(inputs_list):
        if t._node is None:
            raise RuntimeError(
                f"One of the differentiated Tensors (input {i}) does not require grad")
    result = _run(outputs_list, grads, retain_graph, create_graph,
                  {t._node for t in inputs_list})
    answer: list[Tensor | None] = []
    for t in inputs_list:
        if t._node in result:
            answer.append(_as_grad(result[t._node]))
        elif allow_unused:
            answer.append(None)
        else:
            raise RuntimeError(
                "One of the differentiated Tensors appears to not have been used in the graph. "
                "Set allow_unused=True if this is the desired behavior.")
    return tuple(answer)

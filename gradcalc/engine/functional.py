"""Function transformations: take `f` and a point, return derivative values.

`jacobian` pushes a whole identity seed through one reverse sweep (a batch of
cotangents), `hessian` sweeps over a gradient that was itself recorded
(`create_graph`), and `jvp` is the transpose of a recorded VJP (the double-VJP trick).
A point may be one array or a tuple of arrays; results mirror that shape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gradcalc.engine import fused, tape, tracing
from gradcalc.engine.diagonal import Diagonal
from gradcalc.engine.shapes import value
from gradcalc.engine.tensor import Tensor, as_array, lift

Point = Any


def _leaves(x: Point) -> tuple[list[Tensor], bool]:
    is_tuple = isinstance(x, tuple)
    xs = x if is_tuple else (x,)
    return [Tensor.wrap(_input(v), None).requires_grad_(True) for v in xs], is_tuple


def _input(v: Any) -> np.ndarray:
    """A point's array for a leaf: a float64 array as a read-only view (no copy: nothing
    writes to a leaf's value, and the view cannot), anything else as a float64 copy."""
    if type(v) is np.ndarray and v.dtype == np.float64:
        view = v.view()
        view.flags.writeable = False
        return view
    return as_array(v)


def _apart(out: np.ndarray, xs: list[Tensor]) -> np.ndarray:
    """`out`, copied if it shares memory with a leaf (f returned its input): a result
    never aliases the caller's array."""
    if any(np.may_share_memory(out, leaf.value) for leaf in xs):
        return np.array(out, copy=True)
    return out


def _shape_result(values: list[Any], is_tuple: bool) -> Any:
    return tuple(values) if is_tuple else values[0]


def _value(t: Any) -> np.ndarray:
    return np.asarray(value(t), dtype=np.float64)


def record(f: Callable[..., Any], leaves: list[Tensor], lean: bool = False
           ) -> tuple[Any, tape.Tape]:
    """f(*leaves), and the tape of the nodes it made (the sweep walks it in reverse).
    `lean`: the tape is swept once by plain rules, so its nodes keep only what their
    rules read (`tape.lean`)."""
    with tape.recording() as t, tape.lean(lean):
        return f(*leaves), t


def sweep(out: Any, seed: Any, leaves: list[Tensor], create_graph: bool = False,
          retain_graph: bool = True, on: tape.Tape | None = None) -> list[Any]:
    """Cotangents of `leaves` for one reverse sweep from `out` seeded with `seed`.

    A leaf the output does not depend on gets zeros of batch + its shape. A graph swept
    only once is freed as the sweep goes (retain_graph=False), so its arrays' memory is
    reused by the sweep's own (faster on large arrays). `on`: the tape `out` was recorded
    on (see `record`), walked in reverse.
    """
    batch = np.shape(value(seed))[: np.ndim(seed) - len(np.shape(_value(out)))]
    node = getattr(out, "node", None)
    found = {} if node is None else tape.backward(
        [(node, seed)], retain_graph=retain_graph, create_graph=create_graph, tape=on,
        lift=lift)
    return [found[leaf.node] if leaf.node in found else np.zeros(batch + leaf.shape)
            for leaf in leaves]


def identity_seed(out_shape: tuple[int, ...]) -> np.ndarray:
    """One cotangent per output element: the rows of an identity, shaped (n,) + out_shape."""
    n = int(np.prod(out_shape))
    return np.eye(n).reshape((n,) + tuple(out_shape))


def _kernel(f: Callable[..., Any], x: Point) -> fused.Kernel | None:
    """The fused kernel of `f` at `x`: an interpreter program's own, else a Python
    function's trace (gradcalc/engine/tracing.py); None where the tape runs `f`."""
    point = x if isinstance(x, tuple) else (x,)
    if hasattr(f, "fused"):
        return fused.kernel_for(f, point)
    return tracing.kernel_for(f, point)


def pullback(f: Callable[..., Any], x: Point) -> tuple[np.ndarray, Callable[[Any], Any]]:
    """(f(x), v ↦ vᵀ·J), the shape of JAX's `vjp`: one forward, then a sweep on demand.

    The sweep frees the recorded graph as it goes, so the returned function runs once.
    """
    kernel = _kernel(f, x)
    if kernel is not None:
        return _fused_pullback(kernel, x)
    leaves, is_tuple = _leaves(x)
    out, t = record(f, leaves, lean=True)
    out_value = _apart(_value(out), leaves)

    def pull(v: Any) -> Any:
        seed = as_array(v)
        if seed.shape != out_value.shape:
            raise ValueError(f"v has shape {seed.shape}; the output has shape {out_value.shape}")
        grads = sweep(out, seed, leaves, retain_graph=False, on=t)
        return _shape_result([np.asarray(g) for g in grads], is_tuple)

    return out_value, pull


def _fused_pullback(kernel: fused.Kernel, x: Point) -> tuple[np.ndarray, Callable[[Any], Any]]:
    """`pullback` by a fused kernel: its value and diagonal in one pass, a pull from them."""

    def pull(v: Any) -> Any:
        seed = as_array(v)
        if seed.shape != kernel.value.shape:
            raise ValueError(f"v has shape {seed.shape}; the output has shape "
                             f"{kernel.value.shape}")
        return _shape_result(kernel.pull(seed), isinstance(x, tuple))

    return kernel.value, pull


def vjp(f: Callable[..., Any], x: Point, v: Any) -> tuple[np.ndarray, Any]:
    """(f(x), vᵀ·J) — what PyTorch's `f(x).backward(v)` leaves in `x.grad`."""
    value, pull = pullback(f, x)
    return value, pull(v)


def grad(f: Callable[..., Any], x: Point) -> Any:
    """The gradient of a scalar-valued `f` at `x`."""
    kernel = _kernel(f, x)
    if kernel is not None and (kernel.summed or kernel.size == 1):  # decided before a pass
        return _fused_pullback(kernel, x)[1](np.ones(kernel.value.shape))
    leaves, is_tuple = _leaves(x)
    out, t = record(f, leaves, lean=True)
    if np.size(_value(out)) != 1:
        raise ValueError(
            f"grad needs a scalar output; this one has shape {np.shape(_value(out))} "
            "(use vjp with weights, or jacobian)")
    grads = sweep(out, np.ones(np.shape(_value(out))), leaves, retain_graph=False, on=t)
    return _shape_result([np.asarray(g) for g in grads], is_tuple)


def jacobian(f: Callable[..., Any], x: Point) -> Any:
    """d f / d x, shaped output shape + input shape, from one batched reverse sweep (or,
    for an elementwise program, its diagonals from one fused pass)."""
    kernel = _kernel(f, x)
    if kernel is not None:
        out_shape = kernel.value.shape
        return _shape_result([d if kernel.summed else _diagonal_matrix(d, out_shape)
                              for d in kernel.diagonal()], isinstance(x, tuple))
    leaves, is_tuple = _leaves(x)
    out, t = record(f, leaves, lean=True)
    out_shape = np.shape(_value(out))
    # a vector output's identity seed stays diagonal through elementwise steps (O(n))
    seed = Diagonal.identity(out_shape[0]) if len(out_shape) == 1 else identity_seed(out_shape)
    grads = sweep(out, seed, leaves, retain_graph=False, on=t)
    return _shape_result(
        [np.asarray(g).reshape(out_shape + leaf.shape)
         for g, leaf in zip(grads, leaves, strict=True)],
        is_tuple)


def hessian(f: Callable[..., Any], x: Point) -> Any:
    """Second derivatives of a scalar `f`: blocks H[i][j] shaped x_i.shape + x_j.shape.

    The gradient is recorded on the tape (create_graph), then each of its parts gets a
    batched reverse sweep, so every row of a block comes from one sweep. An elementwise
    program's blocks are diagonal: one fused pass gives them all.
    """
    kernel = _kernel(f, x)
    if kernel is not None and (kernel.summed or kernel.size == 1):
        blocks = [[_diagonal_matrix(h, h.shape) for h in row] for row in kernel.second()]
        return tuple(map(tuple, blocks)) if isinstance(x, tuple) else blocks[0][0]
    leaves, is_tuple = _leaves(x)
    out, t = record(f, leaves)
    if np.size(_value(out)) != 1:
        raise ValueError(f"hessian needs a scalar output; this one has shape "
                         f"{np.shape(_value(out))}")
    with tape.recording(onto=t):  # the gradient's nodes follow f's on the same tape
        first = sweep(out, np.ones(np.shape(_value(out))), leaves, create_graph=True, on=t)
    blocks = []
    for g, leaf in zip(first, leaves, strict=True):
        rows = sweep(g, identity_seed(leaf.shape), leaves, on=t)
        blocks.append([np.asarray(r).reshape(leaf.shape + other.shape)
                       for r, other in zip(rows, leaves, strict=True)])
    if not is_tuple:
        return blocks[0][0]
    return tuple(tuple(row) for row in blocks)


def _diagonal_matrix(d: np.ndarray, out_shape: tuple[int, ...]) -> np.ndarray:
    """The matrix with `d` on its diagonal, shaped out_shape + d's shape: the identity
    times `d` by columns, so the column of an inf or a nan is nan, as the tape's is."""
    with np.errstate(invalid="ignore"):
        matrix = np.eye(d.size) * d.reshape(-1)
    return matrix.reshape(tuple(out_shape) + d.shape)


def _tangents(v: Point, is_tuple: bool, shapes: list[tuple[int, ...]]) -> tuple[np.ndarray, ...]:
    """`v` as one array per input, each of its input's shape."""
    vs = tuple(as_array(vi) for vi in (v if is_tuple else (v,)))
    if [vi.shape for vi in vs] != shapes:
        raise ValueError(f"v has shapes {[vi.shape for vi in vs]}; the point has shapes "
                         f"{shapes}")
    return vs


def jvp(f: Callable[..., Any], x: Point, v: Point) -> tuple[np.ndarray, np.ndarray]:
    """(f(x), J·v), as the transpose of a recorded VJP: no forward-mode rules needed (or,
    for an elementwise program, the diagonals of one fused pass times v)."""
    kernel = _kernel(f, x)
    if kernel is not None:
        vs = _tangents(v, isinstance(x, tuple), [kernel.shape] * len(kernel.inputs))
        along = sum(d * vi for d, vi in zip(kernel.diagonal(), vs, strict=True))
        return kernel.value, np.asarray(np.sum(along) if kernel.summed else along)
    leaves, is_tuple = _leaves(x)
    vs = _tangents(v, is_tuple, [leaf.shape for leaf in leaves])
    out = f(*leaves)
    out_value = _apart(_value(out), leaves)
    u = Tensor(np.zeros(np.shape(out_value)), requires_grad=True)
    grads = sweep(out, u, leaves, create_graph=True)
    roots = [(g.node, vi) for g, vi in zip(grads, vs, strict=True)
             if isinstance(g, Tensor) and g.node is not None]
    found = tape.backward(roots, retain_graph=True) if roots else {}
    return out_value, np.asarray(found.get(u.node, np.zeros(np.shape(out_value))))

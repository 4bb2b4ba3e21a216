"""The batched backend: the one interpreter run once over many points (--points).

Every input value gets a leading axis of points, and the program runs once. The program's
meaning is per point, so `BatchedBackend` knows which values carry the point axis (those
derived from the inputs) and makes reductions, indexing, list literals, `@`/`dot` and
`transpose` act on the trailing, per-point axes. Points are independent, so one reverse
sweep seeded with ones over the point axis gives every point's gradient, and one sweep
seeded with a batch of identity rows gives every point's Jacobian.

Control flow decided by values: a condition (or a loop bound, or an index) that is the
same at every point is simply taken. Where points disagree, the pass stops and the points
are split by the value they disagree on; each group is run again as its own vectorised
pass, so a program runs once per distinct path the points take (at most `MAX_PATHS`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import numpy as np

from gradcalc.backends import fusing
from gradcalc.backends.numeric import (
    BINARY,
    COMPARE,
    OPERATOR_PRIMS,
    NumericBackend,
    one_operand,
    output_of,
)
from gradcalc.engine import fused, ops, tape
from gradcalc.engine.primitive import apply_into
from gradcalc.engine.tensor import Tensor
from gradcalc.errors import EvalError, LimitError, ShapeError
from gradcalc.language.program import Decisions, Interpreter, Pos, Program
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: most distinct control-flow paths the points may take (one vectorised pass each)
MAX_PATHS = 256
#: most numbers in one batched array (all points together)
MAX_BATCH_ELEMENTS = 200_000_000

Progress = Callable[[str, int, int], None]  # (stage, done, total)
#: the cotangent of grad's sweep for a per-point output shape (None: every Jacobian row)
Seed = Callable[[tuple[int, ...]], np.ndarray]


def no_progress(stage: str, done: int, total: int) -> None:
    """A Progress that shows nothing."""


class Batched:
    """A value that carries the leading point axis (one slice per point)."""

    __slots__ = ("v",)

    def __init__(self, v: Any) -> None:
        self.v = v


class Divergence(Exception):
    """Points disagree on a control-flow decision; `key` holds each point's value of it."""

    def __init__(self, key: np.ndarray) -> None:
        super().__init__("points take different paths")
        self.key = key


def _raw(x: Any) -> Any:
    return x.v if isinstance(x, Batched) else x


def _rank(x: Any) -> int:
    """The per-point number of dimensions."""
    return ops.ndim(x.v) - 1 if isinstance(x, Batched) else ops.ndim(x)


def _pshape(x: Any) -> tuple[int, ...]:
    return ops.shape(x.v)[1:] if isinstance(x, Batched) else ops.shape(x)


def _describe(x: Any) -> str:
    s = _pshape(x)
    return "a scalar" if s == () else f"shape {s}"


class BatchedBackend(NumericBackend):
    """The numeric backend on values with a leading point axis, with per-point semantics.

    As the numeric backend's, its elementwise operations write their result over an
    operand that is the interpreter's temporary, where `primitive.apply_into` finds that
    safe (a lean recording of a pass swept once: see `one_pass`)."""

    def __init__(self, count: int, limits: Limits = DEFAULT_LIMITS) -> None:
        super().__init__(limits)
        self.count = count

    # helpers ---------------------------------------------------------------------------
    def _wrap(self, value: Any, batched: bool, pos: Pos) -> Any:
        size = np.size(ops.value(value))
        per_point = size // self.count if batched else size
        if per_point > self.limits.max_array_elements or size > MAX_BATCH_ELEMENTS:
            raise LimitError(
                f"an array of {per_point:,} elements per point at {pos} exceeds the limit of "
                f"{self.limits.max_array_elements:,} elements (or {MAX_BATCH_ELEMENTS:,} for "
                "all points together)")
        return Batched(value) if batched else value

    def _align(self, items: list[Any]) -> tuple[list[Any], bool]:
        """Raw values whose per-point axes line up under NumPy broadcasting."""
        batched = any(isinstance(i, Batched) for i in items)
        if not batched:
            return items, False
        rank = max(_rank(i) for i in items)
        out = []
        for i in items:
            raw = _raw(i)
            if isinstance(i, Batched) and _rank(i) < rank:
                s = ops.shape(raw)
                raw = ops.reshape(raw, s[:1] + (1,) * (rank - len(s) + 1) + s[1:])
            out.append(raw)
        return out, True

    def describe(self, value: Any) -> str:
        """A value's per-point shape in words."""
        return _describe(value)

    def _matmul(self, a: Any, b: Any, pos: Pos, what: str) -> Any:
        ra, rb = _rank(a), _rank(b)
        if ra == 0 or rb == 0:
            raise EvalError(f"'@' needs vectors or matrices, not scalars ({pos})")
        batched = isinstance(a, Batched) or isinstance(b, Batched)
        x, y = _raw(a), _raw(b)
        if not batched:
            return self._attempt(lambda: ops.matmul(x, y), what, pos, a, b)

        def run() -> Any:
            if ra == 1 and rb == 1:  # a dot product per point
                return ops.sum(ops.mul(x, y), axis=-1)
            # lift vectors to matrices, multiply stacks of matrices, drop the lifted axes
            out = ops.matmul(ops.unsqueeze(x, -2) if ra == 1 else x,
                             ops.unsqueeze(y, -1) if rb == 1 else y)
            s = ops.shape(out)
            s = s[:-2] + s[-1:] if ra == 1 else s
            return ops.reshape(out, s[:-1] if rb == 1 else s)

        return self._wrap(self._attempt(run, what, pos, a, b), True, pos)

    # the Backend protocol ---------------------------------------------------------------
    def call(self, func: str, args: list[Any], pos: Pos, spares: tuple[int, ...] = ()) -> Any:
        if not any(isinstance(a, Batched) for a in args):
            return super().call(func, args, pos, spares)
        fn, (low, high) = ops.FUNCTIONS[func]
        if not low <= len(args) <= high:
            wanted = str(low) if low == high else f"{low} to {high}"
            raise EvalError(f"{func}() takes {wanted} arguments, not {len(args)} ({pos})")
        if func in ("ones", "zeros"):
            dims = [self.integer(a, pos) for a in args]
            return super().call(func, [np.float64(d) for d in dims], pos)
        if func == "dot":
            return self._matmul(args[0], args[1], pos, "dot()")
        x = args[0]
        if ops.takes_axis(func):
            a = None if len(args) == 1 else self.integer(args[1], pos)
            keep = len(args) > 2 and bool(self.integer(args[2], pos))  # keepdims=True
            if not isinstance(x, Batched):
                return super().call(func, [x, np.float64(a), *args[2:]], pos)
            rank = _rank(x)
            if a is None:
                axis: tuple[int, ...] = tuple(range(1, rank + 1))
            elif not -rank <= a < max(rank, 1):
                raise EvalError(f"{func}() at {pos}: axis {a} is out of range for "
                                f"{_describe(x)}")
            else:
                axis = (a % rank + 1,) if rank else ()
            if keep:
                return self._wrap(self._attempt(lambda: fn(x.v, axis, True), f"{func}()", pos,
                                                x), True, pos)
            return self._wrap(self._attempt(lambda: fn(x.v, axis), f"{func}()", pos, x), True,
                              pos)
        if func == "transpose":
            rank = _rank(x)
            axes = (0,) + tuple(range(rank, 0, -1))
            return self._wrap(ops.transpose(x.v, axes), True, pos)
        raws, _ = self._align(args)
        prim = one_operand(func) if spares and len(raws) == 1 else None
        if prim is not None:
            fn = partial(apply_into, prim, spares)
        return self._wrap(self._attempt(lambda: fn(*raws), f"{func}()", pos, *args), True, pos)

    def binary(self, op: str, left: Any, right: Any, pos: Pos,
               spares: tuple[int, ...] = ()) -> Any:
        if not (isinstance(left, Batched) or isinstance(right, Batched)):
            return super().binary(op, left, right, pos, spares)
        if op == "@":
            return self._matmul(left, right, pos, "'@'")
        (x, y), _ = self._align([left, right])
        prim = OPERATOR_PRIMS.get(op) if spares else None
        fn = BINARY[op] if prim is None else partial(apply_into, prim, spares)
        return self._wrap(self._attempt(lambda: fn(x, y), f"'{op}'", pos, left, right), True, pos)

    def negate(self, value: Any, pos: Pos, spares: tuple[int, ...] = ()) -> Any:
        if isinstance(value, Batched):
            if spares:
                return Batched(apply_into(ops.PRIMITIVES["neg"], spares, value.v))
            return Batched(ops.neg(value.v))
        return super().negate(value, pos, spares)

    def stack(self, items: list[Any], pos: Pos) -> Any:
        if not any(isinstance(i, Batched) for i in items):
            return super().stack(items, pos)
        shapes = {_pshape(i) for i in items}
        if len(shapes) > 1:
            listed = ", ".join(sorted(str(s) for s in shapes))
            raise EvalError(f"list at {pos} mixes elements of different shapes: {listed}")
        (s,) = shapes
        full = (self.count,) + s
        raws = [i.v if isinstance(i, Batched) else ops.broadcast_to(i, full) for i in items]
        stacked = ops.stack(raws)  # (items, points, ...) -> (points, items, ...)
        moved = ops.transpose(stacked, (1, 0) + tuple(range(2, len(s) + 2)))
        return self._wrap(moved, True, pos)

    def index(self, target: Any, key: tuple, pos: Pos) -> Any:
        if not isinstance(target, Batched):
            return super().index(target, key, pos)
        if len(key) > _rank(target):
            raise EvalError(f"index at {pos} failed on {_describe(target)}: too many indices "
                            f"({len(key)}) for {_rank(target)} dimensions")
        full = (slice(None),) + tuple(key)
        return Batched(self._attempt(lambda: ops.getitem(target.v, full), "index", pos, target))

    def compare(self, op: str, left: Any, right: Any, pos: Pos) -> Any:
        if not (isinstance(left, Batched) or isinstance(right, Batched)):
            return super().compare(op, left, right, pos)
        (x, y), _ = self._align([left, right])
        fn = COMPARE[op]
        return Batched(self._attempt(lambda: fn(ops.value(x), ops.value(y)), f"'{op}'", pos,
                                     left, right))

    def truth(self, value: Any, pos: Pos) -> bool:
        if not isinstance(value, Batched):
            return super().truth(value, pos)
        v = np.asarray(ops.value(value.v))
        if v.size != self.count:
            raise EvalError(
                f"the condition at {pos} has {_describe(value)}, not a single value; "
                "reduce it first, e.g. with norm(), sum() or a comparison of a scalar")
        flat = v.reshape(self.count).astype(bool)
        if flat.all():
            return True
        if not flat.any():
            return False
        raise Divergence(flat)

    def integer(self, value: Any, pos: Pos) -> int:
        if not isinstance(value, Batched):
            return super().integer(value, pos)
        v = np.asarray(ops.value(value.v), dtype=np.float64)
        if v.size != self.count:
            raise EvalError(f"expected a whole number at {pos}, got {_describe(value)}")
        flat = v.reshape(self.count)
        bad = ~np.isfinite(flat) | (flat != np.round(flat))
        if bad.any():
            row = int(np.argmax(bad))
            raise EvalError(f"expected a whole number at {pos}, got {flat[row]:g} (at point "
                            f"{row + 1} of this pass)")
        if (flat == flat[0]).all():
            return int(flat[0])
        raise Divergence(flat)


#: rows (None: every point), outputs, derivatives
Pass = tuple[np.ndarray | None, np.ndarray, dict[str, np.ndarray]]


def evaluate(program: Program, values: dict[str, np.ndarray], names: list[str], of: str,
             limits: Limits, seed: Seed | None = None, progress: Progress = no_progress
             ) -> tuple[np.ndarray, dict[str, np.ndarray], int, int]:
    """(outputs, derivatives, distinct paths, passes run) for all points of `values`: the
    derivative of `of` with respect to `names`, a vector-Jacobian product with `seed(shape)`
    as the weights of each point's output, or the whole Jacobian when `seed` is None.

    Each pass runs the program once on a group of points; a group whose points disagree on
    a decision is split by it and run again.
    """
    count = next(iter(values.values())).shape[0]
    pending: list[np.ndarray | None] = [None]  # None: every point (no array of rows made)
    done: list[Pass] = []
    passes = 0
    while pending:
        rows = pending.pop()
        passes += 1
        progress("evaluating", len(done), len(done) + len(pending) + 1)
        subset = values if rows is None else {k: v[rows] for k, v in values.items()}
        try:
            out, der = one_pass(program, subset, names, of, limits, seed)
        except Divergence as split:
            every = np.arange(count) if rows is None else rows
            pending.extend(every[split.key == k] for k in np.unique(split.key))
            if len(done) + len(pending) > MAX_PATHS:
                raise LimitError(
                    f"the points take more than {MAX_PATHS} different paths through the "
                    "program's control flow (conditions, loop counts or indices that differ "
                    "between points); split the table, or evaluate the points one by one "
                    "without --points") from None
            continue
        done.append((rows, out, der))
    progress("evaluating", len(done), len(done))
    output, derivative = _merge(done, count)
    return output, derivative, len(done), passes


def _merge(done: list[Pass], count: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The passes' rows put back in the table's order."""
    if len(done) == 1:
        return done[0][1], done[0][2]
    shapes = {o.shape[1:] for _, o, _ in done}
    if len(shapes) > 1:
        listed = ", ".join(f"{o.shape[1:]} (row {int(r[0]) + 1})" for r, o, _ in done)
        raise ShapeError(f"the points' outputs have different shapes: {listed}")
    _, first_out, first_der = done[0]
    output = np.empty((count,) + first_out.shape[1:])
    derivative = {k: np.empty((count,) + v.shape[1:]) for k, v in first_der.items()}
    for rows, out, der in done:
        output[rows] = out
        for k, v in der.items():
            derivative[k][rows] = v
    return output, derivative


def one_pass(program: Program, values: dict[str, np.ndarray], names: list[str], of: str,
             limits: Limits, seed: Seed | None = None
             ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """One vectorised run over all points of `values` and its reverse sweep; `Divergence`
    when the points disagree on a decision."""
    fast = _fused_pass(program, values, names, of, seed)
    if fast is not None:
        return fast
    count = next(iter(values.values())).shape[0]
    # leaves over the table's own arrays: no copy (nothing writes to a leaf's value)
    leaves = {n: Tensor.wrap(values[n], None).requires_grad_(True) for n in names}
    env: dict[str, Any] = {k: Batched(leaves.get(k, v)) for k, v in values.items()}
    interpreter = Interpreter(BatchedBackend(count, limits), env, Decisions(),
                              limits.max_iterations)
    with tape.hot():
        with _recording(seed) as on:
            interpreter.run(program)
        result = output_of(env, program, of, set(values))
        if isinstance(result, Batched):
            out = result.v
        else:  # the same at every point: give it the point axis
            out = ops.broadcast_to(result, (count,) + ops.shape(result))
        out_value = np.asarray(ops.value(out), dtype=np.float64)
        tensor_out = out if isinstance(out, Tensor) else Tensor.wrap(out, None)
        derivative = _sweep_points(tensor_out, [leaves[n] for n in names], names, seed, on)
    return out_value, derivative


@contextmanager
def _recording(seed: Seed | None) -> Iterator[tape.Tape | None]:
    """Where a pass records: a lean recording on a tape of its own when one plain sweep
    follows (its nodes keep only what their rules read, so the forward writes over its
    temporaries and the sweep walks the tape, lending each cotangent to its node's rules
    and freeing what it has passed); off a tape, every value kept, for a Hessian (whose
    first sweep is recorded)."""
    if seed is hessian_seed:
        yield None
        return
    with tape.recording() as on, tape.lean():
        yield on


def _fused_pass(program: Program, values: dict[str, np.ndarray], names: list[str], of: str,
                seed: Seed | None) -> tuple[np.ndarray, dict[str, np.ndarray]] | None:
    """`one_pass` by a fused kernel (gradcalc/engine/fused.py) where the program takes one
    and each point's output is a scalar, weighted by `seed` (or its Hessian: `seed` is
    `hessian_seed`); else None."""
    if seed is None or not fused.wanted(max(map(np.size, values.values()))):
        return None
    constants = {k: v for k, v in values.items() if k not in names}
    try:
        kernel = fusing.kernel(program, names, constants, of, tuple(values[n] for n in names))
        if kernel.summed or len(kernel.shape) != 1:
            return None  # not one number at every point (a vector there: the tape says so)
        if seed is hessian_seed:
            return _fused_hessians(kernel, names)
        grads = kernel.pull(np.asarray(seed(()), dtype=np.float64))
    except fused.Unfusable:
        return None
    return kernel.value, dict(zip(names, grads))


def _fused_hessians(kernel: fused.Kernel, names: list[str]
                    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Every point's value and Hessian blocks, as `_hessians` names them: each point's
    inputs are numbers, so a block is one second derivative per point; all in one pass."""
    value, second = kernel.value_and_second()
    if len(names) == 1:
        return value, {names[0]: second[0][0]}
    return value, {f"{a},{b}": second[i][j] for i, a in enumerate(names)
                   for j, b in enumerate(names)}


def hessian_seed(shape: tuple[int, ...]) -> np.ndarray:
    """The seed that asks `evaluate` for every point's Hessian (of a scalar per point)."""
    if shape != ():
        raise ShapeError(f"hessian needs a scalar output; this one has shape {shape} at "
                         "each point: reduce it (sum, mean, norm) or use --of")
    return np.ones(())


def _hessians(out: Tensor, leaves: list[Tensor], names: list[str]) -> dict[str, np.ndarray]:
    """Every point's Hessian blocks ("a,b", or the one input's name): the gradient
    recorded on the tape, then one batched sweep per input of identity rows over its
    entries, broadcast over the points."""
    from gradcalc.engine.functional import identity_seed, sweep

    count = out.shape[0]
    hessian_seed(tuple(out.shape[1:]))
    first = sweep(out, np.ones((count,)), leaves, create_graph=True)
    blocks: dict[str, np.ndarray] = {}
    for a, g, leaf in zip(names, first, leaves):
        shape_a = tuple(leaf.shape[1:])
        n = math.prod(shape_a)
        seed = np.broadcast_to(identity_seed(shape_a)[:, None], (n, count) + shape_a)
        rows = sweep(g, seed, leaves) if isinstance(g, Tensor) else \
            [np.zeros((n, count) + tuple(other.shape[1:])) for other in leaves]
        for b, r, other in zip(names, rows, leaves):
            key = a if len(names) == 1 else f"{a},{b}"
            blocks[key] = np.moveaxis(np.asarray(r, dtype=np.float64), 0, 1).reshape(
                (count,) + shape_a + tuple(other.shape[1:]))
    return blocks


def _sweep_points(out: Tensor, leaves: list[Tensor], names: list[str], seed: Seed | None,
                  on: tape.Tape | None = None) -> dict[str, np.ndarray]:
    """One reverse sweep for every point: seeded per point with `seed(shape)`, or with a
    batch of identity rows (every point's Jacobian); `on`: the tape the pass recorded."""
    from gradcalc.engine.functional import identity_seed, sweep

    count, shape = out.shape[0], tuple(out.shape[1:])
    if seed is hessian_seed:
        return _hessians(out, leaves, names)
    if seed is None:
        k = math.prod(shape)
        rows = np.broadcast_to(identity_seed(shape)[:, None], (k, count) + shape)
        grads = sweep(out, rows, leaves, retain_graph=False, on=on)
        return {n: np.moveaxis(np.asarray(g, dtype=np.float64), 0, 1).reshape(
                    (count,) + shape + leaf.shape[1:])
                for n, g, leaf in zip(names, grads, leaves)}
    cotangent = np.broadcast_to(seed(shape), (count,) + shape)
    grads = sweep(out, cotangent, leaves, retain_graph=False, on=on)
    return {n: np.asarray(g, dtype=np.float64) for n, g in zip(names, grads)}

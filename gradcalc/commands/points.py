"""--points: one program at many points, as one vectorised pass over a leading point axis.

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

The symbolic check runs on a small sample of points (first, last and a few between),
never per point.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

from gradcalc.backends.numeric import NumericBackend
from gradcalc.engine import ops
from gradcalc.engine.tensor import Tensor
from gradcalc.errors import EvalError, GradcalcError, LimitError, ShapeError
from gradcalc.language.program import Decisions, Interpreter, Pos, Program
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: most distinct control-flow paths the points may take (one vectorised pass each)
MAX_PATHS = 256
#: how many points the symbolic check samples
CHECK_SAMPLE = 5
#: most numbers in one batched array (all points together)
MAX_BATCH_ELEMENTS = 200_000_000
#: rows formatted per chunk when writing (and per progress step)
CHUNK = 20_000

#: a header cell: a name, then optionally indices as [i], [i,j] (quoted in CSV) or [i][j]
_COLUMN = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*((?:\[[\d\s,]*\])*)\s*$")
_INDEX = re.compile(r"^\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]$")

Progress = Callable[[str, int, int], None]  # (stage, done, total)


def _no_progress(stage: str, done: int, total: int) -> None:
    pass


# --------------------------------------------------------------------------- reading


@dataclass
class Table:
    """The points: CSV columns as given, and each input name's values, shaped (P,) + shape."""

    columns: list[str]
    data: np.ndarray  # (P, number of columns)
    values: dict[str, np.ndarray]

    @property
    def count(self) -> int:
        return self.data.shape[0]


def read_table(source: TextIO, where: str = "--points") -> Table:
    """A CSV table: a header row of input names (`x`, or `x[0]`, `x[1]` for a vector's
    elements), then one point per row of numbers. Blank lines are skipped."""
    header_line, skipped = source.readline(), 1
    while header_line and not header_line.strip():
        header_line, skipped = source.readline(), skipped + 1
    if not header_line:
        raise GradcalcError(f"{where}: the table is empty; the first row names the inputs, "
                            "e.g. 'x,y'", kind="usage")
    columns = [c.strip() for c in next(csv.reader([header_line.lstrip("\ufeff")]))]
    layout = _layout(columns, where)
    text = source.read()
    if not text.strip():
        raise GradcalcError(f"{where}: no points: the table has a header row but no rows",
                            kind="value")
    try:
        data = np.loadtxt(io.StringIO(text), delimiter=",", dtype=np.float64, ndmin=2,
                          comments=None)
    except ValueError:
        raise GradcalcError(f"{where}: {_bad_row(text, len(columns), skipped)}",
                            kind="value") from None
    if data.shape[1] != len(columns):
        raise GradcalcError(f"{where}: the header names {len(columns)} columns but the rows "
                            f"have {data.shape[1]}", kind="value")
    values = {name: data[:, cols].reshape((data.shape[0],) + shape)
              for name, (cols, shape) in layout.items()}
    return Table(columns, data, values)


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _bad_row(text: str, width: int, before: int) -> str:
    """What is wrong with the first unreadable row (NumPy's messages count rows oddly)."""
    for k, line in enumerate(text.splitlines(), start=before + 1):
        if not line.strip():
            continue
        cells = line.split(",")
        if len(cells) != width:
            return (f"line {k} has {_count(len(cells), 'value')}, but the header names "
                    f"{_count(width, 'column')}")
        for cell in cells:
            try:
                float(cell)
            except ValueError:
                return f"line {k}: {cell.strip()[:40]!r} is not a number"
    return "the table cannot be read as numbers separated by commas"


def _layout(columns: list[str], where: str) -> dict[str, tuple[list[int], tuple[int, ...]]]:
    """name -> (column numbers in C order, per-point shape)."""
    found: dict[str, dict[tuple[int, ...], int]] = {}
    for k, column in enumerate(columns):
        m = _COLUMN.match(column)
        if not m:
            hint = (" (a header cell with a comma, such as A[0,1], is quoted in CSV: "
                    "\"A[0,1]\"; or write A[0][1])") if column.count("[") > column.count("]") \
                else ""
            raise GradcalcError(
                f"{where}: header column {column!r} is not an input name; use names such as "
                f"x or x[0], x[1] for the elements of a vector x{hint}", kind="usage")
        name, brackets = m.group(1), m.group(2).replace(" ", "")
        parts = brackets.replace("][", "],[").split("],[") if brackets else []
        if brackets and (brackets.count("[") > 1 and "," in brackets
                         or not all(_INDEX.match("[" + p.strip("[]") + "]") for p in parts)):
            raise GradcalcError(
                f"{where}: header column {column!r} is not an input name; use names such as "
                "x or x[0], x[1] for the elements of a vector x", kind="usage")
        index = tuple(int(i) for p in parts for i in p.strip("[]").split(","))
        cells = found.setdefault(name, {})
        if cells and len(next(iter(cells))) != len(index):
            raise GradcalcError(f"{where}: column {column!r} mixes {name} with {name}[...] "
                                "columns of another number of indices", kind="usage")
        if index in cells:
            raise GradcalcError(f"{where}: column {column!r} appears twice", kind="usage")
        cells[index] = k
    layout = {}
    for name, cells in found.items():
        rank = len(next(iter(cells)))
        shape = tuple(max(ix[d] for ix in cells) + 1 for d in range(rank))
        missing = [ix for ix in np.ndindex(*shape) if ix not in cells]
        if missing:
            first = ",".join(str(i) for i in missing[0])
            raise GradcalcError(f"{where}: column {name}[{first}] is missing (the columns "
                                f"of {name} must cover every index up to the largest)",
                                kind="usage")
        layout[name] = ([cells[ix] for ix in np.ndindex(*shape)], shape)
    return layout


# --------------------------------------------------------------------------- the backend


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
    """The numeric backend on values with a leading point axis, with per-point semantics."""

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

    def _fail(self, what: str, pos: Pos, operands: list[Any], exc: Exception) -> EvalError:
        shapes = " and ".join(_describe(o) for o in operands)
        detail = f" on {shapes}" if operands else ""
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return EvalError(f"{what} at {pos} failed{detail}: {message}")

    def _try(self, thunk: Callable[[], Any], what: str, pos: Pos, operands: list[Any]) -> Any:
        try:
            return thunk()
        except (ValueError, IndexError, TypeError, NotImplementedError) as exc:
            raise self._fail(what, pos, operands, exc) from None

    def _matmul(self, a: Any, b: Any, pos: Pos, what: str) -> Any:
        ra, rb = _rank(a), _rank(b)
        if ra == 0 or rb == 0:
            raise EvalError(f"'@' needs vectors or matrices, not scalars ({pos})")
        batched = isinstance(a, Batched) or isinstance(b, Batched)
        x, y = _raw(a), _raw(b)
        if not batched:
            return self._try(lambda: ops.matmul(x, y), what, pos, [a, b])

        def run() -> Any:
            if ra == 1 and rb == 1:  # a dot product per point
                return ops.sum(ops.mul(x, y), axis=-1)
            # lift vectors to matrices, multiply stacks of matrices, drop the lifted axes
            out = ops.matmul(ops.unsqueeze(x, -2) if ra == 1 else x,
                             ops.unsqueeze(y, -1) if rb == 1 else y)
            s = ops.shape(out)
            s = s[:-2] + s[-1:] if ra == 1 else s
            return ops.reshape(out, s[:-1] if rb == 1 else s)

        return self._wrap(self._try(run, what, pos, [a, b]), True, pos)

    # the Backend protocol ---------------------------------------------------------------
    def call(self, func: str, args: list[Any], pos: Pos) -> Any:
        if not any(isinstance(a, Batched) for a in args):
            return super().call(func, args, pos)
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
        if func in ("sum", "mean", "prod"):
            a = None if len(args) == 1 else self.integer(args[1], pos)
            if not isinstance(x, Batched):
                return super().call(func, [x, np.float64(a)], pos)
            rank = _rank(x)
            if a is None:
                axis: tuple[int, ...] = tuple(range(1, rank + 1))
            elif not -rank <= a < max(rank, 1):
                raise EvalError(f"{func}() at {pos}: axis {a} is out of range for "
                                f"{_describe(x)}")
            else:
                axis = (a % rank + 1,) if rank else ()
            return self._wrap(self._try(lambda: fn(x.v, axis), f"{func}()", pos, [x]), True, pos)
        if func == "norm":
            axis = tuple(range(1, _rank(x) + 1))
            return self._wrap(ops.norm(x.v, axis=axis), True, pos)
        if func == "transpose":
            rank = _rank(x)
            axes = (0,) + tuple(range(rank, 0, -1))
            return self._wrap(ops.transpose(x.v, axes), True, pos)
        raws, _ = self._align(args)
        return self._wrap(self._try(lambda: fn(*raws), f"{func}()", pos, args), True, pos)

    def binary(self, op: str, left: Any, right: Any, pos: Pos) -> Any:
        if not (isinstance(left, Batched) or isinstance(right, Batched)):
            return super().binary(op, left, right, pos)
        if op == "@":
            return self._matmul(left, right, pos, "'@'")
        (x, y), _ = self._align([left, right])
        fn = {"+": ops.add, "-": ops.sub, "*": ops.mul, "/": ops.div, "**": ops.pow}[op]
        return self._wrap(self._try(lambda: fn(x, y), f"'{op}'", pos, [left, right]), True, pos)

    def negate(self, value: Any, pos: Pos) -> Any:
        if isinstance(value, Batched):
            return Batched(ops.neg(value.v))
        return super().negate(value, pos)

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
        return Batched(self._try(lambda: ops.getitem(target.v, full), "index", pos, [target]))

    def compare(self, op: str, left: Any, right: Any, pos: Pos) -> Any:
        if not (isinstance(left, Batched) or isinstance(right, Batched)):
            return super().compare(op, left, right, pos)
        (x, y), _ = self._align([left, right])
        fn = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
              "==": np.equal, "!=": np.not_equal}[op]
        return Batched(self._try(lambda: fn(ops.value(x), ops.value(y)), f"'{op}'", pos,
                                 [left, right]))

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


# --------------------------------------------------------------------------- evaluation


@dataclass
class PointsResult:
    """Every point's output and derivative, and the check of a sample of points."""

    command: str
    output_name: str
    table: Table
    names: list[str]
    output: np.ndarray  # (P,) + output shape
    derivative: dict[str, np.ndarray]  # (P,) + output shape (jacobian) + input shape
    weights: np.ndarray | None = None
    checks: list[tuple[int, Any]] = field(default_factory=list)  # (row index, CheckResult)
    paths: int = 1
    passes: int = 1
    warnings: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return self.output.shape[0]

    @property
    def failed(self) -> bool:
        return any(c.status == "fail" for _, c in self.checks)

    @property
    def derivative_key(self) -> str:
        return "gradient" if self.command == "grad" else "jacobian"

    def check_summary(self) -> str:
        if not self.checks:
            return "check: skipped (--no-check)"
        statuses = [c.status for _, c in self.checks]
        rows = ", ".join(str(i + 1) for i, _ in self.checks)
        worst = "fail" if "fail" in statuses else "pass" if "pass" in statuses else "skipped"
        methods = sorted({c.method for _, c in self.checks if c.method != "none"})
        how = f" ({', '.join(methods)})" if methods else ""
        line = (f"check: {worst}{how} on a sample of {len(self.checks)} of "
                f"{_count(self.count, 'point')} (row{'s' if len(self.checks) > 1 else ''} "
                f"{rows})")
        details = [f"row {i + 1}: {c.status}: {c.detail}" for i, c in self.checks
                   if c.detail and c.status != "pass"]
        return "\n".join([line, *details])


def evaluate(command: str, program: Program, values: dict[str, np.ndarray], names: list[str],
             of: str, weights: np.ndarray | None, limits: Limits,
             progress: Progress = _no_progress) -> tuple[np.ndarray, dict[str, np.ndarray],
                                                         int, int]:
    """(outputs, derivatives, distinct paths, passes run) for all points of `values`.

    Each pass runs the program once on a group of points; a group whose points disagree on
    a decision is split by it and run again.
    """
    count = next(iter(values.values())).shape[0]
    pending = [np.arange(count)]
    done: list[tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]] = []
    passes = 0
    while pending:
        rows = pending.pop()
        passes += 1
        progress("evaluating", len(done), len(done) + len(pending) + 1)
        subset = values if len(rows) == count else {k: v[rows] for k, v in values.items()}
        try:
            out, der = _one_pass(command, program, subset, names, of, weights, limits)
        except Divergence as split:
            keys = np.unique(split.key)
            pending.extend(rows[split.key == k] for k in keys)
            if len(done) + len(pending) > MAX_PATHS:
                raise LimitError(
                    f"the points take more than {MAX_PATHS} different paths through the "
                    "program's control flow (conditions, loop counts or indices that differ "
                    "between points); split the table, or evaluate the points one by one "
                    "without --points") from None
            continue
        done.append((rows, out, der))
    progress("evaluating", len(done), len(done))
    if len(done) == 1:
        _, out, der = done[0]
        return out, der, 1, passes
    shapes = {o.shape[1:] for _, o, _ in done}
    if len(shapes) > 1:
        listed = ", ".join(f"{s} (row {int(r[0]) + 1})" for r, o, _ in done
                           for s in [o.shape[1:]])
        raise ShapeError(f"the points' outputs have different shapes: {listed}")
    first_rows, first_out, first_der = done[0]
    output = np.empty((count,) + first_out.shape[1:])
    derivative = {k: np.empty((count,) + v.shape[1:]) for k, v in first_der.items()}
    for rows, out, der in done:
        output[rows] = out
        for k, v in der.items():
            derivative[k][rows] = v
    return output, derivative, len(done), passes


def _one_pass(command: str, program: Program, values: dict[str, np.ndarray], names: list[str],
              of: str, weights: np.ndarray | None, limits: Limits
              ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    from gradcalc.engine.functional import _sweep, identity_seed

    count = next(iter(values.values())).shape[0]
    # leaves over the table's own arrays: no copy (nothing writes to a leaf's value)
    leaves = {n: Tensor._wrap(values[n], None).requires_grad_(True) for n in names}
    env: dict[str, Any] = {k: Batched(leaves.get(k, v)) for k, v in values.items()}
    backend = BatchedBackend(count, limits)
    interpreter = Interpreter(backend, env, Decisions(), limits.max_iterations)
    with np.errstate(all="ignore"):
        interpreter.run(program)
        if of not in env:
            assigned = ", ".join(program.assigned()) or "none"
            raise EvalError(f"--of {of}: the program never assigns '{of}' "
                            f"(assigned: {assigned})")
        result = env[of]
        if isinstance(result, Batched):
            out = result.v
        else:  # the same at every point: give it the point axis
            out = ops.broadcast_to(result, (count,) + ops.shape(result))
        out_value = np.asarray(ops.value(out), dtype=np.float64)
        out_shape = out_value.shape[1:]
        tensor_out = out if isinstance(out, Tensor) else Tensor._wrap(out, None)
        order = [leaves[n] for n in names]
        if command == "jacobian":
            k = math.prod(out_shape)
            seed = np.broadcast_to(identity_seed(out_shape)[:, None], (k, count) + out_shape)
            grads = _sweep(tensor_out, seed, order, retain_graph=False)
            derivative = {
                n: np.moveaxis(np.asarray(g, dtype=np.float64), 0, 1).reshape(
                    (count,) + out_shape + leaves[n].shape[1:])
                for n, g in zip(names, grads)}
        else:
            if weights is None:
                if out_shape != ():
                    raise ShapeError(
                        f"'{of}' has shape {out_shape} at each point, so its gradient needs "
                        f"weights: pass --weights with an array of shape {out_shape} for the "
                        "vector-Jacobian product (PyTorch's y.backward(w)), or use "
                        "'gradcalc jacobian' for the full Jacobian")
                seed = np.broadcast_to(1.0, (count,))
            else:
                if weights.shape != out_shape:
                    raise ShapeError(f"--weights has shape {weights.shape} but '{of}' has "
                                     f"shape {out_shape} at each point; they must match")
                seed = np.broadcast_to(weights, (count,) + out_shape)
            grads = _sweep(tensor_out, seed, order, retain_graph=False)
            derivative = {n: np.asarray(g, dtype=np.float64) for n, g in zip(names, grads)}
    return out_value, derivative


def sample_rows(count: int, size: int = CHECK_SAMPLE) -> list[int]:
    """First, last and evenly spaced rows between: the points the check looks at."""
    if count <= size:
        return list(range(count))
    return sorted({round(i * (count - 1) / (size - 1)) for i in range(size)})


def run(job: Any, table: Table, progress: Progress = _no_progress) -> PointsResult:
    """The job (a commands.Job with --points) on every point of `table`."""
    from gradcalc.commands import derivatives as commands
    from gradcalc.language.parse import parse

    if job.command not in ("grad", "jacobian"):
        raise GradcalcError(f"--points goes with grad and jacobian, not {job.command}",
                            kind="usage")
    if job.expect is not None:
        raise GradcalcError("--expect cannot be used with --points", kind="usage")
    program = parse(job.program, limits=job.limits)
    shared = commands.load_values(job.at, limits=job.limits) if job.at else {}
    both = sorted(set(shared) & set(table.values))
    if both:
        raise GradcalcError(f"{', '.join(both)} given both in --points and --at", kind="usage")
    count = table.count
    values = dict(table.values)
    values.update({k: np.ascontiguousarray(np.broadcast_to(v, (count,) + v.shape))
                   for k, v in shared.items()})
    names, of, weights = commands.plan(job, program, values)
    output, derivative, paths, passes = evaluate(job.command, program, values, names, of,
                                                 weights, job.limits, progress)
    result = PointsResult(job.command, of, table, names, output, derivative, weights,
                          paths=paths, passes=passes)
    result.warnings = _warnings(result)
    if job.check:
        result.checks = _check_sample(job, program, values, names, of, result, progress)
    return result


def _warnings(result: PointsResult) -> list[str]:
    out = []
    if result.paths > 1:
        out.append(f"the points took {result.paths} different paths through the program's "
                   f"control flow; evaluated as {result.passes} vectorised passes")
    bad = ~np.isfinite(result.output.reshape(result.count, -1)).all(axis=1)
    if bad.any():
        out.append(f"the output '{result.output_name}' has non-finite values at "
                   f"{_count(int(bad.sum()), 'point')} (first: row {int(np.argmax(bad)) + 1})")
    for name, d in result.derivative.items():
        bad = ~np.isfinite(d.reshape(result.count, -1)).all(axis=1)
        if bad.any():
            out.append(f"the derivative with respect to {name} has non-finite values at "
                       f"{_count(int(bad.sum()), 'point')} (first: row "
                       f"{int(np.argmax(bad)) + 1})")
    return out


def _check_sample(job: Any, program: Program, values: dict[str, np.ndarray], names: list[str],
                  of: str, result: PointsResult, progress: Progress) -> list[tuple[int, Any]]:
    from gradcalc.backends.numeric import as_function
    from gradcalc.engine.tape import no_grad
    from gradcalc.verify.check import check_derivative  # imports sympy: only when checking

    kind = "jacobian" if job.command == "jacobian" else (
        "gradient" if result.weights is None else "vjp")
    rows = sample_rows(result.count)
    checks = []
    for done, row in enumerate(rows):
        progress("checking a sample", done, len(rows))
        point = {k: v[row] for k, v in values.items()}
        constants = {k: v for k, v in point.items() if k not in names}
        f, decisions = as_function(program, names, constants, of=of, limits=job.limits)
        with no_grad():
            f(*(point[n] for n in names))  # records this point's path for the check
        tape_result = {n: result.derivative[n][row] for n in names}
        checks.append((row, check_derivative(kind, program, point, names, constants, of,
                                             decisions, tape_result, weights=result.weights,
                                             limits=job.limits)))
    progress("checking a sample", len(rows), len(rows))
    return checks


# --------------------------------------------------------------------------- writing


def _index_suffix(shape: tuple[int, ...]) -> list[str]:
    return ["[" + ",".join(str(i) for i in ix) + "]" for ix in np.ndindex(*shape)] \
        if shape else [""]


def header(result: PointsResult) -> list[str]:
    """Column names: the point's columns, the output's elements, then the derivative's."""
    y = result.output_name
    out_shape = result.output.shape[1:]
    cols = list(result.table.columns)
    cols += [f"{y}{s}" for s in _index_suffix(out_shape)]
    for name in result.names:
        in_shape = result.derivative[name].shape[1 + (len(out_shape) if
                                                          result.command == "jacobian" else 0):]
        if result.command == "jacobian":
            cols += [f"d{y}{a}/d{name}{b}" for a in _index_suffix(out_shape)
                     for b in _index_suffix(in_shape)]
        else:
            cols += [f"d{y}/d{name}{b}" for b in _index_suffix(in_shape)]
    return cols


def _matrix(result: PointsResult, with_inputs: bool) -> np.ndarray:
    n = result.count
    parts = [result.table.data] if with_inputs else []
    if with_inputs:
        parts.append(result.output.reshape(n, -1))
    parts += [result.derivative[k].reshape(n, -1) for k in result.names]
    return np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]


def _number(v: float) -> str:
    return repr(v) if v == v and v not in (math.inf, -math.inf) else (
        "nan" if v != v else "inf" if v > 0 else "-inf")


def csv_lines(result: PointsResult, progress: Progress = _no_progress,
              header_row: bool = True, sep: str = ",") -> Iterator[str]:
    """CSV text, a chunk of rows at a time: a header, then one row per point."""
    if header_row:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerow(header(result))
        yield buffer.getvalue()
    matrix = _matrix(result, with_inputs=header_row)
    total = matrix.shape[0]
    finite = bool(np.isfinite(matrix).all())
    fmt = float.__repr__ if finite else _number
    for start in range(0, total, CHUNK):
        rows = matrix[start:start + CHUNK].tolist()
        text = "".join(sep.join(map(fmt, row)) + "\n" for row in rows)
        # 2.0 -> 2, as render.number writes it (repr ends a number in ".0" only when whole)
        yield text.replace(".0" + sep, sep).replace(".0\n", "\n")
        progress("writing", min(start + CHUNK, total), total)


def json_lines(result: PointsResult, progress: Progress = _no_progress) -> Iterator[str]:
    """One JSON object per point; the sampled points carry their check, the others null."""
    from gradcalc.render.text import jsonable

    checks = dict(result.checks)
    y = result.output_name
    out_shape = list(result.output.shape[1:])
    key = result.derivative_key
    weights = None if result.weights is None else jsonable(result.weights)
    table = result.table.values
    total = result.count
    for start in range(0, total, CHUNK):
        stop = min(start + CHUNK, total)
        outs = jsonable(result.output[start:stop])
        ders = {k: jsonable(result.derivative[k][start:stop]) for k in result.names}
        ats = {k: jsonable(v[start:stop]) for k, v in table.items()}
        lines = []
        for j in range(stop - start):
            row = start + j
            check = checks.get(row)
            lines.append(json.dumps({
                "point": row + 1,
                "at": {k: v[j] for k, v in ats.items()},
                "command": result.command,
                "output": {"name": y, "shape": out_shape, "value": outs[j]},
                "weights": weights,
                key: {k: v[j] for k, v in ders.items()},
                "check": None if check is None else check.to_json(),
            }) + "\n")
        yield "".join(lines)
        progress("writing", stop, total)


def open_source(path: str) -> TextIO:
    """The CSV table from a file, or standard input for '-'."""
    if path == "-":
        return sys.stdin
    try:
        return open(path, encoding="utf-8", newline="")  # noqa: SIM115 - the caller closes
    except OSError as exc:
        raise GradcalcError(f"cannot read --points file {path!r}: {exc.strerror}",
                            kind="usage") from None

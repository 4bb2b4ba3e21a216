"""Running a Program on the tape: the numeric backend of the interpreter."""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from functools import partial
from typing import Any

import numpy as np

from gradcalc.backends import fusing
from gradcalc.engine import ops, tape
from gradcalc.engine.primitive import Prim, Traced, apply_into, apply_two
from gradcalc.engine.tensor import Tensor
from gradcalc.errors import EvalError, LimitError
from gradcalc.language.parse import quote
from gradcalc.language.program import Decisions, Interpreter, Pos, Program
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: the operators' primitives, applied straight (`apply_two`, without the public function)
BINARY: dict[str, Callable[[Any, Any], Any]] = {
    **{op: partial(apply_two, ops.PRIMITIVES[name]) for op, name in
       (("+", "add"), ("-", "sub"), ("*", "mul"), ("/", "div"), ("**", "pow"))},
    "@": ops.matmul,
}
COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
    "==": np.equal, "!=": np.not_equal,
}


_CONSTRUCTORS = frozenset({"ones", "zeros"})

#: the operators whose forward may write over an operand (`apply_into` decides when)
OPERATOR_PRIMS = {op: ops.PRIMITIVES[name] for op, name in
                  (("+", "add"), ("-", "sub"), ("*", "mul"), ("/", "div"))}


def one_operand(func: str) -> Prim | None:
    """The elementwise primitive of one operand behind a language function, applied
    straight (as its public function does), or None."""
    prim = ops.primitive_of(func)
    plain = prim is not None and prim.elementwise and prim.call is None and \
        prim.variadic_vjp is None and len(prim.vjps) == 1
    return prim if plain else None


def describe_shape(value: Any) -> str:
    s = np.shape(ops.value(value))
    return "a scalar" if s == () else f"shape {s}"


class NumericBackend:
    """Values are tensors (inputs and what depends on them) or float64 NumPy constants."""

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits
        #: operations and work (result elements, plus matrix products' multiply-adds / 32)
        #: of this run so far, bounded by limits.max_operations and limits.max_work
        self.operations = 0
        self.work = 0
        #: the limits read on every operation, as plain attributes
        self.most_elements = limits.max_array_elements
        self.most_operations, self.most_work = limits.max_operations, limits.max_work
        #: a scalar result is within the element limit (so `binary` may skip the check)
        self.scalars_fit = limits.max_array_elements >= 1

    #: the interpreter says which operands are its own temporaries (`spares`), whose
    #: buffers an elementwise forward may write over (`primitive.apply_into`)
    writes_over_temporaries = True

    #: a number literal or a loop's counter: a float64 scalar (made without a call of ours)
    number = staticmethod(np.float64)

    def _guard(self, result: Any, pos: Pos, extra: int = 0) -> Any:
        size = getattr(getattr(result, "value", result), "size", 1)
        if size > self.limits.max_array_elements:
            raise LimitError(
                f"an array of {size:,} elements at {pos} exceeds the limit of "
                f"{self.limits.max_array_elements:,} elements")
        self.operations += 1
        self.work += size + extra
        if self.operations > self.limits.max_operations or self.work > self.limits.max_work:
            raise self._over(pos)
        return result

    def _over(self, pos: Pos) -> LimitError:
        lim = self.limits
        if self.operations > lim.max_operations:
            return LimitError(
                f"the program ran more than {lim.max_operations:,} operations (at {pos}); "
                "the limit is settable with --max-operations")
        return LimitError(
            f"the program computes more than {lim.max_work:,} array elements in all (at "
            f"{pos}; matrix products count their multiply-adds / 32): the limit on work "
            "and tape memory, fixed")

    def _precheck(self, what: str, operands: list[Any], pos: Pos, matmul: bool) -> int:
        """Before an operation whose result may be larger than its operands (broadcasting,
        matrix products): refuse it if the result or its work is over the limits; return
        its extra work (multiply-adds / 32 of a matrix product)."""
        shapes = [np.shape(ops.value(o)) for o in operands]
        try:
            if matmul:
                a = shapes[0] if len(shapes[0]) > 1 else (1, *shapes[0])
                b = shapes[1] if len(shapes[1]) > 1 else (*shapes[1], 1)
                lead = np.broadcast_shapes(a[:-2], b[:-2])
                size = math.prod(lead) * a[-2] * b[-1]
                extra = size * a[-1] // 32
            else:
                size, extra = math.prod(np.broadcast_shapes(*shapes)), 0
        except (ValueError, IndexError):
            return 0  # the operation itself reports the mismatch
        if size > self.limits.max_array_elements:
            raise LimitError(
                f"{what} at {pos} would make an array of {size:,} elements (from "
                f"{' and '.join(str(s) for s in shapes)}), over the limit of "
                f"{self.limits.max_array_elements:,} elements")
        if self.work + size + extra > self.limits.max_work:
            self.work += size + extra
            raise self._over(pos)
        return extra

    def call(self, func: str, args: list[Any], pos: Pos, spares: tuple[int, ...] = ()) -> Any:
        """`func(*args)`, counted; `spares`: the arguments that are the interpreter's
        temporaries (nothing else reads them), which the result may be written over."""
        fn, (low, high) = ops.FUNCTIONS[func]
        if not low <= len(args) <= high:
            wanted = str(low) if low == high else f"{low} to {high}"
            raise EvalError(f"{func}() takes {wanted} arguments, not {len(args)} ({pos})")
        extra = 0
        if func in _CONSTRUCTORS:
            dims = [self.integer(a, pos) for a in args]
            if math.prod(dims) > self.limits.max_array_elements:
                shown = ", ".join(f"{d:,}" if abs(d) < 10**15 else f"{float(d):.3g}"
                                  for d in dims)
                raise LimitError(f"{func}({shown}) at {pos} exceeds the limit of "
                                 f"{self.limits.max_array_elements:,} elements")
        elif len(args) > 1 and math.prod(map(_size, args)) > self.limits.max_array_elements:
            extra = self._precheck(f"{func}()", args, pos, matmul=func == "dot")
        try:  # the hot path: no closure, no message unless it fails
            prim = one_operand(func) if spares and len(args) == 1 else None
            result = fn(*args) if prim is None else apply_into(prim, spares, *args)
        except (ValueError, IndexError, TypeError, NotImplementedError) as exc:
            raise self._error(f"{func}()", pos, exc) from None
        v = result.value if isinstance(result, Traced) else result
        if type(v) is np.float64 and not extra and self.scalars_fit:  # counted inline
            self.operations += 1
            self.work += 1
            if self.operations <= self.most_operations and self.work <= self.most_work:
                return result
            self.operations -= 1
            self.work -= 1
        return self._counted(result, pos, extra)

    def _counted(self, result: Any, pos: Pos, extra: int) -> Any:
        """`_guard`, with the common case (nothing over a limit) inline."""
        v = result.value if isinstance(result, Traced) else result
        size = 1 if type(v) is np.float64 else getattr(v, "size", 1)
        self.operations += 1
        self.work += size + extra
        if size > self.most_elements or self.operations > self.most_operations or \
                self.work > self.most_work:
            self.operations -= 1
            self.work -= size + extra
            return self._guard(result, pos, extra)  # which says what is over
        return result

    def binary(self, op: str, left: Any, right: Any, pos: Pos,
               spares: tuple[int, ...] = ()) -> Any:
        """`left op right`, counted. Two float64 scalars (a scalar program's every step)
        take the short way: no size to read, no precheck, the count inline. `spares`:
        the operands (0 left, 1 right) that are the interpreter's temporaries."""
        lv = left.value if isinstance(left, Traced) else left
        rv = right.value if isinstance(right, Traced) else right
        if type(lv) is not np.float64 or type(rv) is not np.float64 or op == "@" \
                or not self.scalars_fit:
            return self._binary(op, left, right, pos, spares)
        try:
            result = BINARY[op](left, right)
        except (ValueError, IndexError, TypeError, NotImplementedError) as exc:
            raise self._error(f"'{op}'", pos, exc, left, right) from None
        self.operations += 1
        self.work += 1
        if self.operations > self.most_operations or self.work > self.most_work:
            self.operations -= 1
            self.work -= 1
            return self._guard(result, pos)  # which says what is over
        return result

    def _binary(self, op: str, left: Any, right: Any, pos: Pos,
                spares: tuple[int, ...] = ()) -> Any:
        """`binary` for any operands: arrays' sizes read and prechecked; the result
        written over a spare operand where `apply_into` finds that safe."""
        if op == "@" and (np.ndim(ops.value(left)) == 0 or np.ndim(ops.value(right)) == 0):
            raise EvalError(f"'@' needs vectors or matrices, not scalars ({pos})")
        extra = 0
        if _size(left) * _size(right) > self.limits.max_array_elements:
            extra = self._precheck(f"'{op}'", [left, right], pos, matmul=op == "@")
        try:  # no closure, no message unless it fails
            prim = OPERATOR_PRIMS.get(op) if spares else None
            result = BINARY[op](left, right) if prim is None else \
                apply_into(prim, spares, left, right)
        except (ValueError, IndexError, TypeError, NotImplementedError) as exc:
            raise self._error(f"'{op}'", pos, exc, left, right) from None
        return self._counted(result, pos, extra)

    def negate(self, value: Any, pos: Pos, spares: tuple[int, ...] = ()) -> Any:
        """`-value`, counted; written over `value` when it is a spare temporary."""
        if spares:
            return self._guard(apply_into(ops.PRIMITIVES["neg"], spares, value), pos)
        return self._guard(ops.neg(value), pos)

    def stack(self, items: list[Any], pos: Pos) -> Any:
        shapes = {np.shape(ops.value(i)) for i in items}
        if len(shapes) > 1:
            listed = ", ".join(sorted(str(s) for s in shapes))
            raise EvalError(f"list at {pos} mixes elements of different shapes: {listed}")
        if not items:
            raise EvalError(f"empty list at {pos}")
        total = sum(map(_size, items))
        if total > self.limits.max_array_elements:
            raise LimitError(
                f"the list at {pos} would make an array of {total:,} elements, over the "
                f"limit of {self.limits.max_array_elements:,} elements")
        return self._guard(ops.stack(items), pos)

    def index(self, target: Any, key: tuple, pos: Pos) -> Any:
        return self._guard(
            self._attempt(lambda: ops.getitem(target, key), "index", pos, target), pos)

    def compare(self, op: str, left: Any, right: Any, pos: Pos) -> Any:
        if _size(left) * _size(right) > self.limits.max_array_elements:
            self._precheck(f"'{op}'", [left, right], pos, matmul=False)
        return self._guard(
            self._attempt(lambda: COMPARE[op](ops.value(left), ops.value(right)),
                          f"'{op}'", pos, left, right), pos)

    def truth(self, value: Any, pos: Pos) -> bool:
        v = np.asarray(ops.value(value))
        if v.size != 1:
            raise EvalError(
                f"the condition at {pos} has {describe_shape(v)}, not a single value; "
                "reduce it first, e.g. with norm(), sum() or a comparison of a scalar")
        return bool(v.reshape(-1)[0])

    def integer(self, value: Any, pos: Pos) -> int:
        v = np.asarray(ops.value(value), dtype=np.float64)
        if v.size != 1 or not np.isfinite(v).all() or v.reshape(-1)[0] != int(v.reshape(-1)[0]):
            raise EvalError(f"expected a whole number at {pos}, got {_show(v)}")
        return int(v.reshape(-1)[0])

    def describe(self, value: Any) -> str:
        """A value's shape in words, for messages."""
        return describe_shape(value)

    def _attempt(self, thunk: Callable[[], Any], what: str, pos: Pos, *operands: Any) -> Any:
        try:
            return thunk()
        except (ValueError, IndexError, TypeError, NotImplementedError) as exc:
            raise self._error(what, pos, exc, *operands) from None

    def _error(self, what: str, pos: Pos, exc: Exception, *operands: Any) -> EvalError:
        shapes = " and ".join(self.describe(o) for o in operands)
        detail = f" on {shapes}" if operands else ""
        return EvalError(f"{what} at {pos} failed{detail}: {_first_line(exc)}")


def _size(x: Any) -> int:
    """Elements of a value (a tensor, an array or a Python number), without copying."""
    return getattr(getattr(x, "value", x), "size", 1)


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _show(v: np.ndarray) -> str:
    return np.array2string(v, threshold=6) if v.size != 1 else f"{v.reshape(-1)[0]:g}"


def run_numeric(
    program: Program,
    inputs: dict[str, Any],
    constants: dict[str, Any] | None = None,
    *,
    of: str,
    limits: Limits = DEFAULT_LIMITS,
    decisions: Decisions | None = None,
    usage: dict[str, int] | None = None,
) -> Any:
    """Run `program` with `inputs` (tensors or arrays) and return the value named `of`.

    `usage` (a dict) receives the run's "operations" and "work" (see NumericBackend)."""
    env: dict[str, Any] = {**(constants or {}), **inputs}
    backend = NumericBackend(limits)
    interpreter = Interpreter(backend, env, decisions, limits.max_iterations)
    with tape.hot():
        interpreter.run(program)
    if usage is not None:
        usage.update(operations=backend.operations, work=backend.work)
    return output_of(env, program, of, set(inputs) | set(constants or {}))


class NotAssigned(EvalError):
    """The output was not assigned on the path the values took."""


def output_of(env: dict[str, Any], program: Program, of: str,
              given: Collection[str] = ()) -> Any:
    """The value named `of` after a run. When the path the values took never assigned it
    (a branch that did not run), the error says so and names what the path did assign."""
    if of not in env:
        done = ", ".join(k for k in program.assigned() if k in env and k not in given)
        raise NotAssigned(f"the output {quote(of)} is not assigned on the path these values "
                        f"take (a branch or loop that assigns it did not run; assigned on "
                        f"this path: {done or 'nothing'})")
    return env[of]


def as_function(program: Program, names: list[str], constants: dict[str, Any], *, of: str,
                limits: Limits = DEFAULT_LIMITS) -> tuple[Callable[..., Any], Decisions]:
    """The program as f(*inputs) for the functional helpers, and its last run's decisions."""
    decisions = Decisions()
    usage: dict[str, int] = {}

    def f(*values: Any) -> Any:
        decisions.record.clear()
        out = run_numeric(program, dict(zip(names, values)), constants, of=of, limits=limits,
                          decisions=decisions, usage=usage)
        return out if isinstance(out, Tensor) else Tensor(out)

    f.usage = usage  # type: ignore[attr-defined]  # the last run's operations and work
    # a fused kernel at a point, where the program takes one (gradcalc/engine/fused.py)
    f.fused = lambda point: fusing.kernel(program, names, constants, of, point)  # type: ignore[attr-defined]
    return f, decisions

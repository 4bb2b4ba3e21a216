"""Running a Program on sympy: the symbolic backend that the check compares the tape with.

Each value carries the tape's float64 numbers (the primitives' own NumPy forwards) and,
once an input symbol is involved, an object array of sympy expressions built with the
sympy twins of `ops.PRIMITIVES`. Operations on plain numbers are folded in float64, so
`9**9**9` never reaches sympy's exact integers, and a Piecewise twin (relu, maximum, ...)
takes the branch the float64 values select, exactly as the tape does.

The path is the numeric run's: `record_path` runs the program numerically and records its
value-dependent decisions; the symbolic run replays them (`PathDecisions`). sympy only
ever sees expressions built here from IR objects, never text.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy as sp

from gradcalc.engine import ops
from gradcalc.engine.primitive import derived
from gradcalc.errors import EvalError
from gradcalc.language.program import Decisions, Interpreter, Pos, Program
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: integral values up to this size become exact sympy Integers; larger ones Floats
MAX_EXACT_INTEGER = 10**6
#: an exact number (coefficient, exponent) with more bits than this stops the symbolic run
MAX_EXACT_BITS = 10_000
#: integer exponents beyond this become Floats, so (2*x)**n never expands 2**n exactly
MAX_EXACT_EXPONENT = 64

#: operators of the language and their primitives
BINARY_PRIMS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "**": "pow", "@": "matmul"}
#: derivative leftovers that mean sympy has no value at the point (a kink, a jump)
LEFTOVERS = (sp.DiracDelta, sp.Heaviside, sp.Subs, sp.Derivative)


class SymbolicBudgetExceeded(Exception):
    """The symbolic route would build more than `limits.max_symbolic_ops` operations."""


class SymbolicUnsupported(Exception):
    """A construct the symbolic route cannot follow (e.g. a symbolic array size)."""


# --------------------------------------------------------------------------- numbers


def to_sympy(value: float) -> sp.Expr:
    """A float64 as sympy: a small exact Integer when integral, else the exact Float."""
    v = float(value)
    if math.isnan(v):
        return sp.nan
    if math.isinf(v):
        return sp.oo if v > 0 else -sp.oo
    if v == int(v) and abs(v) <= MAX_EXACT_INTEGER:
        return sp.Integer(int(v))
    return sp.Float(v)


def as_expr(value: Any) -> sp.Basic:
    """A value of this backend (a sympy expression, or a number folded in float64) as a
    sympy object, the way sympy's own conversion does it for numbers; text is refused, so
    nothing here can reach sympy's parser."""
    if isinstance(value, sp.Basic):
        return value
    if isinstance(value, (bool, np.bool_)):
        return sp.true if value else sp.false
    if isinstance(value, (int, np.integer)):
        return sp.Integer(int(value))
    if isinstance(value, (float, np.floating)):
        return sp.Float(float(value))
    raise TypeError(f"not a number or a sympy expression: {type(value).__name__}")


def _is_const(e: Any) -> bool:
    return not isinstance(e, sp.Basic) or e.is_Number or e is sp.zoo


def const_float(e: Any) -> float:
    if e is sp.zoo:
        return math.nan
    try:
        return float(e)
    except OverflowError:
        return math.inf if e > 0 else -math.inf


def _scalar_obj(e: Any) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = e
    return out


def _is_numeric(a: np.ndarray) -> bool:
    return a.dtype != object or all(_is_const(e) for e in a.flat)


def _as_float(a: np.ndarray) -> np.ndarray:
    if a.dtype != object:
        return a.astype(np.float64)
    return np.vectorize(const_float, otypes=[np.float64])(a) if a.size else a.astype(float)


def _as_obj(a: np.ndarray) -> np.ndarray:
    """Object array of sympy expressions (plain numbers converted with `to_sympy`)."""
    if a.dtype == object:
        return a
    out = np.empty(a.shape, dtype=object)
    for idx, v in np.ndenumerate(a):
        out[idx] = to_sympy(v)
    return out


class Value:
    """A backend value: the tape's float64 numbers and, once an input is involved, sympy.

    `num` is what the tape computes (the same NumPy forwards on the same numbers), so
    folding constants and choosing a Piecewise branch follow float64 exactly; `sym` is an
    object array of sympy expressions, or None while the value is a plain number.
    """

    __slots__ = ("sym", "num", "size")

    def __init__(self, sym: np.ndarray | None, num: np.ndarray, size: int | None = None) -> None:
        self.sym = sym
        self.num = num
        #: how many nodes the largest element's expression would have written out as a tree
        #: (shared subexpressions counted each time): what sympy's diff and evalf walk
        self.size = (0 if sym is None else 1) if size is None else size

    @property
    def numeric(self) -> bool:
        return self.sym is None

    def exprs(self) -> np.ndarray:
        """The value as an object array of sympy expressions."""
        return self.sym if self.sym is not None else _as_obj(self.num)

    def __repr__(self) -> str:
        return f"Value({self.sym if self.sym is not None else self.num!r})"


def _value(value: Any) -> Value:
    """A backend value; raw NumPy values (constants, replayed masks) are plain numbers."""
    if isinstance(value, Value):
        return value
    a = np.asarray(ops.value(value))
    if a.dtype == object:
        return _symbolic(a, _as_float(a) if _is_numeric(a) else np.full(a.shape, np.nan))
    return Value(None, a.astype(np.float64))


def _symbolic(sym: Any, num: Any, size: int = 1) -> Value:
    """A Value from a symbolic result; one without symbols left is the tape's number."""
    num = np.asarray(num, dtype=np.float64)
    if not isinstance(sym, np.ndarray):
        sym = _scalar_obj(sym)
    if _is_numeric(sym):
        return Value(None, num)
    return Value(sym, num, size)


def _check_exact(e: Any) -> None:
    """Stop before sympy's exact arithmetic grows numbers without bound ((2x)**(2**k))."""
    if not isinstance(e, sp.Basic):
        return
    parts = [e, *e.args] if (e.is_Add or e.is_Mul or e.is_Pow) else [e]
    for t in parts:
        if t.is_Mul and t.args:
            t = t.args[0]
        if t.is_Rational and max(int(t.p).bit_length(), int(t.q).bit_length()) > MAX_EXACT_BITS:
            raise SymbolicBudgetExceeded(
                f"an exact number in the symbolic expression exceeds {MAX_EXACT_BITS:,} bits")


# --------------------------------------------------------------------------- symbols


def symbol_name(name: str, index: tuple[int, ...]) -> str:
    return name if not index else f"{name}[{','.join(str(i) for i in index)}]"


def symbols_for(name: str, shape: tuple[int, ...]) -> np.ndarray:
    """Real symbols for an input: `x`, or `x[0]`, `x[1]`, ..., or `A[0,1]`, ..."""
    out = np.empty(tuple(shape), dtype=object)
    for idx in np.ndindex(*shape):
        out[idx] = sp.Symbol(symbol_name(name, idx), real=True)
    return out


# --------------------------------------------------------------------------- the path


#: the decisions of one numeric run, replayed by the symbolic run
PathDecisions = Decisions


def record_path(program: Program, inputs: dict[str, Any], constants: dict[str, Any] | None,
                of: str, limits: Limits = DEFAULT_LIMITS) -> tuple[PathDecisions, np.ndarray]:
    """Run the program numerically (no tape); return its decisions and the output value."""
    from gradcalc.backends.numeric import run_numeric

    path = PathDecisions()
    values = {k: np.asarray(ops.value(v), dtype=np.float64) for k, v in inputs.items()}
    out = run_numeric(program, values, constants, of=of, limits=limits, decisions=path)
    return path, np.asarray(ops.value(out), dtype=np.float64)


def run_replayed(program: Program, backend: Any, env: dict[str, Any], path: PathDecisions,
                 of: str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Run `program` on `backend` along the recorded path; return the value named `of`."""
    replay = path.replay()
    interpreter = Interpreter(backend, env, replay, limits.max_iterations)
    with np.errstate(all="ignore"):
        interpreter.run(program)
    if of not in env:
        raise EvalError(f"the program never assigns '{of}'")
    return env[of]


# --------------------------------------------------------------------------- the backend


class SymbolicBackend:
    """Backend over `Value`s: float64 numbers and sympy expressions side by side."""

    def __init__(self, limits: Limits = DEFAULT_LIMITS, local: bool = True) -> None:
        self.limits = limits
        self.ops = 0
        #: each Piecewise twin (relu, sign, maximum, minimum, clamp) becomes at once the
        #: branch the tape's float64 comparison picks: the same values and derivatives at
        #: the point, and no Piecewise lands in another's condition (sympy folds those,
        #: slowly)
        self.local = local
        #: (description, operand symbols) where the tape's convention has no sympy form
        self.kinks: list[tuple[str, frozenset]] = []

    # bookkeeping ----------------------------------------------------------------------
    def spend(self, n: int) -> None:
        self.ops += int(n)
        if self.ops > self.limits.max_symbolic_ops:
            n = self.limits.max_symbolic_ops
            raise SymbolicBudgetExceeded(
                f"the symbolic route needs more than {n:,} operation{'s' * (n != 1)}")

    def grow(self, size: int) -> int:
        """Refuse an expression too large to differentiate in time (e.g. a loop that uses
        its variable twice per step doubles the written-out expression every step)."""
        limit = self.limits.max_symbolic_ops * 20
        if size > limit:
            raise SymbolicBudgetExceeded(
                f"the symbolic expression would have more than {limit:,} terms")
        return size

    # the protocol ---------------------------------------------------------------------
    def number(self, value: float) -> Value:
        return Value(None, np.asarray(np.float64(value)))

    def call(self, func: str, args: list[Any], pos: Pos) -> Value:
        if func not in ops.FUNCTIONS:
            raise EvalError(f"unknown function {func}() at {pos}")
        if func in ("ones", "zeros"):
            dims = [self._int(a, f"{func}() size", pos) for a in args]
            return Value(None, np.asarray(ops.FUNCTIONS[func][0](*dims), dtype=np.float64))
        if func == "where":
            cond, a, b = args
            return self.where(cond, _value(a), _value(b), pos)
        if func == "dot":
            return self.apply("matmul", [_value(a) for a in args])
        if func == "outer":  # a column times a row
            a, b = (_value(x) for x in args)
            return self.apply("mul", [
                self.apply("reshape", [a], new_shape=a.num.shape + (1,)),
                self.apply("reshape", [b], new_shape=b.num.shape[:-1] + (1,) + b.num.shape[-1:])])
        prim = ops.primitive_of(func)
        if prim.axis:
            x = _value(args[0])
            params: dict[str, Any] = {}
            if len(args) > 1:
                params["axis"] = ops.normalize_axis(self._int(args[1], "axis", pos), x.num.ndim)
            if len(args) > 2:  # keepdims=True (sum and mean)
                params["keepdims"] = bool(self._int(args[2], "keepdims", pos))
            return self.apply(prim.name, [x], **params)
        return self.apply(prim.name, [_value(a) for a in args])

    def binary(self, op: str, left: Any, right: Any, pos: Pos) -> Value:
        return self.apply(BINARY_PRIMS[op], [_value(left), _value(right)])

    def negate(self, value: Any, pos: Pos) -> Value:
        return self.apply("neg", [_value(value)])

    def stack(self, items: list[Any], pos: Pos) -> Value:
        values = [_value(i) for i in items]
        prim = ops.PRIMITIVES["stack"]
        num = prim.forward(*[v.num for v in values])
        if all(v.numeric for v in values):
            return Value(None, num)
        size = max(v.size for v in values)
        return _symbolic(prim.sym(*[v.exprs() for v in values]), num, size)

    def index(self, target: Any, key: tuple, pos: Pos) -> Value:
        v = _value(target)
        try:
            num = np.asarray(v.num[key], dtype=np.float64)
            return Value(None, num) if v.numeric else _symbolic(v.sym[key], num, v.size)
        except (IndexError, TypeError, ValueError) as exc:
            raise EvalError(f"index at {pos} failed: {exc}") from None

    def compare(self, op: str, left: Any, right: Any, pos: Pos) -> Any:
        raise SymbolicUnsupported(f"comparison at {pos} outside the recorded path")

    def truth(self, value: Any, pos: Pos) -> bool:
        raise SymbolicUnsupported(f"condition at {pos} outside the recorded path")

    def integer(self, value: Any, pos: Pos) -> int:
        raise SymbolicUnsupported(f"whole number at {pos} outside the recorded path")

    # operations -----------------------------------------------------------------------
    def _int(self, value: Any, what: str, pos: Pos) -> int:
        v = _value(value)
        if v.num.size != 1 or not v.numeric:
            raise SymbolicUnsupported(f"{what} at {pos} depends on an input")
        x = float(v.num.reshape(-1)[0])
        if not math.isfinite(x) or x != int(x):
            raise EvalError(f"{what} at {pos} is not a whole number")
        return int(x)

    def where(self, cond: Any, a: Value, b: Value, pos: Pos) -> Value:
        c = _value(cond)
        if not c.numeric:
            raise SymbolicUnsupported(f"where() at {pos}: the condition depends on an input")
        mask = c.num.astype(bool)
        prim = ops.PRIMITIVES["where"]
        num = prim.forward(a.num, b.num, cond=mask)
        if a.numeric and b.numeric:
            return Value(None, np.asarray(num, dtype=np.float64))
        self.spend(np.size(num))
        return _symbolic(prim.sym(a.exprs(), b.exprs(), mask), num, max(a.size, b.size))

    def apply(self, name: str, args: list[Value], **params: Any) -> Value:
        """Apply primitive `name`: the tape's float64 forward, and sympy's twin unless
        every operand is a plain number (then the float64 result is the value)."""
        prim = ops.PRIMITIVES[name]
        with np.errstate(all="ignore"):
            num = np.asarray(prim.forward(*[v.num for v in args], **params), dtype=np.float64)
        if all(v.numeric for v in args):
            return Value(None, num)
        size = self.grow(1 + sum(v.size for v in args))
        if prim.elementwise:
            return _symbolic(self._elementwise(prim, args, num), num, size)
        objs = [v.exprs() for v in args]
        if prim.axis:
            size = self.grow(1 + args[0].size * max(1, objs[0].size // max(1, num.size)))
            self.spend(max(1, objs[0].size))
            if self.local and prim.sym_local is not None:
                sym = prim.sym_local([v.num for v in args], *objs, **params)
            else:
                sym = prim.sym(*objs, **params)
            sym = sym if isinstance(sym, np.ndarray) else _scalar_obj(sym)
        else:
            if name == "matmul":
                a, b = objs
                inner = a.shape[-1] if a.ndim else 1
                size = self.grow(1 + inner * (args[0].size + args[1].size))
                self.spend(max(1, num.size) * inner)
            else:
                self.spend(max(1, sum(o.size for o in objs)))
            sym = prim.sym(*objs, **params)
            sym = sym if isinstance(sym, np.ndarray) else _scalar_obj(sym)
        for e in sym.flat:
            _check_exact(e)
        return _symbolic(sym, num, size)

    def _elementwise(self, prim: ops.Prim, args: list[Value], num: np.ndarray) -> np.ndarray:
        shape = num.shape
        self.spend(max(1, math.prod(shape)))
        exprs = np.broadcast_arrays(*[v.exprs() for v in args])
        nums = np.broadcast_arrays(*[v.num for v in args])
        out = np.empty(shape, dtype=object)
        for idx in np.ndindex(*shape):
            elems = [e[idx] for e in exprs]
            if all(_is_const(e) for e in elems):
                out[idx] = to_sympy(num[idx])  # folded: the tape's float64 result
                continue
            if prim.name == "pow":
                e = elems[1]
                if isinstance(e, sp.Integer) and abs(int(e)) > MAX_EXACT_EXPONENT:
                    elems[1] = sp.Float(int(e))
            if self.local:
                at = [float(n[idx]) for n in nums]
                self._note_kink(prim, elems, at)
                r = _branch(prim, elems, at)
            else:
                r = _twin(prim, elems)
            _check_exact(r)
            out[idx] = r
        return out

    def _note_kink(self, prim: ops.Prim, elems: list[Any], at: list[float]) -> None:
        """Record the points where the tape's convention is one no sympy expression has
        (the entry's kink predicate says where)."""
        kink = prim.kink
        if kink is None:
            return
        symbolic = [isinstance(e, sp.Basic) and bool(e.free_symbols) for e in elems]
        if not kink.where(at, symbolic):
            return
        free = frozenset().union(*(e.free_symbols for e in elems if isinstance(e, sp.Basic)))
        if free:
            self.kinks.append((kink.text, free))


def _twin(prim: ops.Prim, elems: list[Any]) -> Any:
    """The primitive's sympy twin on scalar expressions."""
    try:
        r = prim.sym(*elems)
    except TypeError:  # a Piecewise comparing with nan: undefined
        return sp.nan
    return r.item() if isinstance(r, np.ndarray) else r


def _template(prim: ops.Prim, arity: int) -> tuple[tuple[sp.Dummy, ...], Any]:
    """The twin on placeholder symbols, built once per primitive (and again when the
    registry changes: a primitive registered later may reuse a name)."""
    templates = derived("symbolic templates", dict)
    if prim.name not in templates:
        dummies = tuple(sp.Dummy(f"a{i}", real=True) for i in range(arity))
        templates[prim.name] = (dummies, _twin(prim, list(dummies)))
    return templates[prim.name]


def _branch(prim: ops.Prim, elems: list[Any], at: list[float]) -> Any:
    """The twin, with a Piecewise replaced by the branch that the operands' float64 values
    (`at`, the tape's numbers) select."""
    dummies, template = _template(prim, len(elems))
    if not isinstance(template, sp.Piecewise):
        return _twin(prim, elems)
    values = {d: (sp.Float(v) if math.isfinite(v) else to_sympy(v))
              for d, v in zip(dummies, at, strict=True)}
    for expr, cond in template.args:
        try:
            holds = cond.xreplace(values)
        except TypeError:  # nan compares with nothing: the value is undefined
            return sp.nan
        if holds is sp.true:
            return expr.xreplace(dict(zip(dummies, elems, strict=True)))
        if holds is not sp.false:
            break
    return _twin(prim, elems)


# --------------------------------------------------------------------------- the output


def symbolic_output(
    program: Program,
    inputs: dict[str, Any],
    wrt: list[str],
    constants: dict[str, Any] | None,
    of: str,
    decisions: Decisions | None = None,
    limits: Limits = DEFAULT_LIMITS,
    *,
    local: bool = True,
    kinks: list[tuple[str, frozenset]] | None = None,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The output `of` as sympy expressions of the `wrt` inputs, along the numeric path.

    Inputs not in `wrt` (and `constants`) enter as numbers. `decisions` are those of a
    numeric run at the same point (e.g. from `record_path`); None re-records them here.
    `local`: each Piecewise twin (relu, sign, maximum, minimum, clamp) becomes the branch
    the tape's float64 values select, like the path itself: values and derivatives of
    every order at the point are the same (False: the whole Piecewise, valid anywhere).
    `kinks` (a list) receives (description, operand symbols) for each operation whose
    convention at the point no sympy expression has (clamp with lo == hi, pow with a zero
    exponent or base: PyTorch masks the derivative there)."""
    if decisions is None:
        decisions, _ = record_path(program, inputs, constants, of, limits)
    backend = SymbolicBackend(limits, local)
    values = {k: np.asarray(ops.value(v), dtype=np.float64)
              for k, v in {**(constants or {}), **inputs}.items()}
    backend.spend(sum(values[n].size for n in wrt))
    symbols = {n: symbols_for(n, values[n].shape) for n in wrt}
    env: dict[str, Any] = {k: Value(None, v) for k, v in values.items()}
    env.update({n: Value(symbols[n], values[n]) for n in wrt})
    out = run_replayed(program, backend, env, decisions, of, limits)
    if kinks is not None:
        kinks.extend(backend.kinks)
    return _value(out).exprs(), symbols


__all__ = [
    "SymbolicBackend", "SymbolicBudgetExceeded", "SymbolicUnsupported", "PathDecisions",
    "record_path", "run_replayed", "symbols_for", "symbolic_output", "to_sympy", "Value",
    "const_float", "as_expr",
]

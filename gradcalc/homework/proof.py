"""The symbolic side of a homework check: sympy expressions built from the IR, never text.

Each entry runs on the symbolic backend (`local=False`: a Piecewise twin stays whole,
valid at every point). The backend folds constants in float64, so numbers are read back
exactly where float64 holds them: 0.5 is 1/2, 6.283185307179586 is 2π, 1.4142135623730951
is √2. The true derivative is sympy's `diff`, printed in the language (`^`, `abs`, `e`,
`where`) so that it can be typed back as an answer. A proof is `difference == 0` after
sympy's automatic simplification, after `expand`, or after `simplify`, each bounded by
the time budget; a numeric mismatch is confirmed in 30-digit arithmetic before it counts.

Exactness beats a tolerance (`settle`): a difference that is a rational function of the
inputs is reduced by `cancel` (0 is a proof; anything else is a difference proved not 0,
however small against the values), and any other difference is evaluated exactly at
sampled points (rational numbers: a float is one), where sympy's `evalf` either tells its
value from 0 to 15 certain digits or gives up (then nothing is proved).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Any

import numpy as np
import sympy as sp
from sympy.printing.str import StrPrinter

from gradcalc.backends.symbolic import PathDecisions, as_expr, symbolic_output
from gradcalc.engine import ops
from gradcalc.homework import real_roots
from gradcalc.homework.exact import exact_number
from gradcalc.homework.problem import Side
from gradcalc.language.ir import walk
from gradcalc.language.program import (
    EULER,
    RESULT_NAME,
    Assign,
    Binary,
    BoolOp,
    Call,
    Compare,
    ExprStmt,
    For,
    If,
    Index,
    ListLit,
    Name,
    Not,
    Num,
    Program,
    Unary,
    While,
)
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.budget import Timeout, time_budget

#: digits of the arithmetic that confirms a numeric mismatch
CONFIRM_DIGITS = 30


def symbol(name: str) -> sp.Symbol:
    return sp.Symbol(name, real=True)


def side_exprs(side: Side, inputs: tuple[str, ...], point: dict[str, float],
               limits: Limits = DEFAULT_LIMITS) -> list[Any]:
    """Each entry as a sympy expression of the inputs (path recorded at `point`), its
    numbers exact (`_literals`), an odd root of a negative number the real one."""
    values = {n: np.asarray(point[n], dtype=np.float64) for n in inputs}
    out = []
    for entry in side.entries:
        program, literals = _literals(entry.program)
        given = {**values, **{n: np.asarray(v, dtype=np.float64) for n, v in literals}}
        euler = _euler(program, inputs)
        # a formula that decides nothing has one path: no numeric run to record it
        path = None if _decides(program) else PathDecisions()
        expr, _ = symbolic_output(program, {**given, **euler},
                                  [*inputs, *(n for n, _ in literals), *euler], {},
                                  RESULT_NAME, path, limits=limits, local=False)
        expr = _put(np.asarray(expr, dtype=object).reshape(()).item(), literals)
        if euler and isinstance(expr, sp.Basic):
            expr = expr.xreplace({s: sp.E for s in expr.free_symbols if s.name == EULER})
        out.append(real_roots.real_powers(exact(expr)))
    return out


def _euler(program: Program, inputs: tuple[str, ...]) -> dict[str, Any]:
    """`e` as a name of its own where it is Euler's number (no input of that name), so
    that e^(-5) reaches sympy as E^-5 and not as the float 0.0067…"""
    if EULER in inputs or not any(isinstance(n, Name) and n.id == EULER
                                  for n in walk(program)):
        return {}
    return {EULER: np.asarray(np.e, dtype=np.float64)}


#: the prefix of the symbols that stand for a formula's number literals
LITERAL = "_literal"
#: a power whose exponent is a number beyond this keeps its numbers as floats (2^1000)
MAX_EXACT_POWER = 64


class _Literals:
    """An IR rewritten with the number literals of its formulas as names of their own
    (`_literal0`, ...); indices, sizes and ranges keep theirs."""

    def __init__(self) -> None:
        self.names: dict[float, str] = {}

    def node(self, n: Any) -> Any:
        if isinstance(n, Num):
            if not np.isfinite(n.value):
                return n
            return Name(self.names.setdefault(n.value, f"{LITERAL}{len(self.names)}"), n.pos)
        if isinstance(n, tuple):
            return tuple(self.node(v) for v in n)
        if isinstance(n, Call) and not ops.elementwise(n.func):
            return n
        if isinstance(n, Index):
            return replace(n, target=self.node(n.target))
        if isinstance(n, For):
            return replace(n, body=self.node(n.body))
        if isinstance(n, (Binary, Unary, Call, ListLit, Compare, BoolOp, Not, Assign,
                          ExprStmt, If, While)):
            return replace(n, **{f.name: self.node(getattr(n, f.name)) for f in fields(n)
                                 if f.name != "pos"})
        return n


@lru_cache(maxsize=2048)
def _literals(program: Program) -> tuple[Program, tuple[tuple[str, float], ...]]:
    """The program with its number literals as names, and each name's value. The
    symbolic backend folds numbers in float64 (3 + 1/10^15 is 3.000000000000001, and a
    sympy Float of 10^12 keeps 15 digits): as symbols they reach sympy whole, and are put
    back exactly afterwards (`_put`)."""
    if not _folds(program):
        return program, ()
    rewrite = _Literals()
    body = rewrite.node(program.body)
    return (replace(program, body=body),
            tuple((name, value) for value, name in rewrite.names.items()))


def _folds(program: Program) -> bool:
    """Whether the backend would make a number of the program inexact: a literal that is
    no whole number up to 10^6 (0.1, 1e12), numbers divided or raised to a power
    (1/10^15), or a function of numbers (ln(2) is the float 0.693…, and 3/ln(2) a float
    no exact number is read back from); whole numbers added and multiplied stay exact as
    they are."""
    for node in walk(program):
        if isinstance(node, Num):
            if not (node.value == int(node.value) and abs(node.value) <= 10**6):
                return True
        elif isinstance(node, Binary) and node.op in ("/", "**") and _numbers(node):
            return True
        elif isinstance(node, Call) and node.args and _numbers(node):
            return True
    return False


def _numbers(node: Any) -> bool:
    """Whether an expression is made of numbers only (no name)."""
    return all(isinstance(n, (Num, Binary, Unary, Call)) for n in walk(node))


def _put(expr: Any, literals: tuple[tuple[str, float], ...]) -> Any:
    """The literals' symbols replaced by exact numbers (0.1 is 1/10, 1e-12 is 1/10^12, π
    is π); by floats where exact arithmetic could grow without bound (a number to a power
    beyond `MAX_EXACT_POWER`)."""
    if not literals or not isinstance(expr, sp.Basic):
        return expr
    floats = {symbol(n): sp.Float(v) for n, v in literals}
    exacts = {symbol(n): _exact_literal(v) for n, v in literals}
    for power in expr.atoms(sp.Pow):
        exponent = power.exp.xreplace(floats)
        if exponent.is_number and abs(exponent) > MAX_EXACT_POWER:
            return expr.xreplace(floats)
    return expr.xreplace(exacts)


def _exact_literal(v: float) -> Any:
    near = exact_number(v)
    return _decimal(near) if near.is_Float else near


def _decides(program: Program) -> bool:
    """Whether running the program may take a value-dependent decision (a branch, a loop,
    a comparison or an index: the symbolic run replays those from a numeric one). Only
    assignments, arithmetic, calls, lists, names and numbers decide nothing."""
    return not all(isinstance(node, (Assign, ExprStmt, Binary, Unary, Call, ListLit, Name,
                                     Num)) for node in walk(program))


def one_formula(*sides: Side) -> bool:
    """Whether every entry of the sides decides nothing: its formula, built on one path,
    holds at every point (what an exact verdict at other points needs)."""
    return not any(_decides(e.program) for side in sides for e in side.entries)


def exact(expr: Any) -> Any:
    if not isinstance(expr, sp.Basic):
        return exact_number(float(expr))
    floats = expr.atoms(sp.Float)
    if not floats:
        return expr
    return expr.xreplace({f: exact_number(float(f)) for f in floats})


# --------------------------------------------------------------------------- text


class _Printer(StrPrinter):
    """sympy's text, in gradcalc's language (what `check` prints can be typed back)."""

    def __init__(self, euler: str) -> None:
        super().__init__({"order": None})
        self.euler = euler

    def _print_Abs(self, e: Any) -> str:
        return f"abs({self._print(e.args[0])})"

    def _print_Exp1(self, e: Any) -> str:
        return self.euler

    def _print_Piecewise(self, e: Any) -> str:
        *cases, (last, cond) = e.args
        text = self._print(last) if cond is sp.true else "nan"
        for value, cond in reversed(cases):
            text = f"where({self._print(cond)}, {self._print(value)}, {text})"
        return text


def text(expr: Any, inputs: tuple[str, ...] = ()) -> str:
    """A readable text of an expression, in the language (powers as ^)."""
    printer = _Printer("E" if EULER in inputs else "e")
    return printer.doprint(expr).replace("**", "^")


# --------------------------------------------------------------------------- proof


def proves(expected: Any, answer: Any, seconds: float, full: bool) -> bool:
    """Whether expected - answer simplifies to 0 within `seconds` (`full`: also try
    sympy's `simplify`, the slow general route; else only the automatic form and
    `expand`)."""
    d = expected - answer
    if d == 0:
        return True
    try:
        with time_budget(seconds):
            if sp.expand(d) == 0:
                return True
            return bool(full and sp.simplify(d) == 0)
    except Timeout:
        return False
    except Exception:  # noqa: BLE001 - sympy fails in many ways; no proof is no proof
        return False


def _exactly_at(expr: Any, at: tuple[tuple[str, str], ...]) -> Any:
    """The expression at a point (inputs' float64 values as hex) in 30-digit arithmetic."""
    subs = {symbol(n): sp.Float(float.fromhex(h), CONFIRM_DIGITS) for n, h in at}
    return as_expr(expr).xreplace(subs).evalf(CONFIRM_DIGITS)


#: the true derivative's exact values: a function's wrong answers share its points
_expected_at = lru_cache(maxsize=4096)(_exactly_at)


def _hashable(x: Any) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def forget() -> None:
    """Empty the kept exact values (a benchmark's cold start)."""
    _expected_at.cache_clear()


def differ_exactly(expected: Any, answer: Any, point: dict[str, float], rtol: float,
                   atol: float) -> bool | None:
    """At `point`, in 30-digit arithmetic: True if the two differ beyond the tolerances,
    False if they agree (a float64 mismatch was rounding), None if not both are real."""
    at = tuple((n, float(v).hex()) for n, v in point.items())
    try:
        with time_budget(1.0):
            a = (_expected_at if _hashable(expected) else _exactly_at)(expected, at)
            b = _exactly_at(answer, at)
            if not (a.is_real and b.is_real and a.is_finite and b.is_finite):
                return None
            return bool(abs(a - b) > atol + rtol * max(abs(a), abs(b)))
    except (Timeout, Exception):  # noqa: BLE001 - no confirmation: the float64 result stands
        return None


# --------------------------------------------------------------------------- exact differences

#: working digits sympy's evalf may use to tell an exact value from 0 (its `maxn`)
MAX_DIGITS = 50
#: the first points tried for a counterexample of an exact difference: small numbers
NICE = (0, 1, -1, 2, -2, 3, -3, sp.Rational(1, 2), sp.Rational(-1, 2), 10, -10)
#: sampled points at which a difference that is no rational function is evaluated exactly
EXACT_POINTS = 1


@dataclass(frozen=True)
class Difference:
    """A difference proved not 0: the student's side minus the reference, as a formula
    (`everywhere`: a rational function of the inputs) or as its exact value at `at`;
    `at` is an exact point (input name -> sympy number) where it shows."""

    value: Any
    at: dict[str, Any]
    everywhere: bool


def settle(reference: Any, student: Any, points: list[dict[str, float]], names: list[str],
           seconds: float, allowed: Any = None, seen: bool = True
           ) -> bool | Difference | None:
    """True when student - reference is proved 0, a Difference when it is proved not 0,
    None when exact arithmetic cannot tell cheaply (or within `seconds`). `points` are
    valid points (floats: exact rationals), `names` the inputs a counterexample gives,
    `allowed(point) -> bool` says whether a point lies in the problem's domain. A
    difference that is no rational function is evaluated at a point only when float64
    `seen` one above its rounding (below it, telling it from 0 costs most)."""
    d = student - reference
    if d == 0:
        return True
    if not isinstance(d, sp.Basic) or d.has(sp.nan, sp.zoo):
        return None
    if d.atoms(sp.Float):
        return None  # an inexact number (a constant computed in float64): no verdict
    try:
        with time_budget(seconds):
            symbols = sorted(d.free_symbols, key=str)
            if d.is_rational_function(*symbols):
                return _rational(d, reference, student, symbols, points, names, allowed)
            return _at_points(d, points) if seen else None
    except Timeout:
        return None
    except Exception:  # noqa: BLE001 - sympy fails in many ways; nothing is proved
        return None


#: a float constant with at most this many significant digits is the decimal it reads
SHORT_DIGITS = 15


def _decimal(f: Any) -> Any:
    """A Float that `exact` kept (1e-12, 3.5e-20: a short decimal too small or large for
    its denominators) as the decimal it reads; a long one (a constant computed in float64,
    √2·π) stays a Float."""
    shortest = repr(float(f))
    digits = shortest.split("e")[0].replace("-", "").replace(".", "").strip("0")
    return sp.Rational(shortest) if len(digits) <= SHORT_DIGITS else f


def _certain(v: Any) -> bool:
    """Whether an exact constant is certainly not 0 (15 certain digits of it)."""
    if v.is_Rational:
        return v != 0
    try:
        n = v.evalf(15, strict=True, maxn=MAX_DIGITS)
    except Exception:  # noqa: BLE001 - PrecisionExhausted: not told from 0
        return False
    return bool(n.is_number and n.is_real and n != 0)


def _rational(d: Any, reference: Any, student: Any, symbols: list[Any],
              points: list[dict[str, float]], names: list[str], allowed: Any
              ) -> bool | Difference | None:
    r = sp.cancel(sp.together(d))
    if r == 0:
        return True
    numerator, _ = sp.fraction(r)
    coefficients = sp.Poly(numerator, *symbols).coeffs() if symbols else [numerator]
    if not any(_certain(c) for c in coefficients):
        return None
    tries = [{n: sp.Rational(c) + k for k, n in enumerate(names)} for c in NICE]
    tries += [{n: sp.Rational(p[n]) for n in names} for p in points]
    shown = None
    for at in tries:
        if allowed is not None and not allowed({n: float(v) for n, v in at.items()}):
            continue
        subs = {symbol(n): v for n, v in at.items()}
        ref, stu, gap = (e.xreplace(subs) for e in (reference, student, r))
        if not all(v.is_number and v.is_finite and v.is_real for v in (ref, stu, gap)) \
                or gap == 0:
            continue
        if shown is None:
            shown = at
        if float(ref) != float(stu):  # the values differ in float64 too: show them
            shown = at
            break
    return Difference(r, shown, True) if shown is not None else None


def _at_points(d: Any, points: list[dict[str, float]]) -> Difference | None:
    for p in points[:EXACT_POINTS]:
        at = {n: sp.Rational(v) for n, v in p.items()}
        value = d.xreplace({symbol(n): v for n, v in at.items()})
        if _certain(value) and value.evalf(15).is_real:
            return Difference(value, at, False)
    return None

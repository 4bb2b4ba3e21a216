"""The step that went wrong: one rule misapplied at one step of the function's tape.

The function's formula is read into a tape of steps in evaluation order (an input, a
constant, `u + v`, `u * v`, `u ^ n`, `sin(u)`, ...). A forward sweep carries every step's
value and its derivative by one input; each step's derivative comes from its rule (the
chain rule's factor f'(u) is the engine's own VJP rule of f, run with a cotangent of 1).
For a wrong answer, every entry of `catalogue.CATALOGUE` that applies at a step is tried in turn:
that one step's rule is replaced by the misapplied one, the later steps are swept again,
and the first combination whose derivative reproduces the answer at every valid point
(to `feedback.same`'s tolerance) names the mistake and where it is. Steps are tried
outermost first; the search is bounded by `MAX_STEPS`.

The sweep runs on any number type with + - * / **: float64 arrays for the verdict,
sympy expressions for the tests (`derivative(..., symbolic=True)` builds the wrong
answer that a misapplication makes, as a formula).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.engine import ops
from gradcalc.homework.feedback import messages, misapplications
from gradcalc.homework.feedback.catalogue import RULES, misapplied, right_rule
from gradcalc.language.program import (
    EULER,
    Assign,
    Binary,
    Call,
    Expr,
    ExprStmt,
    Name,
    Num,
    Program,
    Unary,
)
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: formulas with more steps than this are not searched (each search sweeps the tape once
#: per step and rule: quadratic in its length)
MAX_STEPS = 120


#: a step value beyond this makes a point unfit for comparing formulas (ill-conditioned)
CONDITIONED = 1e6
CONSTANTS = {"pi": math.pi, "π": math.pi, "tau": math.tau}


@dataclass
class Step:
    """One step: what it does, its operands (earlier steps) and the text it came from."""

    op: str  # 'leaf' | 'const' | 'neg' | '+' | '-' | '*' | '/' | '**' | 'call'
    args: tuple[int, ...]
    expr: Expr | None
    value: Any = None
    depends: bool = False  # on the input differentiated (structurally)
    func: str = ""  # a call's function
    slopes: list[Any] = field(default_factory=list)  # a call's ∂f/∂arg_i at its operands

    @property
    def text(self) -> str:
        return step_text(self.expr) if self.expr is not None else ""


def step_text(expr: Expr) -> str:
    """A step's formula in the student's notation (as the feedback prints formulas)."""
    from gradcalc.homework.reading.student import expression

    return expression(expr)


@dataclass(frozen=True)
class Mistake:
    rule: str  # a catalogue id
    step: int  # the step's index on the tape
    at: str  # the step's text
    message: str
    variant: str = ""  # the search's name of the misapplication (product terms differ)

    def as_json(self) -> dict[str, str]:
        return {"rule": self.rule, "at": self.at}


class _Numeric:
    """float64 arrays; a call's slope is its VJP rule with a cotangent of ones. Numbers are
    numpy's float64 too, never Python's: 0.0 ** -2 is inf and 1/0.0 is inf, as IEEE says,
    not a ZeroDivisionError (a misapplied rule on a zero derivative, (x − x)⁻¹)."""

    e: Any = np.float64(math.e)

    @staticmethod
    def number(x: float) -> Any:
        return np.float64(x)

    @staticmethod
    def log(x: Any) -> Any:
        with np.errstate(all="ignore"):
            return np.log(x)

    @staticmethod
    def call(prim: Any, args: list[Any]) -> tuple[Any, list[Any]]:
        with np.errstate(all="ignore"):
            ans = np.asarray(prim.forward(*args), dtype=np.float64)
            ones = np.ones(np.shape(ans))
            return ans, [np.asarray(v(ones, ans, *args), dtype=np.float64)
                         for v in prim.vjps]


class _Symbolic:
    """sympy expressions; a call's slope is the derivative of its twin."""

    def __init__(self) -> None:
        import sympy as sp

        self.sp = sp
        self.e = sp.E

    def number(self, x: float) -> Any:
        """sympy's Float: 0.0 ** -2 is zoo, not Python's ZeroDivisionError."""
        return self.sp.Float(x)

    def log(self, x: Any) -> Any:
        return self.sp.log(x)

    def call(self, prim: Any, args: list[Any]) -> tuple[Any, list[Any]]:
        sp = self.sp
        dummies = [sp.Dummy() for _ in args]
        value = np.asarray(prim.sym(*dummies), dtype=object).reshape(()).item()
        subs = dict(zip(dummies, args, strict=True))
        return value.xreplace(subs), [sp.diff(value, d).xreplace(subs) for d in dummies]


class FormulaTape:
    """A straight-line formula as steps, with values at the points."""

    def __init__(self, program: Program, points: dict[str, Any], wrt: str,
                 symbolic: bool = False) -> None:
        self.num = _Symbolic() if symbolic else _Numeric()
        self.steps: list[Step] = []
        self.wrt = wrt
        self.points = points
        env: dict[str, int] = {}
        for s in program.body:
            if isinstance(s, Assign):
                env[s.target] = self._read(s.value, env)
            elif isinstance(s, ExprStmt):
                self.out = self._read(s.value, env)
            else:
                raise _Unsupported
        if len(self.steps) > MAX_STEPS:
            raise _Unsupported

    def _add(self, step: Step) -> int:
        self.steps.append(step)
        if len(self.steps) > MAX_STEPS:
            raise _Unsupported
        return len(self.steps) - 1

    def _read(self, e: Expr, env: dict[str, int]) -> int:
        num, steps = self.num, self.steps
        if isinstance(e, Num):
            return self._add(Step("const", (), e, num.number(e.value)))
        if isinstance(e, Name):
            if e.id in env:
                return env[e.id]
            if e.id in self.points:
                return self._add(Step("leaf", (), e, self.points[e.id], e.id == self.wrt))
            if e.id == EULER:
                return self._add(Step("const", (), e, num.e))
            if e.id in CONSTANTS:
                return self._add(Step("const", (), e, num.number(CONSTANTS[e.id])))
            raise _Unsupported
        if isinstance(e, Unary):
            a = self._read(e.operand, env)
            if e.op == "+":
                return a
            return self._add(Step("neg", (a,), e, -steps[a].value, steps[a].depends))
        if isinstance(e, Binary) and e.op in ("+", "-", "*", "/", "**"):
            a, b = self._read(e.left, env), self._read(e.right, env)
            x, y = steps[a].value, steps[b].value
            with np.errstate(all="ignore"):
                try:
                    v = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y,
                         "/": lambda: x / y, "**": lambda: x ** y}[e.op]()
                except (ZeroDivisionError, OverflowError):  # numbers alone: 0.0 ** -1
                    v = math.nan
            return self._add(Step(e.op, (a, b), e, v, steps[a].depends or steps[b].depends))
        if isinstance(e, Call):
            prim = ops.primitive_of(e.func)
            if prim is None or not prim.elementwise or prim.sym is None or len(
                    prim.vjps) != len(e.args):
                raise _Unsupported
            args = tuple(self._read(x, env) for x in e.args)
            value, slopes = num.call(prim, [steps[i].value for i in args])
            return self._add(Step("call", args, e, value, any(steps[i].depends for i in args),
                                  e.func, slopes))
        raise _Unsupported

    # ------------------------------------------------------------------ the sweep

    def rule(self, k: int, d: list[Any], mistake: str | None = None) -> Any:
        """Step k's derivative from its operands' (`d`), by its rule or a misapplied one."""
        s, steps, num = self.steps[k], self.steps, self.num
        if s.op == "leaf":
            return num.number(1.0 if s.depends else 0.0)
        if s.op == "const" or not s.depends:
            return num.number(0.0)
        if s.op == "neg":
            return d[s.args[0]] if mistake == "subtraction-sign" else -d[s.args[0]]
        if s.op == "call":
            if mistake == "chain-inner-factor":
                return s.slopes[0]
            if mistake == "exponential-as-power":
                u = steps[s.args[0]].value
                return u * num.e ** (u - 1)
            if mistake == "chain-outer-of-derivative":  # f'(u') for f'(u)·u'
                prim = ops.primitive_of(s.func)
                return num.call(prim, [d[s.args[0]]])[1][0]
            total = sum(g * d[i] for g, i in zip(s.slopes, s.args, strict=True))
            return -total if mistake == "trig-sign" else total
        a, b = s.args
        u, v, du, dv = steps[a].value, steps[b].value, d[a], d[b]
        left, right = steps[a].depends, steps[b].depends
        if s.op in ("+", "-"):
            return misapplications.sum_rule(mistake, s.op, u, v, du, dv, left, right)
        if s.op == "*":
            return misapplications.product(mistake, u, v, du, dv, left, right)
        if s.op == "/":
            return misapplications.quotient(mistake, u, v, du, dv, right)
        return misapplications.power(mistake, u, v, du, dv, left, right, num.log)

    def sweep(self, mistake: str | None = None, at: int = -1, upto: int | None = None
              ) -> Any:
        """The output's derivative (or step `upto`'s), with `mistake` at step `at` (None:
        every rule right)."""
        last = self.out if upto is None else upto
        d: list[Any] = []
        with np.errstate(all="ignore"):
            for k in range(last + 1):
                d.append(self.rule(k, d, mistake if k == at else None))
        return d[last]

    def conditioned(self, shape: tuple[int, ...]) -> np.ndarray:
        """The points where every step's value is moderate: beyond CONDITIONED the
        rounding of one formula (sin(e^x) at x = 70) says nothing about another."""
        keep = np.ones(shape, dtype=bool)
        with np.errstate(all="ignore"):
            for s in self.steps:
                keep &= np.abs(np.broadcast_to(np.asarray(s.value, dtype=np.float64),
                                               shape)) <= CONDITIONED
        return keep

    def candidates(self) -> Iterator[tuple[int, str]]:
        """(step, rule id) for every catalogue entry that applies, outermost step first."""
        steps = self.steps
        for k in reversed(range(len(steps))):
            s = steps[k]
            if not s.depends:
                continue
            if s.op == "neg":
                yield k, "subtraction-sign"
            elif s.op in ("+", "-"):
                if s.op == "-" and steps[s.args[1]].depends:
                    yield k, "subtraction-sign"
                if not all(steps[i].depends for i in s.args):
                    yield k, "constant-term-kept"
            elif s.op == "call" and len(s.args) == 1:
                if steps[s.args[0]].op != "leaf":
                    yield k, "chain-inner-factor"
                    yield k, "chain-outer-of-derivative"
                yield from ((k, r) for r in misapplied(s.func))
            elif s.op in ("*", "/"):
                a, b = (steps[i].depends for i in s.args)
                if a and b:
                    yield from ((k, r) for r in (
                        ("product-of-derivatives", "product-term-missing-left",
                         "product-term-missing-right") if s.op == "*" else
                        ("quotient-reversed", "quotient-square-missing",
                         "quotient-of-derivatives")))
                elif s.op == "*" or a:
                    yield k, "constant-multiple-dropped"
                elif b:
                    yield from ((k, r) for r in ("quotient-reversed",
                                                 "quotient-square-missing"))
            elif s.op == "**":
                base, power = (steps[i] for i in s.args)
                if not power.depends:
                    yield from ((k, r) for r in ("power-not-lowered", "power-raised",
                                                 "power-coefficient-dropped"))
                    if base.op != "leaf":
                        yield from ((k, r) for r in ("chain-inner-factor",
                                                     "chain-outer-of-derivative"))
                elif not base.depends:
                    if not (isinstance(base.expr, Name) and base.expr.id == EULER):
                        yield from ((k, r) for r in (
                            "exponential-log-missing", "power-rule-on-exponential",
                            "exponential-log-divided"))
                    else:
                        yield k, "exponential-as-power"
                    if power.op != "leaf":
                        yield from ((k, r) for r in ("chain-inner-factor",
                                                     "chain-outer-of-derivative"))
                else:
                    yield k, "variable-exponent"


class _Unsupported(Exception):
    """The formula has a step the search does not model (control flow, a list, indexing,
    a function of several arguments without a sympy twin)."""


def rule_id(mistake: str) -> str:
    """The catalogue id of a search variant (the product rule's two missing terms are
    one entry)."""
    return "product-term-missing" if mistake.startswith("product-term-missing") else mistake


def search(program: Program, points: dict[str, np.ndarray], wrt: str, answer: np.ndarray,
           same: Callable[[Any, Any], bool], limits: Limits = DEFAULT_LIMITS
           ) -> Mistake | None:
    """The first (step, misapplied rule) whose derivative is the answer at every point."""
    sweeps = _sweeps(program, points, wrt)
    if sweeps is None:
        return None
    tape = sweeps.tape
    shape = np.shape(answer)
    keep = tape.conditioned(shape)
    if keep.sum() < min(2, keep.size):
        return None
    answer = np.asarray(answer)[keep]
    right = np.broadcast_to(sweeps.right, shape)[keep]
    for k, mistake in sweeps.candidates:
        got = np.broadcast_to(sweeps.got(k, mistake), shape)
        if same(got[keep], answer) and not same(got[keep], right):
            return Mistake(rule_id(mistake), k, tape.steps[k].text,
                           message(tape, k, mistake), mistake)
    return None


class _Sweeps:
    """A function's tape at the points, its right derivative and each misapplied rule's,
    swept once: the wrong answers to one function are mostly judged at the same points."""

    def __init__(self, tape: FormulaTape) -> None:
        self.tape = tape
        self.candidates = list(tape.candidates())
        self._right: Any = None
        self._got: dict[tuple[int, str], np.ndarray] = {}

    @property
    def right(self) -> Any:
        if self._right is None:
            self._right = self.tape.sweep()
        return self._right

    def got(self, k: int, mistake: str) -> np.ndarray:
        if (k, mistake) not in self._got:
            self._got[k, mistake] = np.asarray(self.tape.sweep(mistake, k), dtype=np.float64)
        return self._got[k, mistake]


#: per (function entry, input, points): its sweeps (None: the search does not model it)
_SWEPT: dict[tuple, tuple[Program, _Sweeps | None]] = {}
SWEPT_KEPT = 256


def _sweeps(program: Program, points: dict[str, np.ndarray], wrt: str) -> _Sweeps | None:
    key = (id(program), wrt, tuple((n, np.asarray(v).tobytes()) for n, v in points.items()))
    kept = _SWEPT.get(key)
    if kept is not None and kept[0] is program:  # the very object: its id is not reused
        return kept[1]
    try:
        sweeps: _Sweeps | None = _Sweeps(FormulaTape(program, points, wrt))
    except _Unsupported:
        sweeps = None
    if len(_SWEPT) >= SWEPT_KEPT:
        _SWEPT.pop(next(iter(_SWEPT)))
    _SWEPT[key] = (program, sweeps)
    return sweeps


def forget() -> None:
    """Empty the kept sweeps (a benchmark's cold start)."""
    _SWEPT.clear()


def message(tape: FormulaTape, k: int, mistake: str) -> str:
    """The feedback for `mistake` at step k, naming the step in the student's text."""
    s, steps = tape.steps[k], tape.steps
    at = f"at {s.text}: "
    if mistake == "chain-inner-factor":
        inner = s.args[1] if s.op == "**" and not steps[s.args[0]].depends else s.args[0]
        return at + f"the chain rule's inner factor {_factor(tape, inner)} is missing"
    if mistake == "trig-sign":
        return at + f"the sign of {s.func}'s derivative is wrong: {right_rule(s.func)}"
    if mistake == "subtraction-sign":
        return at + ("the minus sign is lost: (−u)' = −u'" if s.op == "neg" else
                     "the sign of the subtracted term's derivative is lost: "
                     "(u − v)' = u' − v'")
    if mistake == "constant-multiple-dropped":
        const = next((steps[i] for i in s.args if not steps[i].depends), None)
        shown = f" {const.text}" if const is not None and const.text else ""
        verb = "divisor" if s.op == "/" else "factor"
        return at + f"the constant {verb}{shown} is dropped: (c·u)' = c·u'"
    if mistake == "exponential-log-missing":
        return at + f"the factor ln({steps[s.args[0]].text}) is missing: (a^u)' = a^u·ln(a)·u'"
    if mistake in ("power-rule-on-exponential", "exponential-log-divided"):
        a = steps[s.args[0]].text
        rule = f"({a}^u)' = {a}^u·ln({a})·u'"
        return at + (f"an exponential is not a power: {rule}, not u·{a}^(u−1)" if mistake ==
                     "power-rule-on-exponential" else
                     f"ln({a}) multiplies, it does not divide: {rule}")
    if mistake == "constant-term-kept":
        const = next((steps[i] for i in s.args if not steps[i].depends), None)
        shown = f" {const.text}" if const is not None and const.text else ""
        return at + f"the constant term{shown} has derivative 0: (u + c)' = u'"
    return at + RULES[rule_id(mistake)].said


def _factor(tape: FormulaTape, k: int) -> str:
    """Step k's derivative as a number when it is one, else in words."""
    d = np.asarray(tape.sweep(at=-1, upto=k), dtype=np.float64) if isinstance(
        tape.num, _Numeric) else None
    if d is not None and d.size and np.all(d == d.reshape(-1)[0]):
        return exact_text(float(d.reshape(-1)[0]))
    return f"(the derivative of {tape.steps[k].text})"


def exact_text(v: float) -> str:
    """A constant as the student would write it: 3, 1/2, π, 2π, √2, ln(3), e^(-3); else
    6 digits (the inner factor of sin(πx) is π, not 3.14159)."""
    return messages.number(v, approx=False)

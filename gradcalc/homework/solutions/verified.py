"""Every step checked before it is printed: "before = after" at sampled points on the tape,
and symbolically when the step is small.

The points are drawn (seeded) as the judge draws them (`homework.sample.candidates`),
kept where the function and its derivative are finite and moderate. Both sides of a step
are sympy expressions with the parts still to do as placeholders; each is printed in the
language, parsed and run on gradcalc's own numeric backend (`homework.sample.evaluate`),
and a part still to do is given its value on the tape: d/dx of a sub-expression is the
tape's derivative of what the student typed, ∫ of an integrand enters through its
derivative (an antiderivative's steps are compared by their derivatives, which is what
"equal up to a constant" means). The sides must agree at most of the points (where both
are defined) to within `RTOL`/`ATOL`. A step whose two sides have at most
`SYMBOLIC_OPS` operations once sympy has taken the parts still to do is also proved by
sympy (`expand`, then `cancel`) within `PROOF_CALLS` counted calls
(`gradcalc.verify.counted.decide`): whether a step is proved depends on the step alone,
never on the machine's speed or load. sympy takes the parts of a step of at most
`STEP_OPS` operations only, work bounded by that size (at most about 150,000 calls on
the problem set of bench/problems).

A step that fails is never shown: `chain` merges it with the next ones into one larger
step until the larger one holds (a merged step says which rules it stands for).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from gradcalc.backends.symbolic import as_expr
from gradcalc.errors import GradcalcError
from gradcalc.homework import proof
from gradcalc.homework.problem import Entry, free_names
from gradcalc.homework.sample import ROUNDS, candidates, evaluate, kinked, on_kink
from gradcalc.homework.solutions import states
from gradcalc.homework.solutions.states import Term, Todo
from gradcalc.homework.solutions.worked import Step
from gradcalc.homework.true_derivative import torch_convention
from gradcalc.language.parse import parse
from gradcalc.language.program import ExprStmt, Program
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify import counted

#: how closely the two sides of a step must agree at each point
RTOL, ATOL = 1e-7, 1e-9
#: a point where a value is beyond this is not used (ill-conditioned for comparing)
CONDITIONED = 1e6
#: the largest step (sympy's count_ops of both sides, the parts still to do taken) that
#: is also proved symbolically
SYMBOLIC_OPS = 60
#: the largest step (both sides with the parts still to do written out) whose parts sympy
#: takes to prove it: larger ones were never proved on the problem set (at most 63
#: operations were), and taking their parts cost more than all the proofs
STEP_OPS = 90
#: the Python calls (counted work) sympy's proof of one step may make (the most one made
#: on the problem set of bench/problems is about 200,000, counted in its process)
PROOF_CALLS = 4_000_000
#: steps a part may have before it is shown as one (a formula too long to take apart)
MAX_STEPS = 60


@dataclass
class _Run:
    value: np.ndarray
    grad: dict[Any, np.ndarray]


@dataclass
class Raw:
    """A step before it is checked: the states before and after it (one Term, or two for
    an equation), how they compare (`mode`), and what it says."""

    rule: str
    at: str
    text: str
    latex: str
    before: tuple[Term, ...]
    after: tuple[Term, ...]
    mode: str = "value"  # value | derivative | residual | solved
    note: str = ""
    also: str = ""
    covers: tuple[str, ...] = ()


def shown(state: tuple[Term, ...]) -> tuple[str, str]:
    """A state's text and LaTeX (an equation's two sides joined by =)."""
    return (" = ".join(states.text(t) for t in state),
            " = ".join(states.latex(t) for t in state))


@dataclass
class Checker:
    """The points a solution's steps are checked at, and the checks.

    `symbols` maps each variable's name in the language to its sympy symbol (x, the
    other inputs, y and y' in implicit differentiation); `x` is differentiated by;
    `dependent`/`slope`: y and y' (implicit); `anchor`: the entry whose value and
    derivative must be finite at a point for the point to be used."""

    symbols: dict[str, Any]
    x: Any
    anchor: Entry | None = None
    dependent: Any = None
    slope: Any = None
    partial: bool = False
    samples: int = 8
    seed: int = 0
    limits: Limits = DEFAULT_LIMITS
    #: inputs held at values (a derivative's value at a point)
    fixed: dict[str, float] = field(default_factory=dict)
    #: points to check at instead of drawn ones (points of a curve), name -> values
    given: dict[str, np.ndarray] | None = None
    #: variables whose values are an expression of the others there (y' = -x/y)
    tied: dict[str, Any] = field(default_factory=dict)
    points: dict[str, np.ndarray] = field(default_factory=dict)
    _safe: dict[Any, Any] = field(default_factory=dict)
    _cache: dict[Any, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._safe = {s: sp.Symbol(f"v{k}", real=True)
                      for k, s in enumerate(self.symbols.values())}
        if self.given is not None:
            k = len(next(iter(self.given.values())))
            rng = np.random.default_rng(self.seed)
            self.points = {n: np.asarray(self.given[n], dtype=np.float64) if n in self.given
                           else rng.uniform(-2, 2, k) for n in self.symbols}
        else:
            self.points = self._draw()
        for n, expr in self.tied.items():
            self.points[n] = np.array(self.values(expr), dtype=np.float64)
            self._cache.clear()

    @property
    def count(self) -> int:
        return len(next(iter(self.points.values()), []))

    # ------------------------------------------------------------------ points

    def _draw(self) -> dict[str, np.ndarray]:
        names = tuple(self.symbols)
        rng = np.random.default_rng(self.seed)
        found: dict[str, list[float]] = {n: [] for n in names}
        wrt = tuple(n for n, s in self.symbols.items() if s == self.x)
        for round_no in range(ROUNDS):
            pts = candidates(rng, names, round_no, found)
            for n, v in self.fixed.items():
                pts[n] = np.full(len(pts[names[0]]), v)
            ok = np.ones(len(pts[names[0]]), dtype=bool)
            if self.anchor is not None:
                try:
                    v = evaluate(self.anchor, pts, wrt, self.limits)
                except GradcalcError:
                    return {n: np.zeros(0) for n in names}
                for a in (v.value, *v.grad.values()):
                    with np.errstate(all="ignore"):
                        ok &= np.isfinite(a) & (np.abs(a) <= CONDITIONED)
                if kinked([self.anchor]) and ok.any():
                    ok &= ~on_kink([self.anchor], pts, wrt, self.limits)
            for k in np.flatnonzero(ok)[: self.samples - len(found[names[0]])]:
                for n in names:
                    found[n].append(float(pts[n][k]))
            if len(found[names[0]]) >= self.samples:
                break
        return {n: np.asarray(v) for n, v in found.items()}

    # ------------------------------------------------------------------ the tape

    def values(self, expr: Any) -> np.ndarray:
        """A sympy expression of the variables at every point, on the tape."""
        expr = as_expr(expr)
        if expr in self._cache:
            return self._cache[expr]
        k = self.count
        if expr.is_number:
            out = np.full(k, float(expr) if expr.is_real else np.nan)
        else:
            renamed = expr.xreplace(self._safe)
            program = parse(proof.text(renamed), limits=self.limits)
            used = free_names(program)
            pts = {s.name: self.points[n] for n, v in self.symbols.items()
                   for s in [self._safe[v]] if s.name in used}
            with np.errstate(all="ignore"):
                out = np.broadcast_to(evaluate(Entry(program, None), pts, (),
                                               self.limits).value, (k,))
        self._cache[expr] = out
        return out

    def derivative(self, todo: Todo) -> np.ndarray:
        """d/dx of a part still to do, on the tape (of the IR the student typed when the
        part comes from it); in implicit differentiation, ∂/∂x + ∂/∂y·y'."""
        node = todo.payload
        key = ("d", node)
        if key in self._cache:
            return self._cache[key]
        names = {v: n for n, v in self.symbols.items()}
        if node is not None and node.ir is not None:
            program = Program((ExprStmt(node.ir, node.ir.pos),))
            rename = names
        else:
            program = parse(proof.text(todo.value.xreplace(self._safe)), limits=self.limits)
            rename = {v: self._safe[v].name for v in self.symbols.values()}
        used = free_names(program)
        wrt = [rename[s] for s in ((self.x,) if self.dependent is None else
                                   (self.x, self.dependent)) if rename[s] in used]
        pts = {rename[v]: self.points[n] for n, v in self.symbols.items() if rename[v] in used}
        k = self.count
        if not wrt:
            out = np.zeros(k)
        else:
            with np.errstate(all="ignore"):
                v = evaluate(Entry(program, None), pts, tuple(wrt), self.limits)
                out = np.broadcast_to(v.grad.get(rename[self.x], np.zeros(k)), (k,)).copy()
                if self.dependent is not None and rename[self.dependent] in v.grad:
                    out = out + v.grad[rename[self.dependent]] * self.values(self.slope)
        self._cache[key] = out
        return out

    def state_values(self, t: Term, mode: str) -> np.ndarray:
        """A state's value (mode value: each part still to do is a derivative, given its
        value on the tape), or its derivative (mode derivative: each part still to do is
        an integral, entering by its integrand); the state itself is run on the tape."""
        todo_list = list(states.todos(t))
        marks = {id(td): sp.Symbol(f"p{k}", real=True) for k, td in enumerate(todo_list)}
        expr = states.to_sympy(t, lambda td: marks[id(td)])
        wrt = ([] if mode == "value" else [self.x]) + list(marks.values())
        run = self._tape(expr, wrt)
        k = self.count
        if mode == "value":
            out = run.value
            for td in todo_list:
                out = out + run.grad[marks[id(td)]] * self.derivative(td)
            return out
        out = run.grad[self.x]
        for td in todo_list:
            out = out + run.grad[marks[id(td)]] * self.values(integrand_in_x(td, self.x))
        return np.broadcast_to(out, (k,))

    def _tape(self, expr: Any, wrt: list[Any]) -> Any:
        """The expression's value at the points on the tape, and its derivatives by `wrt`
        (the placeholders of parts still to do are 0 there), keyed by symbol."""
        k = self.count
        rename = dict(self._safe)
        for s in wrt:
            rename.setdefault(s, sp.Symbol(s.name, real=True))
        program = parse(proof.text(as_expr(expr).xreplace(rename)), limits=self.limits)
        by_name = {rename[s].name: s for s in wrt}
        pts = {self._safe[v].name: self.points[n] for n, v in self.symbols.items()}
        pts.update({n: np.zeros(k) for n in by_name if n not in pts})
        with np.errstate(all="ignore"):
            v = evaluate(Entry(program, None), pts, tuple(by_name), self.limits)
        value = np.broadcast_to(v.value, (k,))
        grads = {s: np.broadcast_to(v.grad[n], (k,)) for n, s in by_name.items()}
        return _Run(value, grads)

    # ------------------------------------------------------------------ a step

    def holds(self, raw: Raw) -> tuple[bool, bool, int]:
        """(whether the step holds at the points, whether sympy proves it too, the points
        compared)."""
        try:
            pairs = self._pairs(raw)
        except (GradcalcError, ValueError, TypeError, ZeroDivisionError, RecursionError,
                OverflowError):
            return False, False, 0
        k = self.count
        usable = np.ones(k, dtype=bool)
        for a, b in pairs:
            with np.errstate(all="ignore"):
                usable &= np.isfinite(a) & np.isfinite(b)
        used = int(usable.sum())
        if k == 0 or used < max(2, math.ceil(k / 2)):
            return False, False, used
        for a, b in pairs:
            a, b = a[usable], b[usable]
            with np.errstate(all="ignore"):
                if not np.all(np.abs(a - b) <= ATOL + RTOL * np.maximum(np.abs(a),
                                                                          np.abs(b))):
                    return False, False, used
        return True, self._proved(raw), used

    def _pairs(self, raw: Raw) -> list[tuple[np.ndarray, np.ndarray]]:
        before, after = raw.before, raw.after
        if raw.mode in ("value", "derivative"):
            return [(self.state_values(a, raw.mode), self.state_values(b, raw.mode))
                    for a, b in zip(before, after, strict=True)]
        left = [self.state_values(t, "value") for t in before]
        if raw.mode == "residual":  # the same equation: F - G kept, or its negative
            right = [self.state_values(t, "value") for t in after]
            a, b = left[0] - left[1], right[0] - right[1]
            with np.errstate(all="ignore"):
                flipped = np.nansum(np.abs(a + b)) < np.nansum(np.abs(a - b))
            return [(a, -b if flipped else b)]
        # solved: y' = s put into the equation before leaves it true
        solution = states.to_sympy(after[1], _unexpected)
        return [tuple(self.values(states.to_sympy(t, _unexpected).xreplace(
            {self.slope: solution})) for t in before)]  # type: ignore[list-item]

    def symbolic(self, t: Term, mode: str) -> Any:
        """A state as sympy, each derivative still to do taken by sympy (value mode), or
        its derivative (derivative mode)."""
        if mode == "value":
            return states.to_sympy(t, self._derivative_expr)
        marks: dict[int, Any] = {}
        todo_list = list(states.todos(t))
        for k, td in enumerate(todo_list):
            marks[id(td)] = sp.Symbol(f"p{k}")
        expr = states.to_sympy(t, lambda td: marks[id(td)])
        out = sp.diff(expr.xreplace({m: 0 for m in marks.values()}), self.x)
        for td in todo_list:
            out += sp.diff(expr, marks[id(td)]) * integrand_in_x(td, self.x)
        return torch_convention(out)

    def _derivative_expr(self, todo: Todo) -> Any:
        out = sp.diff(todo.value, self.x)
        if self.dependent is not None:
            out += sp.diff(todo.value, self.dependent) * self.slope
        return torch_convention(out)

    def _proved(self, raw: Raw) -> bool:
        if raw.mode not in ("value", "derivative", "residual"):
            return False
        try:
            if _size(raw.before + raw.after) > STEP_OPS:
                return False
            mode = "value" if raw.mode == "residual" else raw.mode
            before = [self.symbolic(t, mode) for t in raw.before]
            after = [self.symbolic(t, mode) for t in raw.after]
            if raw.mode == "residual":
                before, after = [before[0] - before[1]], [after[0] - after[1]]
            if sum(sp.count_ops(e) for e in before + after) > SYMBOLIC_OPS:
                return False
            done = counted.decide(_identity, before, after, raw.mode == "residual",
                                  calls=PROOF_CALLS)
        except Exception:  # noqa: BLE001 - sympy fails in many ways; the numeric check stands
            return False
        return not done.over and bool(done.result)


def _size(state: tuple[Term, ...]) -> int:
    """sympy's count_ops of a state's terms, each part still to do written out."""
    return sum(int(sp.count_ops(states.to_sympy(t, lambda td: td.value))) for t in state)


def _identity(before: list[Any], after: list[Any], residual: bool) -> bool:
    """Whether sympy shows each side before equal to the one after (an equation's
    residual: equal or opposite)."""
    if residual:
        return _zero(before[0] - after[0]) or _zero(before[0] + after[0])
    return all(_zero(a - b) for a, b in zip(before, after, strict=True))


def _unexpected(todo: Todo) -> Any:
    raise ValueError("a part still to do in an equation being solved")


def _zero(d: Any) -> bool:
    if d == 0 or sp.expand(d) == 0:
        return True
    return bool(d.has(sp.Pow) and sp.cancel(d) == 0)


def integrand_in_x(todo: Todo, x: Any) -> Any:
    """d/dx of ∫ g(u) du where u stands for `todo.to_x` (x itself when None)."""
    if todo.to_x is None:
        return todo.value
    return todo.value.xreplace({todo.by: todo.to_x}) * sp.diff(todo.to_x, x)


# --------------------------------------------------------------------------- chains


def chain(raws: list[Raw], checker: Checker) -> tuple[list[Step], bool]:
    """The steps that verify, each failing step merged with the next ones until the
    merged step holds; and whether the chain reached its end (False: the rest of it
    could not be verified, and is not shown)."""
    out: list[Step] = []
    i = 0
    while i < len(raws):
        for j in range(i, len(raws)):
            merged = raws[i] if j == i else _merged(raws[i:j + 1])
            ok, proved, used = checker.holds(merged)
            if ok:
                out.append(_step(merged, proved, used, raws[i:j + 1] if j > i else []))
                i = j + 1
                break
        else:
            return out, False
    return out, True


def _merged(raws: list[Raw]) -> Raw:
    before, after = shown(raws[0].before), shown(raws[-1].after)
    return Raw("combined", raws[0].at, f"{before[0]} = {after[0]}",
               f"{before[1]} = {after[1]}", raws[0].before, raws[-1].after,
               raws[0].mode, "; ".join(r.note for r in raws if r.note),
               covers=tuple(c for r in raws for c in r.covers))


def _step(raw: Raw, proved: bool, points: int, parts: list[Raw]) -> Step:
    before, after = shown(raw.before), shown(raw.after)
    return Step(raw.rule, raw.at, raw.text, raw.latex, before[0], after[0], after[1],
                raw.note, raw.also, check="symbolic" if proved else "numeric",
                points=points, merged=tuple(r.rule for r in parts), covers=raw.covers)

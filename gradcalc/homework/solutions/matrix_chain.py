"""Backprop homework worked out: the backward pass as matrix calculus, one step per
intermediate, each with its gradient ∂L/∂(intermediate) and its shape.

The steps are the walk that derives the formula (`homework.backprop.walk.Walk`: the loss
backwards from its result, each sub-expression given its adjoint), recorded as it goes:
∂L/∂Ŷ, then through `@` (G @ B.T, A.T @ G, outer(g, x)), the transpose, the sum over the
batch, relu's mask, softmax, a named step's uses collected. Each step is checked at the
drawn inputs against the tape's own gradient with respect to that very sub-expression
(the loss run again with a zero added there, and differentiated by it). A step that does
not hold is not shown; the last step, ∂L/∂W, is the formula `check` gives.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any

import numpy as np

from gradcalc.backends.numeric import as_function, run_numeric
from gradcalc.engine import ops
from gradcalc.engine.functional import grad
from gradcalc.errors import GradcalcError
from gradcalc.homework.backprop.formulas import program_of
from gradcalc.homework.backprop.terms import Unsupported
from gradcalc.homework.backprop.terms import text as typed
from gradcalc.homework.backprop.walk import Walk
from gradcalc.homework.feedback.recognise import same
from gradcalc.homework.solutions.worked import Part, Solution, Step
from gradcalc.language.program import (
    RESULT_NAME,
    Assign,
    Binary,
    Call,
    Index,
    Name,
    Num,
    Program,
    Unary,
)

#: draws each intermediate step is checked at (the last step at every draw)
STEP_DRAWS = 4
#: a name for the zero added at a sub-expression to differentiate by it
PROBE = "probe_at_step"


class Recording(Walk):
    """The walk, with every (parent, sub-expression, adjoint) it passes kept in order."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.trail: list[tuple[Any, Any, Any]] = []
        self._stack: list[Any] = []

    def back(self, e: Any, g: Any) -> None:
        if isinstance(e, Num) or not self.depends(e):
            return
        self.trail.append((self._stack[-1] if self._stack else None, e, g))
        self._stack.append(e)
        try:
            super().back(e, g)
        finally:
            self._stack.pop()


def _rule(parent: Any) -> str:
    """The rule a gradient passes by, from the operation it passes back through."""
    if isinstance(parent, Binary):
        return {"@": "backprop-matmul", "+": "backprop-broadcast",
                "-": "backprop-broadcast"}.get(parent.op, "backprop-elementwise")
    if isinstance(parent, Index):
        return "backprop-index"
    if isinstance(parent, Unary):
        return "backprop-elementwise"
    if isinstance(parent, Call):
        if parent.func in ("softmax", "log_softmax") or (
                parent.func == "log" and isinstance(parent.args[0], Call)
                and parent.args[0].func == "softmax"):
            return "backprop-softmax"
        return {"sum": "backprop-sum", "mean": "backprop-mean", "relu": "backprop-relu",
                "where": "backprop-where", "transpose": "backprop-transpose",
                "outer": "backprop-matmul"}.get(parent.func, "backprop-elementwise")
    return "backprop-use"


def _dims(shape: tuple[int, ...]) -> str:
    return "×".join(str(d) for d in shape) if shape else "scalar"


def text(e: Any) -> str:
    """An expression as the steps print it: as the misconception search prints it
    (`covers` keep that text), with `^` for powers, as the student types them."""
    return typed(e).replace("**", "^")


def _of(e: Any) -> str:
    shown = text(e)
    return shown if isinstance(e, Name) else f"({shown})"


def _tex(shown: str) -> str:
    escaped = "".join({"_": r"\_", "^": r"\^", "{": r"\{", "}": r"\}", "%": r"\%",
                       "#": r"\#", "&": r"\&", "$": r"\$"}.get(c, c) for c in shown)
    return rf"\mathtt{{{escaped}}}"


def _replaced(node: Any, target: Any, new: Any) -> Any:
    """The IR `node` with the one sub-expression `target` (by identity) replaced."""
    if node is target:
        return new
    if isinstance(node, tuple):
        return tuple(_replaced(n, target, new) for n in node)
    if not is_dataclass(node):
        return node
    changed = {f.name: _replaced(getattr(node, f.name), target, new) for f in fields(node)}
    if all(changed[f.name] is getattr(node, f.name) for f in fields(node)):
        return node
    return type(node)(**changed)


class LossAtDraws:
    """The loss at the draws: its gradient by any sub-expression, a formula's values."""

    def __init__(self, program: Program, names: list[str], draws: list[dict[str, Any]],
                 limits: Any) -> None:
        self.program, self.names, self.draws, self.limits = program, names, draws, limits

    def gradient_at(self, e: Any, shape: tuple[int, ...], values: dict[str, Any]) -> Any:
        """∂L/∂e at the draw: the input's gradient for a name of the loss's inputs given
        as a string, else the loss's gradient by a zero added at e."""
        if isinstance(e, str):
            rest = {n: v for n, v in values.items() if n != e}
            f, _ = as_function(self.program, [e], rest, of=RESULT_NAME, limits=self.limits)
            with np.errstate(all="ignore"):
                return np.asarray(grad(f, values[e]), dtype=np.float64)
        probe = Binary("+", e, Name(PROBE, e.pos), e.pos)
        body = _replaced(self.program.body, e, probe)
        program = Program(body, self.program.source, self.program.inputs)
        f, _ = as_function(program, [PROBE], dict(values), of=RESULT_NAME, limits=self.limits)
        with np.errstate(all="ignore"):
            return np.asarray(grad(f, np.zeros(shape)), dtype=np.float64)

    def value_of(self, formula: Any, values: dict[str, Any]) -> np.ndarray:
        with np.errstate(all="ignore"):
            out = run_numeric(program_of(formula, self.program), dict(values), of=RESULT_NAME,
                              limits=self.limits)
            return np.asarray(ops.value(out), dtype=np.float64)

    def holds(self, e: Any, formula: Any, shape: tuple[int, ...], count: int) -> bool:
        """Whether ∂L/∂e is `formula` at the first `count` draws."""
        for values in self.draws[:count]:
            try:
                truth = self.gradient_at(e, shape, values)
                got = np.broadcast_to(self.value_of(formula, values), truth.shape)
            except (GradcalcError, ValueError, TypeError):
                return False
            if not (np.all(np.isfinite(truth)) and same(got, truth)):
                return False
        return bool(self.draws[:count])


def solution(function: str, program: Program, w: str, shapes: dict[str, tuple[int, ...]],
             draws: list[dict[str, Any]], loss: str, limits: Any) -> Solution:
    """The worked solution of ∂loss/∂w."""
    said = ", ".join(f"{n}: {_dims(s)}" for n, s in shapes.items())
    read = "; ".join(f"{s.target} = {text(s.value)}" for s in program.body
                     if isinstance(s, Assign)) or text(program.body[-1].value)
    out = Solution("tensor", f"{function} ({said})", _tex(read))
    tape = LossAtDraws(program, list(shapes), draws, limits)
    walk, formula = None, None
    for normalized in (True, False):
        try:
            walk = Recording(program, w, dict(shapes), normalized=normalized)
            formula = walk.run()
        except (Unsupported, ValueError, RecursionError):
            formula = None
        if formula is not None and tape.holds(w, formula, shapes[w], len(draws)):
            break
        if walk is not None and not walk.assumed:
            formula = None
            break
        formula = None
    if formula is None or walk is None:
        out.note = ("no worked steps: the loss uses something the matrix-calculus rules do "
                    "not cover")
        return out
    steps, dropped = _steps(walk, tape, loss, program)
    final = Step("backprop-input", w, f"∂{loss}/∂{w} = {text(formula)}",
                 rf"\frac{{\partial {loss}}}{{\partial {w}}} = {_tex(text(formula))}",
                 text(formula), text(formula), _tex(text(formula)),
                 note=f"{w}'s shape, the sum of every use of {w}", shape=_dims(shapes[w]),
                 points=len(draws), covers=(w,))
    once = steps and steps[-1].after == text(formula) and \
        steps[-1].text.startswith(f"∂{loss}/∂{w} ")  # w used once: that step is the last
    out.parts = [Part(f"∂{loss}/∂{w}", rf"\frac{{\partial {loss}}}{{\partial {w}}}",
                      f"∂{loss}/∂{loss} = 1", rf"\frac{{\partial {loss}}}{{\partial {loss}}}"
                      " = 1", text(formula), _tex(text(formula)),
                      tuple(steps) if once else (*steps, final))]
    out.answer = f"∂{loss}/∂{w} = {text(formula)}"
    out.answer_latex = rf"\frac{{\partial {loss}}}{{\partial {w}}} = {_tex(text(formula))}"
    out.points, out.merged = len(draws), dropped
    out.how = (f"every step against the tape's gradient at {min(STEP_DRAWS, len(draws))} "
               f"draws of the inputs (∂{loss}/∂{w} at {len(draws)})")
    return out


def _steps(walk: Recording, tape: LossAtDraws, loss: str,
           program: Program) -> tuple[list[Step], int]:
    """Each intermediate's gradient that verifies (and how many did not)."""
    statements = {id(s.value): s.target for s in program.body if isinstance(s, Assign)}
    last = program.body[-1].value
    out: list[Step] = []
    dropped = 0
    count = min(STEP_DRAWS, len(tape.draws))
    for parent, e, g in walk.trail:
        if parent is None and e is last:
            continue  # the loss itself: ∂L/∂L = 1
        try:
            shape = walk.shape(e)
        except Unsupported:
            dropped += 1
            continue
        if not tape.holds(e, g, shape, count):
            dropped += 1
            continue
        named = statements.get(id(e)) if parent is None else None
        if named == loss:
            continue  # the loss's own statement: ∂L/∂L = 1
        of = named if named is not None else _of(e)
        rule = "backprop-use" if named is not None else _rule(parent)
        at = f"{named} = {text(e)}" if named is not None else text(e)
        shown = text(g)
        note = f"through {text(parent)}" if parent is not None else \
            f"every use of {named} collected"
        if isinstance(g, Num) and shape:
            note += f"; {text(g)} for every entry"
        covers = ((typed(parent),) if parent is not None else ()) + (typed(e),)
        out.append(Step(rule, at, f"∂{loss}/∂{of} = {shown}",
                        rf"\frac{{\partial {loss}}}{{\partial {_tex(of)}}} = {_tex(shown)}",
                        "", shown, _tex(shown), note=note, shape=_dims(shape),
                        points=count, covers=covers))
    return out, dropped


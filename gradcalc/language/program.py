"""The interpreter that runs gradcalc's own program objects (ir.py, re-exported here).

The interpreter is define-by-run: it walks the statements with real values, so control
flow follows the values, and every arithmetic step goes through a *backend*: the tape
(numeric, recorded for differentiation) or sympy (symbolic, for the check). Every value-
dependent decision of the numeric run (a condition, a comparison, a loop range, an index)
is recorded, and the symbolic run replays them, so both follow the same path.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from gradcalc.engine.tape import Span, state
from gradcalc.errors import EvalError, LimitError
from gradcalc.language.ir import (  # noqa: F401 - the IR, re-exported where it was
    EULER,
    RESULT_NAME,
    Assign,
    Binary,
    BoolOp,
    Call,
    Compare,
    Expr,
    ExprStmt,
    For,
    If,
    Index,
    ListLit,
    Name,
    Not,
    Num,
    Pos,
    Program,
    Slice,
    Stmt,
    Unary,
    While,
    _last_assigned,
)
from gradcalc.language.names import applied, split_name
from gradcalc.language.unparse import unparse
from gradcalc.limits import DEFAULT_LIMITS

# --------------------------------------------------------------------------- the interpreter


class Backend(Protocol):
    """What the interpreter needs from a value domain (tape tensors or sympy arrays)."""

    def number(self, value: float) -> Any: ...
    def call(self, func: str, args: list[Any], pos: Pos) -> Any: ...
    def binary(self, op: str, left: Any, right: Any, pos: Pos) -> Any: ...
    def negate(self, value: Any, pos: Pos) -> Any: ...
    def stack(self, items: list[Any], pos: Pos) -> Any: ...
    def index(self, target: Any, key: tuple, pos: Pos) -> Any: ...
    def compare(self, op: str, left: Any, right: Any, pos: Pos) -> Any: ...
    def truth(self, value: Any, pos: Pos) -> bool: ...
    def integer(self, value: Any, pos: Pos) -> int: ...


@dataclass
class Decisions:
    """Value-dependent choices of the numeric run, replayed by the symbolic run.

    Only outermost decisions are recorded (a condition, not the comparisons inside it),
    so a replay reads them in the order it meets them and never evaluates what they hid.
    """

    record: list[Any] = field(default_factory=list)
    replaying: bool = False
    cursor: int = 0
    depth: int = 0

    def decide(self, compute: Callable[[], Any]) -> Any:
        if self.replaying:
            if self.cursor >= len(self.record):
                raise EvalError("the replayed run took a different path than the recorded one")
            value = self.record[self.cursor]
            self.cursor += 1
            return value
        self.depth += 1
        try:
            value = compute()
        finally:
            self.depth -= 1
        if self.depth == 0:
            self.record.append(value)
        return value

    def replay(self) -> Decisions:
        return Decisions(record=self.record, replaying=True)


class _Where(Span):
    """A Span whose text is written out only when it is read (an error or an explanation
    reads it; a run that succeeds rarely does, and a class runs thousands)."""

    def __init__(self, e: Expr) -> None:
        object.__setattr__(self, "line", e.pos.line)
        object.__setattr__(self, "col", e.pos.col)
        object.__setattr__(self, "_expr", e)

    @property  # type: ignore[override]
    def text(self) -> str:
        return unparse(self._expr)

    def __repr__(self) -> str:
        return f"Span(line={self.line!r}, col={self.col!r}, text={self.text!r})"


class Interpreter:
    """Runs a Program on a backend; `env` maps names to values and receives assignments."""

    def __init__(
        self,
        backend: Backend,
        env: dict[str, Any],
        decisions: Decisions | None = None,
        max_iterations: int = DEFAULT_LIMITS.max_iterations,
    ) -> None:
        self.backend = backend
        self.env = env
        self.decisions = decisions if decisions is not None else Decisions()
        self.iterations_left = max_iterations
        self.max_iterations = max_iterations
        #: id(expression) -> its Span, stamped on the nodes its operation records
        self.spans: dict[int, Span] = {}
        #: id(number literal) -> its value in the backend (made once: loops reuse it)
        self.numbers: dict[int, Any] = {}
        #: the backend takes `spares`: which operands are values this interpreter made
        #: and nothing else reads (a sub-expression's value no name holds)
        self.tells_spares = getattr(backend, "writes_over_temporaries", False)
        #: id(expression) -> the positions of its operands that are temporaries
        self.spares: dict[int, tuple[int, ...]] = {}

    # statements -----------------------------------------------------------------------
    def run(self, program: Program) -> dict[str, Any]:
        """Run the program; the tape nodes it makes carry the span of their expression
        (`node.span`: line, column and text; gradcalc.engine.tape)."""
        previous = state.span
        try:
            self.exec_block(program.body)
        finally:
            state.span = previous
        return self.env

    def span_of(self, e: Expr) -> Span:
        """The span of an expression (made once per expression: loops reuse it)."""
        span = self.spans[id(e)] = _Where(e)
        return span

    def exec_block(self, body: tuple[Stmt, ...]) -> None:
        for stmt in body:
            self.exec_stmt(stmt)

    def exec_stmt(self, stmt: Stmt) -> None:
        if isinstance(stmt, Assign):
            self.env[stmt.target] = self.evaluate(stmt.value)
        elif isinstance(stmt, ExprStmt):
            self.env[RESULT_NAME] = self.evaluate(stmt.value)
        elif isinstance(stmt, If):
            branch = stmt.body if self.condition(stmt.test) else stmt.orelse
            self.exec_block(branch)
        elif isinstance(stmt, While):
            while self.condition(stmt.test):
                self.tick(stmt.pos)
                self.exec_block(stmt.body)
        elif isinstance(stmt, For):
            start, stop, step = self.decisions.decide(lambda: self.range_of(stmt))
            for i in range(start, stop, step):
                self.tick(stmt.pos)
                self.env[stmt.var] = self.backend.number(float(i))
                self.exec_block(stmt.body)
        else:  # pragma: no cover - the parser only builds the kinds above
            raise EvalError(f"unknown statement {type(stmt).__name__}")

    def tick(self, pos: Pos) -> None:
        self.iterations_left -= 1
        if self.iterations_left < 0:
            raise LimitError(
                f"loop at {pos} exceeded {self.max_iterations:,} iterations in all "
                "(raise with --max-iterations)"
            )

    def range_of(self, stmt: For) -> tuple[int, int, int]:
        bounds = [self.backend.integer(self.evaluate(e), e.pos) for e in (stmt.start, stmt.stop)]
        step = self.backend.integer(self.evaluate(stmt.step), stmt.step.pos)
        if step == 0:
            raise EvalError(f"range() step is zero at {stmt.pos}")
        return bounds[0], bounds[1], step

    def condition(self, test: Expr) -> bool:
        return self.decisions.decide(lambda: self.truth_of(test))

    def truth_of(self, test: Expr) -> bool:
        """Evaluate a condition numerically (short-circuiting and/or/not)."""
        if isinstance(test, BoolOp):
            if test.op == "and":
                return all(self.truth_of(v) for v in test.values)
            return any(self.truth_of(v) for v in test.values)
        if isinstance(test, Not):
            return not self.truth_of(test.operand)
        return self.backend.truth(self.evaluate(test), test.pos)

    # expressions ----------------------------------------------------------------------
    def evaluate(self, e: Expr) -> Any:
        """The value of `e`: the common kinds first, told apart by their exact type (the
        IR's classes are final), since a scalar program evaluates millions of them."""
        kind = type(e)
        if kind is Name:
            try:
                return self.env[e.id]
            except KeyError:
                return self.euler_or_unknown(e)
        if kind is Binary:
            left, right = e.left, e.right  # a name or a number read here, without a call
            left = self.env.get(left.id, left) if type(left) is Name else \
                self.numbers.get(id(left), left) if type(left) is Num else left
            right = self.env.get(right.id, right) if type(right) is Name else \
                self.numbers.get(id(right), right) if type(right) is Num else right
            if type(left) in _EXPRESSIONS:
                left = self.evaluate(left)
            if type(right) in _EXPRESSIONS:
                right = self.evaluate(right)
            state.span = self.spans.get(id(e)) or self.span_of(e)
            if self.tells_spares:
                spares = self.spares.get(id(e))
                if spares is None:
                    spares = self.spares_of(e, (e.left, e.right))
                if spares:
                    return self.backend.binary(e.op, left, right, e.pos, spares)
            return self.backend.binary(e.op, left, right, e.pos)
        if kind is Num:
            try:
                return self.numbers[id(e)]
            except KeyError:
                made = self.numbers[id(e)] = self.backend.number(e.value)
                return made
        if kind is Call:
            args = [self.evaluate(a) for a in e.args]
            state.span = self.spans.get(id(e)) or self.span_of(e)
            if self.tells_spares:
                spares = self.spares.get(id(e))
                if spares is None:
                    spares = self.spares_of(e, e.args)
                if spares:
                    return self.backend.call(e.func, args, e.pos, spares)
            return self.backend.call(e.func, args, e.pos)
        return self.evaluate_other(e)

    def spares_of(self, e: Expr, operands: tuple[Expr, ...]) -> tuple[int, ...]:
        """The positions of `e`'s operands that are temporaries (`_spares`), found once."""
        found = self.spares[id(e)] = _spares(operands)
        return found

    def evaluate_other(self, e: Expr) -> Any:
        """The value of the less common kinds of expression."""
        b = self.backend
        if isinstance(e, Unary):
            value = self.evaluate(e.operand)
            if e.op != "-":
                return value
            state.span = self.spans.get(id(e)) or self.span_of(e)
            if self.tells_spares and _spares((e.operand,)):
                return b.negate(value, e.pos, (0,))
            return b.negate(value, e.pos)
        if isinstance(e, ListLit):
            items = [self.evaluate(item) for item in e.items]
            state.span = self.spans.get(id(e)) or self.span_of(e)
            return b.stack(items, e.pos)
        if isinstance(e, Index):
            target = self.evaluate(e.target)
            key = self.decisions.decide(lambda: self.index_key(e))
            state.span = self.spans.get(id(e)) or self.span_of(e)
            return b.index(target, key, e.pos)
        if isinstance(e, Compare):
            return self.decisions.decide(lambda: self.compare(e))
        if isinstance(e, (BoolOp, Not)):
            raise EvalError(f"'{_bool_word(e)}' is only allowed in if/while conditions ({e.pos})")
        raise EvalError(f"unknown expression {type(e).__name__}")  # pragma: no cover

    def euler_or_unknown(self, e: Name) -> Any:
        """A name with no value: `e` is Euler's number (a homework habit), else an error."""
        if e.id == EULER:
            return self.backend.number(math.e)
        raise EvalError(self.unknown_name(e)) from None

    def compare(self, e: Compare) -> Any:
        values = [self.evaluate(x) for x in e.operands]
        result = None
        for op, left, right in zip(e.ops, values, values[1:]):
            r = self.backend.compare(op, left, right, e.pos)
            result = r if result is None else (result & r)
        return result

    def index_key(self, e: Index) -> tuple:
        key: list[Any] = []
        for item in e.items:
            if isinstance(item, Slice):
                parts = [
                    None if p is None else self.backend.integer(self.evaluate(p), p.pos)
                    for p in (item.start, item.stop, item.step)
                ]
                key.append(slice(*parts))
            else:
                key.append(self.backend.integer(self.evaluate(item), item.pos))
        return tuple(key)

    def unknown_name(self, e: Name) -> str:
        known = sorted(k for k in self.env if not k.startswith("_"))
        listing = ", ".join(known) if known else "none"
        parts = split_name(e.id, known)
        hint = f"; did you mean {'*'.join(parts)}?" if parts else ""
        call = applied(e.id)
        if call and call[1] in known:  # `sint` with t given: sin(t)
            hint = f"; did you mean {call[0]}({call[1]})?"
        return (
            f"name '{e.id}' at {e.pos} has no value{hint}; give it one with --at "
            f"(names with values: {listing})"
        )


#: the expression classes: a value of one of these types is still to be evaluated
_EXPRESSIONS = frozenset({Num, Name, Unary, Binary, Call, ListLit, Index, Compare, BoolOp, Not})


def _spares(operands: tuple[Expr, ...]) -> tuple[int, ...]:
    """The positions of the operands whose values an operation made and no name holds
    (an operator's, a call's or a negation's result): the interpreter's temporaries."""
    return tuple(i for i, o in enumerate(operands) if type(o) is Binary or type(o) is Call
                 or type(o) is Unary and o.op == "-")


def _bool_word(e: Expr) -> str:
    return e.op if isinstance(e, BoolOp) else "not"

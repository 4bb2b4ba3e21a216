"""Which value a job differentiates, read from the program's text before it runs.

The default output is the last assigned name that depends on an input, so a loop counter
or a constant assigned after the result is not mistaken for it (and the choice is said
when it skips a later name). An output that depends on no input, an input the program
overwrites before reading it, and a comparison as the output are found here, each with a
message that says what to do.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from gradcalc.errors import EvalError, GradcalcError
from gradcalc.language.ir import walk
from gradcalc.language.program import (
    RESULT_NAME,
    Assign,
    BoolOp,
    Compare,
    Expr,
    ExprStmt,
    For,
    If,
    Name,
    Not,
    Program,
    Stmt,
    While,
)


@dataclass(frozen=True)
class Output:
    """The chosen output, and what to tell the user about the choice."""

    name: str
    note: str | None = None  # the choice skipped later assigned names
    warning: str | None = None  # the output depends on no input


def _reads(node: Expr | Stmt | None) -> set[str]:
    if node is None:
        return set()
    return {n.id for n in walk(node) if isinstance(n, Name)}


def dependents(program: Program, inputs: Iterable[str]) -> set[str]:
    """Names whose value may depend on an input (through the values they are computed
    from, not through control flow): everything reachable from the inputs along
    "is read by the assignment to", in one pass over the program."""
    readers: dict[str, set[str]] = {}
    for node in walk(program):
        if isinstance(node, (Assign, ExprStmt)):
            target = RESULT_NAME if isinstance(node, ExprStmt) else node.target
            for name in _reads(node.value):
                readers.setdefault(name, set()).add(target)
    found = set(inputs)
    pending = list(found)
    while pending:
        for target in readers.get(pending.pop(), ()):
            if target not in found:
                found.add(target)
                pending.append(target)
    return found


def _candidates(body: tuple[Stmt, ...]) -> Iterator[str]:
    """Assigned names from the last statement backwards (an if's own branch first, as
    the output has always been chosen); a bare expression counts as RESULT_NAME."""
    for stmt in reversed(body):
        if isinstance(stmt, Assign):
            yield stmt.target
        elif isinstance(stmt, ExprStmt):
            yield RESULT_NAME
        elif isinstance(stmt, If):
            yield from _candidates(stmt.body)
            yield from _candidates(stmt.orelse)
        elif isinstance(stmt, (While, For)):
            yield from _candidates(stmt.body)


def choose(program: Program, inputs: list[str], of: str | None = None) -> Output:
    """The output to differentiate: `of` if given, else the last assigned name that
    depends on an input (else the last assigned name, with a warning)."""
    depends = dependents(program, inputs)
    listing = ", ".join(inputs)
    if of is not None:
        _check_assigned(program, of, inputs)
        _check_not_comparison(program, of)
        if of in depends:
            return Output(of)
        return Output(of, warning=f"the output {of!r} does not depend on the inputs "
                                  f"({listing}), so its derivative is 0")
    last = program.default_output()
    order = list(dict.fromkeys(_candidates(program.body)))
    chosen = next((n for n in order if n in depends), None)
    if chosen is None:
        _check_not_comparison(program, last)
        others = ", ".join(program.assigned())
        return Output(last, warning=f"the output {last!r} does not depend on the inputs "
                                    f"({listing}), so its derivative is 0; pick another "
                                    f"output with --of NAME (assigned: {others})")
    _check_not_comparison(program, chosen)
    skipped = order[:order.index(chosen)]
    if not skipped:
        return Output(chosen)
    names = ", ".join(skipped)
    verb, pick = ("does", f"--of {skipped[0]} picks it") if len(skipped) == 1 else \
        ("do", "--of NAME picks another")
    return Output(chosen, note=f"the output is {chosen}, the last assigned name that depends "
                               f"on the inputs ({names}, assigned after it, {verb} not; "
                               f"{pick})")


def _check_assigned(program: Program, of: str, inputs: list[str]) -> None:
    assigned = program.assigned()
    ends_in_expression = bool(program.body) and isinstance(program.body[-1], ExprStmt)
    if of in assigned or of in inputs or (of == RESULT_NAME and ends_in_expression):
        return
    if of in _loop_variables(program):
        return
    listing = ", ".join(assigned) or "none"
    raise EvalError(f"--of {of!r}: the program never assigns it (assigned: {listing})")


def _loop_variables(program: Program) -> set[str]:
    return {n.var for n in walk(program) if isinstance(n, For)}


def _check_not_comparison(program: Program, of: str) -> None:
    """A comparison is true or false: it has no derivative, so it cannot be the output."""
    for node in walk(program):
        target = RESULT_NAME if isinstance(node, ExprStmt) else getattr(node, "target", None)
        if target == of and isinstance(node.value, (Compare, BoolOp, Not)):
            where = node.value.pos
            raise GradcalcError(
                f"the output {of!r} is a comparison (at {where}): it is true or false and has "
                "no derivative; use comparisons in if/while conditions or in where(), and "
                "differentiate a number", kind="input")


def check_given(program: Program, given: Iterable[str], option: str = "--at") -> None:
    """A name given a value that the program assigns before ever reading it: the value
    would be unused (and its derivative meaningless), so it is an input error. (Left to the
    run when that assignment reads a name with no value: its message is the better one.)"""
    given = set(given)
    known = given | set(program.assigned()) | _loop_variables(program)
    read: set[str] = set()
    for stmt in program.body:
        if isinstance(stmt, Assign):
            reads = _reads(stmt.value)
            read |= reads
            if stmt.target in given and stmt.target not in read and reads <= known:
                raise GradcalcError(
                    f"{stmt.target} is given a value with {option}, but the program assigns "
                    f"{stmt.target} (at {stmt.pos}) before reading it, so that value would "
                    f"never be used: leave {stmt.target} out of {option}", kind="input")
            read.add(stmt.target)
        else:
            read |= _reads(stmt)
            read |= {n.target for n in walk(stmt) if isinstance(n, Assign)}

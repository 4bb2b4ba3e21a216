"""gradcalc's own program objects, the parser's output: positions, expressions,
statements and `Program`. Plain data with no behaviour beyond walking itself (`walk`, the
one walk over a program's nodes, and `children`), below every other module of the
language: the parser builds it, the interpreter (program.py) runs it, unparse.py prints
it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from gradcalc.errors import EvalError


@dataclass(frozen=True)
class Pos:
    """1-based line and column of a construct in the program text."""

    line: int
    col: int

    def __str__(self) -> str:
        return f"line {self.line}, column {self.col}"


@dataclass(frozen=True)
class Num:
    value: float
    pos: Pos


@dataclass(frozen=True)
class Name:
    id: str
    pos: Pos


@dataclass(frozen=True)
class Unary:
    op: str  # '-' or '+'
    operand: Expr
    pos: Pos


@dataclass(frozen=True)
class Binary:
    op: str  # '+', '-', '*', '/', '**', '@'
    left: Expr
    right: Expr
    pos: Pos


@dataclass(frozen=True)
class Call:
    func: str  # a name from the function table
    args: tuple[Expr, ...]
    pos: Pos


@dataclass(frozen=True)
class ListLit:
    items: tuple[Expr, ...]
    pos: Pos


@dataclass(frozen=True)
class Slice:
    start: Expr | None
    stop: Expr | None
    step: Expr | None
    pos: Pos


@dataclass(frozen=True)
class Index:
    target: Expr
    items: tuple[Expr | Slice, ...]
    pos: Pos


@dataclass(frozen=True)
class Compare:
    ops: tuple[str, ...]  # '<', '<=', '>', '>=', '==', '!='
    operands: tuple[Expr, ...]
    pos: Pos


@dataclass(frozen=True)
class BoolOp:
    op: str  # 'and' or 'or'
    values: tuple[Expr, ...]
    pos: Pos


@dataclass(frozen=True)
class Not:
    operand: Expr
    pos: Pos


Expr = Num | Name | Unary | Binary | Call | ListLit | Index | Compare | BoolOp | Not


@dataclass(frozen=True)
class Assign:
    target: str
    value: Expr
    pos: Pos


@dataclass(frozen=True)
class ExprStmt:
    value: Expr
    pos: Pos


@dataclass(frozen=True)
class If:
    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]
    pos: Pos


@dataclass(frozen=True)
class While:
    test: Expr
    body: tuple[Stmt, ...]
    pos: Pos


@dataclass(frozen=True)
class For:
    var: str
    start: Expr
    stop: Expr
    step: Expr
    body: tuple[Stmt, ...]
    pos: Pos


Stmt = Assign | ExprStmt | If | While | For

#: the name a bare final expression's value is given
RESULT_NAME = "result"
#: a name that is Euler's number unless it is given a value (`e^x`)
EULER = "e"


@dataclass(frozen=True)
class Program:
    body: tuple[Stmt, ...]
    source: str = ""
    #: inputs declared by a definition `f(x, y) = ...`, in order (empty if none)
    inputs: tuple[str, ...] = ()

    def names_used(self) -> set[str]:
        """Every name read anywhere in the program (candidates for inputs)."""
        return {n.id for n in walk(self) if isinstance(n, Name)}

    def assigned(self) -> list[str]:
        """Assigned names in order of first appearance (loop variables excluded)."""
        out: list[str] = []
        for n in walk(self):
            if isinstance(n, Assign) and n.target not in out:
                out.append(n.target)
        return out

    def default_output(self) -> str:
        """The last assigned name, or RESULT_NAME when the program ends in an expression."""
        last = self.body[-1] if self.body else None
        if isinstance(last, ExprStmt):
            return RESULT_NAME
        assigned = _last_assigned(self.body)
        if assigned is None:
            raise EvalError("the program assigns nothing and has no final expression")
        return assigned


def _last_assigned(body: tuple[Stmt, ...]) -> str | None:
    for stmt in reversed(body):
        if isinstance(stmt, Assign):
            return stmt.target
        if isinstance(stmt, (If, While, For)):
            inner = _last_assigned(stmt.body)
            if isinstance(stmt, If):
                inner = inner or _last_assigned(stmt.orelse)
            if inner:
                return inner
    return None


Node = Expr | Stmt | Slice

#: the fields of each node that hold nodes, in the order they are written
_PARTS: dict[type, tuple[str, ...]] = {
    Num: (), Name: (), Unary: ("operand",), Binary: ("left", "right"), Call: ("args",),
    ListLit: ("items",), Slice: ("start", "stop", "step"), Index: ("target", "items"),
    Compare: ("operands",), BoolOp: ("values",), Not: ("operand",), Assign: ("value",),
    ExprStmt: ("value",), If: ("test", "body", "orelse"), While: ("test", "body"),
    For: ("start", "stop", "step", "body"),
}


def children(node: Node) -> list[Node]:
    """A node's own sub-nodes (expressions, statements, slices) in the order written."""
    out: list[Node] = []
    for part in _PARTS[type(node)]:
        value = getattr(node, part)
        if isinstance(value, tuple):
            out.extend(value)
        elif value is not None:
            out.append(value)
    return out


def walk(*roots: Node | Program) -> Iterator[Node]:
    """Every node at and below the roots (a program: its statements), each before its
    parts and left to right; iterative, so a long program needs no deep recursion."""
    stack: list[Node] = []
    for root in reversed(roots):
        stack.extend(reversed(root.body) if isinstance(root, Program) else [root])
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))

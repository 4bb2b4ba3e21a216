"""Program expressions back to text: the source text `--explain` and `--graph` show for
each step (normalised: one space around binary operators, parentheses only where needed)."""

from __future__ import annotations

from typing import Any

from gradcalc.language.ir import (
    Binary,
    BoolOp,
    Call,
    Compare,
    Index,
    ListLit,
    Name,
    Not,
    Num,
    Slice,
    Unary,
)

_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "@": 2, "**": 4}
#: the functions whose third argument is keepdims (the table's; a test keeps them equal)
KEEPDIMS = ("sum", "mean")
_UNARY = 3


def _prec(e: Any) -> int:
    if isinstance(e, Binary):
        return _PRECEDENCE[e.op]
    if isinstance(e, Unary):
        return _UNARY
    if isinstance(e, (Compare, BoolOp, Not)):
        return 0
    return 9


def _number(v: float) -> str:
    return str(int(v)) if v == int(v) and abs(v) < 1e16 else repr(v)


def unparse(e: Any) -> str:
    """The text of an expression (recursive: expressions are bounded by the parser)."""
    if isinstance(e, Num):
        return _number(e.value)
    if isinstance(e, Name):
        return e.id
    if isinstance(e, Binary):
        p = _PRECEDENCE[e.op]
        right_assoc = e.op == "**"
        left = _wrap(e.left, p + (1 if right_assoc else 0))
        right = _wrap(e.right, p + (0 if right_assoc else 1))
        return f"{left}**{right}" if e.op == "**" else f"{left} {e.op} {right}"
    if isinstance(e, Unary):
        return f"{e.op}{_wrap(e.operand, _UNARY)}"
    if isinstance(e, Call):
        args = [unparse(a) for a in e.args]
        if len(args) == 3 and e.func in KEEPDIMS:  # sum(x, axis, 1): as written
            args[2] = "keepdims=True"
        return f"{e.func}({', '.join(args)})"
    if isinstance(e, ListLit):
        return "[" + ", ".join(unparse(i) for i in e.items) + "]"
    if isinstance(e, Index):
        return f"{_wrap(e.target, 9)}[{', '.join(_item(i) for i in e.items)}]"
    if isinstance(e, Compare):
        parts = [unparse(e.operands[0])]
        for op, x in zip(e.ops, e.operands[1:]):
            parts += [op, unparse(x)]
        return " ".join(parts)
    if isinstance(e, BoolOp):
        return f" {e.op} ".join(_wrap(v, 1) for v in e.values)
    if isinstance(e, Not):
        return f"not {_wrap(e.operand, 1)}"
    return "?"


def _wrap(e: Any, at_least: int) -> str:
    text = unparse(e)
    return f"({text})" if _prec(e) < at_least else text


def _item(i: Any) -> str:
    if isinstance(i, Slice):
        parts = ["" if p is None else unparse(p) for p in (i.start, i.stop, i.step)]
        return ":".join(parts if parts[2] else parts[:2])
    return unparse(i)

"""The formulas of backprop.py: built from expressions of the language with light
simplification (ones and double negatives dropped, numbers first, 0.25*u as u/4, (-u).T
as -(u.T)), and printed as backprop answers are written (X.T, W@x)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from gradcalc.language.program import (
    Binary,
    Call,
    Compare,
    Index,
    ListLit,
    Name,
    Num,
    Pos,
    Slice,
    Unary,
)

AT = Pos(0, 0)


class Unsupported(Exception):
    """The loss uses something outside the rule set."""


def is_number(e: Any, v: float) -> bool:
    return isinstance(e, Num) and e.value == v


def total(terms: list[Any]) -> Any:
    """The sum of the terms; where(c, a, 0) + where(c, 0, b) is where(c, a, b)."""
    merged: list[Any] = []
    for t in terms:
        k = next((i for i, m in enumerate(merged) if _masks(m) and _masks(t) and
                  text(m.args[0]) == text(t.args[0])), None)
        if k is None:
            merged.append(t)
        else:
            c, a, b = merged[k].args
            merged[k] = Call("where", (c, add(a, t.args[1]), add(b, t.args[2])), AT)
    if len(merged) > 1 and not all(_repeated(t) for t in merged):
        # the terms have one shape (the adjoints of one name): h*ones(n, m) next to a
        # term of that shape is h, repeated by NumPy's broadcasting
        merged = [_repeated(t) or t for t in merged]
    out = merged[0]
    for t in merged[1:]:
        out = add(out, t)
    return out


def _repeated(e: Any) -> Any | None:
    """h for h*ones(...) (or its negative), else None."""
    if isinstance(e, Unary) and e.op == "-":
        inner = _repeated(e.operand)
        return None if inner is None else neg(inner)
    if isinstance(e, Binary) and e.op == "*" and isinstance(e.right, Call) and \
            e.right.func == "ones":
        return e.left
    return None


def _masks(e: Any) -> bool:
    return isinstance(e, Call) and e.func == "where" and len(e.args) == 3


def neg(e: Any) -> Any:
    if _masks(e):
        return Call("where", (e.args[0], neg(e.args[1]), neg(e.args[2])), AT)
    if isinstance(e, Num):
        return Num(-e.value, AT)
    if isinstance(e, Unary) and e.op == "-":
        return e.operand
    if isinstance(e, Binary) and e.op == "*" and isinstance(e.left, Num):
        return mul(Num(-e.left.value, AT), e.right)
    if isinstance(e, Binary) and e.op == "-":
        return Binary("-", e.right, e.left, AT)
    return Unary("-", e, AT)


def add(a: Any, b: Any) -> Any:
    if isinstance(a, Num) and isinstance(b, Num):
        return Num(a.value + b.value, AT)
    if is_number(a, 0):
        return b
    if is_number(b, 0):
        return a
    if isinstance(b, Unary) and b.op == "-":
        return sub(a, b.operand)
    if isinstance(a, Unary) and a.op == "-":
        return sub(b, a.operand)
    return Binary("+", a, b, AT)


def sub(a: Any, b: Any) -> Any:
    if isinstance(a, Num) and isinstance(b, Num):
        return Num(a.value - b.value, AT)
    if is_number(b, 0):
        return a
    if is_number(a, 0):
        return neg(b)
    if isinstance(b, Unary) and b.op == "-":
        return add(a, b.operand)
    return Binary("-", a, b, AT)


def mul(a: Any, b: Any) -> Any:
    """a * b with numbers first and ones dropped."""
    if isinstance(b, Num) and not isinstance(a, Num):
        a, b = b, a
    if is_number(a, 1):
        return b
    if is_number(a, -1):
        return neg(b)
    if isinstance(a, Num) and isinstance(b, Num):
        return Num(a.value * b.value, AT)
    if isinstance(a, Num) and isinstance(b, Unary) and b.op == "-":
        return mul(Num(-a.value, AT), b.operand)
    if isinstance(a, Num) and isinstance(b, Binary) and b.op == "*" and isinstance(
            b.left, Num):
        return mul(Num(a.value * b.left.value, AT), b.right)
    if isinstance(b, Unary) and b.op == "-":
        return neg(mul(a, b.operand))
    if isinstance(b, Binary) and b.op == "/" and is_number(b.left, 1):
        return div(a, b.right)  # a*(1/v) is a/v
    if isinstance(a, Num) and a.value != int(a.value):
        r = Fraction(a.value).limit_denominator(1000)
        if float(r) == a.value:  # 0.25*u reads as u/4
            return div(mul(Num(float(r.numerator), AT), b), Num(float(r.denominator), AT))
    return Binary("*", a, b, AT)


def div(a: Any, b: Any) -> Any:
    if is_number(b, 1):
        return a
    if isinstance(a, Unary) and a.op == "-":
        return neg(div(a.operand, b))
    if isinstance(a, Num) and isinstance(b, Num) and b.value:
        return Num(a.value / b.value, AT)
    return Binary("/", a, b, AT)


def power(a: Any, n: float) -> Any:
    if n == 1:
        return a
    if n == 0:
        return Num(1.0, AT)
    return Binary("**", a, Num(n, AT), AT)


def matmul(a: Any, b: Any) -> Any:
    return Binary("@", a, b, AT)


def T(e: Any) -> Any:
    if isinstance(e, Unary) and e.op == "-":
        return neg(T(e.operand))
    if isinstance(e, Call) and e.func == "transpose" and len(e.args) == 1:
        return e.args[0]
    return Call("transpose", (e,), AT)


def keeps(e: Call) -> bool:
    """Whether a sum or mean along an axis keeps it (keepdims=True, the third argument)."""
    return len(e.args) == 3 and isinstance(e.args[2], Num) and bool(e.args[2].value)


def axis_of(e: Call) -> int | None:
    """A call's axis argument, a whole number (None when it is anything else)."""
    a, sign = e.args[1], 1
    if isinstance(a, Unary) and a.op == "-":
        a, sign = a.operand, -1
    return sign * int(a.value) if isinstance(a, Num) and a.value == int(a.value) else None


def literal(rows: Any) -> Any:
    """A nested list of whole numbers as a list literal ([0, 1, 0])."""
    if isinstance(rows, list):
        return ListLit(tuple(literal(r) for r in rows), AT)
    return Num(float(rows), AT)


def ones(n: int) -> Any:
    return Call("ones", (Num(float(n), AT),), AT)


def call(func: str, *args: Any) -> Any:
    if func == "sum" and isinstance(args[0], Unary) and args[0].op == "-":
        return neg(call("sum", args[0].operand, *args[1:]))
    if func == "sum" and isinstance(args[0], Binary) and args[0].op == "*" and isinstance(
            args[0].left, Num) and args[0].left.value < 0:  # sum(-2*u) is -sum(2*u)
        return neg(call("sum", mul(Num(-args[0].left.value, AT), args[0].right), *args[1:]))
    minus = [isinstance(a, Unary) and a.op == "-" for a in args]
    if func == "outer" and any(minus):
        inner = call("outer", *(a.operand if m else a for a, m in zip(args, minus,
                                                                         strict=True)))
        return inner if all(minus) else neg(inner)
    return Call(func, tuple(args), AT)


# --------------------------------------------------------------------------- text

_PREC = {"+": 1, "-": 1, "*": 2, "/": 2, "@": 2, "**": 4}


def text(e: Any) -> str:
    """An expression as backprop answers are written (X.T, @ without spaces inside a
    product of names)."""
    if isinstance(e, Num):
        return str(int(e.value)) if e.value == int(e.value) else repr(e.value)
    if isinstance(e, Name):
        return e.id
    if isinstance(e, Unary):
        return f"{e.op}{_wrap(e.operand, 3)}"
    if isinstance(e, Binary):
        p = _PREC[e.op]
        left = _wrap(e.left, p + (1 if e.op == "**" else 0))
        right = _wrap(e.right, p + (0 if e.op == "**" else 1))
        if e.op in ("@", "**"):
            return f"{left}{e.op}{right}"
        return f"{left}{e.op}{right}" if e.op in "*/" else f"{left} {e.op} {right}"
    if isinstance(e, Call):
        if e.func == "transpose" and len(e.args) == 1:
            return f"{_wrap(e.args[0], 9)}.T"
        if e.func in ("sum", "mean", "softmax", "log_softmax") and len(e.args) == 2 and \
                axis_of(e) is not None:
            return f"{e.func}({text(e.args[0])}, axis={text(e.args[1])})"
        if e.func in ("sum", "mean") and keeps(e) and axis_of(e) is not None:
            return f"{e.func}({text(e.args[0])}, axis={text(e.args[1])}, keepdims=True)"
        return f"{e.func}({', '.join(text(a) for a in e.args)})"
    if isinstance(e, Compare):
        return f"{text(e.operands[0])} {e.ops[0]} {text(e.operands[1])}"
    if isinstance(e, ListLit):
        return f"[{', '.join(text(a) for a in e.items)}]"
    if isinstance(e, Index):
        return f"{_wrap(e.target, 9)}[{', '.join(_item(a) for a in e.items)}]"
    raise Unsupported(type(e).__name__)


def _item(a: Any) -> str:
    """An index's item: a number, or a slice written start:stop:step."""
    if not isinstance(a, Slice):
        return text(a)
    parts = ["" if p is None else text(p) for p in (a.start, a.stop, a.step)]
    return ":".join(parts[:2]) + (f":{parts[2]}" if a.step is not None else "")


def _wrap(e: Any, at_least: int) -> str:
    p = _PREC[e.op] if isinstance(e, Binary) else 3 if isinstance(e, Unary) else 9
    if isinstance(e, Num) and e.value < 0:
        p = 3
    return f"({text(e)})" if p < at_least else text(e)

"""The sub-expressions a derivative's steps act on: a tree of `Node`s, each with its sympy
value and its text in the student's notation.

A first derivative is read from the IR, as the student typed it (`from_ir`: `2(x + 1)` is
a constant times a sum, `x/(x + 1)` a quotient, and each node's text is the one the
misconception search prints for the same step); a later differentiation (f'', a mixed
partial, the second step of d²y/dx²) from the sympy expression the earlier one ended with
(`from_sympy`). Sums are read as one node with signed terms (`x^3 - 2x + 5`), and keep the
texts of the binary sums they were typed as (`covers`), so a sign lost at `x^3 - 2x` is
found at the sum's step.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import sympy as sp

from gradcalc.backends.symbolic import as_expr
from gradcalc.engine import ops
from gradcalc.engine.primitive import PRIMITIVES, by_name, derived
from gradcalc.homework import proof
from gradcalc.homework.reading.student import expression, formula, latex
from gradcalc.language.ir import ListLit
from gradcalc.language.program import (
    EULER,
    Assign,
    Binary,
    Call,
    ExprStmt,
    Name,
    Num,
    Program,
    Unary,
)


class Unsupported(Exception):
    """A formula the steps do not cover (control flow, lists, indexing, an unknown call)."""


@dataclass(frozen=True, eq=False)
class Node:
    """A sub-expression: `op` is const | var | dependent | sum | neg | mul | div | pow |
    call | other (a sympy expression the rules do not take apart)."""

    op: str
    value: Any
    text: str
    latex: str
    args: tuple[Node, ...] = ()
    signs: tuple[int, ...] = ()  # sum: each term's sign
    func: str = ""  # call: the function's name in the language
    covers: tuple[str, ...] = ()  # sum: the texts of the sums it was typed as
    ir: Any = None  # the IR expression it was read from (None: from sympy)

    def depends(self, on: tuple[Any, ...]) -> bool:
        return any(self.value.has(s) for s in on)


# --------------------------------------------------------------------------- from the IR


def inline(program: Program) -> Any:
    """The program's last expression with its assigned names replaced by their values
    (straight-line programs only)."""
    env: dict[str, Any] = {}
    last = None
    for s in program.body:
        if isinstance(s, Assign):
            env[s.target] = _substitute(s.value, env)
            last = env[s.target]
        elif isinstance(s, ExprStmt):
            last = _substitute(s.value, env)
        else:
            raise Unsupported("control flow")
    if last is None:
        raise Unsupported("no expression")
    return last


def _substitute(e: Any, env: dict[str, Any]) -> Any:
    if isinstance(e, Name):
        return env.get(e.id, e)
    if isinstance(e, Unary):
        return replace(e, operand=_substitute(e.operand, env))
    if isinstance(e, Binary):
        return replace(e, left=_substitute(e.left, env), right=_substitute(e.right, env))
    if isinstance(e, Call):
        return replace(e, args=tuple(_substitute(a, env) for a in e.args))
    if isinstance(e, Num):
        return e
    if isinstance(e, ListLit) and len(e.items) == 1:  # brackets: [u]^2 is (u)^2
        return replace(e, items=(_substitute(e.items[0], env),))
    raise Unsupported(type(e).__name__)


def from_ir(e: Any, variables: dict[str, Any]) -> Node:
    """The node of an IR expression; `variables` maps the inputs' names to their sympy
    symbols (Euler's number is `e` when it is not one of them)."""
    if isinstance(e, ListLit) and len(e.items) == 1:  # brackets, as `check` reads them
        return from_ir(e.items[0], variables)
    if isinstance(e, Num):
        value = proof.exact(e.value)
        return Node("const", value, expression(e), latex(value), ir=e)
    if isinstance(e, Name):
        if e.id in variables:
            value = variables[e.id]
        elif e.id == EULER:
            value = sp.E
        else:
            raise Unsupported(f"name {e.id}")
        return Node("name", value, e.id, latex(value), ir=e)
    if isinstance(e, Unary):
        inner = from_ir(e.operand, variables)
        if e.op == "+":
            return inner
        return _node("neg", -inner.value, e, (inner,))
    if isinstance(e, Binary) and e.op in "+-":
        terms, signs, covers = _terms(e, variables)
        value = sp.Add(*(s * t.value for s, t in zip(signs, terms, strict=True)))
        return _node("sum", value, e, tuple(terms), signs=tuple(signs), covers=covers)
    if isinstance(e, Binary) and e.op in ("*", "/", "**"):
        a, b = from_ir(e.left, variables), from_ir(e.right, variables)
        value = {"*": lambda: a.value * b.value, "/": lambda: a.value / b.value,
                 "**": lambda: a.value ** b.value}[e.op]()
        return _node({"*": "mul", "/": "div", "**": "pow"}[e.op], value, e, (a, b))
    if isinstance(e, Call):
        prim = ops.primitive_of(e.func)
        if prim is None or not prim.elementwise or prim.sym is None or \
                len(prim.vjps) != len(e.args):
            raise Unsupported(f"call {e.func}")
        args = tuple(from_ir(a, variables) for a in e.args)
        value = _twin(prim, [a.value for a in args])
        return _node("call", value, e, args, func=_name(e.func, prim))
    raise Unsupported(type(e).__name__)


def _name(func: str, prim: Any) -> str:
    """A call's function by the name the rules know (aliases: arcsin is asin)."""
    known = by_name().get(func)
    return known.name if known is not None and known.facts.rule else func


def function_names() -> frozenset[str]:
    """The functions the derivative rules know by name (others: the generic function
    rule): the entries of the table of primitives with a rule of their own."""
    return derived("rule names", lambda: frozenset(
        p.name for p in PRIMITIVES.values() if p.facts.rule))


def _twin(prim: Any, args: list[Any]) -> Any:
    return proof.exact(np.asarray(prim.sym(*args), dtype=object).reshape(()).item())


def _node(op: str, value: Any, e: Any, args: tuple[Node, ...], **kw: Any) -> Node:
    if value.is_number:  # a constant sub-expression: one known number
        return Node("const", value, expression(e), latex(value), ir=e)
    return Node(op, value, expression(e), latex(value), args, ir=e, **kw)


def _terms(e: Any, variables: dict[str, Any]) -> tuple[list[Node], list[int], tuple[str, ...]]:
    """The terms of a typed sum along its left spine, their signs, and the binary sums'
    texts."""
    if isinstance(e, Binary) and e.op in "+-":
        terms, signs, covers = _terms(e.left, variables)
        right = from_ir(e.right, variables)
        return [*terms, right], [*signs, 1 if e.op == "+" else -1], (*covers, expression(e))
    return [from_ir(e, variables)], [1], ()


# --------------------------------------------------------------------------- from sympy


def from_sympy(v: Any, on: tuple[Any, ...]) -> Node:
    """The node of a sympy expression; `on` are the symbols that vary (a constant is
    free of them)."""
    v = as_expr(v)
    if not any(v.has(s) for s in on):
        return Node("const", v, formula(v), latex(v))
    if v.is_Symbol:
        return Node("name", v, formula(v), latex(v))
    if v.is_Add:
        terms, signs = [], []
        for a in v.as_ordered_terms():
            negative = a.could_extract_minus_sign()
            terms.append(from_sympy(-a if negative else a, on))
            signs.append(-1 if negative else 1)
        return _snode("sum", v, tuple(terms), signs=tuple(signs))
    if v.is_Mul:
        return _product(v, on)
    if v.is_Pow:
        base, exp = v.as_base_exp()
        if exp == sp.S.Half:
            return _snode("call", v, (from_sympy(base, on),), func="sqrt")
        if exp.is_Rational and exp.is_negative:
            return _snode("div", v, (from_sympy(sp.Integer(1), on), from_sympy(base ** -exp, on)))
        return _snode("pow", v, (from_sympy(base, on), from_sympy(exp, on)))
    if isinstance(v, sp.exp):
        return _snode("call", v, (from_sympy(v.args[0], on),), func="exp")
    if isinstance(v, sp.Abs):
        return _snode("call", v, (from_sympy(v.args[0], on),), func="abs")
    name = type(v).__name__
    if isinstance(v, sp.Function) and len(v.args) == 1 and name in function_names():
        return _snode("call", v, (from_sympy(v.args[0], on),), func=name)
    return Node("other", v, formula(v), latex(v))


def _snode(op: str, v: Any, args: tuple[Node, ...], **kw: Any) -> Node:
    return Node(op, v, formula(v), latex(v), args, **kw)


def _product(v: Any, on: tuple[Any, ...]) -> Node:
    """c·rest as a constant multiple, then the quotient of its fraction, then the
    product of its factors (left to right)."""
    coeff, rest = v.as_independent(*on, as_Add=False)
    if coeff == -1:
        return _snode("neg", v, (from_sympy(rest, on),))
    if coeff != 1:
        return _snode("mul", v, (from_sympy(coeff, on), from_sympy(rest, on)))
    top, bottom = sp.fraction(rest)
    if bottom != 1:
        return _snode("div", v, (from_sympy(top, on), from_sympy(bottom, on)))
    factors = list(rest.as_ordered_factors())
    node = from_sympy(factors[0], on)
    for f in factors[1:]:
        right = from_sympy(f, on)
        node = _snode("mul", node.value * right.value, (node, right))
    return node

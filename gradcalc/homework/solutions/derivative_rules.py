"""The derivative rules, one rewriting each: d/dx of a sub-expression (a `Node`) as the
expression the rule gives, with the derivatives of its parts still to do.

Sum, constant multiple, power, product, quotient, chain (its outer function named and
differentiated by its own rule), exponential, logarithm, trig, inverse trig, hyperbolic,
|x| (sign(x) where x ≠ 0, and 0 at 0: PyTorch's convention), ln|u| (u'/u) and logarithmic
differentiation for u^v. The derivative of a constant (0), of the variable (1) and, in
implicit differentiation, of the dependent variable (y', written dy/dx) are written at
once, never left to do. A function of several arguments is the chain rule summed over
them, its partial derivatives from sympy's twin of the primitive.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from gradcalc.engine import ops
from gradcalc.engine.primitive import PRIMITIVES, derived
from gradcalc.homework.solutions.rule_names import pair_free_of
from gradcalc.homework.solutions.states import (
    Term,
    Todo,
    leaf,
    negated,
    pending,
    product,
    quotient,
    total,
)
from gradcalc.homework.solutions.subexpressions import Node, Unsupported
from gradcalc.homework.true_derivative import torch_convention


def derivatives() -> dict[str, tuple[str, Callable[[Any], Any], str]]:
    """f -> (its rule, f'(u), the rule in words), for every function of one argument
    whose entry in the table of primitives has a textbook rule (tan' = sec²)."""
    return derived("derivative rules", lambda: {
        p.name: (p.facts.rule, _outer_derivative(p.facts.derivative), p.facts.says)
        for p in PRIMITIVES.values() if p.facts.derivative is not None})


def _outer_derivative(rule: Callable[[Any, Any], Any]) -> Callable[[Any], Any]:
    return lambda u: rule(sp, u)


def outer_name(func: str) -> str:
    """How the chain rule names an outer function: √( ), | |, ln, e^( ) or its name."""
    facts = PRIMITIVES[func].facts
    return facts.outer or facts.written or func


@dataclass(frozen=True)
class Rewrite:
    rule: str
    result: Term
    note: str = ""
    also: str = ""  # the chain rule's outer function: the rule it is differentiated by


def _parts_named(n: Node, u: Node, v: Node) -> str:
    """`u = x^2, v = sin(3x)`: a product's or quotient's parts named u and v, or p and q
    where the function has a variable u or v (u = e^u would be a false equation)."""
    first, second = pair_free_of({s.name for s in getattr(n.value, "free_symbols", ())})
    return f"{first} = {u.text}, {second} = {v.text}"


class Rules:
    """The rules for d/d`x`; in implicit differentiation `dependent` is y (a function of
    x) and `slope` the symbol y' its derivative is written as; `partial`: ∂/∂x, the other
    inputs held constant."""

    def __init__(self, x: Any, dependent: Any = None, slope: Any = None,
                 partial: bool = False) -> None:
        self.x, self.y, self.slope, self.partial = x, dependent, slope, partial
        self.on = (x,) if dependent is None else (x, dependent)

    def varies(self, n: Node) -> bool:
        return n.depends(self.on)

    def d(self, n: Node) -> Term:
        """d/dx of n: written at once for a constant, x and y, else still to do."""
        if not self.varies(n):
            return leaf(0)
        if n.value == self.x:
            return leaf(1)
        if self.y is not None and n.value == self.y:
            return leaf(self.slope)
        return pending(Todo("d", n.text, n.latex, n.value, self.x, payload=n,
                            partial=self.partial))

    def known(self, n: Node) -> Term:
        """n as a known part of a rule's result, shown as the student wrote it."""
        return leaf(n.value, n.text if n.ir is not None else "", n.latex)

    def rewrite(self, n: Node) -> Rewrite:
        """The rule for d/dx of n."""
        if not self.varies(n):
            return Rewrite("constant", leaf(0), "the derivative of a constant is 0")
        if n.op == "name":
            return Rewrite("variable", self.d(n))
        handler = getattr(self, f"_{n.op}", None)
        if handler is None:
            raise Unsupported(n.op)
        return handler(n)

    # ------------------------------------------------------------------ the rules

    def _sum(self, n: Node) -> Rewrite:
        terms = [(s, self.d(t)) for s, t in zip(n.signs, n.args, strict=True)]
        dropped = any(not self.varies(t) for t in n.args)
        return Rewrite("sum", total(terms), "a constant term's derivative is 0" if dropped
                       else "")

    def _neg(self, n: Node) -> Rewrite:
        return Rewrite("constant-multiple", negated(self.d(n.args[0])), "(−u)' = −u'")

    def _mul(self, n: Node) -> Rewrite:
        u, v = n.args
        if not self.varies(u):
            return Rewrite("constant-multiple", product(self.known(u), self.d(v)),
                           f"the constant {u.text} stays")
        if not self.varies(v):
            return Rewrite("constant-multiple", product(self.known(v), self.d(u)),
                           f"the constant {v.text} stays")
        return Rewrite("product", total([(1, product(self.d(u), self.known(v))),
                                         (1, product(self.known(u), self.d(v)))]),
                       _parts_named(n, u, v))

    def _div(self, n: Node) -> Rewrite:
        u, v = n.args
        if not self.varies(v):
            return Rewrite("constant-multiple", quotient(self.d(u), self.known(v)),
                           f"the constant divisor {v.text} stays")
        square = leaf(v.value ** 2)
        if not self.varies(u):
            return Rewrite("quotient", negated(quotient(product(self.known(u), self.d(v)),
                                                        square)),
                           f"the numerator {u.text} is a constant: (c/v)' = −c·v'/v^2")
        top = total([(1, product(self.d(u), self.known(v))),
                     (-1, product(self.known(u), self.d(v)))])
        return Rewrite("quotient", quotient(top, square), _parts_named(n, u, v))

    def _pow(self, n: Node) -> Rewrite:
        base, exp = n.args
        if not self.varies(exp):
            outer = exp.value * base.value ** (exp.value - 1)
            if base.value == self.x:
                return Rewrite("power", leaf(outer))
            return Rewrite("chain", product(leaf(outer), self.d(base)),
                           f"outer ( )^{exp.text}, inner {base.text}", also="power")
        if not self.varies(base):
            outer = n.value if base.value == sp.E else n.value * sp.log(base.value)
            said = "(e^u)' = e^u" if base.value == sp.E else \
                f"(a^u)' = a^u·ln(a), a = {base.text}"
            if exp.value == self.x:
                return Rewrite("exponential", leaf(outer), said)
            return Rewrite("chain", product(leaf(outer), self.d(exp)),
                           f"outer {base.text}^( ), inner {exp.text}: {said}",
                           also="exponential")
        from gradcalc.homework.solutions.subexpressions import from_sympy

        ln = from_sympy(sp.log(base.value), self.on)
        grouped = exp.op in ("sum", "neg")
        v = f"({exp.text})" if grouped else exp.text
        v_tex = rf"\left({exp.latex}\right)" if grouped else exp.latex
        logged = Node("mul", exp.value * ln.value, f"{v}·{ln.text}",
                      rf"{v_tex} \cdot {ln.latex}", (exp, ln))
        return Rewrite("log-differentiation", product(leaf(n.value), self.d(logged)),
                       f"y = {n.text}: ln(y) = {logged.text}, so y'/y = "
                       f"d/d{self.x}({logged.text}) and y' = y·(y'/y)")

    def _call(self, n: Node) -> Rewrite:
        rules = derivatives()
        if n.func in rules and rules[n.func][1](sp.Dummy()) == 0:
            # a step (sign): sympy's derivative is a DiracDelta, the tape's 0
            rule, _, said = rules[n.func]
            return Rewrite(rule, leaf(0), said)
        if n.func == "logb" and len(n.args) == 2 and not self.varies(n.args[1]):
            u, b = n.args
            return self._outer(n, u, "logarithm", 1 / (u.value * sp.log(b.value)),
                               f"log_b'(u) = 1/(u·ln(b)), b = {b.text}", f"log_{b.text}")
        if n.func == "log" and len(n.args) == 1 and n.args[0].op == "call" and \
                n.args[0].func == "abs":
            return self._log_abs(n.args[0].args[0])
        if len(n.args) == 1 and n.func in rules:
            (u,) = n.args
            rule, derivative, said = rules[n.func]
            return self._outer(n, u, rule, derivative(u.value), said, outer_name(n.func))
        return self._function(n)

    def _log_abs(self, u: Node) -> Rewrite:
        """ln|u| as a textbook takes it: (ln|u|)' = u'/u, with no sign(u) on the way."""
        if u.value == self.x:
            return Rewrite("logarithm", leaf(1 / u.value), "(ln|x|)' = 1/x")
        one_over = leaf(1 / u.value, f"1/({u.text})", rf"\frac{{1}}{{{u.latex}}}")
        return Rewrite("chain", product(one_over, self.d(u)),
                       f"outer ln| |, inner {u.text}: (ln|u|)' = u'/u", also="logarithm")

    def _outer(self, n: Node, u: Node, rule: str, outer: Any, said: str,
               name: str) -> Rewrite:
        if u.value == self.x:
            return Rewrite(rule, leaf(outer), said)
        return Rewrite("chain", product(leaf(outer), self.d(u)),
                       f"outer {name}, inner {u.text}: {said}", also=rule)

    def _function(self, n: Node) -> Rewrite:
        """Any other function: its partial derivatives (sympy's, of the primitive's twin)
        times each argument's derivative."""
        prim = ops.primitive_of(n.func) if n.op == "call" else None
        if prim is None or prim.sym is None:
            return self._other(n)
        dummies = [sp.Dummy() for _ in n.args]
        f = np.asarray(prim.sym(*dummies), dtype=object).reshape(()).item()
        subs = {d: a.value for d, a in zip(dummies, n.args, strict=True)}
        terms = []
        for d, a in zip(dummies, n.args, strict=True):
            if self.varies(a):
                slope = torch_convention(sp.diff(f, d).xreplace(subs))
                terms.append((1, product(leaf(slope), self.d(a))))
        one = len(n.args) == 1 and n.args[0].value == self.x
        return Rewrite("function" if one else "chain", total(terms),
                       f"the derivative of {n.func}", also="" if one else "function")

    def _other(self, n: Node) -> Rewrite:
        """A part the rules do not take apart: its derivative in one step (sympy's)."""
        parts = [sp.diff(n.value, self.x)]
        if self.y is not None:
            parts.append(sp.diff(n.value, self.y) * self.slope)
        return Rewrite("differentiate", leaf(torch_convention(sp.Add(*parts))))

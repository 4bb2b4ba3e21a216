"""The expressions a worked solution passes through: sums, products and quotients of known
parts (sympy expressions) and of parts still to do (a derivative or an integral not taken
yet), in the order the rule wrote them (u'·v + u·v', not sympy's sorted order).

A `Term` prints in the student's notation (`text`) and in LaTeX (`latex`), and becomes a
sympy expression for the checks (`to_sympy`, each part still to do given a value by the
caller). Products, quotients and negations of known parts are folded into one known part
as soon as they are built (`cos(3x)·3` is `3cos(3x)`); sums stay as written until the
solution's last step simplifies them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import sympy as sp

from gradcalc.backends.symbolic import as_expr
from gradcalc.homework.reading.student import formula
from gradcalc.homework.reading.student import latex as sympy_latex


@dataclass(frozen=True, eq=False)
class Todo:
    """A part still to do: d/dx of a sub-expression (`kind` "d"), or ∫ of an integrand in
    `by` ("int", with `to_x`: `by` as an expression of the problem's variable)."""

    kind: str
    text: str
    latex: str
    value: Any  # the sub-expression (d) or the integrand (int), sympy
    by: Any  # the sympy symbol differentiated or integrated by
    payload: Any = None  # what works it out: the sub-expression's node, the integral's rule
    partial: bool = False  # ∂/∂x (other inputs held constant)
    to_x: Any = None


@dataclass(frozen=True, eq=False)
class Term:
    """One node of an expression: a known part (`leaf`, a sympy value with the text it is
    shown as), a part still to do (`todo`), a sum (with signs), a product, a quotient, a
    negation, or `subst`: its one argument written in a substitution variable `var`,
    which stands for `expr`."""

    kind: str
    args: tuple[Term, ...] = ()
    value: Any = None
    shown: str = ""
    shown_latex: str = ""
    signs: tuple[int, ...] = ()
    todo: Todo | None = None
    var: Any = None
    expr: Any = None


def leaf(value: Any, shown: str = "", shown_latex: str = "") -> Term:
    return Term("leaf", value=as_expr(value), shown=shown, shown_latex=shown_latex)


def pending(todo: Todo) -> Term:
    return Term("todo", todo=todo)


def _is_leaf(t: Term, v: Any | None = None) -> bool:
    return t.kind == "leaf" and (v is None or t.value == v)


def _slope(t: Term) -> bool:
    """Whether t is y' (implicit differentiation's dy/dx), which a product keeps last."""
    return t.kind == "leaf" and t.value.is_Symbol and t.value.name.endswith("'")


def total(terms: list[tuple[int, Term]]) -> Term:
    """The sum of ±terms; zeros dropped, one term alone is itself."""
    kept = [(s, t) for s, t in terms if not _is_leaf(t, 0)]
    if not kept:
        return leaf(0)
    if len(kept) == 1:
        s, t = kept[0]
        return t if s > 0 else negated(t)
    return Term("sum", tuple(t for _, t in kept), signs=tuple(s for s, _ in kept))


def product(*factors: Term) -> Term:
    """The product; ones dropped, a zero makes it zero, nested products flattened and
    their known parts folded into one (where the first of them was)."""
    flat: list[Term] = []
    for f in factors:
        flat.extend(f.args if f.kind == "product" else (f,))
    known = [f for f in flat if f.kind == "leaf" and not _slope(f)]
    if len(known) > 1 and len(known) < len(flat):
        folded = leaf(sp.Mul(*(f.value for f in known)))
        at = flat.index(known[0])
        flat = [f for f in flat if f not in known]
        flat.insert(at, folded)
    kept = [f for f in flat if not _is_leaf(f, 1)]
    if any(_is_leaf(f, 0) for f in kept):
        return leaf(0)
    if not kept:
        return leaf(1)
    if len(kept) == 1:
        return kept[0]
    slopes = [f for f in kept if _slope(f)]
    if slopes and len(slopes) < len(kept) and all(f.kind == "leaf" for f in kept):
        rest = product(*(f for f in kept if not _slope(f)))  # 3y^2·y', not 3y'·y^2
        return Term("product", (rest, *slopes)) if not _is_leaf(rest, 1) else slopes[0]
    if all(f.kind == "leaf" for f in kept):
        return leaf(sp.Mul(*(f.value for f in kept)))
    if _is_leaf(kept[0], -1):
        return negated(product(*kept[1:]))
    return Term("product", tuple(kept))


def quotient(top: Term, bottom: Term) -> Term:
    if _is_leaf(bottom, 1):
        return top
    if _is_leaf(top, 0):
        return leaf(0)
    if top.kind == "leaf" and bottom.kind == "leaf":
        return leaf(top.value / bottom.value)
    return Term("quotient", (top, bottom))


def negated(t: Term) -> Term:
    if t.kind == "leaf":
        return leaf(-t.value)
    if t.kind == "neg":
        return t.args[0]
    return Term("neg", (t,))


def substituted(var: Any, expr: Any, inner: Term) -> Term:
    """`inner`, written in `var`, which stands for `expr`."""
    return Term("subst", (inner,), var=var, expr=expr)


def rebuilt(t: Term, args: tuple[Term, ...]) -> Term:
    """t with new arguments, folded again."""
    if t.kind == "sum":
        return total(list(zip(t.signs, args, strict=True)))
    if t.kind == "product":
        return product(*args)
    if t.kind == "quotient":
        return quotient(*args)
    if t.kind == "neg":
        return negated(args[0])
    if t.kind == "subst":
        return substituted(t.var, t.expr, args[0])
    return t


# --------------------------------------------------------------------------- walking


def todos(t: Term) -> Iterator[Todo]:
    """The parts still to do, leftmost first (the order a solution works them out)."""
    stack = [t]
    while stack:
        node = stack.pop()
        if node.kind == "todo":
            assert node.todo is not None
            yield node.todo
        stack.extend(reversed(node.args))


def first_todo(t: Term) -> Todo | None:
    return next(todos(t), None)


def done(t: Term) -> bool:
    return first_todo(t) is None


def replaced(t: Term, todo: Todo, new: Term) -> Term:
    """t with the part `todo` replaced by `new` (folded again on the way up)."""
    if t.kind == "todo":
        return new if t.todo is todo else t
    if not t.args:
        return t
    args = tuple(replaced(a, todo, new) for a in t.args)
    if all(a is b for a, b in zip(args, t.args, strict=True)):
        return t
    return rebuilt(t, args)


def substitutions(t: Term) -> Iterator[Term]:
    """The `subst` nodes whose inner part is done, innermost first."""
    for a in t.args:
        yield from substitutions(a)
    if t.kind == "subst" and done(t.args[0]):
        yield t


def replaced_node(t: Term, old: Term, new: Term) -> Term:
    if t is old:
        return new
    if not t.args:
        return t
    args = tuple(replaced_node(a, old, new) for a in t.args)
    if all(a is b for a, b in zip(args, t.args, strict=True)):
        return t
    return rebuilt(t, args)


def to_sympy(t: Term, value_of: Callable[[Todo], Any]) -> Any:
    """The term as one sympy expression, each part still to do given by `value_of`."""
    if t.kind == "leaf":
        return t.value
    if t.kind == "todo":
        assert t.todo is not None
        return value_of(t.todo)
    args = [to_sympy(a, value_of) for a in t.args]
    if t.kind == "sum":
        return sp.Add(*(s * a for s, a in zip(t.signs, args, strict=True)))
    if t.kind == "product":
        return sp.Mul(*args)
    if t.kind == "quotient":
        return args[0] / args[1]
    if t.kind == "neg":
        return -args[0]
    if t.kind == "subst":
        return args[0].xreplace({t.var: t.expr})
    raise ValueError(t.kind)


# --------------------------------------------------------------------------- printing

SUM, NEG, PRODUCT, POWER, ATOM = 1, 1.5, 2, 4, 9


def value_precedence(v: Any) -> float:
    """How tightly a sympy value's printed text binds (parentheses go below PRODUCT)."""
    if v.is_Add:
        return SUM
    if v.could_extract_minus_sign() or (v.is_Number and v < 0):
        return NEG
    if v.is_Mul or (v.is_Rational and not v.is_Integer):
        return PRODUCT
    if v.is_Pow:
        exp = v.as_base_exp()[1]
        return PRODUCT if exp.is_Rational and exp.is_negative else POWER
    return ATOM


def shown_precedence(shown: str) -> float:
    """How tightly a printed text binds, read from its top level (a leaf printed as typed,
    `x + x`, binds as a sum whatever its value, 2x)."""
    depth, top = 0, []
    for k, c in enumerate(shown):
        depth += c in "([{"
        depth -= c in ")]}"
        if depth == 0:
            top.append((k, c))
    if any(c in "+-" and k > 0 and shown[k - 1] == " " for k, c in top):
        return SUM
    if shown.startswith("-"):
        return NEG
    if any(c in "·*/ " for _, c in top) or (len(top) > 1 and shown[:1].isdigit()
                                             and not shown.replace(".", "").isdigit()):
        return PRODUCT
    if any(c == "^" for _, c in top):
        return POWER
    return ATOM


def precedence(t: Term, latex_text: bool = False) -> float:
    if t.kind == "leaf":
        shown = t.shown_latex if latex_text else t.shown
        if shown:  # printed as typed: the text decides, not the value
            return min(shown_precedence(shown), value_precedence(t.value)) \
                if latex_text else shown_precedence(shown)
        return value_precedence(t.value)
    if t.kind == "todo":
        return ATOM
    if t.kind == "subst":
        return precedence(t.args[0], latex_text)
    return {"sum": SUM, "neg": NEG, "product": PRODUCT, "quotient": PRODUCT}[t.kind]


def _leaf_text(t: Term) -> str:
    return t.shown or formula(t.value)


def _todo_text(todo: Todo) -> str:
    if todo.kind == "d":
        d = "∂" if todo.partial else "d"
        return f"{d}/{d}{todo.by}({todo.text})"
    inner = f"({todo.text})" if todo.value.is_Add else todo.text
    return f"∫ {inner} d{todo.by}"


def text(t: Term) -> str:
    """The term in the student's notation."""
    if t.kind == "leaf":
        return _leaf_text(t)
    if t.kind == "todo":
        assert t.todo is not None
        return _todo_text(t.todo)
    if t.kind == "subst":
        return text(t.args[0])
    if t.kind == "neg":
        return "-" + _wrapped(t.args[0], PRODUCT)
    if t.kind == "quotient":
        top, bottom = t.args
        return f"{_wrapped(top, PRODUCT)}/{_wrapped(bottom, POWER)}"
    if t.kind == "product":
        parts = [_wrapped(a, PRODUCT, first=k == 0) for k, a in enumerate(t.args)]
        parts = [f"({p})" if k < len(parts) - 1 and a.kind == "leaf" and _slashed(p)
                 else p for k, (p, a) in enumerate(zip(parts, t.args, strict=True))]
        out = parts[0]
        for prev, part, arg in zip(parts, parts[1:], t.args[1:], strict=False):
            joined = prev.lstrip("-").isdigit() and arg.kind == "leaf" and (
                part[0].isalpha() or part[0] in "(√|π")
            out += part if joined else "·" + part
        return out
    out = ""
    for k, (sign, arg) in enumerate(zip(t.signs, t.args, strict=True)):
        shown, negative = _signed(_unwrapped(arg))
        if negative:
            sign = -sign
        if sign < 0 and precedence(arg) == SUM:
            shown = f"({shown})"
        if k == 0:
            out = ("-" if sign < 0 else "") + shown
        elif sign > 0 and shown.startswith("-"):  # a sum led by a minus: x - a + b
            out += " - " + shown[1:]
        else:
            out += (" - " if sign < 0 else " + ") + shown
    return out


def _unwrapped(arg: Term) -> Term:
    """A sum's term as it prints: a substitution's result is its inner term (whose own
    minus joins the sum's sign: - 1/(4w^2), never - -1/(4w^2))."""
    while arg.kind == "subst":
        arg = arg.args[0]
    return arg


def _signed(arg: Term) -> tuple[str, bool]:
    """A sum's term as printed after its sign, and whether it carries a minus of its own
    (a negative known part, a negation, a product led by a negative number)."""
    if arg.kind == "leaf" and value_precedence(arg.value) == NEG:
        return _wrapped(_unsigned_leaf(arg), PRODUCT), True
    if arg.kind == "neg":
        return _wrapped(arg.args[0], PRODUCT), True
    if arg.kind == "product" and arg.args[0].kind == "leaf" and \
            value_precedence(arg.args[0].value) == NEG:
        return text(product(leaf(-arg.args[0].value), *arg.args[1:])), True
    return text(arg) if precedence(arg) == SUM else _wrapped(arg, NEG), False


def _unsigned_leaf(t: Term) -> Term:
    """A negative known part without its minus, printed as it was shown where it was
    (`-(1/2)·cos(2x)`: `(1/2)·cos(2x)`, not sympy's `cos(2x)/2`)."""
    shown, tex = t.shown.removeprefix("-"), t.shown_latex.removeprefix("-").lstrip()
    if shown == t.shown or shown_precedence(shown) < PRODUCT:
        shown = ""
    if tex == t.shown_latex or shown_precedence(tex) < PRODUCT:
        tex = ""
    return leaf(-t.value, shown, tex)


def _slashed(shown: str) -> bool:
    """Whether a printed factor divides at its top level (a/b: a factor after it would
    read as part of the denominator)."""
    depth = 0
    for c in shown:
        depth += c in "(["
        depth -= c in ")]"
        if c == "/" and depth == 0:
            return True
    return False


def _wrapped(t: Term, at_least: float, first: bool = False) -> str:
    p = precedence(t)
    if first and p == NEG:
        return text(t)
    return f"({text(t)})" if p < at_least else text(t)


def latex(t: Term) -> str:
    """The term in LaTeX."""
    if t.kind == "leaf":
        return t.shown_latex or sympy_latex(t.value)
    if t.kind == "todo":
        assert t.todo is not None
        todo = t.todo
        by = sympy_latex(todo.by)
        if todo.kind == "d":
            d = r"\partial" if todo.partial else "d"
            return rf"\frac{{{d}}}{{{d} {by}}}\left({todo.latex}\right)"
        inner = rf"\left({todo.latex}\right)" if todo.value.is_Add else todo.latex
        return rf"\int {inner}\, d{by}"
    if t.kind == "subst":
        return latex(t.args[0])
    if t.kind == "neg":
        return "-" + _latex_wrapped(t.args[0], PRODUCT)
    if t.kind == "quotient":
        return rf"\frac{{{latex(t.args[0])}}}{{{latex(t.args[1])}}}"
    if t.kind == "product":
        parts = [_latex_wrapped(a, PRODUCT, first=k == 0) for k, a in enumerate(t.args)]
        return r" \cdot ".join(parts)
    out = ""
    for k, (sign, arg) in enumerate(zip(t.signs, t.args, strict=True)):
        arg = _unwrapped(arg)
        negative = (arg.kind == "leaf" and value_precedence(arg.value) == NEG) or \
            arg.kind == "neg"
        if negative:
            sign = -sign
            arg = _unsigned_leaf(arg) if arg.kind == "leaf" else arg.args[0]
        shown = latex(arg) if sign > 0 and precedence(arg) == SUM else \
            _latex_wrapped(arg, PRODUCT if sign < 0 else NEG)
        if k > 0 and sign > 0 and shown.startswith("- "):  # a sum led by a minus: x - a + b
            shown, sign = shown[2:], -1
        out += (("-" if sign < 0 else "") if k == 0 else (" - " if sign < 0 else " + ")) + shown
    return out


def _latex_wrapped(t: Term, at_least: float, first: bool = False) -> str:
    p = precedence(t, latex_text=True)
    if t.kind == "quotient" or (first and p == NEG):
        return latex(t)
    return rf"\left({latex(t)}\right)" if p < at_least else latex(t)

"""The gradient of a tensor loss as a formula: reverse-mode matrix calculus on the loss's
own expressions, and the formulas of the usual backprop mistakes.

`derive_all` walks the loss's statements backwards from the result (walk.py),
passing each subexpression its adjoint g = ∂L/∂(subexpression) as an expression of the
language, by a small rule set: `+ - * /` (with a sum over the axes a broadcast added, kept
with keepdims=True for an axis of length 1), `**` by a number, `@` (A @ B: g @ B.T and
A.T @ g; a matrix times a vector: outer(g, x) and W.T @ g), `outer`, `transpose`, `sum`
and `mean` whole or along an axis (g repeated back along it, scatter.py),
`where` (where(c, g, 0) and where(c, 0, g)), indexing (g scattered back into zeros with
0/1 lists), `exp`, `log`, `sqrt`, `tanh`, `sigmoid`, `relu` (where(u > 0, g, 0)),
`softmax`, and log(softmax(u)) as one step (g - softmax(u) * sum(g), so cross-entropy
reads softmax(u)*sum(y) - y, or softmax(u) - y when the targets are taken as one-hot).
Anything else (control flow, `prod`, `maximum`, a scatter too large to write) and there
is no formula: the caller says so. Shapes come from the inputs' declared shapes. A formula
is only offered after it agrees with the tape's gradient (kinds/tensor_loss.py), so a gap in
these
rules can cost a formula, never a wrong one.

The formulas are built and printed by terms.py. The mistakes are the same walk
with one rule changed — relu's or where's mask left out, the last product to the input
written in the other order (g @ X.T for X.T @ g) or transposed (g.T @ X) — or the
gradient of w[key] or of sum(w, axis=k) left at that shape (not scattered back, not
repeated along the axis).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gradcalc.homework.backprop.terms import (
    AT,
    T,
    Unsupported,
    call,
    matmul,
    text,
)
from gradcalc.homework.backprop.walk import Walk
from gradcalc.language.program import Assign, Binary, Call, ExprStmt, Name, Program, Unary

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Mistake:
    rule: str  # 'relu-mask-missing' | 'product-order' | 'transposed-product'
    at: str  # the step, in the loss's text
    formula: Any  # the mistaken ∂L/∂w, an expression of the language
    message: str


@dataclass(frozen=True)
class Derivation:
    formula: Any
    text: str
    mistakes: tuple[Mistake, ...]


def derive(program: Program, w: str, shapes: dict[str, Shape]) -> Derivation | None:
    """∂L/∂w as a formula, with the formulas of its usual mistakes; None when the loss
    uses something the rules do not cover."""
    found = derive_all(program, w, shapes)
    return found[-1] if found else None


def derive_all(program: Program, w: str, shapes: dict[str, Shape]) -> list[Derivation]:
    """The derivations to offer, the most readable first: with the targets of a softmax
    loss taken as normalized (each one-hot row sums to 1, so cross-entropy's gradient is
    softmax(u) - y), then the one that holds for any targets. The caller shows the first
    that agrees with the tape; [] when the rules do not cover the loss."""
    out: list[Derivation] = []
    for normalized in (True, False):
        try:
            walk = Walk(program, w, shapes, normalized=normalized)
            formula = walk.run()
            if formula is None:
                return out
            mistakes = order_mistakes(walk, formula) + leaf_mistakes(walk)
            for kind in ("where", "relu"):
                mistakes[:0] = _mask_mistake(program, w, shapes, walk, kind, formula)
            out.append(Derivation(formula, text(formula), tuple(mistakes)))
            if not walk.assumed:  # no targets were taken as normalized: the one formula
                return out
        except (Unsupported, ValueError, RecursionError):
            return out
    return out


def _mask_mistake(program: Program, w: str, shapes: dict[str, Shape], right: Walk,
                  kind: str, formula: Any) -> list[Mistake]:
    """The gradient let through relu (or where) everywhere: the mask left out."""
    masks = right.relus if kind == "relu" else right.wheres
    if not masks:
        return []
    unmasked = Walk(program, w, shapes, unmasked=frozenset({kind}),
                     normalized=right.normalized).run()
    if unmasked is None or text(unmasked) == text(formula):
        return []
    if kind == "relu":
        at = ", ".join(f"relu({u})" for u in masks)
        said = ", ".join(f"where({u} > 0, …, 0)" for u in masks)
        return [Mistake("relu-mask-missing", at, unmasked, (
            f"ReLU mask missing: the gradient passes back through {at} only where its "
            f"input is positive ({said}), and the answer lets it through everywhere"))]
    at = ", ".join(f"where({c}, …)" for c in masks)
    return [Mistake("where-mask-missing", at, unmasked, (
        f"where's mask missing: the gradient of where({masks[0]}, a, b) goes to a only "
        f"where {masks[0]} (where({masks[0]}, g, 0)) and to b elsewhere "
        f"(where({masks[0]}, 0, g)), and the answer lets it through to both everywhere"))]


def order_mistakes(walk: Walk, formula: Any) -> list[Mistake]:
    """The last product to w in the other order, and transposed (one product only)."""
    if len(walk.leaf_steps) != 1 or len(walk.adjoints.get(walk.w, [])) != 1:
        return []
    node, g, side = walk.leaf_steps[0]
    a, b = walk.shape(node.left), walk.shape(node.right)
    short, sub_g = Name("g", AT), {"g": g}
    if len(a) == 2 and len(b) == 2:
        other = node.left if side == "right" else node.right
        if side == "right":  # X @ W: X.T @ g
            right, wrong, flipped = (matmul(T(other), short), matmul(short, T(other)),
                                     matmul(T(short), other))
        else:  # W @ X: g @ X.T
            right, wrong, flipped = (matmul(short, T(other)), matmul(T(other), short),
                                     matmul(other, T(short)))
    elif len(a) == 2 and len(b) == 1 and side == "left":  # W @ x: outer(g, x)
        right, wrong, flipped = (call("outer", short, node.right), None,
                                 call("outer", node.right, short))
    elif len(a) == 1 and len(b) == 2 and side == "right":  # x @ W: outer(x, g)
        right, wrong, flipped = (call("outer", node.left, short), None,
                                 call("outer", short, node.left))
    else:
        return []
    where = f"g = {text(g)}, ∂L/∂({text(node)})"
    out = []
    if wrong is not None:
        out.append(Mistake("product-order", text(node), _put(wrong, sub_g), (
            f"the product is in the wrong order: the answer is {_short(wrong)}, and "
            f"∂L/∂{walk.w} is {_short(right)} (with {where})")))
    out.append(Mistake("transposed-product", text(node), _put(flipped, sub_g), (
        f"the answer is ∂L/∂{walk.w} transposed: it is {_short(flipped)}, and ∂L/∂{walk.w} "
        f"is {_short(right)} (with {where})")))
    return out


def leaf_mistakes(walk: Walk) -> list[Mistake]:
    """w's gradient left at the shape of w[key] or of sum(w, axis=k): not scattered
    back into zeros, not repeated along the summed axis (one path to w only)."""
    if len(walk.adjoints.get(walk.w, [])) != 1:
        return []
    out = []
    big = _dims(walk.shape(Name(walk.w, AT)))
    for node, g, spread in walk.leaf_picks:
        out.append(Mistake("index-not-scattered", text(node), g, (
            f"the answer is ∂L/∂({text(node)}), of shape {_dims(walk.shape(node))}: "
            f"∂L/∂{walk.w} has {walk.w}'s shape {big}, that gradient in the places "
            f"{text(node)} picks and 0 elsewhere: {text(spread)}, with g = {text(g)}")))
    for node, g, spread in walk.leaf_sums:
        out.append(Mistake("sum-not-broadcast", text(node), g, (
            f"the answer is ∂L/∂({text(node)}), of shape {_dims(walk.shape(node))}: the "
            f"gradient of a sum along an axis is repeated along that axis, back to "
            f"{walk.w}'s shape {big}: {text(spread)}, with g = {text(g)}")))
    return out


def _dims(shape: tuple[int, ...]) -> str:
    return "×".join(str(d) for d in shape) if shape else "scalar"


def _short(e: Any) -> str:
    """A product of a name and g, spaced: X.T @ g."""
    return text(e).replace("@", " @ ")


def _put(e: Any, names: dict[str, Any]) -> Any:
    """e with the placeholder names replaced by expressions."""
    if isinstance(e, Name):
        return names.get(e.id, e)
    if isinstance(e, Binary):
        return Binary(e.op, _put(e.left, names), _put(e.right, names), e.pos)
    if isinstance(e, Unary):
        return Unary(e.op, _put(e.operand, names), e.pos)
    if isinstance(e, Call):
        return Call(e.func, tuple(_put(a, names) for a in e.args), e.pos)
    return e


def program_of(formula: Any, function: Program) -> Program:
    """The formula as a program after the loss's own steps (it may use their names)."""
    steps = tuple(s for s in function.body[:-1] if isinstance(s, Assign))
    return Program((*steps, ExprStmt(formula, AT)), function.source, function.inputs)

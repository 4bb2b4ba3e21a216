"""The gradient of a tensor loss as a formula: reverse-mode matrix calculus on the loss's
own expressions, and the formulas of the usual backprop mistakes.

`derive` walks the loss's statements backwards from the result, passing each
subexpression its adjoint g = ∂L/∂(subexpression) as an expression of the language, by a
small rule set: `+ - * /` (with a sum over the axes a broadcast added), `**` by a number,
`@` (A @ B: g @ B.T and A.T @ g; a matrix times a vector: outer(g, x) and W.T @ g),
`outer`, `transpose`, `sum` and `mean` (whole), `exp`, `log`, `sqrt`, `tanh`, `sigmoid`,
`relu` (where(u > 0, g, 0)), `softmax`, and log(softmax(u)) as one step (g - softmax(u)
* sum(g), so cross-entropy reads softmax(u)*sum(y) - y). Anything else (indexing, `where`,
an axis, control flow) and there is no formula: the caller says so. Shapes come from the
inputs' declared shapes. A formula is only offered after it agrees with the tape's
gradient (tensors.py), so a gap in these rules can cost a formula, never a wrong one.

The formulas are built and printed by backprop_terms.py. The mistakes are the same walk
with one rule changed: relu's mask left out ("mask
missing"), and the last product to the input written in the other order (g @ X.T for
X.T @ g) or transposed (g.T @ X).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gradcalc.language.program import (
    Assign,
    Binary,
    Call,
    Compare,
    ExprStmt,
    Name,
    Num,
    Program,
    Unary,
)
from gradcalc.verify.homework.backprop_terms import (
    AT,
    T,
    Unsupported,
    axis_of,
    call,
    div,
    matmul,
    mul,
    neg,
    power,
    sub,
    text,
    total,
)

Shape = tuple[int, ...]
ELEMENTWISE = ("exp", "log", "sqrt", "tanh", "sigmoid", "relu")


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
    try:
        right = _Walk(program, w, shapes, unmasked=False)
        formula = right.run()
        if formula is None:
            return None
        mistakes = list(right.order_mistakes(formula))
        if right.relus:
            unmasked = _Walk(program, w, shapes, unmasked=True).run()
            if unmasked is not None and text(unmasked) != text(formula):
                at = ", ".join(f"relu({u})" for u in right.relus)
                masks = ", ".join(f"where({u} > 0, …, 0)" for u in right.relus)
                mistakes.insert(0, Mistake("relu-mask-missing", at, unmasked, (
                    f"ReLU mask missing: the gradient passes back through {at} only where "
                    f"its input is positive ({masks}), and the answer lets it through "
                    "everywhere")))
        return Derivation(formula, text(formula), tuple(mistakes))
    except (Unsupported, ValueError, RecursionError):
        return None


class _Walk:
    def __init__(self, program: Program, w: str, shapes: dict[str, Shape],
                 unmasked: bool) -> None:
        self.body = program.body
        self.w, self.unmasked = w, unmasked
        self.shapes = dict(shapes)
        self.adjoints: dict[str, list[Any]] = {}
        self.relus: list[str] = []
        #: the steps that reached w: (node, g, which operand)
        self.leaf_steps: list[tuple[Any, Any, str]] = []

    def run(self) -> Any:
        targets = [s.target for s in self.body if isinstance(s, Assign)]
        if len(set(targets)) < len(targets) or set(targets) & set(self.shapes):
            raise Unsupported("a name assigned twice, or an input assigned")
        for s in self.body:
            if isinstance(s, Assign):
                self.shapes[s.target] = self.shape(s.value)
            elif not isinstance(s, ExprStmt):
                raise Unsupported(type(s).__name__)
        last = self.body[-1]
        if self.shape(last.value) != ():
            raise Unsupported("the loss is not one number")
        self.back(last.value, Num(1.0, AT))
        for s in reversed(self.body[:-1]):
            if isinstance(s, Assign) and s.target in self.adjoints:
                self.back(s.value, total(self.adjoints.pop(s.target)))
        terms = self.adjoints.get(self.w)
        return total(terms) if terms else None

    # ------------------------------------------------------------------ shapes

    def shape(self, e: Any) -> Shape:
        if isinstance(e, Num):
            return ()
        if isinstance(e, Name):
            if e.id not in self.shapes:
                raise Unsupported(e.id)
            return self.shapes[e.id]
        if isinstance(e, Unary):
            return self.shape(e.operand)
        if isinstance(e, Binary):
            a, b = self.shape(e.left), self.shape(e.right)
            if e.op == "@":
                return _matmul_shape(a, b)
            return tuple(np.broadcast_shapes(a, b))
        if isinstance(e, Call) and e.func in ("softmax", "log_softmax") and len(e.args) == 2:
            if axis_of(e) is None:
                raise Unsupported(e.func)
            return self.shape(e.args[0])
        if isinstance(e, Call) and e.func in ("sum", "mean") and len(e.args) == 2:
            a, k = self.shape(e.args[0]), axis_of(e)
            if k is None or not -len(a) <= k < len(a):
                raise Unsupported(f"{e.func} along this axis")
            return a[:k % len(a)] + a[k % len(a) + 1:]
        if isinstance(e, Call) and e.func == "ones" and all(isinstance(n, Num) for n in e.args):
            return tuple(int(n.value) for n in e.args)
        if isinstance(e, Call) and len(e.args) == 1:
            a = self.shape(e.args[0])
            if e.func in ELEMENTWISE or e.func in ("softmax", "log_softmax"):
                return a
            if e.func in ("sum", "mean"):
                return ()
            if e.func == "transpose":
                return a[::-1]
        if isinstance(e, (Call, Compare)) and (isinstance(e, Compare) or e.func == "where"):
            parts = e.operands if isinstance(e, Compare) else e.args
            return tuple(np.broadcast_shapes(*(self.shape(a) for a in parts)))
        if isinstance(e, Call) and e.func == "outer" and len(e.args) == 2:
            return (int(np.prod(self.shape(e.args[0]))), int(np.prod(self.shape(e.args[1]))))
        raise Unsupported(type(e).__name__)

    # ------------------------------------------------------------------ adjoints

    def back(self, e: Any, g: Any) -> None:
        if isinstance(e, Num):
            return
        if isinstance(e, Name):
            if e.id == self.w or any(isinstance(s, Assign) and s.target == e.id
                                     for s in self.body):
                self.adjoints.setdefault(e.id, []).append(g)
            return
        if isinstance(e, Unary):
            self.back(e.operand, neg(g) if e.op == "-" else g)
            return
        if isinstance(e, Binary):
            self._binary(e, g)
            return
        if isinstance(e, Call):
            self._call(e, g)
            return
        raise Unsupported(type(e).__name__)

    def _binary(self, e: Binary, g: Any) -> None:
        u, v = e.left, e.right
        if e.op in "+-":
            self.back(u, self.unbroadcast(g, u))
            self.back(v, self.unbroadcast(neg(g) if e.op == "-" else g, v))
        elif e.op == "*":
            self.back(u, self.unbroadcast(mul(v, g), u))
            self.back(v, self.unbroadcast(mul(u, g), v))
        elif e.op == "/":
            self.back(u, self.unbroadcast(div(g, v), u))
            self.back(v, self.unbroadcast(neg(div(mul(u, g), power(v, 2.0))), v))
        elif e.op == "**" and isinstance(v, Num):
            self.back(u, mul(mul(Num(v.value, AT), power(u, v.value - 1)), g))
        elif e.op == "@":
            self._matmul(e, g)
        else:
            raise Unsupported(e.op)

    def _matmul(self, e: Binary, g: Any) -> None:
        a, b = self.shape(e.left), self.shape(e.right)
        g = self.full(g, e)
        if len(a) == 2 and len(b) == 2:
            left, right = matmul(g, T(e.right)), matmul(T(e.left), g)
        elif len(a) == 2 and len(b) == 1:
            left, right = call("outer", g, e.right), matmul(T(e.left), g)
        elif len(a) == 1 and len(b) == 2:
            left, right = matmul(e.right, g), call("outer", e.left, g)
        elif len(a) == 1 and len(b) == 1:
            left, right = mul(g, e.right), mul(g, e.left)
        else:
            raise Unsupported("@ of more than two dimensions")
        for side, operand, adj in (("left", e.left, left), ("right", e.right, right)):
            if isinstance(operand, Name) and operand.id == self.w:
                self.leaf_steps.append((e, g, side))
            self.back(operand, adj)

    def _call(self, e: Call, g: Any) -> None:
        if e.func == "outer" and len(e.args) == 2:
            p, q = e.args
            g = self.full(g, e)
            if len(self.shape(p)) != 1 or len(self.shape(q)) != 1:
                raise Unsupported("outer")
            self.back(p, matmul(g, q))
            self.back(q, matmul(T(g), p))
            return
        if e.func in ("softmax", "log_softmax") and len(e.args) == 2:
            self._softmax(e, g, e.args[0], e.args[1])
            return
        if len(e.args) != 1:
            raise Unsupported(e.func)
        (u,) = e.args
        if e.func == "sum":
            self.back(u, g)
        elif e.func == "mean":
            self.back(u, div(g, Num(float(np.prod(self.shape(u))), AT)))
        elif e.func == "transpose":
            self.back(u, T(g))
        elif e.func == "exp":
            self.back(u, mul(g, e))
        elif e.func == "log" and isinstance(u, Call) and u.func == "softmax":
            self._softmax(e, g, *u.args, log_of=u)
        elif e.func == "log_softmax":
            self._softmax(e, g, u)
        elif e.func == "log":
            self.back(u, div(g, u))
        elif e.func == "sqrt":
            self.back(u, div(g, mul(Num(2.0, AT), e)))
        elif e.func == "tanh":
            self.back(u, mul(g, sub(Num(1.0, AT), power(e, 2.0))))
        elif e.func == "sigmoid":
            self.back(u, mul(mul(g, e), sub(Num(1.0, AT), e)))
        elif e.func == "relu":
            self.relus.append(text(u))
            self.back(u, g if self.unmasked else call(
                "where", Compare((">",), (u, Num(0.0, AT)), AT), g, Num(0.0, AT)))
        elif e.func == "softmax":
            self._softmax(e, g, u)
        else:
            raise Unsupported(e.func)

    def _softmax(self, e: Call, g: Any, u: Any, axis: Any = None,
                 log_of: Call | None = None) -> None:
        """softmax: s*(g - sum(g*s)); log_softmax and log(softmax): g - s*sum(g); along an
        axis, each slice's sum multiplies its own slice."""
        def scale(v: Any, by: Any) -> Any:  # v times the sums of `by` along the axis
            if axis is None:
                return mul(v, call("sum", by))
            a, rank = axis_of(Call("sum", (u, axis), AT)), len(self.shape(u))
            if a is None or rank > 2 or not -rank <= a < rank:
                raise Unsupported("softmax along this axis")
            if rank == 2 and a % 2 == 1:  # rows: (s.T*sum(v, axis=1)).T
                return T(mul(T(v), call("sum", by, axis)))
            return mul(v, call("sum", by, axis))

        if e.func == "softmax" and axis is None:
            self.back(u, mul(e, sub(g, call("sum", mul(g, e)))))
        elif e.func == "softmax":
            self.back(u, sub(mul(e, g), scale(e, mul(g, e))))
        else:
            s = log_of or (call("softmax", u) if axis is None else call("softmax", u, axis))
            self.back(u, sub(g, scale(s, g)))

    def full(self, g: Any, e: Any) -> Any:
        """g with e's shape: a number that stands for every entry (the adjoint of a sum)
        times ones(...), for the rules that multiply matrices."""
        want, have = self.shape(e), self.shape(g)
        if have == want:
            return g
        if have == () and 1 <= len(want) <= 2:
            return mul(g, call("ones", *(Num(float(n), AT) for n in want)))
        raise Unsupported("a broadcast adjoint")

    def unbroadcast(self, g: Any, operand: Any) -> Any:
        """g summed over the axes a broadcast added to `operand`."""
        want, have = self.shape(operand), self.shape(g)
        if have == want or (isinstance(g, Num) and not isinstance(operand, Num)):
            return g
        if want == ():
            return call("sum", g)
        extra = len(have) - len(want)
        if extra < 0 or have[extra:] != want:
            raise Unsupported("a broadcast along an axis of length 1")
        for _ in range(extra):
            g = Call("sum", (g, Num(0.0, AT)), AT)
        return g

    def order_mistakes(self, formula: Any) -> list[Mistake]:
        """The last product to w in the other order, and transposed (one product only)."""
        if len(self.leaf_steps) != 1 or len(self.adjoints.get(self.w, [])) != 1:
            return []
        node, g, side = self.leaf_steps[0]
        a, b = self.shape(node.left), self.shape(node.right)
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
                f"∂L/∂{self.w} is {_short(right)} (with {where})")))
        out.append(Mistake("transposed-product", text(node), _put(flipped, sub_g), (
            f"the answer is ∂L/∂{self.w} transposed: it is {_short(flipped)}, and ∂L/∂{self.w} "
            f"is {_short(right)} (with {where})")))
        return out


def _short(e: Any) -> str:
    """A product of a name and g, spaced: X.T @ g."""
    return text(e).replace("@", " @ ")


def _matmul_shape(a: Shape, b: Shape) -> Shape:
    """A @ B's shape (vectors and matrices), computed without the product."""
    inner = (a[-1] if a else None) == (b[-2] if len(b) == 2 else b[0] if b else None)
    if not inner or not a or not b or len(a) > 2 or len(b) > 2:
        raise Unsupported("@ of these shapes")
    return a[:-1] + b[1:]


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

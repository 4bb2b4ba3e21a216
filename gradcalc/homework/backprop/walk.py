"""The walk of backprop.py: a loss's statements backwards from the result, each
subexpression given its adjoint g = ∂L/∂(subexpression) as an expression of the language,
by the rule set backprop.py lists. Shapes come from the inputs' declared shapes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.homework.backprop import scatter
from gradcalc.homework.backprop.terms import (
    AT,
    T,
    Unsupported,
    axis_of,
    call,
    div,
    is_number,
    keeps,
    matmul,
    mul,
    neg,
    ones,
    power,
    sub,
    text,
    total,
)
from gradcalc.language.program import (
    Assign,
    Binary,
    Call,
    Compare,
    ExprStmt,
    Index,
    ListLit,
    Name,
    Num,
    Program,
    Unary,
)

Shape = tuple[int, ...]
ELEMENTWISE = ("exp", "log", "sqrt", "tanh", "sigmoid", "relu")


class Walk:
    def __init__(self, program: Program, w: str, shapes: dict[str, Shape],
                 unmasked: frozenset[str] = frozenset(), normalized: bool = False) -> None:
        self.body = program.body
        self.w, self.unmasked, self.normalized = w, unmasked, normalized
        self.shapes = dict(shapes)
        self.inputs = set(shapes)
        self.assigned = {s.target for s in self.body if isinstance(s, Assign)}
        self.adjoints: dict[str, list[Any]] = {}
        self.relus: list[str] = []
        self.wheres: list[str] = []
        #: whether a softmax's targets were taken as normalized (sum(y) = 1)
        self.assumed = False
        #: w picked from or summed along an axis: (node, g, g spread back)
        self.leaf_picks: list[tuple[Any, Any, Any]] = []
        self.leaf_sums: list[tuple[Any, Any, Any]] = []
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
        if not terms:
            return None
        out = total(terms)
        if isinstance(out, Num) and self.shapes[self.w] != ():  # the same for every entry
            return self.full(out, Name(self.w, AT))
        return out

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
        if isinstance(e, Call) and e.func in ("sum", "mean") and len(e.args) in (2, 3):
            a, k = self.shape(e.args[0]), axis_of(e)
            if k is None or not -len(a) <= k < len(a):
                raise Unsupported(f"{e.func} along this axis")
            kept = (1,) if keeps(e) else ()
            return a[:k % len(a)] + kept + a[k % len(a) + 1:]
        if isinstance(e, Index):
            return scatter.index_shape(e, self.shape(e.target))
        if isinstance(e, ListLit) and e.items:
            inner = {self.shape(a) for a in e.items}
            if len(inner) != 1:
                raise Unsupported("a ragged list")
            return (len(e.items), *inner.pop())
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
        if isinstance(e, Num) or not self.depends(e):
            return  # a constant (ones(2), [1, 0], the targets): no gradient to pass
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
        if isinstance(e, Index):
            g, shape = self.full(g, e), self.shape(e.target)
            spread = scatter.scatter(g, e, shape)
            if isinstance(e.target, Name) and e.target.id == self.w:
                self.leaf_picks.append((e, g, scatter.scatter(Name("g", AT), e, shape)))
            self.back(e.target, spread)
            return
        raise Unsupported(type(e).__name__)

    def _binary(self, e: Binary, g: Any) -> None:
        u, v = e.left, e.right
        if e.op in "+-":
            self.back(u, self.unbroadcast(g, u))
            self.back(v, self.unbroadcast(neg(g) if e.op == "-" else g, v))
        elif e.op == "*":
            self.back(u, self.unbroadcast(self.times(v, g), u))
            self.back(v, self.unbroadcast(self.times(u, g), v))
        elif e.op == "/":
            self.back(u, self.unbroadcast(div(scatter.lean(g, self.shape(g), self.shape(v)),
                                              v), u))
            self.back(v, self.unbroadcast(neg(div(mul(u, g), power(v, 2.0))), v))
        elif e.op == "**" and isinstance(v, Num):
            self.back(u, self.times(mul(Num(v.value, AT), power(u, v.value - 1)), g))
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
        if e.func in ("sum", "mean") and len(e.args) in (2, 3):
            self._along(e, g)
            return
        if e.func == "where" and len(e.args) == 3:
            self._where(e, g)
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
            self.back(u, self.times(e, g))
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
            self.back(u, g if "relu" in self.unmasked else call(
                "where", Compare((">",), (u, Num(0.0, AT)), AT), g, Num(0.0, AT)))
        elif e.func == "softmax":
            self._softmax(e, g, u)
        else:
            raise Unsupported(e.func)

    def _along(self, e: Call, g: Any) -> None:
        """sum(u, axis=k): g repeated along axis k; mean: divided by its length too."""
        u, shape, k = e.args[0], self.shape(e.args[0]), axis_of(e)
        if k is None or not shape:
            raise Unsupported(f"{e.func} along this axis")
        k %= len(shape)
        g_shape = self.shape(g)
        if e.func == "mean":
            g = div(g, Num(float(shape[k]), AT))
        if keeps(e):  # g keeps the axis as length 1: NumPy repeats it along that axis
            spread = g if g_shape == () or isinstance(g, Num) else mul(g, call(
                "ones", *(Num(float(n), AT) for n in shape)))
        else:
            spread = scatter.broadcast_back(g, g_shape, shape, k)
        if isinstance(u, Name) and u.id == self.w and spread is not g:
            self.leaf_sums.append((e, g, scatter.broadcast_back(Name("g", AT), g_shape,
                                                                shape, k)))
        self.back(u, spread)

    def _where(self, e: Call, g: Any) -> None:
        """where(c, a, b): g goes to a where c holds, to b elsewhere (c is not
        differentiated)."""
        c, a, b = e.args
        self.wheres.append(text(c))
        if "where" in self.unmasked:
            self.back(a, self.unbroadcast(g, a))
            self.back(b, self.unbroadcast(g, b))
            return
        zero = Num(0.0, AT)
        if not isinstance(a, Num):
            self.back(a, self.unbroadcast(call("where", c, g, zero), a))
        if not isinstance(b, Num):
            self.back(b, self.unbroadcast(call("where", c, zero, g), b))

    def _softmax(self, e: Call, g: Any, u: Any, axis: Any = None,
                 log_of: Call | None = None) -> None:
        """softmax: s*(g - sum(g*s)); log_softmax and log(softmax): g - s*sum(g); along an
        axis, each slice's sum multiplies its own slice."""
        def scale(v: Any, by: Any) -> Any:  # v times the sums of `by` along the axis
            factor = self.target_factor(by)
            if factor is not None:  # sum(y) = 1: one-hot targets
                self.assumed = True
                return mul(Num(factor, AT), v)
            if axis is None:
                return mul(v, call("sum", by))
            a, rank = axis_of(Call("sum", (u, axis), AT)), len(self.shape(u))
            if a is None or rank > 2 or not -rank <= a < rank:
                raise Unsupported("softmax along this axis")
            if rank == 2 and a % 2 == 1:  # rows: each row's sum, kept as a column
                return mul(v, call("sum", by, axis, Num(1.0, AT)))
            return mul(v, call("sum", by, axis))

        if e.func == "softmax" and axis is None:
            self.back(u, mul(e, sub(g, call("sum", mul(g, e)))))
        elif e.func == "softmax":
            self.back(u, sub(mul(e, g), scale(e, mul(g, e))))
        else:
            s = log_of or (call("softmax", u) if axis is None else call("softmax", u, axis))
            self.back(u, sub(g, scale(s, g)))

    def depends(self, e: Any) -> bool:
        """Whether e reads w or a name the loss assigns."""
        if isinstance(e, Name):
            return e.id == self.w or e.id in self.assigned
        if isinstance(e, (Binary, Unary, Call, ListLit, Index, Compare)):
            parts = {Binary: lambda: (e.left, e.right), Unary: lambda: (e.operand,),
                     Call: lambda: e.args, ListLit: lambda: e.items,
                     Index: lambda: (e.target,), Compare: lambda: e.operands}[type(e)]()
            return any(self.depends(p) for p in parts)
        return False

    def times(self, v: Any, g: Any) -> Any:
        """v*g, written as a student would: v*h for g = outer(ones(n), h) (NumPy
        broadcasts the row), where(c, v*h, 0) for g = where(c, h, 0) (the mask outside)."""
        if isinstance(g, Call) and g.func == "where" and len(g.args) == 3 and \
                self.shape(v) == self.shape(g):
            c, a, b = g.args
            if is_number(b, 0) and not is_number(a, 0):
                return call("where", c, self.times(v, a), b)
            if is_number(a, 0):
                return call("where", c, a, self.times(v, b))
        return mul(v, scatter.lean(g, self.shape(g), self.shape(v)))

    def target_factor(self, g: Any) -> float | None:
        """c when g is c times an input other than w (a loss's targets, c = -1 or -1/n)
        and the walk takes targets as normalized; else None."""
        if not self.normalized:
            return None
        factor = 1.0
        while True:
            if isinstance(g, Unary) and g.op == "-":
                factor, g = -factor, g.operand
            elif isinstance(g, Binary) and g.op == "*" and isinstance(g.left, Num):
                factor, g = factor * g.left.value, g.right
            elif isinstance(g, Binary) and g.op == "/" and isinstance(g.right, Num):
                factor, g = factor / g.right.value, g.left
            else:
                break
        if isinstance(g, Name) and g.id in self.inputs and g.id != self.w:
            return factor
        return None

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
        if extra < 0 and len(want) == 2 and have == want[1:]:  # a row, repeated down
            return call("outer", ones(want[0]), g)
        if extra < 0 or len(have[extra:]) != len(want) or any(
                w not in (1, h) for w, h in zip(want, have[extra:], strict=True)):
            raise Unsupported("a broadcast this rule set does not undo")
        for _ in range(extra):
            g = Call("sum", (g, Num(0.0, AT)), AT)
        for i, (w, h) in enumerate(zip(want, have[extra:], strict=True)):
            if w == 1 and h != 1:  # an axis of length 1, repeated: its sum, kept
                g = call("sum", g, Num(float(i), AT), Num(1.0, AT))
        return g


def _matmul_shape(a: Shape, b: Shape) -> Shape:
    """A @ B's shape (vectors and matrices), computed without the product."""
    inner = (a[-1] if a else None) == (b[-2] if len(b) == 2 else b[0] if b else None)
    if not inner or not a or not b or len(a) > 2 or len(b) > 2:
        raise Unsupported("@ of these shapes")
    return a[:-1] + b[1:]



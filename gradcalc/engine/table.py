"""The table of primitives: one entry per operation, and `register`, which derives the rest.

An entry (a `Prim`) holds the NumPy forward, a VJP rule per argument, the sympy twin, the
kinks (text, and a predicate where the tape's convention has no sympy form), its arity in
the language, whether it is elementwise, and its names (aliases, Tensor methods).
`register` puts it in the registry (`PRIMITIVES`, `fn`), the language's `FUNCTIONS`
and on the Tensor class; the library (gradcalc/__init__.py), the symbolic backend and the
tests read the registry. Adding a function is one entry here.

Kinks follow PyTorch (docs/language.md): |x|'(0) = 0, relu'(0) = 0, ties in maximum and
minimum split the gradient in halves, clamp passes the gradient at its bounds, norm'(0) =
0, d(x**y)/dx = 0 where y == 0, d(x**y)/dy = 0 where x == 0 and y >= 0, atan2'(0, 0) = 0.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from gradcalc.engine import elementary, extended, rules, selecting
from gradcalc.engine import forwards as fw
from gradcalc.engine import reductions as red
from gradcalc.engine import twins as tw
from gradcalc.engine.primitive import (
    FUNCTIONS,
    PRIMITIVES,
    Facts,
    Prim,
    apply,
    fn,
    forget_derived,
    public_function,
)
from gradcalc.engine.scratch import negated, over, times, times_own
from gradcalc.engine.shapes import (
    dims,
    ndim,
    normalize_axis,
    ones,
    shape,
    unb,
    unsqueeze,
    value,
    zeros,
)
from gradcalc.engine.tape import ANS, Zero
from gradcalc.engine.tensor import Tensor

LN2, LN10 = math.log(2.0), math.log(10.0)
#: what a one-argument rule reads (`Prim.reads`): its argument, or its output
X, OUT = ((0,),), ((ANS,),)


# --------------------------------------------------------------------------- signatures
# The public functions of entries whose arguments are not all positional tensors.


def _clamp(prim: Prim, x: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A002
    """Clip to [min, max]; either bound may be None, not both (PyTorch's clamp)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return apply(prim, x, -np.inf if min is None else min, np.inf if max is None else max)


def _where(prim: Prim, cond: Any, a: Any, b: Any) -> Any:
    """Pick `a` where `cond` holds, else `b`; the condition is not differentiated."""
    return apply(prim, a, b, cond=np.asarray(value(cond), dtype=bool))


def _reduction(prim: Prim, x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Over all elements, or along `axis` (kept as size 1 if `keepdims`, the language's
    keepdims=True arriving as the number 1)."""
    return apply(prim, x, axis=normalize_axis(axis, ndim(x)), keepdims=bool(keepdims))


def _along(prim: Prim, x: Any, axis: Any = None) -> Any:
    """Over all elements, or along `axis` (one result per slice)."""
    if axis is None:
        return apply(prim, x)
    return apply(prim, x, axis=normalize_axis(axis, ndim(x)))


def _transpose(prim: Prim, x: Any, axes: Any = None) -> Any:
    """All axes reversed, or permuted as `axes` says."""
    return apply(prim, x, axes=None if axes is None else tuple(int(a) for a in axes))


def _reshape(prim: Prim, x: Any, new_shape: Any) -> Any:
    new_shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
    return x if shape(x) == new_shape else apply(prim, x, new_shape=new_shape)


def _broadcast_to(prim: Prim, x: Any, new_shape: tuple[int, ...]) -> Any:
    new_shape = tuple(new_shape)
    return x if shape(x) == new_shape else apply(prim, x, new_shape=new_shape)


def _getitem(prim: Prim, x: Any, index: Any) -> Any:
    return apply(prim, x, index=index if isinstance(index, tuple) else (index,))


def _scatter(prim: Prim, g: Any, index: tuple, x_shape: tuple[int, ...], sub_ndim: int) -> Any:
    return apply(prim, g, index=index, x_shape=x_shape, sub_ndim=sub_ndim)


def _index_put(prim: Prim, x: Any, index: Any, v: Any) -> Any:
    """A copy of `x` with `x[index] = v` (the functional form of index assignment)."""
    return apply(prim, x, v, index=index if isinstance(index, tuple) else (index,))


def _stack(prim: Prim, items: Any) -> Any:
    return apply(prim, *items)


def _index_saved(params: dict) -> bool:
    """Indexing with ints and slices saves nothing in PyTorch; index arrays are saved."""
    return not all(isinstance(i, (int, np.integer, slice)) or i is None or i is Ellipsis
                   or (isinstance(i, np.ndarray) and i.ndim == 0 and i.dtype != bool)
                   for i in params["index"])


def _part_copied(params: dict) -> bool:
    """t[...] = v is a plain copy_ (saves nothing); a part is CopySlices (saves)."""
    return not all(i is Ellipsis or isinstance(i, slice) and i == slice(None)
                   for i in params["index"])


# --------------------------------------------------------------------------- the table


def unary(name: str, forward: Any, vjp: Any, sym: Any, **kw: Any) -> Prim:
    """An elementwise function of one argument: in the language, the library and as a
    Tensor method under its name and aliases."""
    aliases = kw.pop("aliases", ())
    return Prim(name, forward, (vjp,), sym, elementwise=True, arity=(1, 1), aliases=aliases,
                methods=(name, *aliases), **kw)


def binary(name: str, op: Any, ufunc: Any, dx: Any, dy: Any, sym: Any, **kw: Any) -> Prim:
    """An arithmetic operator: elementwise, in the library, not a language function."""
    return Prim(name, fw.scalar_fast(op, ufunc), (dx, dy), sym, elementwise=True, scalar=op,
                **kw)


def _entries() -> list[Prim]:
    P, U, B, el, F = Prim, unary, binary, tw.elementwise, Facts
    everywhere, kinked = F(defined="everywhere"), F(defined="everywhere", kinked=True)
    return [
        P("neg", fw.neg, (lambda g, ans, x: negated(g),), lambda x: -x, "NegBackward0",
          elementwise=True, saves=False, rule="−g"),
        B("add", operator.add, np.add, lambda g, ans, x, y: unb(g, ans, x),
          lambda g, ans, x, y: unb(g, ans, y), lambda x, y: x + y, saves=False, rule="g to both"),
        B("sub", operator.sub, np.subtract, lambda g, ans, x, y: unb(g, ans, x),
          lambda g, ans, x, y: unb(-g, ans, y), lambda x, y: x - y, saves=False, rule=("g", "−g")),
        B("mul", operator.mul, np.multiply, lambda g, ans, x, y: unb(times(g, y), ans, x),
          lambda g, ans, x, y: unb(times(g, x), ans, y), lambda x, y: x * y,
          rule="g × the other factor", reads=((1,), (0,))),
        B("div", operator.truediv, np.true_divide, lambda g, ans, x, y: unb(over(g, y), ans, x),
          rules.div_dy, lambda x, y: x / y, rule=("g / y", "−g·x / y²"), reads=((1,), (0, 1))),
        B("pow", operator.pow, np.power, rules.pow_dx, rules.pow_dy, lambda x, y: x**y,
          kinks="d/dx = 0 where y == 0; d/dy = 0 where x == 0 and y >= 0 (PyTorch)",
          kink=tw.POW_KINK, methods=("pow",), rule=("g·y·x^(y−1)", "g·log(x)·x^y"),
          reads=((0, 1), (0, 1, ANS))),
        P("matmul", fw.matmul, (rules.matmul_da, rules.matmul_db),
          lambda a, b: np.matmul(a, b), "MmBackward0", methods=("matmul", "mm", "mv"),
          rule=("g·Bᵀ", "Aᵀ·g"), reads=((1,), (0,))),
        U("sin", np.sin, lambda g, ans, x: times_own(g, fn.cos(x)), el("sin"), rule="g·cos(x)",
          reads=X,
          facts=F("everywhere", "trig", lambda s, u: s.cos(u), "sin' = cos", ("sin",),
                  glued=True, applied=True, misapplied=("trig-sign",), inverse="asin")),
        U("cos", np.cos, lambda g, ans, x: -g * fn.sin(x), el("cos"), rule="−g·sin(x)", reads=X,
          facts=F("everywhere", "trig", lambda s, u: -s.sin(u), "cos' = −sin", ("cos",),
                  glued=True, applied=True, misapplied=("trig-sign",), inverse="acos")),
        U("tan", np.tan, lambda g, ans, x: times(g, 1.0 + ans * ans), el("tan"),
          rule="g·(1 + tan²x)", reads=OUT,
          facts=F("isolated", "trig", lambda s, u: s.sec(u) ** 2, "tan' = sec²", ("tan",),
                  glued=True, applied=True, misapplied=("trig-sign",), inverse="atan")),
        U("asin", np.arcsin, lambda g, ans, x: over(g, fn.sqrt(1.0 - x * x)), el("asin"),
          aliases=("arcsin",), domain=(-0.8, 0.8), rule="g / sqrt(1 − x²)", reads=X,
          facts=F("unit", "inverse-trig", lambda s, u: 1 / s.sqrt(1 - u**2),
                  "asin'(u) = 1/√(1 − u²)", ("arcsin",), glued=True, applied=True,
                  misapplied=("trig-sign",), inverse="sin")),
        U("acos", np.arccos, lambda g, ans, x: -g / fn.sqrt(1.0 - x * x), el("acos"),
          aliases=("arccos",), domain=(-0.8, 0.8), rule="−g / sqrt(1 − x²)", reads=X,
          facts=F("unit", "inverse-trig", lambda s, u: -1 / s.sqrt(1 - u**2),
                  "acos'(u) = −1/√(1 − u²)", ("arccos",), glued=True, applied=True,
                  misapplied=("trig-sign",), inverse="cos")),
        U("atan", np.arctan, lambda g, ans, x: over(g, 1.0 + x * x), el("atan"),
          aliases=("arctan",), rule="g / (1 + x²)", reads=X,
          facts=F("everywhere", "inverse-trig", lambda s, u: 1 / (1 + u**2),
                  "atan'(u) = 1/(1 + u²)", ("arctan",), glued=True, applied=True,
                  misapplied=("trig-sign",), inverse="tan")),
        P("atan2", np.arctan2, (rules.atan2_dy, rules.atan2_dx),
          tw.piecewise(lambda s, y, x: s.atan2(y, x)), kinks="gradient 0 at (0, 0) (PyTorch)",
          elementwise=True, arity=(2, 2), methods=("atan2",), aliases=("arctan2",),
          rule=("g·x / (x² + y²)", "−g·y / (x² + y²)"), facts=everywhere),
        U("sec", lambda x: 1.0 / np.cos(x), lambda g, ans, x: g * ans * fn.tan(x), el("sec"),
          domain=(-1.2, 1.2), rule="g·sec(x)·tan(x)",
          facts=F("isolated", "trig", lambda s, u: s.sec(u) * s.tan(u), "sec' = sec·tan",
                  ("sec",), glued=True, applied=True, misapplied=("trig-sign",),
                  inverse="asec")),
        U("csc", lambda x: 1.0 / np.sin(x), lambda g, ans, x: -g * ans / fn.tan(x), el("csc"),
          domain=(0.3, 2.8), rule="−g·csc(x)·cot(x)",
          facts=F("isolated", "trig", lambda s, u: -s.csc(u) * s.cot(u), "csc' = −csc·cot",
                  ("csc",), glued=True, applied=True, misapplied=("trig-sign",),
                  inverse="acsc")),
        U("cot", lambda x: 1.0 / np.tan(x), lambda g, ans, x: -g * (1.0 + ans * ans),
          el("cot"), domain=(0.3, 2.8), rule="−g·(1 + cot²x)",
          facts=F("isolated", "trig", lambda s, u: -s.csc(u) ** 2, "cot' = −csc²", ("cot",),
                  glued=True, applied=True, misapplied=("trig-sign",), inverse="acot")),
        U("cbrt", fw.cbrt, lambda g, ans, x: g / (3.0 * ans * ans), tw.piecewise(tw.cbrt),
          kinks="cbrt'(0) = inf (the derivative of x**(1/3))", rule="g / (3·cbrt(x)²)",
          facts=F("everywhere", glued=True)),
        # asec acsc acot, sech csch coth, asinh acosh atanh, asech acsch acoth, logb
        *elementary.entries(),
        U("sinh", np.sinh, lambda g, ans, x: times(g, fn.cosh(x)), el("sinh"), rule="g·cosh(x)",
          reads=X,
          facts=F("everywhere", "hyperbolic", lambda s, u: s.cosh(u), "sinh' = cosh",
                  ("sinh",), glued=True, applied=True, misapplied=("trig-sign",),
                  inverse="asinh")),
        U("cosh", np.cosh, lambda g, ans, x: times(g, fn.sinh(x)), el("cosh"), rule="g·sinh(x)",
          reads=X,
          facts=F("everywhere", "hyperbolic", lambda s, u: s.sinh(u), "cosh' = sinh",
                  ("cosh",), glued=True, applied=True, misapplied=("trig-sign",),
                  inverse="acosh")),
        U("tanh", np.tanh, lambda g, ans, x: times(g, 1.0 - ans * ans), el("tanh"),
          rule="g·(1 − tanh²x)", reads=OUT,
          facts=F("everywhere", "hyperbolic", lambda s, u: s.sech(u) ** 2, "tanh' = sech²",
                  ("tanh",), glued=True, applied=True, inverse="atanh")),
        U("exp", np.exp, lambda g, ans, x: times(g, ans), el("exp"), rule="g·exp(x)", reads=OUT,
          facts=F("everywhere", "exponential", lambda s, u: s.exp(u), "(e^u)' = e^u",
                  ("exp",), outer="e^( )", glued=True, applied=True,
                  misapplied=("exponential-as-power",))),
        U("log", np.log, lambda g, ans, x: over(g, x), el("log"), domain=(0.5, 2.0), rule="g / x",
          reads=X,
          facts=F("positive", "logarithm", lambda s, u: 1 / u, "ln'(u) = 1/u", ("ln", "log"),
                  written="ln", glued=True, applied=True, spellings=("ln",))),
        U("log2", np.log2, lambda g, ans, x: g / (x * LN2),
          tw.piecewise(lambda s, x: s.log(x) / s.log(2)), domain=(0.5, 2.0), rule="g / (x·ln 2)",
          reads=X,
          facts=F("positive", "logarithm", lambda s, u: 1 / (u * s.log(2)),
                  "log_2'(u) = 1/(u·ln(2))", glued=True)),
        U("log10", np.log10, lambda g, ans, x: g / (x * LN10),
          tw.piecewise(lambda s, x: s.log(x) / s.log(10)), domain=(0.5, 2.0), rule="g / (x·ln 10)",
          reads=X,
          facts=F("positive", "logarithm", lambda s, u: 1 / (u * s.log(10)),
                  "log_10'(u) = 1/(u·ln(10))", glued=True)),
        U("sqrt", np.sqrt, lambda g, ans, x: over(g, 2.0 * ans), el("sqrt"),
          kinks="sqrt'(0) = inf", domain=(0.5, 2.0), rule="g / (2·sqrt(x))", reads=OUT,
          facts=F("nonnegative", "power", lambda s, u: 1 / (2 * s.sqrt(u)),
                  "√u = u^(1/2): (√u)' = 1/(2√u)", outer="√( )", glued=True)),
        U("abs", np.abs, lambda g, ans, x: times(g, fn.sgn(x)), el("Abs"), kinks="|x|'(0) = 0",
          kink=tw.ABS_KINK, rule="g·sign(x)", reads=X,
          facts=F("everywhere", "abs", lambda s, u: s.sign(u),
                  "|u|' = sign(u) for u ≠ 0 (0 at u = 0, PyTorch's convention)",
                  outer="| |", glued=True, kinked=True)),
        # the sign inside |x|'s gradient: PyTorch's sgn, whose derivative is its zero tensor
        P("sgn", fw.sign, (lambda g, ans, x: Zero(shape(g)),), tw.piecewise(tw.sign),
          "SgnBackward0", kinks="sgn' = 0", elementwise=True, library=False,
          rule="0 (a zero that stays zero)"),
        U("sign", fw.sign, lambda g, ans, x: np.zeros(shape(g)), tw.piecewise(tw.sign),
          kinks="sign' = 0", saves=False, rule="0",
          facts=F("everywhere", "function", lambda s, u: 0,
                  "sign' = 0, at 0 too: PyTorch's convention", kinked=True)),
        U("relu", fw.relu, rules.relu_vjp, tw.piecewise(tw.relu), kinks="relu'(0) = 0",
          rule="g where x > 0, else 0", facts=kinked, reads=((0, ANS),)),
        # relu's gradient as one node on its result (PyTorch's threshold_backward): internal
        P("threshold_backward", fw.threshold_backward, (rules.threshold_dg,
          rules.threshold_dresult), tw.piecewise(tw.threshold_backward),
          "ThresholdBackwardBackward0", elementwise=True, library=False,
          rule=("g where the result > 0, else 0", "0")),
        U("sigmoid", fw.sigmoid, lambda g, ans, x: times(g, ans) * (1.0 - ans),
          tw.piecewise(lambda s, x: 1 / (1 + s.exp(-x))), rule="g·s·(1 − s)", facts=everywhere,
          reads=OUT),
        U("softplus", fw.softplus, lambda g, ans, x: times(g, fn.sigmoid(x)),
          tw.piecewise(lambda s, x: s.log(1 + s.exp(x))), rule="g·sigmoid(x)",
          facts=everywhere, reads=X),
        P("maximum", np.maximum, (rules.ext_dx(+1), rules.ext_dy(+1)),
          tw.piecewise(tw.maximum), kinks="a tie splits the gradient in halves",
          elementwise=True, arity=(2, 2), methods=("maximum",), rule="g to the larger",
          facts=kinked),
        P("minimum", np.minimum, (rules.ext_dx(-1), rules.ext_dy(-1)),
          tw.piecewise(tw.minimum), kinks="a tie splits the gradient in halves",
          elementwise=True, arity=(2, 2), methods=("minimum",), rule="g to the smaller",
          facts=kinked),
        P("clamp", fw.clamp, (rules.clamp_dx, rules.clamp_dlo, rules.clamp_dhi),
          tw.piecewise(tw.clamp), kinks="the gradient passes at the bounds (PyTorch)",
          kink=tw.CLAMP_KINK, elementwise=True, arity=(3, 3), methods=("clamp", "clip"),
          call=_clamp, rule="g inside the bounds", facts=kinked),
        P("where", fw.where, (rules.where_da, rules.where_db),
          lambda a, b, cond: np.where(cond, a, b), "WhereBackward0", elementwise=True,
          arity=(3, 3), call=_where, rule=("g where the condition holds", "g where it does not"),
          facts=everywhere),
        P("sum", lambda x, axis=None, keepdims=False: np.sum(x, axis=axis, keepdims=keepdims),
          (rules.sum_vjp,), tw.sum_, arity=(1, 3), axis=True, call=_reduction, saves=False,
          rule="g to every element"),
        P("mean", lambda x, axis=None, keepdims=False: np.mean(x, axis=axis, keepdims=keepdims),
          (rules.mean_vjp,), tw.mean, arity=(1, 3), axis=True, call=_reduction, saves=False,
          rule="g / n to every element"),
        P("prod", lambda x, axis=None, keepdims=False: np.prod(x, axis=axis, keepdims=keepdims),
          (rules.prod_vjp,), tw.prod, arity=(1, 2), axis=True, call=_reduction,
          rule="g × the product of the others"),
        P("norm", fw.norm, (rules.norm_vjp,), tw.norm, "LinalgVectorNormBackward0",
          kinks="norm'(0) = 0 (PyTorch)", arity=(1, 2), axis=True, call=_along,
          rule="g·x / norm(x)"),
        *red.entries(_reduction, _along),
        P("transpose", lambda x, axes=None: np.transpose(x, axes), (rules.transpose_vjp,),
          lambda x, axes=None: np.transpose(x, axes), "PermuteBackward0", arity=(1, 1),
          library=False, call=_transpose, saves=False, rule="g transposed back"),
        P("reshape", lambda x, new_shape: np.reshape(x, new_shape), (rules.reshape_vjp,),
          lambda x, new_shape: np.reshape(x, new_shape), "ViewBackward0", call=_reshape,
          saves=False, rule="g reshaped back"),
        P("broadcast_to", lambda x, new_shape: np.broadcast_to(x, new_shape),
          (rules.broadcast_vjp,), lambda x, new_shape: np.broadcast_to(x, new_shape),
          "ExpandBackward0", library=False, call=_broadcast_to, saves=False,
          rule="g summed over the broadcast axes"),
        P("clone", fw.clone, (lambda g, ans, x: g,), lambda x: x, saves=False, rule="g"),
        P("getitem", fw.getitem, (rules.getitem_vjp,),
          lambda x, index: np.asarray(x, dtype=object)[index], "SelectBackward0",
          library=False, call=_getitem, saves=_index_saved, rule="g into the indexed place"),
        P("scatter", fw.scatter, (rules.scatter_vjp,), None, "IndexAddBackward0",
          library=False, call=_scatter, saves=False, rule="g gathered from the indexed places"),
        P("index_put", fw.index_put, (rules.index_put_dx, rules.index_put_dv), None,
          "IndexPutBackward0", library=False, call=_index_put, saves=_part_copied,
          rule=("g except at the overwritten places", "g from the overwritten places")),
        # in-place overwrites keep the tensor's history, as PyTorch's ZeroBackward0,
        # FillBackward2 and CopyBackwards do: the old values get a zero gradient
        *[P(name, fw.overwrite, (rules.overwritten_vjp, rules.source_vjp), tw.overwrite,
            grad_fn, library=False, saves=False,
            rule=("0 to the overwritten values", "g to the new values"))
          for name, grad_fn in (
            ("zero_", "ZeroBackward0"), ("fill_", "FillBackward2"), ("copy_", "CopyBackwards"))],
        # x + alpha * y (add_, sub_ with alpha) as one node that, like PyTorch's
        # AddBackward0, saves no tensor
        P("add_alpha", fw.add_alpha, (lambda g, ans, x, y, alpha: unb(g, ans, x),
                                      lambda g, ans, x, y, alpha: unb(g * alpha, ans, y)),
          lambda x, y, alpha: x + alpha * y, "AddBackward0", elementwise=False, library=False,
          saves=False, rule=("g", "alpha·g")),
        P("stack", fw.stack, (), lambda *items: np.stack(
            [np.asarray(i, dtype=object) for i in items]), "StackBackward0",
          variadic_vjp=rules.stack_vjp, library=False, call=_stack, saves=False,
          rule="g split into the items"),
    ]


# --------------------------------------------------------------------------- registering


def _method(function: Any, prim: Prim) -> Any:
    """A Tensor method: PyTorch's `dim`/`keepdim` for functions along an axis."""
    if not prim.axis:
        return function
    if prim.call is _reduction:
        def method(self: Any, dim: Any = None, keepdim: bool = False) -> Any:
            return function(self, dim, keepdim)
    else:
        def method(self: Any, dim: Any = None) -> Any:
            return function(self, dim)
    method.__name__ = method.__qualname__ = prim.name
    method.__doc__ = function.__doc__
    return method


def register(prim: Prim) -> Prim:
    """Add an entry to the registry, the language's functions and the Tensor class."""
    if any(n in PRIMITIVES or n in FUNCTIONS for n in prim.names):
        raise ValueError(f"the name {prim.name!r} (or an alias) is already taken")
    PRIMITIVES[prim.name] = prim
    forget_derived()
    function = public_function(prim)
    for name in prim.names:
        setattr(fn, name, function)
        if prim.arity is not None:
            FUNCTIONS[name] = (function, prim.arity)
    for name in prim.methods:
        setattr(Tensor, name, _method(function, prim))
    return prim


def unregister(name: str) -> None:
    """Remove an entry added with `register` (tests add their own, then take it out)."""
    prim = PRIMITIVES.pop(name)
    forget_derived()
    for n in prim.names:
        vars(fn).pop(n, None)
        FUNCTIONS.pop(n, None)
    for m in prim.methods:
        if m in vars(Tensor):
            delattr(Tensor, m)


def dot(a: Any, b: Any) -> Any:
    """Dot product of vectors; matrix products for 2-D arguments (like numpy.dot)."""
    return fn.matmul(a, b)


def outer(a: Any, b: Any) -> Any:
    """Outer product of two vectors: a column times a row (numpy.outer), a matrix. Over
    the last axes, so a leading batch axis (the batched backend's) carries through."""
    if ndim(a) < 1 or ndim(b) < 1:
        raise ValueError("outer() takes two vectors")
    return fn.mul(unsqueeze(a, -1), unsqueeze(b, -2))


for _prim in (*_entries(), *extended.entries()):
    register(_prim)
del _prim
extended.attach()
# the Tensor methods max/min follow PyTorch (a (values, indices) pair along a dim; the
# table's max/min, which the language uses, split ties instead); argmax/argmin beside them
Tensor.max, Tensor.min = selecting.extreme(largest=True), selecting.extreme(largest=False)
Tensor.argmax, Tensor.argmin = selecting.arg(largest=True), selecting.arg(largest=False)

#: language functions that are not primitives: constructors, dot (matmul's other name) and
#: outer (a product of reshapes)
FUNCTIONS.update({"dot": (dot, (2, 2)), "ones": (ones, (1, 2)), "zeros": (zeros, (1, 2)),
                  "outer": (outer, (2, 2))})
NOT_PRIMITIVES = frozenset({"dot", "ones", "zeros", "outer"})
__all__ = ["register", "unregister", "dot", "outer", "dims", "NOT_PRIMITIVES"]

"""Table entries for PyTorch's activations and rounding: erf, gelu, silu, elu, leaky_relu,
hardtanh, log_softmax, floor, ceil, round, trunc.

Each is one elementwise entry (log_softmax: along a dim) with its VJP written with the
registry's functions, so it records for higher derivatives, and its sympy twin. Kinks
follow PyTorch: elu and leaky_relu take the left branch's slope only where x < 0 (x > 0
for leaky_relu's own branch, so the slope at 0 is negative_slope), hardtanh passes the
gradient strictly inside (min_val, max_val), rounding has a zero gradient everywhere.
gelu, silu and log_softmax are in the language too; the others are library-only.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gradcalc.engine import twins as tw
from gradcalc.engine.primitive import PRIMITIVES, Facts, Prim, apply, fn
from gradcalc.engine.reductions import _shifted, logsumexp_forward
from gradcalc.engine.rules import masked
from gradcalc.engine.shapes import ndim, normalize_axis, shape, value

_ERF = np.frompyfunc(math.erf, 1, 1)
SQRT2, SQRT2PI = math.sqrt(2.0), math.sqrt(2.0 * math.pi)
TANH_C = math.sqrt(2.0 / math.pi)


def erf(x: Any) -> Any:
    return np.asarray(_ERF(np.asarray(x, dtype=np.float64)), dtype=np.float64)


def _gelu(x, approximate="none"):
    x = np.asarray(x, dtype=np.float64)
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(TANH_C * (x + 0.044715 * x**3)))
    return 0.5 * x * (1.0 + erf(x / SQRT2))


def _gelu_vjp(g, ans, x, approximate="none"):
    if approximate == "tanh":
        inner = TANH_C * (x + 0.044715 * x * x * x)
        t = fn.tanh(inner)
        return g * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * TANH_C
                    * (1.0 + 3 * 0.044715 * x * x))
    return g * (0.5 * (1.0 + fn.erf(x / SQRT2)) + x * fn.exp(-0.5 * x * x) / SQRT2PI)


def _gelu_twin(x, approximate="none"):
    def one(s, v):
        if approximate == "tanh":
            return v / 2 * (1 + s.tanh(s.sqrt(2 / s.pi) * (v + s.Rational(44715, 10**6) * v**3)))
        return v / 2 * (1 + s.erf(v / s.sqrt(2)))
    return tw.piecewise(one)(x)


def _gelu_call(prim: Prim, input: Any, approximate: str = "none") -> Any:  # noqa: A002
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return apply(prim, input, approximate=approximate)


def _silu(x):
    x = np.asarray(x, dtype=np.float64)
    return x * (0.5 * (np.tanh(0.5 * x) + 1.0))


def _silu_vjp(g, ans, x):
    s = fn.sigmoid(x)
    return g * (s * (1.0 + x * (1.0 - s)))


def _elu(x, alpha=1.0):
    x = np.asarray(x, dtype=np.float64)
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0.0)))


def _elu_vjp(g, ans, x, alpha=1.0):
    neg = value(x) <= 0
    if not np.any(neg) and value(g) is g:
        return g * 1.0
    # recorded: a node on x, as PyTorch's; at 0 the slope alpha is a constant, so the
    # second derivative there is 0 (PyTorch's double backward masks with x < 0)
    inner = fn.where(value(x) < 0, g * (alpha * fn.exp(x)), g * alpha)
    return fn.where(neg, inner, g)


def _elu_call(prim: Prim, input: Any, alpha: float = 1.0, inplace: bool = False) -> Any:  # noqa: A002
    return apply(prim, input, alpha=float(alpha))


def _leaky(x, negative_slope=0.01):
    x = np.asarray(x, dtype=np.float64)
    return np.where(x > 0, x, x * negative_slope)


def _leaky_backward(g, x, negative_slope=0.01):
    return np.where(np.asarray(x) > 0, g, np.multiply(g, negative_slope))


def _leaky_vjp(g, ans, x, negative_slope=0.01):
    if value(g) is g:  # a plain sweep
        return _leaky_backward(g, value(x), negative_slope)
    # recorded: one node on (g, x), as PyTorch's leaky_relu_backward, so the gradient
    # takes part in the graph of x (its own derivative in x is 0)
    return apply(PRIMITIVES["leaky_relu_backward"], g, x, negative_slope=negative_slope)


def _leaky_backward_dg(g, ans, grad, x, negative_slope=0.01):
    return _leaky_vjp(g, ans, x, negative_slope)


def _zero_second(g, ans, grad, x, **params):
    return np.zeros(shape(x)) if ndim(g) == ndim(ans) else np.zeros(shape(g)[:ndim(g) - ndim(
        ans)] + shape(x))


def _leaky_call(prim: Prim, input: Any, negative_slope: float = 0.01,  # noqa: A002
                inplace: bool = False) -> Any:
    return apply(prim, input, negative_slope=float(negative_slope))


def _hardtanh(x, min_val=-1.0, max_val=1.0):
    return np.minimum(max_val, np.maximum(min_val, np.asarray(x, dtype=np.float64))) * 1.0


def _hardtanh_backward(g, x, min_val=-1.0, max_val=1.0):
    x = np.asarray(x)
    return np.where((x > min_val) & (x < max_val), g, 0.0)


def _hardtanh_vjp(g, ans, x, min_val=-1.0, max_val=1.0):
    if value(g) is g:
        xv = value(x)
        return masked(g, (xv > min_val) & (xv < max_val))
    return apply(PRIMITIVES["hardtanh_backward"], g, x, min_val=min_val, max_val=max_val)


def _hardtanh_backward_dg(g, ans, grad, x, min_val=-1.0, max_val=1.0):
    return _hardtanh_vjp(g, ans, x, min_val, max_val)


def _hardtanh_call(prim: Prim, input: Any, min_val: float = -1.0, max_val: float = 1.0,  # noqa: A002
                   inplace: bool = False) -> Any:
    return apply(prim, input, min_val=float(min_val), max_val=float(max_val))


def _log_softmax(x, axis=None):
    return np.asarray(x, dtype=np.float64) - logsumexp_forward(x, axis, keepdims=True)


def _log_softmax_vjp(g, ans, x, axis=None):
    return g - fn.exp(ans) * fn.sum(g, _shifted(g, ans, x, axis), True)


def _log_softmax_twin(x, axis=None):
    s = tw.sp()
    x = np.asarray(x, dtype=object)
    total = tw.reduce(tw.apply_each(x, s.exp), axis, s.Add, keepdims=True)
    return x - tw.apply_each(np.broadcast_to(total, x.shape), s.log)


def _log_softmax_call(prim: Prim, input: Any, dim: Any = None, axis: Any = None,  # noqa: A002
                      dtype: Any = None, _stacklevel: int = 3) -> Any:
    d = axis if dim is None else dim
    return apply(prim, input, axis=normalize_axis(d, ndim(input)) if d is not None else None)


def _zero_vjp(g, ans, x, **params):
    return np.zeros(shape(g))  # PyTorch: a constant zero, never recorded


def _round(x, decimals=0):
    return np.round(np.asarray(x, dtype=np.float64), decimals)


def _round_call(prim: Prim, input: Any, decimals: int = 0) -> Any:  # noqa: A002
    return apply(prim, input, decimals=int(decimals))


def _round_twin(x, decimals=0):
    return tw.piecewise(lambda s, v: flat("floor")(v * 10**decimals + s.Rational(1, 2))
                        / 10**decimals)(x)


_FLAT: dict[str, Any] = {}


def flat(name: str) -> Any:
    """sympy's `name` (floor, ceiling) with PyTorch's zero derivative (sympy's own stays
    an unevaluated Derivative)."""
    if name not in _FLAT:
        s = tw.sp()
        _FLAT[name] = type(f"Flat{name}", (getattr(s, name),),
                           {"fdiff": lambda self, argindex=1: s.S.Zero})
    return _FLAT[name]


def entries() -> list[Prim]:
    P = Prim
    el = dict(elementwise=True)
    return [
        P("erf", erf, (lambda g, ans, x: g * (2.0 / math.sqrt(math.pi)) * fn.exp(-x * x),),
          tw.elementwise("erf"), methods=("erf",), rule="g·2/sqrt(pi)·exp(−x²)", **el),
        P("gelu", _gelu, (_gelu_vjp,), _gelu_twin, arity=(1, 1), call=_gelu_call,
          methods=("gelu",), rule="g·(Phi(x) + x·phi(x))", facts=Facts("everywhere"), **el),
        P("silu", _silu, (_silu_vjp,), tw.piecewise(lambda s, v: v / (1 + s.exp(-v))),
          arity=(1, 1), methods=("silu",), rule="g·s·(1 + x·(1 − s)), s = sigmoid(x)",
          facts=Facts("everywhere"), **el),
        P("elu", _elu, (_elu_vjp,), lambda x, alpha=1.0: tw.piecewise(
            lambda s, v: s.Piecewise((v, v > 0), (alpha * (s.exp(v) - 1), True)))(x),
          kinks="the left branch's slope alpha at 0 (PyTorch)", call=_elu_call,
          methods=("elu",), rule="g where x > 0, else g·alpha·exp(x)", **el),
        P("leaky_relu", _leaky, (_leaky_vjp,), lambda x, negative_slope=0.01: tw.piecewise(
            lambda s, v: s.Piecewise((v, v > 0), (negative_slope * v, True)))(x),
          kinks="slope negative_slope at 0 (PyTorch)", call=_leaky_call,
          methods=("leaky_relu",), rule="g where x > 0, else g·negative_slope", **el),
        P("hardtanh", _hardtanh, (_hardtanh_vjp,), lambda x, min_val=-1.0, max_val=1.0:
          tw.piecewise(lambda s, v: s.Piecewise((min_val, v < min_val), (max_val, v > max_val),
                                                (v, True)))(x),
          kinks="no gradient at the bounds (PyTorch)", call=_hardtanh_call,
          methods=("hardtanh",), rule="g strictly inside (min_val, max_val)", **el),
        # the recorded gradients of leaky_relu and hardtanh: one node on (g, x) each
        P("leaky_relu_backward", _leaky_backward, (_leaky_backward_dg, _zero_second),
          lambda g, x, negative_slope=0.01: tw.piecewise(
              lambda s, a, b: s.Piecewise((a, b > 0), (negative_slope * a, True)))(g, x),
          "LeakyReluBackwardBackward0", library=False, elementwise=True,
          rule=("g where x > 0, else g·negative_slope", "0")),
        P("hardtanh_backward", _hardtanh_backward, (_hardtanh_backward_dg, _zero_second),
          lambda g, x, min_val=-1.0, max_val=1.0: tw.piecewise(
              lambda s, a, b: s.Piecewise((a, (b > min_val) & (b < max_val)), (0, True)))(g, x),
          "HardtanhBackwardBackward0", library=False, elementwise=True,
          rule=("g strictly inside the bounds", "0")),
        P("log_softmax", _log_softmax, (_log_softmax_vjp,), _log_softmax_twin,
          "LogSoftmaxBackward0", arity=(1, 2), axis=True, call=_log_softmax_call,
          methods=("log_softmax",), rule="g − softmax(x)·sum(g)"),
        *[P(name, forward, (_zero_vjp,), tw.piecewise(twin), kinks=f"{name}' = 0",
            methods=(name,), saves=False, rule="0", **el)
          for name, forward, twin in (
              ("floor", np.floor, lambda s, v: flat("floor")(v)),
              ("ceil", np.ceil, lambda s, v: flat("ceiling")(v)),
              ("trunc", np.trunc, lambda s, v: s.sign(v) * flat("floor")(s.Abs(v))))],
        P("round", _round, (_zero_vjp,), _round_twin, kinks="round' = 0", call=_round_call,
          methods=("round",), saves=False, rule="0", **el),
    ]

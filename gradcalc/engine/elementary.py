"""The elementary functions of a calculus course beyond the core table: the inverse
reciprocal trig functions, the reciprocal hyperbolic functions and their inverses, the
inverse hyperbolic functions, and the log to
a base. gradcalc/engine/table.py registers `entries()` with its own.

Each entry is elementwise; its VJP is written with the registry's functions (`fn`) so a
second derivative goes through the tape too. Conventions (sympy's, so the check agrees):
acot(x) = atan(1/x), in (-π/2, π/2], which jumps at 0 (acot(0) = π/2); asec and acsc are
defined for |x| >= 1; asech, acsch and acoth are acosh, asinh and atanh of 1/x, as
sympy defines them. `logb(x, b)` = ln(x) / ln(b) is what `log(x, b)`, `log_b(x)` and
`log_{b} x` read as (gradcalc/language/convert.py); `log` alone is the natural log.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.engine import twins as tw
from gradcalc.engine.primitive import Facts, Prim, fn
from gradcalc.engine.shapes import unb


def _unary(name: str, forward: Any, vjp: Any, sym: Any, **kw: Any) -> Prim:
    aliases = kw.pop("aliases", ())
    return Prim(name, forward, (vjp,), sym, elementwise=True, arity=(1, 1), aliases=aliases,
                methods=(name, *aliases), **kw)


def _asec(x: Any) -> Any:
    return np.arccos(1.0 / np.asarray(x, dtype=np.float64))


def _acsc(x: Any) -> Any:
    return np.arcsin(1.0 / np.asarray(x, dtype=np.float64))


def _acot(x: Any) -> Any:
    # atan(1/x): 1/0 is inf, so acot(0) = π/2 (sympy's acot(0))
    with np.errstate(divide="ignore"):
        return np.arctan(1.0 / np.asarray(x, dtype=np.float64))


def _reciprocal(f: Any) -> Any:
    """f(1/x), with 1/0 = inf (asech, acsch, acoth are acosh, asinh, atanh of 1/x)."""
    def forward(x: Any) -> Any:
        with np.errstate(divide="ignore"):
            return f(1.0 / np.asarray(x, dtype=np.float64))
    return forward


def _logb(x: Any, b: Any) -> Any:
    return np.log(x) / np.log(b)


def entries() -> list[Prim]:
    U, el, F = _unary, tw.elementwise, Facts
    return [
        U("asec", _asec, lambda g, ans, x: g / (fn.abs(x) * fn.sqrt(x * x - 1.0)), el("asec"),
          aliases=("arcsec",), domain=(1.2, 3.0), kinks="defined for |x| >= 1",
          rule="g / (|x|·sqrt(x² − 1))", facts=F(tex=("arcsec",), glued=True)),
        U("acsc", _acsc, lambda g, ans, x: -g / (fn.abs(x) * fn.sqrt(x * x - 1.0)), el("acsc"),
          aliases=("arccsc",), domain=(1.2, 3.0), kinks="defined for |x| >= 1",
          rule="−g / (|x|·sqrt(x² − 1))", facts=F(tex=("arccsc",), glued=True)),
        U("acot", _acot, lambda g, ans, x: -g / (1.0 + x * x), el("acot"),
          aliases=("arccot",), kinks="jumps at 0: acot(x) = atan(1/x), acot(0) = π/2",
          rule="−g / (1 + x²)",
          facts=F("everywhere", "inverse-trig", lambda s, u: -1 / (1 + u**2),
                  "acot'(u) = −1/(1 + u²)", ("arccot",), glued=True,
                  misapplied=("trig-sign",))),
        U("sech", lambda x: 1.0 / np.cosh(x), lambda g, ans, x: -g * ans * fn.tanh(x),
          el("sech"), rule="−g·sech(x)·tanh(x)",
          facts=F("everywhere", tex=("sech",), glued=True, applied=True, inverse="asech")),
        U("csch", lambda x: 1.0 / np.sinh(x), lambda g, ans, x: -g * ans / fn.tanh(x),
          el("csch"), domain=(0.3, 2.0), rule="−g·csch(x)·coth(x)",
          facts=F("isolated", tex=("csch",), glued=True, applied=True, inverse="acsch")),
        U("coth", lambda x: 1.0 / np.tanh(x), lambda g, ans, x: g * (1.0 - ans * ans),
          el("coth"), domain=(0.3, 2.0), rule="g·(1 − coth²x)",
          facts=F("isolated", tex=("coth",), glued=True, applied=True, inverse="acoth")),
        U("asinh", np.arcsinh, lambda g, ans, x: g / fn.sqrt(x * x + 1.0), el("asinh"),
          aliases=("arcsinh",), rule="g / sqrt(x² + 1)",
          facts=F("everywhere", "hyperbolic", lambda s, u: 1 / s.sqrt(u**2 + 1),
                  "asinh'(u) = 1/√(u² + 1)", ("arcsinh",), glued=True)),
        U("acosh", np.arccosh, lambda g, ans, x: g / fn.sqrt(x * x - 1.0), el("acosh"),
          aliases=("arccosh",), domain=(1.2, 3.0), kinks="defined for x >= 1",
          rule="g / sqrt(x² − 1)",
          facts=F("one", "hyperbolic", lambda s, u: 1 / s.sqrt(u**2 - 1),
                  "acosh'(u) = 1/√(u² − 1)", ("arccosh",), glued=True)),
        U("atanh", np.arctanh, lambda g, ans, x: g / (1.0 - x * x), el("atanh"),
          aliases=("arctanh",), domain=(-0.8, 0.8), rule="g / (1 − x²)",
          facts=F("open unit", "hyperbolic", lambda s, u: 1 / (1 - u**2),
                  "atanh'(u) = 1/(1 − u²)", ("arctanh",), glued=True)),
        U("asech", _reciprocal(np.arccosh),
          lambda g, ans, x: -g / (x * fn.sqrt(1.0 - x * x)), el("asech"),
          aliases=("arcsech",), domain=(0.2, 0.9), kinks="defined for 0 < x <= 1",
          rule="−g / (x·sqrt(1 − x²))"),
        U("acsch", _reciprocal(np.arcsinh),
          lambda g, ans, x: -g / (fn.abs(x) * fn.sqrt(x * x + 1.0)), el("acsch"),
          aliases=("arccsch",), domain=(0.3, 2.0), kinks="undefined at 0",
          rule="−g / (|x|·sqrt(x² + 1))", facts=F("isolated")),
        U("acoth", _reciprocal(np.arctanh), lambda g, ans, x: g / (1.0 - x * x), el("acoth"),
          aliases=("arccoth",), domain=(1.2, 3.0), kinks="defined for |x| > 1",
          rule="g / (1 − x²)"),
        Prim("logb", _logb, (lambda g, ans, x, b: unb(g / (x * fn.log(b)), ans, x),
                             lambda g, ans, x, b: unb(-g * ans / (b * fn.log(b)), ans, b)),
             tw.piecewise(lambda s, x, b: s.log(x) / s.log(b)), elementwise=True,
             arity=(2, 2), methods=("logb",), domain=(1.5, 3.0),
             rule=("g / (x·ln b)", "−g·log_b(x) / (b·ln b)"), facts=F("positive", "logarithm")),
    ]

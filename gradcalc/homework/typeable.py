"""An expected text a student can type back, or one plain line saying why there is none.

sympy writes some antiderivatives with functions the language does not read: special
functions (∫e^(-x²) dx is √π·erf(x)/2, ∫sin(x)/x dx is Si(x)), hypergeometric series,
and its own bookkeeping of branches (exp_polar, polar_lift). Branches are undone (on
the real line exp_polar(iπ) is -1), a hypergeometric series is expanded where it is
elementary; what is left with a function the language cannot read is not printed as a
formula: the text says the antiderivative is not elementary and names the function in
words, never sympy's name.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.functions.elementary.complexes import unpolarify

from gradcalc.engine.ops import FUNCTIONS

#: sympy's functions that the language prints under a name of its own (abs, where)
PRINTED = frozenset({"Abs", "Piecewise"})
#: special functions in words (a mathematician's name, not sympy's)
WORDS = {
    "erf": "the error function erf", "erfc": "the error function erf",
    "erfi": "the imaginary error function erfi", "Si": "the sine integral Si",
    "Ci": "the cosine integral Ci", "Shi": "the hyperbolic sine integral Shi",
    "Chi": "the hyperbolic cosine integral Chi", "Ei": "the exponential integral Ei",
    "li": "the logarithmic integral li", "Li": "the logarithmic integral li",
    "fresnels": "a Fresnel integral", "fresnelc": "a Fresnel integral",
    "polylog": "the polylogarithm", "LambertW": "the Lambert W function",
    "expint": "an exponential integral", "uppergamma": "an incomplete gamma function",
    "lowergamma": "an incomplete gamma function", "gamma": "the gamma function",
    "hyper": "a hypergeometric function", "meijerg": "a Meijer G-function",
    "elliptic_f": "an elliptic integral", "elliptic_e": "an elliptic integral",
    "elliptic_pi": "an elliptic integral", "elliptic_k": "an elliptic integral",
}
#: what a function without words is called
SPECIAL = "a special function"


def unreadable(expr: Any) -> list[str]:
    """sympy's names of the functions in `expr` that the language cannot read, sorted;
    those of the variables first (Γ(1/4), a number, is named only when nothing else is)."""
    if not isinstance(expr, sp.Basic):
        return []
    found = [f for f in expr.atoms(sp.Function)
             if type(f).__name__ not in FUNCTIONS and type(f).__name__ not in PRINTED]
    varying = [f for f in found if f.free_symbols] or found
    return sorted({type(f).__name__ for f in varying})


def elementary(expr: Any) -> Any:
    """`expr` without sympy's branch bookkeeping (exp_polar(iπ) is -1 on the real line,
    polar_lift(u) is u), hypergeometric series expanded."""
    if not isinstance(expr, sp.Basic):
        return expr
    out = _unbranched(expr)
    if out.has(sp.hyper, sp.meijerg):
        out = _unbranched(sp.hyperexpand(out))
    return out


def _unbranched(expr: Any) -> Any:
    out = unpolarify(expr)
    return out.replace(lambda e: isinstance(e, (sp.exp_polar, sp.polar_lift)),
                       lambda e: sp.exp(e.args[0]) if isinstance(e, sp.exp_polar)
                       else e.args[0])


def why_not(expr: Any) -> str | None:
    """None when `expr` can be typed back; else one plain line saying why not."""
    names = unreadable(expr)
    if names:
        said = list(dict.fromkeys(WORDS[n] for n in names if n in WORDS)) or [SPECIAL]
        return f"(no elementary antiderivative: it needs {' and '.join(said)})"
    if isinstance(expr, sp.Basic) and expr.has(sp.I, sp.zoo, sp.nan):
        return "(no real formula found)"
    return None

"""gradcalc.homework.typeable: every expected antiderivative either types back as a right
answer or says in one plain line that there is no elementary one, never sympy's own
names (exp_polar, polar_lift, hyper, Piecewise, erf(...), Si(...))."""

from __future__ import annotations

import re

import pytest
import sympy as sp

from gradcalc.homework import typeable
from gradcalc.homework.dispatch import check
from gradcalc.homework.kinds.registry import Kind

ANTI = Kind(antiderivative=True)
#: integrands whose antiderivative sympy writes with a special function, a series or a
#: branch of its own (before: exp_polar(π·i), Ei(...), erf(...), hyper(...) printed)
NOT_ELEMENTARY = {
    "e^(-x^2)": "the error function erf", "sin(x)/x": "the sine integral Si",
    "e^x/x": "the exponential integral Ei", "e^(-x)/x": "the exponential integral Ei",
    "1/ln(x)": "the logarithmic integral li", "sin(x^2)": "a Fresnel integral",
    "cos(x)/x": "the cosine integral Ci", "e^(x^2)": "the imaginary error function erfi",
    "1/sqrt(1+x^4)": "a hypergeometric function", "sqrt(1+x^3)": "a hypergeometric function",
    "ln(ln(x))": "the logarithmic integral li", "e^(e^x)": "the exponential integral Ei",
    "sqrt(x) e^(-x)": "the error function erf", "x^2 e^(-x^2)": "the error function erf",
}
#: elementary ones, written by sympy with functions the language reads
ELEMENTARY = ["x^3/sqrt(1+x^4)", "1/(1+x^3)", "sqrt(1-x^2)", "x*asin(x)", "abs(x)",
              "x e^(-x^2)", "1/(x ln(x))", "sec(x)^2", "1/(x^2 + 4)", "x^(2/3)"]
#: sympy's names that a student could not type back
INTERNAL = re.compile(r"exp_polar|polar_lift|\bhyper\(|meijerg|Piecewise|\b(erfi?|Si|Ci|Ei|li|"
                      r"fresnel[sc]|gamma|polylog|Integral)\(|\bI\b|zoo")


@pytest.mark.parametrize("function,needs", NOT_ELEMENTARY.items())
def test_a_non_elementary_antiderivative_is_said_plainly(function, needs):
    expected = check(function, "x + C", None, ANTI).expected
    assert expected == f"(no elementary antiderivative: it needs {needs})"
    assert not INTERNAL.search(expected)


@pytest.mark.parametrize("function", ELEMENTARY)
def test_an_elementary_antiderivative_types_back_as_a_right_answer(function):
    expected = check(function, "x + C", None, ANTI).expected
    assert not INTERNAL.search(expected) and not expected.startswith("("), expected
    assert check(function, expected, None, ANTI).verdict == "correct", expected


def test_sympys_branch_bookkeeping_is_undone():
    x = sp.Symbol("x", real=True)
    polar = sp.Ei(x * sp.exp_polar(sp.I * sp.pi))
    assert typeable.elementary(polar) == sp.Ei(-x)
    assert typeable.unreadable(sp.sin(x) + sp.Abs(x)) == []
    assert typeable.why_not(sp.sqrt(-1 + 0 * x) * x) == "(no real formula found)"

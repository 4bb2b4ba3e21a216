"""gradcalc.render.math_markup: one MathML and LaTeX renderer for every page (sheets,
the teacher's copy, the report), with a book's habits: a constant power of e where the
formula has it, an antiderivative's + C last, a function's label before its `=`."""

from __future__ import annotations

import sympy as sp

from gradcalc.render.math_markup import label_mathml, latex, math_or_code, mathml

x, c, C = sp.symbols("x c C")
E_MINUS_6 = "<msup><mi>e</mi><mn>-6</mn></msup>"


def test_a_constant_power_of_e_stays_where_the_formula_has_it():
    assert latex(sp.exp(-6) * x) == "e^{-6} x"  # not \frac{x}{e^{6}}
    assert latex(2 * sp.exp(-6) * x**2) == "2 e^{-6} x^{2}"
    assert mathml(sp.exp(-6) * x) == f"<mrow>{E_MINUS_6}<mo>&#x2062;</mo><mi>x</mi></mrow>"
    assert "<mfrac>" not in mathml(sp.cos(sp.exp(-3) * x) * sp.exp(-3))
    assert latex(sp.exp(x)) == "e^{x}"  # a power of the variable as sympy prints it


def test_a_parameters_power_of_e_stays_in_place_too():
    assert mathml(sp.exp(c) * x, constants=["c"]).startswith(
        "<mrow><msup><mi>e</mi><mi>c</mi></msup>")


def test_the_constant_of_integration_comes_last():
    assert latex(C + 2 * sp.exp(3 * x)) == "2 e^{3 x} + C"
    assert mathml(C + x).endswith("<mo>+</mo><mi>C</mi></mrow>")


def test_labels_and_what_has_no_formula():
    assert label_mathml("f'(x)") == ("<mi>f</mi><mo>&#x2032;</mo><mrow><mo>(</mo><mi>x</mi>"
                                     "<mo>)</mo></mrow><mo>=</mo>")
    assert label_mathml("∇f") == "<mtext>∇f</mtext><mo>=</mo>"
    assert math_or_code(None, "x <b>") == "<code>x &lt;b&gt;</code>"
    assert math_or_code(x, "x", "f(x)", block=True).startswith('<math display="block"><mi>f')


def test_a_templates_terms_by_degree_as_a_key_writes_them():
    a, n = sp.symbols("a n")
    assert mathml((x**2 + a) ** n, constants=["a", "n"]).startswith(
        "<msup><mrow><mo>(</mo><mrow><msup><mi>x</mi><mn>2</mn></msup><mo>+</mo><mi>a</mi>")

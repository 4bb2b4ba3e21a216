"""The final form of a result: the simplest of its candidates by one documented measure,
never more complex by it than the result as the rules left it."""

from __future__ import annotations

import pytest
import sympy as sp

from gradcalc.homework import proof
from gradcalc.homework.reading.student import formula
from gradcalc.homework.solutions import final_form
from gradcalc.homework.solutions.final_form import final, measure, tidy

x, t = proof.symbol("x"), proof.symbol("t")


@pytest.mark.parametrize("function,answer", [
    ("e^x sin(x)", "(sin(x) - cos(x))·e^x/2"),
    ("1/(x^2 - 1)", "(1/2)·ln(|x - 1|) - (1/2)·ln(|x + 1|)"),
])
def test_an_antiderivative_ends_in_its_textbook_form(invoke, function, answer):
    run = invoke("derive", function, "--antiderivative", "--plain")
    assert run.out.splitlines()[-2] == f"answer: ∫ f(x) dx = {answer} + C"


def test_a_derivative_takes_the_sign_into_its_sum_and_joins_its_exponentials(invoke):
    run = invoke("derive", "t e^(1-2t)", "--plain")
    assert run.out.splitlines()[-2] == "answer: f'(t) = (1 - 2t)·e^(1 - 2t)"


@pytest.mark.parametrize("e", [
    sp.exp(x) * sp.sin(x) / 2 - sp.exp(x) * sp.cos(x) / 2,
    sp.log(sp.Abs(x - 1)) / 2 - sp.log(sp.Abs(x + 1)) / 2,
    3 * x**2 * sp.cos(3 * x) + 2 * x * sp.sin(3 * x),
    sp.exp(1 - 2 * t) - 2 * t * sp.exp(1 - 2 * t),
])
def test_never_more_complex_than_the_unsimplified_result(e):
    chosen = final(e)
    assert measure(chosen) <= measure(e)
    assert sp.simplify(chosen - e) == 0


def test_tidy_keeps_a_form_with_nothing_to_tidy():
    e = 3 * x**2 * sp.cos(3 * x) + 2 * x * sp.sin(3 * x)
    assert formula(tidy(e)) == "3x^2·cos(3x) + 2x·sin(3x)"


@pytest.mark.parametrize("function,answer", [
    ("ln(sec(x) + tan(x))", "sec(x)"),
    ("cos(x)/sin(x)", "-csc(x)^2"),
])
def test_a_reciprocal_of_cos_or_sin_ends_as_sec_or_csc(invoke, function, answer):
    """As textbooks write it: d/dx ln(sec(x) + tan(x)) is sec(x), not 1/cos(x)."""
    run = invoke("derive", function, "--plain")
    assert run.out.splitlines()[-2] == f"answer: f'(x) = {answer}"


def test_splitting_logs_keeps_their_bars():
    """sympy's forced expansion wrote ln((x + 3)^2/(x - 3)^2) as 2ln(x + 3) − 2ln(x − 3),
    false for x < −3 (partial fractions of 12/(9 − x^2) ended judged wrong)."""
    x = sp.Symbol("x", real=True)
    e = 2 * sp.log(sp.Abs(x + 3)) - 2 * sp.log(sp.Abs(x - 3))
    assert final_form.final(e) == e
    assert final_form.split_logs(sp.log((x + 3) ** 2 / (x - 3) ** 2)) == e
    assert final_form.split_logs(sp.log(x * (x + 1))) == sp.log(x * (x + 1))


def test_a_functions_argument_over_one_denominator_is_written_over_it():
    from gradcalc.homework.reading.student import formula
    from gradcalc.homework.solutions.final_form import final, grouped_arguments

    x = sp.Symbol("x", real=True)
    split = sp.atan(x / 5 + sp.Rational(2, 5)) / 5
    assert formula(grouped_arguments(split)) == "atan((x + 2)/5)/5"
    assert formula(final(split)) == "atan((x + 2)/5)/5"
    assert grouped_arguments(sp.sin(x / 2 + 1)) == sp.sin(x / 2 + 1)  # x/2 + 1: two denominators


@pytest.mark.parametrize("e,text,tex", [
    # a fraction times a function by its name: the fraction first, as the table's
    # (1/a)·atan(u/a) and books write it
    (sp.atan(x / 5 + sp.Rational(2, 5)) / 5, "(1/5)·atan((x + 2)/5)",
     r"\frac{1}{5} \operatorname{atan}{\left(\frac{x + 2}{5} \right)}"),
    (-sp.cos(2 * x) / 2, "-(1/2)·cos(2x)", r"- \frac{1}{2} \cos{\left(2 x \right)}"),
    (sp.log(sp.Abs(x - 1)) / 3 - sp.log(sp.Abs(x + 2)) / 3,
     "(1/3)·ln(|x - 1|) - (1/3)·ln(|x + 2|)", None),
    (-x * sp.cos(2 * x) / 2 + sp.sin(2 * x) / 4, "-(1/2)·x·cos(2x) + (1/4)·sin(2x)",
     r"- \frac{1}{2} x \cos{\left(2 x \right)} + \frac{1}{4} \sin{\left(2 x \right)}"),
    (x * sp.atan(x) - sp.log(x**2 + 1) / 2, "x·atan(x) - (1/2)·ln(x^2 + 1)", None),
    # a power keeps the power rule's form, and a line keeps one style
    (x**4 / 4 + 3 * sp.log(sp.Abs(x)), "x^4/4 + 3ln(|x|)", None),
    (sp.sin(x)**2 / 2, "sin(x)^2/2", r"\frac{\sin^{2}{\left(x \right)}}{2}"),
    (sp.exp(3 * x) / 3, "e^(3x)/3", None),
    (x / 2 - sp.sin(2 * x) / 4, "x/2 - sin(2x)/4", None),
    (-sp.cos(2 * x)**3 / 6 + sp.cos(2 * x) / 2, "-cos(2x)^3/6 + cos(2x)/2", None),
    (sp.sin(x) / (2 * sp.pi), "sin(x)/(2π)", None),
])
def test_an_answers_fraction_before_a_function_is_written_first(e, text, tex):
    shown = final_form.shown(final_form.grouped_arguments(e))
    assert shown == text
    if tex is not None:
        assert final_form.shown_latex(final_form.grouped_arguments(e)) == tex


def test_the_answer_and_its_last_steps_print_the_fraction_first_in_every_format(invoke):
    import json

    plain = invoke("derive", "1/(x^2+4x+29)", "--antiderivative", "--plain").out
    out = json.loads(invoke("derive", "1/(x^2+4x+29)", "--antiderivative", "--json").out)
    latex = invoke("derive", "1/(x^2+4x+29)", "--antiderivative", "--latex").out
    rich = invoke("derive", "1/(x^2+4x+29)", "--antiderivative").out
    said = "(1/5)·atan((x + 2)/5)"
    assert plain.splitlines()[-2] == f"answer: ∫ f(x) dx = {said} + C"
    assert out["answer"] == f"∫ f(x) dx = {said} + C"
    assert out["steps"][-2]["after"] == f"{said} + C"
    assert out["steps"][-1]["text"] == f"d/dx({said}) = 1/(x^2 + 4x + 29)"
    assert f"answer   ∫ f(x) dx = {said} + C" in rich
    tex = r"\frac{1}{5} \operatorname{atan}{\left(\frac{x + 2}{5} \right)}"
    assert out["answer_latex"] == rf"\int f(x)\, dx = {tex} + C"
    assert rf"&= {tex} + C" in latex and rf"\frac{{d}}{{d x}}\left({tex}\right)" in latex
    assert rf"Answer: \[ \int f(x)\, dx = {tex} + C \]" in latex


def test_a_negative_answer_keeps_its_fraction_first_beside_the_constant(invoke):
    run = invoke("derive", "sin(2x)", "--antiderivative", "--plain")
    assert "∫ sin(2x) dx = -(1/2)·cos(2x) + C" in run.out
    assert run.out.splitlines()[-2] == "answer: ∫ f(x) dx = -(1/2)·cos(2x) + C"
    latex = invoke("derive", "sin(2x)", "--antiderivative", "--latex").out
    assert r"&= -\frac{1}{2} \cos{\left(2 x \right)} + C" in latex

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
    ("1/(x^2 - 1)", "ln(|x - 1|)/2 - ln(|x + 1|)/2"),
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

"""gradcalc.homework: equivalent forms are correct, wrong answers are incorrect with
a counterexample and the feedback that names the mistake, and domains are respected."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gradcalc.errors import GradcalcError
from gradcalc.homework.judge import Settings, judge
from gradcalc.homework.problem import read_problem
from gradcalc.homework.sample import candidates, evaluate, vectorisable


def verdict(function: str, answer: str, wrt: list[str] | None = None, **settings):
    return judge(read_problem(function, answer, wrt), Settings(**settings))


# --------------------------------------------------------------------------- correct

EQUIVALENT = [
    # trig identities
    ("sin(x)^2", "2 sin(x) cos(x)"),
    ("sin(x)^2", "sin(2x)"),
    ("tan(x)", "1 + tan(x)^2"),
    ("tan(x)", "1/cos(x)^2"),
    ("cos(x)^2 - sin(x)^2", "-2 sin(2x)"),
    # log rules
    ("ln(x^2)", "2/x"),
    ("log(3x)", "1/x"),
    ("log(x/5)", "1/x"),
    ("log(sqrt(x))", "1/(2x)"),
    ("log10(x)", "1/(x ln(10))"),
    # factored vs expanded
    ("(x+1)^3", "3(x+1)^2"),
    ("(x+1)^3", "3x^2 + 6x + 3"),
    ("(x+1)(x-1)", "2x"),
    ("x^3/3 - x", "(x-1)(x+1)"),
    # sqrt(6x) three ways
    ("sqrt(6x)", "3/sqrt(6x)"),
    ("sqrt(6x)", "√6/(2√x)"),
    ("sqrt(6x)", "sqrt(3/(2x))"),
    # x^x, exponentials, notation
    ("x^x", "x^x (ln(x) + 1)"),
    ("x^x", "exp(x ln(x)) (1 + log(x))"),
    ("e^(2x)", "2e^(2x)"),
    ("f(x) = x^2 sin(x)", "2x sin(x) + x^2 cos(x)"),
    ("θ^2 sin(θ)", "θ*(2 sin(θ) + θ cos(θ))"),
    # domains far from zero, narrow domains
    ("sqrt(x - 5)", "1/(2 sqrt(x - 5))"),
    ("log(x - 10)", "1/(x - 10)"),
    ("acos(x/10)", "-1/sqrt(100 - x^2)"),
    ("log(x - 1000)", "1/(x - 1000)"),
    ("asin(x - 3)", "1/sqrt(1 - (x-3)^2)"),
    # kinks: judged away from them
    ("abs(x)", "sign(x)"),
    ("relu(x)", "where(x > 0, 1, 0)"),
]


@pytest.mark.parametrize("function,answer", EQUIVALENT)
def test_equivalent_forms_are_correct(function, answer):
    v = verdict(function, answer)
    assert v.verdict == "correct", (v.reason, v.counterexample)
    assert v.method in ("symbolic", "numeric")
    assert v.method == "symbolic" or len(v.points) >= 8


def test_gradient_and_jacobian_answers():
    assert verdict("x^2 y", "[2x y, x^2]").verdict == "correct"
    assert verdict("x^2 y + y^3", "[3y^2 + x^2, 2xy]".replace("2xy", "2x y"),
                   ["y", "x"]).verdict == "correct"
    v = verdict("[x y, x + y^2]", "[[y, x], [1, 2y]]")
    assert (v.verdict, v.kind) == ("correct", "jacobian")
    assert verdict("[x^2, sin(x)]", "[2x, cos(x)]").verdict == "correct"  # one input: a column
    assert verdict("f(r, θ) = [r cos(θ), r sin(θ)]",
                   "[[cos(θ), -r sin(θ)], [sin(θ), r cos(θ)]]").verdict == "correct"


def test_points_lie_inside_both_domains():
    v = verdict("sqrt(x - 5) + log(20 - x)", "1/(2 sqrt(x-5)) - 1/(20 - x)", samples=10)
    assert v.verdict == "correct"
    for p in v.points:
        assert 5 < p["x"] < 20


def test_a_parameter_is_sampled_but_not_differentiated():
    v = verdict("a x^2", "2 a x", ["x"])
    assert v.verdict == "correct" and v.wrt == ("x",)
    assert all("a" in p for p in v.points)


# --------------------------------------------------------------------------- incorrect

FEEDBACK = [
    ("sin(3x)", "cos(3x)", "at sin(3x): the chain rule's inner factor 3 is missing"),
    ("sin(x^2)", "cos(x^2)", "the chain rule's inner factor (the derivative of x^2)"),
    ("e^(x^2)", "e^(x^2)", "chain rule's inner factor"),
    ("x^2 sin(x)", "2x sin(x)", "a term of the product rule is missing"),
    ("x^2 sin(x)", "2x cos(x)", "not the product of the derivatives"),
    ("x/sin(x)", "1/cos(x)", "not the quotient of the derivatives"),
    ("cos(x)", "sin(x)", "at cos(x): the sign of cos's derivative is wrong"),
    ("1/x", "1/x^2", "the quotient rule's numerator is reversed"),
    ("5x^2", "20x", "off by a constant factor: the answer is 2 times"),
    ("5x^2", "5x", "at x^2: the power rule multiplies by the exponent"),
    ("x^3", "x^4/4", "antiderivative"),
    ("x^3", "x^3", "the function itself"),
    ("x^3", "3x^3", "the power rule lowers the exponent"),
    ("x^2 + 3x", "2x", "differs from the derivative by a constant (-3)"),
]


@pytest.mark.parametrize("function,answer,fragment", FEEDBACK)
def test_wrong_answers_are_incorrect_with_a_counterexample_and_feedback(function, answer,
                                                                       fragment):
    v = verdict(function, answer)
    assert v.verdict == "incorrect"
    assert fragment in (v.feedback or ""), v.feedback
    c = v.counterexample
    assert c is not None and set(c["at"]) == {"x"}
    assert not math.isclose(c["expected"], c["answer"], rel_tol=1e-6)


def test_an_answer_for_another_variable():
    v = verdict("x^2 y", "x^2", ["x"])
    assert v.verdict == "incorrect"
    assert v.feedback == "this is the derivative with respect to y, not x"


def test_swapped_gradient_entries_and_a_transposed_jacobian():
    assert "swapped" in verdict("x^2 y", "[x^2, 2x y]").feedback
    assert "transposed" in verdict("[x y, x + y^2]", "[[y, 1], [x, 2y]]").feedback


def test_a_wrong_shape_is_incorrect_and_says_the_shape():
    v = verdict("x^2 y", "2x y")
    assert v.verdict == "incorrect" and v.counterexample is None
    assert "the gradient has 2 entries (d/dx, d/dy)" in v.feedback


def test_expected_is_readable_and_reads_back():
    v = verdict("sin(3x)", "cos(3x)")
    assert v.expected == "3cos(3x)"
    assert verdict("sin(3x)", v.expected).verdict == "correct"
    assert verdict("e^x + 2pi x", "1").expected == "e^x + 2π"
    assert verdict("e^x + 2pi x", "e^x + 2π").verdict == "correct"


# --------------------------------------------------------------------------- undetermined


def test_no_common_domain_is_undetermined_with_the_reason():
    v = verdict("sqrt(-1 - x^2)", "0")
    assert v.verdict == "undetermined"
    assert "no point found where both sides are defined real numbers" in v.reason


def test_too_few_points_but_a_proof_is_correct():
    v = verdict("x^2", "2x", samples=1000)
    assert (v.verdict, v.method) == ("correct", "symbolic")


def test_tolerances_decide_near_answers():
    assert verdict("pi x", "3.1416").verdict == "incorrect"
    assert verdict("pi x", "3.1416", rtol=1e-3).verdict == "correct"  # WeBWorK's 0.1 %


def test_the_seed_picks_the_points():
    a = verdict("x^2", "2x", seed=1, samples=3).points
    b = verdict("x^2", "2x", seed=1, samples=3).points
    c = verdict("x^2", "2x", seed=2, samples=3).points
    assert a == b != c


# --------------------------------------------------------------------------- bad text


@pytest.mark.parametrize("function,answer,fragment", [
    ("x^2", "2x +", "the answer: cannot read the formula at line 1, column 5"),
    ("x^2", "__import__('os')", "the answer"),
    ("x^2", "2t", "the answer uses 't', which the function does not have"),
    ("sin cos x", "cos(x)", "the function: 'sin' needs parentheses"),
    ("x^2", "[[1, 2], [3]]", "rows have different lengths"),
])
def test_unreadable_text_is_an_error(function, answer, fragment):
    with pytest.raises(GradcalcError) as info:
        read_problem(function, answer)
    assert fragment in info.value.message


def test_wrt_must_name_an_input():
    with pytest.raises(GradcalcError, match="the function does not use it"):
        read_problem("x^2", "2x", ["z"])


# --------------------------------------------------------------------------- sampling


def test_candidates_cover_several_scales():
    rng = np.random.default_rng(0)
    xs = np.concatenate([candidates(rng, ("x",), 0, {"x": []})["x"] for _ in range(20)])
    assert (np.abs(xs) < 2).any() and (np.abs(xs) > 100).any() and (xs < 0).any()
    assert not np.any(xs == np.round(xs))  # no integers: kinks and poles sit there


def test_vectorised_and_pointwise_evaluation_agree():
    p = read_problem("x^2 sin(x)", "norm([x, 1])")
    pts = {"x": np.array([0.5, -1.5, 3.0])}
    f = p.function.entries[0]
    assert vectorisable(f.program) and not vectorisable(p.answer.entries[0].program)
    np.testing.assert_allclose(evaluate(f, pts, ("x",)).grad["x"],
                               2 * pts["x"] * np.sin(pts["x"]) + pts["x"]**2 * np.cos(pts["x"]))
    np.testing.assert_allclose(evaluate(p.answer.entries[0], pts).value,
                               np.sqrt(pts["x"]**2 + 1))


def test_a_functions_formula_is_built_once_and_can_be_forgotten():
    from gradcalc.homework.judge import forget_formulas

    forget_formulas()
    first = verdict("x**3", "3*x**2")
    again = verdict("x**3", "3x^2")  # another answer, the same function: its formula kept
    assert first.verdict == again.verdict == "correct" and first.expected == again.expected
    assert forget_formulas() == 1
    assert forget_formulas() == 0

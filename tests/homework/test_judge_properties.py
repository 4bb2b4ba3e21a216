"""Property: for random expressions built from the primitives table, the true derivative
that `check` prints is judged correct, and that derivative plus a perturbation is not."""

from __future__ import annotations

import re

from expression_strategies import expressions
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from gradcalc.homework.judge import judge
from gradcalc.homework.problem import read_problem

from conftest import examples

UNARY = ["sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "atan", "sinh", "cosh",
         "sigmoid", "softplus", "abs", "asin", "log2"]
LEAVES = st.sampled_from(["x", "y", "2", "3", "0.5", "pi"])


def _expressions() -> st.SearchStrategy[str]:
    return expressions(UNARY, LEAVES, max_leaves=5)


PERTURBATIONS = st.sampled_from(["0.5*x", "x^2/7", "sin(x)/3", "0.001*exp(x/10)", "1",
                                 "-2*cos(x)"])


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_expressions().filter(lambda e: re.search(r"(?<![a-z])x(?![a-z])", e)), PERTURBATIONS)
@example(function="abs((exp(x) * (x)^3))", extra="0.001*exp(x/10)")  # several |x|
@example(function="((x)^3 / log(2))", extra="0.5*x")  # 3/ln(2) is no float in the answer
@example(function="abs(asin(x))", extra="0.5*x")  # no re(asin(x)) in the expected text
@example(function="(x * (sin(pi))^-1)", extra="0.5*x")  # x/0 exactly: no zoo expected
@example(function="(x / sin(pi))", extra="0.5*x")
def test_the_printed_derivative_is_correct_and_a_perturbed_one_is_not(function, extra):
    first = judge(read_problem(function, "0", ["x"]))
    # a function defined nowhere (log(x - x)) has nothing to check
    assume(first.points and not first.expected.startswith("(no formula"))
    again = judge(read_problem(function, first.expected, ["x"]))
    assert again.verdict == "correct", (function, first.expected, again)
    wrong = judge(read_problem(function, f"{first.expected} + {extra}", ["x"]))
    assert wrong.verdict == "incorrect", (function, first.expected, extra, wrong)

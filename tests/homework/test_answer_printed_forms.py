"""No right answer called wrong: an answer typed as the reference's own printed form (the
`expected` text a verdict shows) is never judged incorrect, for every kind (derivative,
N-th derivative, mixed partial, gradient, implicit, antiderivative, tangent line), over a
fixed list of functions with roots, inverse trig, logs and absolute values and over
random ones (hypothesis, derandomized as the suite is: conftest.py)."""

from __future__ import annotations

import pytest
from expression_strategies import expressions
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from gradcalc.errors import GradcalcError
from gradcalc.homework.answer import AnswerJob, run
from gradcalc.homework.kinds.registry import Kind

from conftest import examples

FUNCTIONS = ["sqrt(1-x^2)", "sqrt(x^2-1)", "x*asin(x)", "atan(sqrt(x))", "ln(abs(x))",
             "abs(x)*x", "1/(x*ln(x^2))", "cbrt(x^2)*(x^2+9x)", "acos(x/2)",
             "x/sqrt(4-x^2)", "abs(sin(x))", "sqrt(abs(x))", "1/sqrt(1-x^2)", "x^(2/3)"]
KINDS = {"derivative": {}, "second derivative": {"order": 2},
         "antiderivative": {"antiderivative": True}}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("function", FUNCTIONS)
def test_the_printed_reference_typed_back_is_never_incorrect(function, kind):
    settings = Kind.read(**KINDS[kind])
    expected = run(AnswerJob(function, "0", ["x"], kind=settings)).expected
    assert expected and not expected.startswith("(no formula"), expected
    again = run(AnswerJob(function, expected, ["x"], kind=settings))
    assert again.verdict != "incorrect", (expected, again.feedback)


#: the functions of the random formulas: roots, inverse trig, logs, absolute values
UNARY = ["sqrt", "cbrt", "asin", "acos", "atan", "ln", "abs"]
#: every kind, as (the settings, the inputs named, how the function is made from a formula
#: f of x and y)
KINDS_ALL = {
    "derivative": ({}, ["x"], "{f}"),
    "order": ({"order": 3}, ["x"], "{f}"),
    "partial": ({"partial": "x,y"}, None, "({f}) * (y^2 + abs(y))"),
    "gradient": ({}, ["x", "y"], "({f}) + sqrt(y^2 + 1) * ({f})"),
    "implicit": ({"implicit": "y"}, None, "{f} = y^3 + y"),
    "antiderivative": ({"antiderivative": True}, ["x"], "{f}"),
    "tangent": ({"tangent": "x=0.5"}, None, "{f}"),
}


def _formulas() -> st.SearchStrategy[str]:
    """Two of the functions applied to random formulas in x, joined by + or ·: every
    example has a root, an inverse trig function, a log or an absolute value."""
    leaves = st.sampled_from(["x", "x", "2", "0.5", "(x^2 + 1)", "(1 - x)"])
    inner = expressions(["sin", "exp", "sqrt"], leaves, max_leaves=3)
    return st.tuples(st.sampled_from(UNARY), inner, st.sampled_from(["+", "*"]),
                     st.sampled_from(UNARY), inner).map(
        lambda t: f"{t[0]}({t[1]}) {t[2]} {t[3]}({t[4]})").filter(lambda e: "x" in e)


def _printed(kind: str, formula: str) -> tuple[AnswerJob, str] | None:
    """The job of one kind on `formula` and the expected text it prints (None: the
    function has nothing to check, or no formula to print)."""
    options, wrt, made = KINDS_ALL[kind]
    function = made.format(f=formula)
    settings = Kind.read(**options)
    try:
        first = run(AnswerJob(function, "0", wrt, kind=settings))
    except GradcalcError:  # e.g. the tangent's point outside the function's domain
        return None
    expected = first.expected or ""
    if not expected or expected.startswith("(") or first.verdict == "undetermined":
        return None
    return AnswerJob(function, expected, wrt, kind=settings), expected


@pytest.mark.parametrize("kind", KINDS_ALL)
def test_every_kind_judges_its_printed_reference_not_incorrect(kind):
    """The property, at random functions: every kind's printed reference typed back."""

    @settings(max_examples=examples(10), deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(_formulas())
    @example("sqrt(x) + abs(x)")  # implicit: sympy's where(Eq(x, 0), zoo, ...) was printed
    @example("cbrt(x^2) * abs(x)")  # an odd root below 0: real, as the books take it
    def typed_back(formula: str) -> None:
        printed = _printed(kind, formula)
        assume(printed is not None)
        job, expected = printed  # type: ignore[misc]
        again = run(job)
        assert again.verdict != "incorrect", (job.function, expected, again.feedback)

    typed_back()

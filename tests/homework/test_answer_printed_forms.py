"""No right answer called wrong: an answer typed as the reference's own printed form (the
`expected` text a verdict shows) is never judged incorrect, for the derivative, the second
derivative and the antiderivative, over functions with roots, inverse trig, logs and
absolute values (a fixed list: the verdict depends on no random draw)."""

from __future__ import annotations

import pytest

from gradcalc.homework.answer import AnswerJob, run
from gradcalc.homework.kinds.registry import Kind

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

"""Constants of integration (kinds/antiderivative.py, kinds/derivative.py,
feedback/recognise.py): a required constant takes every real value, a derivative's + C is
a verdict with its mistake named, and "you differentiated" outranks "the + C is missing"."""

from __future__ import annotations

import pytest

from gradcalc.homework.dispatch import check
from gradcalc.homework.kinds.derivative import constant_names
from gradcalc.homework.kinds.registry import Kind


def anti(function, answer, constant="required"):
    return check(function, answer, None, Kind(antiderivative=True, constant=constant))


@pytest.mark.parametrize("answer,values", [
    ("x^3/3 + c^2", "c^2 is a constant that cannot take every value (only [0, ∞))"),
    ("x^3/3 + e^c", "e^c is a constant that cannot take every value (only (0, ∞))"),
    ("x^3/3 - C^2 + 1", "-C^2 is a constant that cannot take every value (only (-∞, 0])"),
    ("x^3/3 + sqrt(K)", "√K is a constant that cannot take every value (only [0, ∞))"),
    ("x^3/3 + (c - 1)^2", "[0, ∞)"),
    ("x^3/3 + atan(c)", "(-π/2, π/2)"),
])
def test_a_constant_must_take_every_value(answer, values):
    v = anti("x^2", answer)
    assert v.verdict == "incorrect" and values in v.feedback, v.feedback
    name = next(n for n in ("c", "C", "K") if n in answer.replace("atan", "").replace(
        "sqrt", ""))
    assert v.feedback.endswith(f": write + {name}")
    # optional or required, a constant written must take every value (issue 35)
    assert anti("x^2", answer, "optional").verdict == "incorrect"


@pytest.mark.parametrize("answer", ["x^3/3 + C", "x^3/3 + 2C", "x^3/3 - C/3",
                                    "x^3/3 + c^3", "x^3/3 + ln(c)", "x^3/3 + sinh(K)",
                                    "x^3/3 + c^3 - c"])
def test_a_constant_that_takes_every_value_is_every_antiderivative(answer):
    assert anti("x^2", answer).verdict == "correct", anti("x^2", answer)


def test_you_differentiated_outranks_the_missing_constant():
    v = anti("x^2", "2x")
    assert v.feedback == ("the answer is the derivative of the function: integrate, don't "
                          "differentiate")
    assert anti("x^2", "x^3").feedback.startswith("the answer's derivative is 3 times")
    assert anti("x^2", "x^3/3").feedback == "the constant of integration is missing: add + C"
    assert anti("x^2", "x^3/3", "optional").verdict == "correct"
    assert anti("x^2", "2x + C").feedback.startswith("the answer is the derivative")
    assert anti("x^2", "x^2 + C").feedback == "the answer is the function itself: integrate it"


def test_a_derivative_with_a_constant_is_a_verdict(invoke):
    r = invoke("check", "x^3", "--answer", "3x^2 + C", "--plain")
    assert r.code == 1 and "a derivative has no constant of integration: leave out + C" \
        in r.out
    r = invoke("check", "x^3", "--answer", "x^4/4 + c", "--plain")
    assert r.code == 1 and "this is an antiderivative of the function" in r.out \
        and "differentiate, don't integrate" in r.out
    r = invoke("check", "x^3", "--answer", "x^2 + K", "--plain")
    assert r.code == 1 and "without it the answer is not the derivative either" in r.out
    assert "f'(x) = 3x^2 + C" in invoke("check", "x^3", "--answer", "3x^2 + C",
                                        "--plain").out
    assert check("x^3", "3x^2 + 0C", None, Kind()).verdict == "correct"


def test_other_unknown_names_stay_input_errors(invoke):
    r = invoke("check", "x^2", "--answer", "2t")
    assert r.code == 2 and "the answer uses 't', which the function does not have" in r.err
    assert constant_names("x^3", "3x^2 + C", None) == ("C",)
    assert constant_names("x^3", "3x^2 + C + K", None) == ()
    assert constant_names("C x^3", "3C x^2", None) == ()
    assert constant_names("x^3", "3x^2 + y", None) == ()


def test_a_higher_derivative_with_a_constant_is_a_verdict_too():
    v = check("x^3", "6x + C", None, Kind(order=2))
    assert v.verdict == "incorrect"

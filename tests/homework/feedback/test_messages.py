"""gradcalc.homework.feedback.messages: the feedback texts several kinds say alike are
written there once, and recognise.constant_ratio finds the constant factor for all."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from gradcalc.homework.feedback import messages
from gradcalc.homework.feedback.recognise import constant_ratio

PACKAGE = Path(__file__).resolve().parents[3] / "gradcalc"


@pytest.mark.parametrize("text", ["sign error", "off by a constant factor",
                                  "is the function itself", "differentiate, don't integrate",
                                  "integrate, don't differentiate"])
def test_a_mistake_text_is_written_once(text):
    where = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
             if text in p.read_text(encoding="utf-8")]
    assert where == ["homework/feedback/messages.py"]


def test_the_texts():
    assert messages.sign_error("dy/dx", why="dy/dx = -F_x/F_y") == (
        "sign error: the answer is the negative of dy/dx (dy/dx = -F_x/F_y)")
    assert messages.sign_error("the function", "the answer's derivative") == (
        "sign error: the answer's derivative is the negative of the function")
    assert messages.constant_factor("2", "the derivative") == (
        "off by a constant factor: the answer is 2 times the derivative")


def test_a_constant_ratio_is_found_where_it_is_finite():
    bottom = np.array([1.0, 2.0, 0.0, -4.0])
    assert constant_ratio(3 * bottom, bottom) == 3.0
    assert constant_ratio(bottom, bottom) is None  # 1 is no factor
    assert constant_ratio(bottom ** 2, bottom) is None
    assert constant_ratio(np.array([1.0, 5.0]), np.array([0.0, 1.0])) is None  # one point


@pytest.mark.parametrize("value, said", [
    (math.e, "e"), (math.exp(-3), "e^(-3) ≈ 0.0498"), (math.pi * 1.5, "3π/2"),
    (math.sqrt(2) / 2, "√2/2"), (1 / 3, "1/3"), (0.25, "1/4"), (12345.678, "12345.678"),
    (math.log(2), "ln(2) ≈ 0.693"), (1 + math.exp(3), "1 + e^3 ≈ 21.1"),
    (0.05 * math.exp(5), "e^5/20 ≈ 7.42"), (7.123456789, "7.12346"), (1e308, "1e+308"),
])
def test_a_number_found_by_comparing_values_is_said_exactly(value, said):
    # the values as the evidence computes them: a ratio of two float64 values, a few
    # ulps off the closed form
    assert messages.number(value * (1 + 2e-16)) == said


def test_a_decimal_only_beside_a_form_whose_size_is_hard_to_see():
    assert messages.number(math.exp(-3), approx=False) == "e^(-3)"
    assert messages.times("1 + e^3 ≈ 21.1", "the derivative") == \
        "the answer is (1 + e^3 ≈ 21.1) times the derivative"
    assert messages.times("e", "the derivative") == "the answer is e times the derivative"


@pytest.mark.parametrize("function, answer, said", [
    ("x^2 sin(x)", "e (2x sin(x) + x^2 cos(x))", "the answer is e times the derivative"),
    ("e^(-3) x", "e^(-2)", "the answer is e times the derivative"),
    ("e^(-3) x", "e", "the answer is (e^4 ≈ 54.6) times the derivative"),
    ("e^(-3) x", "0", "by a constant (-e^(-3) ≈ -0.0498)"),
    ("sin(e^(-3) x)", "cos(e^(-3) x)", "the chain rule's inner factor e^(-3) is missing"),
    ("x^2 + x", "2x + 1 + ln(2)", "by a constant (ln(2) ≈ 0.693)"),
    ("x^2", "x/ln(2)", "the answer is (1/(2ln(2)) ≈ 0.721) times the derivative"),
])
def test_feedback_says_exact_numbers(function, answer, said):
    from gradcalc.homework.dispatch import check

    v = check(function, answer, None)
    assert v.verdict == "incorrect" and said in v.feedback, v.feedback

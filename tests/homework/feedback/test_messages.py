"""gradcalc.homework.feedback.messages: the feedback texts several kinds say alike are
written there once, and recognise.constant_ratio finds the constant factor for all."""

from __future__ import annotations

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

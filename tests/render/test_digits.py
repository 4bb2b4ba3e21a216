"""The display rule of the readable and plain views (render/digits.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gradcalc.errors import GradcalcError
from gradcalc.render.digits import Numbers, full, parse_digits


@pytest.mark.parametrize("value,text", [
    (0.1 + 0.2, "0.3"), (4.0, "4"), (-0.0, "-0"), (1e20, "1e+20"), (2.5, "2.5"),
    (2.5403023058681398, "2.54030230586814"), (6.02e23, "6.02e+23"),
    (math.nan, "nan"), (-math.inf, "-inf"),
])
def test_default_rule(value, text):
    assert Numbers().one(value) == text


def test_rounding_noise_is_zero_and_counted():
    numbers = Numbers()
    assert numbers.one(math.cos(math.pi / 2)) == "0"
    assert numbers.hidden == [math.cos(math.pi / 2)]
    assert "6.123233995736766e-17" in numbers.note()


def test_noise_is_judged_against_its_array():
    numbers = Numbers()
    assert numbers.rows(np.array([1e20, 1e5])) == ["1e+20 0"]
    assert numbers.rows(np.array([1e-3, 1e-16])) == ["0.001 0"]
    assert Numbers().note() is None


def test_full_digits_show_everything():
    numbers = Numbers(digits=None)
    assert numbers.one(math.cos(math.pi / 2)) == "6.123233995736766e-17"
    assert numbers.one(0.1 + 0.2) == "0.30000000000000004"
    assert numbers.hidden == []


def test_fewer_digits():
    assert Numbers(3).literal(np.array([[1 / 3, 2 / 3], [1, 12345.0]])) == \
        "[[0.333, 0.667], [1, 1.23e+04]]"


@pytest.mark.parametrize("value", [0.1, 1 / 3, 1e-300, 1.7976931348623157e308, -2.5e-8])
def test_full_reads_back(value):
    assert float(full(value)) == value


@pytest.mark.parametrize("text,digits", [(None, 15), ("4", 4), ("full", None), (" 17 ", 17)])
def test_parse_digits(text, digits):
    assert parse_digits(text) == digits


@pytest.mark.parametrize("text", ["0", "18", "-1", "x"])
def test_parse_digits_refuses(text):
    with pytest.raises(GradcalcError):
        parse_digits(text)

"""Rational integrands: partial fractions with the cover-up, the square completed."""

from __future__ import annotations

import sympy as sp

from gradcalc.homework.solutions import rational_integrands

x = sp.Symbol("x", real=True)


def test_partial_fractions_of_distinct_linear_factors():
    f = 1 / ((x - 1) * (x + 2))
    assert rational_integrands.partial_fractions(f, x) == sp.apart(f, x)
    assert rational_integrands.cover_up(f, x).endswith(
        "cover-up: A = 1/3 (at x = 1), B = -1/3 (at x = -2)")


def test_a_quadratic_without_real_roots_has_its_square_completed():
    assert rational_integrands.completed_square(1 / (x**2 + 4 * x + 29), x) == (
        1 / ((x + 2) ** 2 + 25))
    assert rational_integrands.completed_square(1 / (x**2 - 1), x) is None


def test_a_perfect_square_denominator_is_written_as_one():
    assert rational_integrands.perfect_power(1 / (x**2 + 4 * x + 4), x) == 1 / (x + 2) ** 2
    assert rational_integrands.perfect_power(1 / (x**2 + 4 * x + 3), x) is None

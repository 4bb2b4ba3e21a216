"""Trig powers and products rewritten as a textbook does before integrating."""

from __future__ import annotations

import sympy as sp

from gradcalc.homework.solutions import trig_powers

x = sp.Symbol("x", real=True)


def test_a_product_of_sines_becomes_a_sum():
    assert trig_powers.product_to_sum(sp.sin(3 * x) * sp.sin(7 * x), x) == (
        sp.cos(4 * x) / 2 - sp.cos(10 * x) / 2)


def test_an_odd_power_of_sin_keeps_one_factor():
    assert trig_powers.odd_power(sp.sin(x) ** 3, x) == sp.sin(x) * (1 - sp.cos(x) ** 2)


def test_a_power_of_tan_is_the_reduction_formulas_step():
    assert trig_powers.tan_power(sp.tan(x) ** 4, x) == (
        sp.tan(x) ** 2 * sp.sec(x) ** 2 - sp.tan(x) ** 2)


def test_one_over_sin_squared_is_csc_squared():
    assert trig_powers.reciprocal_trig(3 / sp.sin(x) ** 2, x) == 3 * sp.csc(x) ** 2

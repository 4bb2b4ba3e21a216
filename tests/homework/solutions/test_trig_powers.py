"""Trig powers and products rewritten as a textbook does before integrating."""

from __future__ import annotations

import pytest
import sympy as sp

from gradcalc.homework.solutions import trig_powers
from gradcalc.homework.solutions.trig_powers import (
    cos_double_angle,
    sine_double_angle,
    split_fraction,
    tan_squared,
)

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


def test_an_odd_power_of_sinh_keeps_one_factor_and_cosh_squared_minus_one():
    assert trig_powers.odd_power(sp.sinh(x) ** 3 * sp.cosh(x) ** 2, x) == (
        sp.sinh(x) * (sp.cosh(x) ** 2 - 1) * sp.cosh(x) ** 2)


def test_the_partner_of_an_odd_power_may_be_a_root():
    assert trig_powers.odd_power(sp.sin(x) ** 3 * sp.sqrt(sp.cos(x)), x) == (
        sp.sin(x) * (1 - sp.cos(x) ** 2) * sp.sqrt(sp.cos(x)))


def test_csc_has_a_reduction_formula_like_sec():
    from gradcalc.homework.solutions import integral_rules, integral_search

    with integral_search.budget():
        rule = trig_powers.sec_reduction(sp.csc(2 * x) ** 3, x, 0, integral_rules.steps)
    assert rule.first == -sp.csc(2 * x) * sp.cot(2 * x) / 4
    gap = (sp.diff(rule.eval(), x) - sp.csc(2 * x) ** 3).subs(x, sp.Rational(3, 10))
    assert abs(sp.N(gap)) < 1e-12


@pytest.mark.parametrize("rewrite,f,g", [
    (split_fraction, (3 - 3 * sp.sin(x)) / sp.cos(x), 3 / sp.cos(x) - 3 * sp.tan(x)),
    (tan_squared, 3 * sp.tan(x) ** 2 * sp.sec(x), 3 * sp.sec(x) ** 3 - 3 * sp.sec(x)),
    (cos_double_angle, 3 * (1 - sp.tan(x) ** 2) / sp.sec(x) ** 2, 3 * sp.cos(2 * x)),
    (sine_double_angle, (sp.cos(x) + sp.sin(x)) / sp.sin(2 * x),
     (sp.cos(x) + sp.sin(x)) / (2 * sp.sin(x) * sp.cos(x))),
])
def test_an_identity_rewrites_to_an_equal_integrand(rewrite, f, g):
    out = rewrite(f, x)
    assert out is not None and sp.simplify(sp.expand_trig(out - g).rewrite(sp.cos)) == 0
    assert sp.simplify(sp.expand_trig(out - f).rewrite(sp.cos)) == 0


@pytest.mark.parametrize("rewrite,f", [
    (split_fraction, (x + 1) / (x - 2)),  # a rational function: partial fractions' job
    (tan_squared, sp.tan(x) ** 2 * sp.sec(x) ** 2),  # u = tan(x) does it
    (cos_double_angle, sp.tan(x) / sp.sec(x) ** 2),
    (sine_double_angle, 1 / sp.sin(2 * x)),
])
def test_an_identity_leaves_other_integrands_alone(rewrite, f):
    assert rewrite(f, x) is None


def test_one_minus_tan_squared_over_sec_squared_has_cos2_minus_sin2_between():
    c, squares = trig_powers.cos_squares(3 * (1 - sp.tan(x) ** 2) / sp.sec(x) ** 2, x)
    assert c == 3 and squares.args == (sp.cos(x) ** 2, -sp.sin(x) ** 2)
    assert trig_powers.cos_squares(sp.tan(x), x) is None


def test_an_even_power_is_reduced_to_powers_of_cos_of_the_double_angle():
    from gradcalc.homework.solutions import integral_rules, integral_search

    with integral_search.budget():
        rule = trig_powers.power_reduction(3 * sp.cos(x) ** 6, x, 0, integral_rules.steps)
        assert trig_powers.power_reduction(sp.sin(x) ** 3, x, 0, integral_rules.steps) is None
    c = sp.cos(2 * x)
    assert rule.coefficient == sp.Rational(3, 8) and rule.powers == (0, 6)
    assert rule.substep.integrand == c**3 + 3 * c**2 + 3 * c + 1
    gap = sp.diff(rule.eval(), x) - 3 * sp.cos(x) ** 6
    assert all(abs(gap.subs(x, v).evalf()) < 1e-12 for v in (0.3, 1.1, -2.0))

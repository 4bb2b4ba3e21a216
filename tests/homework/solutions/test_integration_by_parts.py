"""Parts once, and as a table of derivatives against antiderivatives."""

from __future__ import annotations

import sympy as sp

from gradcalc.homework.solutions import integral_rules, integral_search, integration_by_parts

x = sp.Symbol("x", real=True)


def test_tabular_parts_rows_run_down_to_a_zero_derivative():
    with integral_search.budget():
        rule = integration_by_parts.tabular_parts(x**2 * sp.exp(x), x)
    assert [d for _, d, _ in rule.rows] == [x**2, 2 * x, 2, 0]
    assert sp.simplify(sp.diff(rule.eval(), x) - x**2 * sp.exp(x)) == 0


def test_parts_takes_the_polynomial_for_u():
    with integral_search.budget():
        rule = integration_by_parts.parts(x * sp.cosh(x), x, 0, integral_rules.steps)
    assert rule.u == x and rule.dv == sp.cosh(x)


def test_parts_takes_a_power_of_a_linear_factor_for_dv():
    f = x * sp.exp(x) / (x + 1) ** 2
    with integral_search.budget():
        rule = integration_by_parts.parts_by_rational_factor(f, x, 0, integral_rules.steps)
    assert rule.u == x * sp.exp(x) and rule.dv == (x + 1) ** -2
    assert rule.v_step.eval() == -1 / (x + 1) and rule.second_step.integrand == -sp.exp(x)
    assert sp.simplify(rule.eval() - sp.exp(x) / (x + 1)) == 0
    with integral_search.budget():  # v·du no simpler than f: not this way
        assert integration_by_parts.parts_by_rational_factor(
            sp.sin(x) / (x + 1) ** 2, x, 0, integral_rules.steps) is None

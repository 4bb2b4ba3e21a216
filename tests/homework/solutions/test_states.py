"""The expressions a worked solution passes through print in the order the rule wrote
them, with the parentheses a reader needs, and fold known parts together."""

from __future__ import annotations

import sympy as sp

from gradcalc.homework import proof
from gradcalc.homework.solutions.states import (
    Todo,
    leaf,
    negated,
    pending,
    product,
    quotient,
    replaced,
    text,
    to_sympy,
    total,
)

x, y = proof.symbol("x"), proof.symbol("y")
slope = sp.Symbol("y'", real=True)


def d(expr, shown):
    return pending(Todo("d", shown, shown, expr, x))


def test_the_product_rule_reads_as_it_is_taught():
    u, v = d(x**2, "x^2"), d(sp.sin(3 * x), "sin(3x)")
    state = total([(1, product(u, leaf(sp.sin(3 * x)))), (1, product(leaf(x**2), v))])
    assert text(state) == "d/dx(x^2)·sin(3x) + x^2·d/dx(sin(3x))"


def test_known_parts_fold_and_a_quotient_factor_keeps_its_parentheses():
    inner = d(x - 5, "x - 5")
    assert text(product(leaf(1 / (2 * sp.sqrt(x - 5))), inner)) == \
        "(1/(2√(x - 5)))·d/dx(x - 5)"
    assert text(product(leaf(x), product(leaf(-sp.sin(x)), inner))) == \
        "-x·sin(x)·d/dx(x - 5)"
    assert text(product(leaf(3), leaf(y**2), leaf(slope))) == "3y^2·y'"


def test_signs_in_sums():
    a, b = leaf(x + 1), leaf(x)
    assert text(total([(1, a), (-1, b)])) == "x + 1 - x"
    assert text(total([(1, b), (-1, a)])) == "x - (x + 1)"
    assert text(total([(1, b), (1, leaf(-3 * x))])) == "x - 3x"
    assert text(negated(total([(1, d(x, "x")), (1, b)]))) == "-(d/dx(x) + x)"


def test_a_part_replaced_is_folded_on_the_way_up():
    todo = Todo("d", "3x", "3x", 3 * x, x)
    state = product(leaf(sp.cos(3 * x)), pending(todo))
    after = replaced(state, todo, leaf(3))
    assert after.kind == "leaf" and text(after) == "3cos(3x)"
    assert to_sympy(quotient(leaf(x), leaf(2)), lambda t: 0) == x / 2


def test_a_known_sum_led_by_a_minus_joins_a_sum_with_its_minus():
    import sympy as sp

    from gradcalc.homework.solutions.states import latex, leaf, text, total

    x = sp.Symbol("x")
    t = total([(1, leaf(x)), (1, leaf(-sp.sin(x) / 6 + sp.cos(x)))])
    assert text(t) == "x - sin(x)/6 + cos(x)"
    assert latex(t) == "x - \\frac{\\sin{\\left(x \\right)}}{6} + \\cos{\\left(x \\right)}"


def test_a_substitutions_negative_result_after_a_minus_joins_its_sign():
    """- (the substitution's -1/(4w^2)) prints + 1/(4w^2), not - -1/(4w^2)."""
    from gradcalc.homework.solutions.states import latex, substituted

    w, x = sp.symbols("w x")
    done = substituted(w, x**2 + 1, leaf(-1 / (4 * w**2)))
    state = total([(1, leaf(x)), (-1, done)])
    assert text(state) == "x + 1/(4w^2)"
    assert latex(state) == "x + \\frac{1}{4 w^{2}}"

"""A value at a point as a textbook writes it: the point put into the printed formula,
a product sign wherever a value lands beside a number or another value."""

from __future__ import annotations

import sympy as sp

from gradcalc.homework.solutions.evaluating import put_in, put_in_latex


def test_two_names_side_by_side_become_a_product_of_their_values():
    """2xy at (1, 2) is 2·1·2, never 2·12: in LaTeX, `2 x y` is `2 \\cdot 1 \\cdot 2`."""
    at = {"x": sp.Integer(1), "y": sp.Integer(2)}
    assert put_in_latex("2 x y", at) == r"2 \cdot 1 \cdot 2"
    assert put_in_latex("3 x^{2} y", at) == r"3 \cdot 1^{2} \cdot 2"
    assert put_in("2x·y", at) == "2·1·2"


def test_no_second_product_sign_after_one_or_inside_a_bracket():
    at = {"x": sp.Integer(3), "y": sp.Integer(-1)}
    assert put_in_latex(r"2 \cdot x", at) == r"2 \cdot 3"
    assert put_in_latex(r"\frac{- y}{2 x}", at) == r"\frac{- \left(-1\right)}{2 \cdot 3}"
    assert put_in_latex(r"\sin{\left(x \right)}", at) == r"\sin{\left(3 \right)}"

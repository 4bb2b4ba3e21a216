"""gradcalc.homework.true_derivative: derivatives at kinks: PyTorch's conventions, not sympy's
distributions (no DiracDelta or Heaviside ever reaches a verdict or a printed formula)."""

from __future__ import annotations

import sympy as sp

from gradcalc.homework import proof, true_derivative

x, y = proof.symbol("x"), proof.symbol("y")


def test_the_derivative_of_sign_is_zero_so_every_delta_term_is_dropped():
    assert true_derivative.torch_convention(sp.diff(x * sp.Abs(x), x, 2)) == 2 * sp.sign(x)
    assert true_derivative.torch_convention(sp.diff(sp.Abs(x), x, 2)) == 0
    assert true_derivative.derivatives([x * sp.Abs(x)], ("x",), (("x", "x"),)) == [2 * sp.sign(x)]
    mixed = true_derivative.derivatives([x * sp.Abs(x * y)], ("x", "y"), (("x", "y"),))[0]
    assert not mixed.has(sp.DiracDelta) and mixed.subs({x: 2, y: 3}) == 4


def test_a_step_is_written_with_sign_keeping_its_value_at_0():
    for h in (sp.S.Half, sp.S.Zero, sp.S.One):
        out = true_derivative.torch_convention(sp.Heaviside(x - 1, h) + sp.DiracDelta(x))
        assert not out.has(sp.Heaviside, sp.DiracDelta)
        assert [out.subs(x, v) for v in (0, 1, 2)] == [0, h, 1]


def test_a_squared_sign_is_1_only_where_the_term_is_undefined_at_0():
    second = true_derivative.torch_convention(sp.diff(sp.log(sp.Abs(x)), x, 2))
    assert second == -1 / x**2
    kept = true_derivative._squared_signs(x * sp.sign(x) ** 2 - 1 / x**2 * sp.sign(x) ** 3)
    assert kept == x * sp.sign(x) ** 2 - sp.sign(x) / x**2  # x·sign(x)^2 is 0 at 0, not x
    assert true_derivative._squared_signs(sp.sign(x + y) ** 2 / (x + y)) == sp.sign(x + y) ** 2 / (
        x + y)  # only a symbol's sign


def test_abs_of_what_sympy_cannot_tell_is_real_has_the_real_derivative():
    """asin(x) is real wherever the answer is judged; sympy, not knowing it, wrote d|asin(x)|
    with re, im and atan2's, a text no student can type back."""
    (d,) = true_derivative.derivatives([sp.Abs(sp.asin(x))], ("x",))
    assert d == sp.sign(sp.asin(x)) / sp.sqrt(1 - x**2)
    assert not d.has(sp.re, sp.im, sp.atan2)
    (d2,) = true_derivative.derivatives([sp.Abs(sp.log(x)) * y], ("x", "y"), (("x", "y"),))
    assert d2 == sp.sign(sp.log(x)) / x

"""gradcalc.autograd.gradcheck / gradgradcheck pass and fail where PyTorch's do, on the
custom Functions of docs/pytorch.md (MyReLU, Exp), with PyTorch's error classes and
message."""

from __future__ import annotations

import pytest
from custom_functions import Exp, MyReLU

import gradcalc
from gradcalc.autograd import GradcheckError, gradcheck, gradgradcheck


class ExpWithoutResult(Exp):
    """A student's bug: the gradient of e^x taken as x (the saved input, not the output)."""

    @staticmethod
    def forward(ctx, i):
        ctx.save_for_backward(i)
        return i.exp()


class CubeDetached(gradcalc.autograd.Function):
    """Right first derivative, but computed from a detached input: no second derivative."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x.detach() ** 2


def _x(*values):
    return gradcalc.tensor(list(values), requires_grad=True)


def test_correct_functions_pass():
    assert gradcheck(MyReLU.apply, (_x(-2.0, -0.5, 0.5, 3.0),))
    assert gradcheck(Exp.apply, (_x(0.0, 1.0, 2.0),))
    assert gradgradcheck(Exp.apply, (_x(0.0, 1.0, 2.0),))
    assert gradcheck(CubeDetached.apply, (_x(0.5, 1.0),))


def test_myrelu_at_its_kink_fails_as_in_pytorch():
    """At 0 the finite difference is 0.5 and MyReLU's backward passes 1 (PyTorch's
    gradcheck fails there too)."""
    with pytest.raises(GradcheckError) as caught:
        gradcheck(MyReLU.apply, (_x(0.0, 1.0),))
    assert str(caught.value) == (
        "Jacobian mismatch for output 0 with respect to input 0,\n"
        "numerical:tensor([[0.5000, 0.0000],\n        [0.0000, 1.0000]])\n"
        "analytical:tensor([[1., 0.],\n        [0., 1.]])\n")


def test_a_wrong_backward_fails_with_pytorchs_message():
    with pytest.raises(RuntimeError, match="^Jacobian mismatch for output 0 with respect to "
                                           "input 0,\nnumerical:tensor"):
        gradcheck(ExpWithoutResult.apply, (_x(0.5, 1.0),))
    assert gradcheck(ExpWithoutResult.apply, (_x(0.5, 1.0),), raise_exception=False) is False


def test_a_detached_backward_fails_the_second_order_check():
    with pytest.raises(GradcheckError, match="analytical:tensor\\(\\[\\[0., 0.\\],"):
        gradgradcheck(CubeDetached.apply, (_x(0.5, 1.0),))


def test_several_inputs_and_outputs_and_the_tolerances():
    def two(a, b):
        return a * b, (a + b).sum()

    assert gradcheck(two, (_x(0.5, 1.0), _x(2.0, 3.0)))
    assert gradgradcheck(two, (_x(0.5, 1.0), _x(2.0, 3.0)))
    # a gradient off by 1e-4 relative passes at PyTorch's rtol=1e-3, fails at 1e-6
    scaled = type("Scaled", (Exp,), {"backward": staticmethod(
        lambda ctx, g: g * ctx.saved_tensors[0] * (1 + 1e-4))})
    assert gradcheck(scaled.apply, (_x(1.0),))
    assert not gradcheck(scaled.apply, (_x(1.0),), rtol=1e-6, atol=0.0, raise_exception=False)


def test_no_input_requiring_grad_is_a_value_error():
    with pytest.raises(ValueError, match="gradcheck expects at least one input tensor to "
                                         "require gradient"):
        gradcheck(Exp.apply, (gradcalc.tensor([1.0]),))

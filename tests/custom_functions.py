"""The custom Functions of PyTorch's autograd lesson (docs/pytorch.md's MyReLU and Exp),
written once for the tests of Function, gradcheck and the tutorials' ports."""

from __future__ import annotations

from gradcalc.autograd import Function


class MyReLU(Function):
    @staticmethod
    def forward(ctx, input_):
        ctx.save_for_backward(input_)
        return input_.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        (input_,) = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input_ < 0] = 0
        return grad_input


class Exp(Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result

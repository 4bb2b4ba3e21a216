"""gradcalc.autograd: backward, grad, grad modes and custom Functions, with PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
from custom_functions import Exp

import gradcalc
from gradcalc import autograd
from gradcalc.autograd import Function

FREED = "Trying to backward through the graph a second time"


# --------------------------------------------------------------------------- backward


def test_backward_accumulates_into_the_same_grad_object():
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.backward(gradcalc.ones(2), retain_graph=True)
    g = x.grad
    y.backward(gradcalc.ones(2))
    assert x.grad is g and g.tolist() == [4.0, 8.0]
    assert not g.requires_grad


def test_backward_errors():
    with pytest.raises(RuntimeError) as error:
        gradcalc.tensor([1.0, 2.0]).sum().backward()
    assert str(error.value) == ("element 0 of tensors does not require grad and does not have "
                                "a grad_fn")
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar "
                                           "outputs$"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match=r"grad_output\[0\] has a shape of Size\(\[2, 2\]\) "
                                           r"and output\[0\] has a shape of Size\(\[2\]\)"):
        (x * 2).backward(gradcalc.ones(2, 2))
    with pytest.raises(RuntimeError, match="element 1 of tensors does not require grad"):
        autograd.backward([x.sum(), gradcalc.tensor(1.0)])


def test_a_failed_backward_changes_nothing():
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    with pytest.raises(RuntimeError):
        y.backward(gradcalc.ones(3))
    y.backward(gradcalc.ones(2))
    assert x.grad.tolist() == [3.0, 3.0]


def test_backward_of_a_leaf_and_of_a_list_of_outputs():
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    x.backward(gradcalc.tensor([5.0, 6.0]))
    assert x.grad.tolist() == [5.0, 6.0]
    x.grad = None
    autograd.backward([x.sum(), (x * x).sum()])
    assert x.grad.tolist() == [3.0, 5.0]
    x.grad = None
    autograd.backward([x * 2, x.sum()], [gradcalc.tensor([1.0, 0.0]), None])
    assert x.grad.tolist() == [3.0, 1.0]


def test_a_missing_gradient_for_a_non_scalar_output_in_a_list_raises():
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="implicitly created only for scalar outputs"):
        autograd.backward([x * 2, x * 3], [gradcalc.tensor([1.0, 0.0]), None])


def test_backward_inputs_limits_what_accumulates():
    a = gradcalc.tensor(2.0, requires_grad=True)
    b = gradcalc.tensor(3.0, requires_grad=True)
    m = a * b
    (m * m).backward(inputs=[a])
    assert a.grad.item() == 2 * 6.0 * 3.0 and b.grad is None
    # a non-leaf input gets a .grad too
    a.grad = None
    m = a * b
    (m * m).backward(inputs=[m])
    assert m.grad.item() == 12.0 and a.grad is None
    with pytest.raises(RuntimeError, match="requires_grad=False"):
        (a * b).backward(inputs=[gradcalc.tensor(1.0)])


def test_freed_graph_and_retain_graph():
    x = gradcalc.tensor(3.0, requires_grad=True)
    y = gradcalc.sin(x) * x
    y.backward()
    with pytest.raises(RuntimeError, match=FREED):
        y.backward()
    with pytest.raises(RuntimeError, match=FREED):
        autograd.grad(y, x)
    x.grad = None
    y = gradcalc.sin(x) * x
    for _ in range(3):
        y.backward(retain_graph=True)
    assert x.grad.item() == pytest.approx(3 * (np.sin(3.0) + 3.0 * np.cos(3.0)))


def test_create_graph_on_backward_records_the_gradient():
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    (x**3).sum().backward(create_graph=True)
    assert x.grad.requires_grad and x.grad.tolist() == [3.0, 12.0]
    (x**3).sum().backward(create_graph=True)  # accumulating keeps the graph
    g = x.grad
    assert g.tolist() == [6.0, 24.0] and g.requires_grad
    (h,) = autograd.grad(g.sum(), x)
    assert h.tolist() == [12.0, 24.0]


# --------------------------------------------------------------------------- grad


def test_grad_returns_and_does_not_accumulate():
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    y = gradcalc.tensor(3.0, requires_grad=True)
    gx, gy = autograd.grad((x * y).sum(), [x, y])
    assert gx.tolist() == [3.0, 3.0] and gy.item() == 3.0
    assert x.grad is None and y.grad is None and not gx.requires_grad


def test_grad_with_grad_outputs_and_several_outputs():
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    (g,) = autograd.grad(x**2, x, grad_outputs=gradcalc.tensor([1.0, 0.0]))
    assert g.tolist() == [2.0, 0.0]
    (g,) = autograd.grad([x**2, x.sum()], [x], [gradcalc.tensor([0.0, 1.0]), None])
    assert g.tolist() == [1.0, 5.0]


def test_grad_of_an_intermediate():
    x = gradcalc.tensor(2.0, requires_grad=True)
    m = x * 3
    (gm, gx) = autograd.grad(m * m, [m, x])
    assert gm.item() == 12.0 and gx.item() == 36.0


def test_grad_errors_and_unused_inputs():
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    unused = gradcalc.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError) as error:
        autograd.grad(x.sum(), [x, unused])
    assert str(error.value) == ("The differentiated Tensor at index 1 appears to not have been "
                                "used in the graph. Set allow_unused=True if this is the "
                                "desired behavior.")
    gx, gu = autograd.grad(x.sum(), [x, unused], allow_unused=True)
    assert gu is None
    gx, gu = autograd.grad(x.sum(), [x, unused], materialize_grads=True)
    assert gu.tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="^One of the differentiated Tensors does not require "
                                           "grad$"):
        autograd.grad(x.sum(), [gradcalc.ones(2)])


def test_grad_batched_gives_jacobian_rows_in_one_sweep():
    x = gradcalc.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x**2
    (jac,) = autograd.grad(y, x, gradcalc.eye(3), is_grads_batched=True)
    assert jac.tolist() == np.diag([2.0, 4.0, 6.0]).tolist()
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        autograd.grad(y, x, gradcalc.eye(2), is_grads_batched=True)


def test_higher_derivatives_with_create_graph():
    x = gradcalc.tensor(1.5, requires_grad=True)
    y = gradcalc.exp(2 * x)
    d = y
    for k in range(1, 5):
        (d,) = autograd.grad(d, x, create_graph=True)
        assert d.item() == pytest.approx(2**k * np.exp(3.0))


def test_grad_outputs_on_the_tape_with_create_graph():
    """With create_graph the weights take part in the graph too (as in PyTorch)."""
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    w = gradcalc.tensor([3.0, 4.0], requires_grad=True)
    (g,) = autograd.grad(x**2, x, grad_outputs=w, create_graph=True)  # 2 x w
    (gw,) = autograd.grad(g.sum(), w)
    assert gw.tolist() == [2.0, 4.0]


# --------------------------------------------------------------------------- grad modes


def test_grad_modes():
    x = gradcalc.tensor(1.0, requires_grad=True)
    assert autograd.is_grad_enabled() and gradcalc.is_grad_enabled()
    with gradcalc.no_grad():
        assert not (x * 2).requires_grad and not autograd.is_grad_enabled()
        with gradcalc.enable_grad():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad
    with autograd.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad

    @gradcalc.no_grad()
    def double(t):
        return t * 2

    assert not double(x).requires_grad


def test_variable_is_a_new_leaf():
    t = gradcalc.tensor([2.0, 3.0])
    v = autograd.Variable(t, requires_grad=True)
    assert v.requires_grad and v.is_leaf and not t.requires_grad
    assert not autograd.Variable([1.0]).requires_grad


# --------------------------------------------------------------------------- Function


class MulAdd(Function):
    """a * b + c with a scalar factor k that is not a tensor; gradients for c broadcast."""

    @staticmethod
    def forward(ctx, a, b, k, c):
        ctx.save_for_backward(a, b)
        ctx.k = k
        return a * b * k + c

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        ga = grad_output * b * ctx.k if ctx.needs_input_grad[0] else None
        gb = grad_output * a * ctx.k if ctx.needs_input_grad[1] else None
        return ga, gb, None, grad_output  # c is broadcast: its gradient is summed back


def test_function_is_one_node_named_after_the_class():
    x = gradcalc.tensor([0.0, 1.0], requires_grad=True)
    y = Exp.apply(x)
    assert y.grad_fn.name() == "ExpBackward"
    assert repr(y) == "tensor([1.0000, 2.7183], grad_fn=<ExpBackward>)"
    y.backward(gradcalc.ones(2))
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.0, 1.0]))


def test_function_without_inputs_that_need_grad_records_nothing():
    y = Exp.apply(gradcalc.tensor([0.0]))
    assert y.grad_fn is None and not y.requires_grad
    x = gradcalc.tensor([0.0], requires_grad=True)
    with gradcalc.no_grad():
        assert not Exp.apply(x).requires_grad


def test_function_with_non_tensor_arguments_none_gradients_and_broadcasting():
    a = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    b = gradcalc.tensor([3.0, 4.0])
    c = gradcalc.tensor(10.0, requires_grad=True)
    y = MulAdd.apply(a, b, 2.0, c)
    assert y.tolist() == [16.0, 26.0]
    y.sum().backward()
    assert a.grad.tolist() == [6.0, 8.0]
    assert c.grad.item() == 2.0  # the (2,) gradient summed to c's shape ()


def test_function_backward_errors():
    class TooFew(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    class WrongShape(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return gradcalc.ones(3)

    class ExtraNones(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, None

    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError) as error:
        TooFew.apply(x, x).sum().backward()
    assert str(error.value) == ("function TooFewBackward returned an incorrect number of "
                                "gradients (expected 2, got 1)")
    with pytest.raises(RuntimeError) as error:
        WrongShape.apply(x).sum().backward()
    assert str(error.value) == ("Function WrongShapeBackward returned an invalid gradient at "
                                "index 0 - got [3] but expected shape compatible with [2]")
    ExtraNones.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_function_legacy_and_unimplemented():
    x = gradcalc.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="^Legacy autograd function with non-static forward "
                                           "method is deprecated"):
        Exp()(x)

    class NoBackward(Function):
        @staticmethod
        def forward(ctx, a):
            return a + 1

    with pytest.raises(NotImplementedError):
        NoBackward.apply(x).sum().backward()
    with pytest.raises(NotImplementedError):
        Function.apply(x)


def test_function_saved_tensors_are_freed_with_the_graph():
    seen = {}

    class Keep(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            seen["ctx"] = ctx
            return a * 1

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 1

    x = gradcalc.tensor([1.0], requires_grad=True)
    y = Keep.apply(x)
    assert seen["ctx"].saved_tensors[0].tolist() == [1.0]
    y.sum().backward(retain_graph=True)
    assert seen["ctx"].saved_tensors[0].tolist() == [1.0]
    y.sum().backward()
    with pytest.raises(RuntimeError, match=FREED):
        seen["ctx"].saved_tensors  # noqa: B018
    with pytest.raises(RuntimeError, match=FREED):
        y.sum().backward()
    with pytest.raises(TypeError, match="save_for_backward can only save variables"):
        autograd.FunctionCtx().save_for_backward(x, 1.0)


def test_function_output_that_is_its_input_is_a_new_tensor():
    class Identity(Function):
        @staticmethod
        def forward(ctx, a):
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 3  # deliberately not the identity's derivative, to see it used

    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and y.grad_fn.name() == "IdentityBackward"
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_function_with_several_outputs():
    class SinCos(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a.sin(), a.cos()

        @staticmethod
        def backward(ctx, gs, gc):
            (a,) = ctx.saved_tensors
            return gs * a.cos() - gc * a.sin()

    x = gradcalc.tensor([0.3, 0.7], requires_grad=True)
    s, c = SinCos.apply(x)
    np.testing.assert_allclose(s.detach().numpy(), np.sin([0.3, 0.7]))
    (s * 2 + c).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos([0.3, 0.7]) - np.sin([0.3, 0.7]))
    x.grad = None
    s, c = SinCos.apply(x)
    s.sum().backward()  # the unused output's gradient is zeros
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.3, 0.7]))


def test_function_takes_part_in_create_graph_jacobians_and_hessians():
    x0 = np.array([0.2, -0.4, 0.9])
    # second derivative through the Function's backward (recorded with create_graph)
    x = gradcalc.tensor(x0, requires_grad=True)
    y = (Exp.apply(x * x)).sum()
    (g,) = autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 2 * x0 * np.exp(x0**2))
    (h,) = autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), (2 + 4 * x0**2) * np.exp(x0**2))
    # a batch of cotangents (a whole Jacobian in one sweep) goes through backward row by row
    jac = gradcalc.jacobian(lambda a: Exp.apply(a * 2), x0)
    np.testing.assert_allclose(jac, np.diag(2 * np.exp(2 * x0)))
    hess = gradcalc.hessian(lambda a: Exp.apply(a).sum() * a[0], x0)
    expected = np.diag(np.exp(x0)) * x0[0]
    expected[0, :] += np.exp(x0)
    expected[:, 0] += np.exp(x0)
    np.testing.assert_allclose(hess, expected)
    (rows,) = autograd.grad(Exp.apply(x), x, gradcalc.eye(3), is_grads_batched=True)
    np.testing.assert_allclose(rows.numpy(), np.diag(np.exp(x0)))


def test_function_saved_input_keeps_its_value_after_in_place_changes():
    class Square(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g

    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    m = x * 1.0
    y = Square.apply(m)
    m += 10.0
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_function_node_is_freed_by_reference_counting():
    """ctx keeps a saved output as an index, so node -> ctx -> output -> node is no cycle."""
    import gc
    import weakref

    x = gradcalc.tensor([0.5, 1.0], requires_grad=True)
    enabled = gc.isenabled()
    gc.disable()
    try:
        y = Exp.apply(x)
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None
    finally:
        if enabled:
            gc.enable()

"""PyTorch's behaviour in the library's corners, pinned with PyTorch's own values.

Every expected value, `.grad` (None included), `requires_grad` and error below was
measured with torch 2.13.0 (CPU, float64) on the same code with `torch` for `gradcalc`;
these tests need no torch. tests/engine/test_autograd_differential.py compares the two libraries on
generated scripts when torch is installed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import gradcalc
from gradcalc.autograd import Function, grad

FREED = "Trying to backward through the graph a second time"
NO_GRAD = "element 0 of tensors does not require grad and does not have a grad_fn"
UNUSED = "appears to not have been used in the graph"


def leaf(*values: float) -> gradcalc.Tensor:
    return gradcalc.tensor(list(values), requires_grad=True)


# --------------------------------------------------------------------------- second backward
# Only a node that saved tensors for its backward raises once the graph is freed.


@pytest.mark.parametrize(("build", "expected"), [
    (lambda x: (x + 1).sum(), [2.0, 2.0]),
    (lambda x: (1 - x).sum(), [-2.0, -2.0]),
    (lambda x: (-x).sum(), [-2.0, -2.0]),
    (lambda x: x.mean(), [1.0, 1.0]),
    (lambda x: x[0], [2.0, 0.0]),
    (lambda x: x[0:1].sum(), [2.0, 0.0]),
    (lambda x: x.reshape(2, 1).t().sum(), [2.0, 2.0]),
    (lambda x: x.expand(3, 2).sum(), [6.0, 6.0]),
    (lambda x: gradcalc.stack([x, x]).sum(), [4.0, 4.0]),
    (lambda x: x.clone().unsqueeze(0).sum(), [2.0, 2.0]),
    (lambda x: x.sign().sum() + x.sum(), [2.0, 2.0]),
])
def test_second_backward_through_a_graph_that_saved_nothing(build, expected):
    x = leaf(1.0, 2.0)
    y = build(x)
    y.backward()
    y.backward()
    assert x.grad.tolist() == expected


@pytest.mark.parametrize("build", [
    lambda x: (x * 2).sum(),  # mul saves its other operand, even a number
    lambda x: (x / 2).sum(),
    lambda x: (x * x).sum(),
    lambda x: x.exp().sum(),
    lambda x: x[[0, 1]].sum(),  # an index array is saved
    lambda x: x[x > 1].sum(),
    lambda x: gradcalc.where(x > 1, x, x + 1).sum(),
    lambda x: x.norm(),
])
def test_second_backward_through_a_node_that_saved_tensors_raises(build):
    x = leaf(1.0, 2.0)
    y = build(x)
    y.backward()
    with pytest.raises(RuntimeError, match=FREED):
        y.backward()


class Twice(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


class Square(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return 2 * a * g


def test_second_backward_through_custom_functions():
    x = leaf(1.0, 2.0)
    y = Twice.apply(x).sum()
    y.backward()
    y.backward()
    assert x.grad.tolist() == [4.0, 4.0]
    y = Square.apply(x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=FREED):
        y.backward()


# --------------------------------------------------------------------------- create_graph


def test_relu_second_derivative_is_zeros_on_the_graph():
    x = leaf(-1.0, 2.0)
    (g,) = grad(gradcalc.relu(x).sum(), x, create_graph=True)
    assert g.tolist() == [0.0, 1.0] and g.requires_grad
    (h,) = grad(g.sum(), x)
    assert h.tolist() == [0.0, 0.0]


def test_relu_third_derivative_stays_on_the_graph():
    # PyTorch's relu backward is threshold_backward(g, result): a node on the result even
    # for a constant g, so a third derivative is zeros, and nan where 1/0 meets them
    x = leaf(1.0, -1.0)
    (g,) = grad(gradcalc.relu(x).sum(), x, create_graph=True)
    (h,) = grad(g.sum(), x, create_graph=True)
    assert g.grad_fn.name() == h.grad_fn.name() == "ThresholdBackwardBackward0"
    (k,) = grad(h.sum(), x)
    assert k.tolist() == [0.0, 0.0]
    x, y = leaf(2.0, 0.0, -1.0), gradcalc.tensor([1.5], requires_grad=True)
    (g,) = grad(gradcalc.relu(y / x).sum(), y, create_graph=True)
    (h,) = grad(g.sum(), y, create_graph=True)
    (k,) = grad(h.sum(), y)
    assert g.tolist() == [math.inf] and math.isnan(h.item()) and math.isnan(k.item())


def test_third_derivative_of_a_square_is_zero():
    s = gradcalc.tensor(3.0, requires_grad=True)
    (g,) = grad(s ** 2, s, create_graph=True)
    (h,) = grad(g, s, create_graph=True)
    assert (g.item(), h.item(), h.requires_grad) == (6.0, 2.0, True)
    (k,) = grad(h, s)
    assert k.item() == 0.0


def test_difference_with_itself():
    s = gradcalc.tensor(3.0, requires_grad=True)
    (g,) = grad((s - s) ** 2, s, create_graph=True)
    (h,) = grad(g, s)
    assert (g.item(), h.item()) == (0.0, 0.0)


@pytest.mark.parametrize("exponent", [0.0, 0])
def test_power_zero_has_a_constant_derivative(exponent):
    x = leaf(0.0, 2.0)
    (g,) = grad((x ** exponent).sum(), x, create_graph=True)
    assert g.tolist() == [0.0, 0.0] and not g.requires_grad
    with pytest.raises(RuntimeError, match=NO_GRAD):
        grad(g.sum(), x)


def test_power_one_second_derivative_is_constant():
    x = leaf(1.0, 2.0)
    (g,) = grad((x ** 1.0).sum(), x, create_graph=True)
    (h,) = grad(g.sum(), x, create_graph=True)
    assert g.requires_grad and h.tolist() == [0.0, 0.0] and not h.requires_grad


def test_linear_graph_gives_a_constant_gradient():
    x = leaf(1.0, 2.0)
    (g,) = grad((x + 1).sum(), x, create_graph=True)
    assert g.tolist() == [1.0, 1.0] and not g.requires_grad and g.is_leaf
    with pytest.raises(RuntimeError, match=NO_GRAD):
        grad(g.sum(), x)


# --------------------------------------------------------------------------- custom Function


class FirstOnly(Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * b

    @staticmethod
    def backward(ctx, g):
        return g * 2, None


def test_backward_returning_none_leaves_grad_none():
    a, c = leaf(1.0, 2.0), leaf(1.0, 2.0)
    FirstOnly.apply(a, c).sum().backward()
    assert a.grad.tolist() == [2.0, 2.0] and c.grad is None


def test_grad_of_an_input_given_none_raises_or_is_none():
    a, c = leaf(1.0, 2.0), leaf(1.0, 2.0)
    with pytest.raises(RuntimeError, match=UNUSED):
        grad(FirstOnly.apply(a, c).sum(), [a, c])
    ga, gc = grad(FirstOnly.apply(a, c).sum(), [a, c], allow_unused=True)
    assert ga.tolist() == [2.0, 2.0] and gc is None
    ga, gc = grad(FirstOnly.apply(a, c).sum(), [a, c], materialize_grads=True)
    assert gc.tolist() == [0.0, 0.0]


# --------------------------------------------------------------------------- in place


def test_zero_keeps_history():
    x = leaf(1.0, 2.0)
    h = x * 3
    h.zero_()
    assert h.requires_grad and not h.is_leaf and h.grad_fn.name() == "ZeroBackward0"
    h.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_fill_keeps_history():
    x = leaf(1.0, 2.0)
    h = x * 3
    h.fill_(2.0)
    assert h.tolist() == [2.0, 2.0] and h.grad_fn.name() == "FillBackward2"
    h.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_copy_passes_the_gradient_to_the_source_only():
    x, w = leaf(1.0, 2.0), leaf(5.0, 6.0)
    h = x * 3
    h.copy_(w * 2)
    assert h.tolist() == [10.0, 12.0] and h.grad_fn.name() == "CopyBackwards"
    h.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0] and w.grad.tolist() == [2.0, 2.0]


def test_copy_into_a_constant_and_broadcast():
    x = leaf(1.0, 2.0)
    h = gradcalc.zeros(2, 2)
    h.copy_(x + 0)
    h.sum().backward()
    h.sum().backward()  # copy_ and add save nothing
    assert x.grad.tolist() == [4.0, 4.0]


def test_overwrites_save_nothing():
    x = leaf(1.0, 2.0)
    y = (x + 0).zero_().sum()
    y.backward()
    y.backward()
    assert x.grad.tolist() == [0.0, 0.0]


# --------------------------------------------------------------------------- singular points


def test_hessian_of_the_norm_at_zero_is_nan():
    x = leaf(0.0, 0.0)
    (g,) = grad(x.norm(), x, create_graph=True)
    assert g.tolist() == [0.0, 0.0]
    (h,) = grad(g[0], x)
    assert all(math.isnan(v) for v in h.tolist())
    assert np.isnan(gradcalc.hessian(lambda v: v.norm(), [0.0, 0.0])).all()


def test_second_derivative_of_reciprocal_at_zero_is_inf():
    x = gradcalc.tensor(0.0, requires_grad=True)
    (g,) = grad(1 / x, x, create_graph=True)
    (h,) = grad(g, x)
    assert (g.item(), h.item()) == (-math.inf, math.inf)


def test_norm_gradient_at_zero_stays_zero():
    x = leaf(0.0, 0.0)
    x.norm().backward()
    assert x.grad.tolist() == [0.0, 0.0]


# --------------------------------------------------------------------------- found by the
# differential test (tests/engine/test_autograd_differential.py), pinned with PyTorch's values


def test_grad_runs_only_what_the_inputs_need():
    x, y = leaf(1.0, 2.0), leaf(3.0, 4.0)
    e = y.norm()
    assert grad(e, x, allow_unused=True) == (None,)  # nothing ran, so nothing was freed
    (gy,) = grad(e, y)
    assert gy.tolist() == pytest.approx([0.6, 0.8])


def test_leaves_finished_before_a_freed_node_keep_their_gradient():
    x, y = leaf(1.0, 2.0), leaf(3.0, 4.0)
    e = (x.exp() + y).clone()
    e.sum().backward()
    with pytest.raises(RuntimeError, match=FREED):
        e.sum().backward()  # clone and add ran, y was finished, exp had been freed
    assert y.grad.tolist() == [2.0, 2.0]


def test_retained_gradient_fills_in_autograd_grad():
    x = leaf(1.0, 2.0)
    e = x * 2
    e.retain_grad()
    e.sum().backward(retain_graph=True)
    grad(e.sum(), x)
    assert e.grad.tolist() == [2.0, 2.0]


def test_sign_of_nan_is_zero():
    assert gradcalc.tensor([math.nan, -2.0]).sign().tolist() == [0.0, -1.0]


def test_masked_rules_give_exact_zeros_under_an_infinite_cotangent():
    x = leaf(-1.0, 2.0)
    for f in (gradcalc.relu, lambda v: v.clamp(min=0.0),
              lambda v: gradcalc.maximum(v, gradcalc.tensor([0.0, 0.0]))):
        x.grad = None
        (1 / f(x)).sum().backward()  # 1/0 = inf upstream of the masked element
        assert x.grad.tolist() == [0.0, -0.25]


def test_same_shape_views_are_not_leaves():
    x = leaf(1.0, 2.0)
    for v in (x.reshape(2), x.view(-1), x.expand(2), x.t(), x.squeeze()):
        assert not v.is_leaf and v.requires_grad
    assert x.flatten() is x


def test_in_place_with_alpha_and_whole_copy_save_nothing():
    x = leaf(1.0, 2.0)
    h = x + 0
    h.sub_(x.sum(), alpha=2)
    h.sum().backward()
    h.sum().backward()
    assert x.grad.tolist() == [-6.0, -6.0]
    x.grad = None
    n = gradcalc.zeros(2)
    n[...] = x + 0
    n.sum().backward()
    n.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_shapes_that_do_not_broadcast_raise_runtime_error():
    with pytest.raises(RuntimeError):
        leaf(1.0, 2.0) * gradcalc.tensor([1.0, 2.0, 3.0])


def test_power_with_a_zero_exponent_tensor_stays_on_the_graph():
    x = gradcalc.tensor(2.0, requires_grad=True)
    (g,) = grad(x ** gradcalc.tensor(0.0), x, create_graph=True)
    assert g.item() == 0.0 and g.requires_grad


# --------------------------------------------------------------------------- max and min


def test_max_along_a_dim_is_a_values_indices_pair_with_the_gradient_to_one_element():
    # torch.tensor([[1., 3., 3.], [2., 2., .5]]).max(1): values [3, 2], indices [1, 0];
    # the gradient goes to the first largest element of each row only
    x = gradcalc.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.5]], requires_grad=True)
    values, indices = x.max(1)
    assert values.tolist() == [3.0, 2.0] and indices.tolist() == [1, 0]
    assert repr(indices) == "tensor([1, 0])"
    assert x.max(dim=1).values is not None and x.max(1)[0].tolist() == [3.0, 2.0]
    values.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    low = gradcalc.min(x, 0, keepdim=True)
    assert low.values.tolist() == [[1.0, 2.0, 0.5]] and low.indices.tolist() == [[0, 1, 1]]
    assert x.argmax().item() == 1 and x.argmin(1).tolist() == [0, 2]


def test_max_without_a_dim_shares_ties_and_with_a_tensor_is_maximum():
    x = leaf(1.0, 3.0, 3.0)
    x.max().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5]  # torch: evenly distributed
    y = gradcalc.max(x, gradcalc.tensor(2.0))
    assert y.tolist() == [2.0, 3.0, 3.0] and y.grad_fn.name() == "MaximumBackward0"


def test_max_over_everything_masks_an_infinite_gradient_and_lets_nan_win():
    # torch: x = [1, nan, 3, nan]; x.max() is nan, and the nans share the gradient;
    # y.min() / 0 with y = [-0.5, 1]: inf to the winner, exactly 0 to the other
    x = leaf(1.0, math.nan, 3.0, math.nan)
    x.max().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.0, 0.5]
    y = leaf(-0.5, 1.0)
    (y.min() / gradcalc.tensor(0.0)).backward()
    assert y.grad.tolist() == [math.inf, 0.0]


def test_a_second_sweep_through_max_along_a_dim_raises_as_it_saved_its_indices():
    y = leaf(2.0, 0.0, -1.0)
    e = y.max(0).values
    e.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        e.backward()


def test_softmax_of_a_slice_whose_largest_value_is_infinite_is_nan():
    # torch.softmax(torch.tensor([inf, 1.]), 0) -> [nan, nan]; [-inf, 1.] -> [0, 1]
    assert all(math.isnan(v) for v in gradcalc.softmax(gradcalc.tensor([math.inf, 1.0]), 0)
               .tolist())
    assert gradcalc.softmax(gradcalc.tensor([-math.inf, 1.0]), 0).tolist() == [0.0, 1.0]


# ------------------------------------------------- the deviations docs/pytorch.md lists


def test_abs_second_derivative_is_a_zero_that_stays_zero_in_a_plain_sweep():
    # PyTorch: sgn's derivative is its zero tensor, so 0 * (1/0) below it stays 0:
    # the third derivative of (u * u).sum(), u = |x / 0|, is [0, 0]
    x, c = leaf(1.0, -1.0), gradcalc.zeros(2)
    u = (x / c).abs()
    (g,) = grad((u * u).sum(), x, create_graph=True)
    (h,) = grad(g.sum(), x, create_graph=True)
    (k,) = grad(h.sum(), x)
    assert k.tolist() == [0.0, 0.0] and not k.requires_grad


def test_deviation_abs_zero_in_a_recorded_sweep_is_ordinary():
    # PyTorch: [0, 0] (its zero tensor records itself); gradcalc's recorded sweep turns
    # the zero into ordinary zeros, so 0 * inf below |x| is nan; docs/pytorch.md
    x, c = leaf(1.0, -1.0), gradcalc.zeros(2)
    (g,) = grad((x / c).abs().sum(), x, create_graph=True)
    (h,) = grad(g.sum(), x, create_graph=True)
    assert all(math.isnan(v) for v in h.tolist())
    (h,) = grad(g.sum(), x)  # swept plainly: PyTorch's zeros
    assert h.tolist() == [0.0, 0.0]


def test_deviation_prod_second_derivative_where_the_value_is_nan():
    # PyTorch: nan everywhere; gradcalc: 0 in the corner; docs/pytorch.md
    x = gradcalc.tensor([[0.5, 0.0], [2.0, 1.0]], requires_grad=True)
    f = (gradcalc.tensor([[1.0], [0.0]]) / x).sum(1).prod()
    (g,) = grad(f, x, create_graph=True)
    (h,) = grad(g.sum(), x)
    assert math.isnan(f.item()) and h.tolist()[0][0] == 0.0
    assert all(math.isnan(v) for v in h.reshape(-1).tolist()[1:])


def test_deviation_two_0d_leaves_keep_separate_grads():
    # PyTorch: x.grad 1, 3, 5 (x.grad and y.grad share memory); docs/pytorch.md
    x, y = gradcalc.tensor(1.0, requires_grad=True), gradcalc.tensor(2.0, requires_grad=True)
    h = x + 0
    h += y.sum()
    seen = []
    for _ in range(3):
        h.sum().backward()
        seen.append((x.grad.item(), y.grad.item()))
    assert seen == [(1.0, 1.0), (2.0, 2.0), (3.0, 3.0)]


def test_relu_and_clamp_keep_the_sign_of_a_zero_they_let_through():
    # torch.relu(tensor([-0., 0.])) -> [-0., 0.]; tensor(-0.).clamp(min=0.) -> -0.
    x = gradcalc.tensor([-0.0, 0.0])
    assert np.signbit(gradcalc.relu(x).numpy()).tolist() == [True, False]
    assert np.signbit(x.clamp(min=0.0).numpy()).tolist() == [True, False]
    assert np.signbit(gradcalc.tensor(0.0).clamp(max=-0.0).numpy()).item() is False


def test_a_number_divided_by_a_tensor_rounds_as_pytorchs_reciprocal_times_the_number():
    # torch: 3 / torch.tensor(2.5) is reciprocal(2.5) * 3 = 1.2000000000000002, so a
    # clamp at 1.2 blocks its gradient
    y = leaf(2.5)
    u = 3 / y
    assert u.item() == 1.2000000000000002 and u.grad_fn.name() == "MulBackward0"
    u.clamp(-1.2, 1.2).sum().backward()
    assert y.grad.tolist() == [-0.0]


def test_amax_multiplies_where_max_over_everything_masks():
    # torch: (x.amax() * inf).backward() -> [nan, inf]; (x.max() * inf) -> [0, inf]
    for reduce, expected in ((lambda t: t.amax(), "[nan, inf]"), (lambda t: t.max(), "[0.0, inf]")):
        x = leaf(1.0, 3.0)
        (reduce(x) * gradcalc.tensor(math.inf)).backward()
        assert str(x.grad.tolist()) == expected
    assert leaf(1.0).amax().grad_fn.name() == "AmaxBackward0"

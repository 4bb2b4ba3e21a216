"""What the differential test against PyTorch found, pinned with torch 2.13.0's behaviour
(float64) so that it stays fixed without torch."""

from __future__ import annotations

import pytest

import gradcalc
from gradcalc.autograd import grad

ELEMENT = "element 0 of tensors does not require grad and does not have a grad_fn"


def test_cumprod_over_an_axis_of_one_passes_the_gradient_off_the_graph():
    # PyTorch's cumprod backward returns g itself when the axis has one element, so the
    # second derivative of |y| through it is a constant zero that requires no grad
    y = gradcalc.tensor([[0.12], [-0.4]], requires_grad=True)
    (g,) = grad((y.abs() + 0.5).cumprod(1).sum(), y, create_graph=True)
    (h,) = grad(g.sum(), y, create_graph=True)
    assert g.tolist() == [[1.0], [-1.0]] and h.tolist() == [[0.0], [0.0]]
    assert g.requires_grad and not h.requires_grad
    with pytest.raises(RuntimeError, match=ELEMENT):
        grad(h.sum(), y)


@pytest.mark.parametrize(("call", "words"), [
    # the outputs' errors come before the inputs' (c requires no grad)
    (lambda x, c: grad(c * 2, [x], grad_outputs=gradcalc.ones(2)), ELEMENT),
    (lambda x, c: grad(x * 2, [c]), "grad can be implicitly created only for scalar outputs"),
    (lambda x, c: grad((x * 2).sum(), [c]), "One of the differentiated Tensors does not require"),
    # the weights' shape before whether the output is on a graph
    (lambda x, c: (c * 2).backward(gradcalc.ones(3)),
     "Mismatch in shape: grad_output[0] has a shape of Size([3]) and output[0] has a shape "
     "of Size([2])."),
    (lambda x, c: grad(c * 2, [c], gradcalc.ones(3)), "Mismatch in shape"),
    (lambda x, c: (c * 2).backward(), ELEMENT),
    (lambda x, c: (x * 2).backward(gradcalc.ones(2), inputs=[c]),
     "can't retain_grad on Tensor that has requires_grad=False"),
])
def test_errors_come_in_pytorchs_order(call, words):
    x, c = gradcalc.ones(2, requires_grad=True), gradcalc.ones(2)
    with pytest.raises(RuntimeError) as caught:
        call(x, c)
    assert str(caught.value).startswith(words)


@pytest.mark.parametrize(("statement", "view"), [
    ("x[0] = 1", True), ("x[None] = 1", True), ("x[0, ...] = 1", True),
    ("x[..., 0] = 1", True), ("x[0, [1]] = 1", True), ("x[:, None] = 1", True),
    ("x[1:] = 1", True), ("x[:] = 1", False), ("x[...] = 2", False), ("x[()] = 1", False),
    ("x[x > 0] = 0", False), ("x[[0]] = 1", False),
])
def test_index_assignment_into_a_leaf_names_the_view_as_pytorch(statement, view):
    x = gradcalc.ones(3, 2, requires_grad=True)
    with pytest.raises(RuntimeError) as caught:
        exec(statement, {"x": x})  # noqa: S102 - the test's own statements
    prefix = "a view of a leaf Variable" if view else "a leaf Variable"
    assert str(caught.value).startswith(prefix)


@pytest.mark.parametrize("alpha", [0.5, 1.0])
def test_elu_slope_at_zero_is_alpha_and_its_second_derivative_zero(alpha):
    # PyTorch 2.13: elu'(0) = alpha (the left branch), elu''(0) = 0 (its double backward
    # masks with x < 0); at -1 the second derivative is alpha / e
    x = gradcalc.tensor([0.0, -1.0, 1.0], requires_grad=True)
    (g,) = grad(gradcalc.nn.functional.elu(x, alpha).sum(), x, create_graph=True)
    (h,) = grad(g.sum(), x)
    assert g.tolist() == pytest.approx([alpha, alpha * 0.36787944117144233, 1.0], rel=1e-15)
    assert h.tolist() == pytest.approx([0.0, alpha * 0.36787944117144233, 0.0], rel=1e-15)


DIM_RANGE = "Dimension out of range (expected to be in range of [{}, {}], but got {})"


@pytest.mark.parametrize(("dim", "rows"), [
    (0, [[1.0, 2.0], [3.0, 4.0]]), (-2, [[1.0, 2.0], [3.0, 4.0]]),
    (1, [[1.0, 3.0], [2.0, 4.0]]), (-1, [[1.0, 3.0], [2.0, 4.0]]),
])
def test_stack_takes_every_dim_of_its_result(dim, rows):
    a, b = gradcalc.tensor([1.0, 2.0]), gradcalc.tensor([3.0, 4.0])
    assert gradcalc.stack([a, b], dim=dim).tolist() == rows


@pytest.mark.parametrize(("tensors", "dim", "error", "message"), [
    ([[1.0, 2.0], [3.0, 4.0]], 2, IndexError, DIM_RANGE.format(-2, 1, 2)),
    ([[1.0, 2.0], [3.0, 4.0]], -3, IndexError, DIM_RANGE.format(-2, 1, -3)),
    ([1.0, 2.0], 1, IndexError, DIM_RANGE.format(-1, 0, 1)),  # 0-d tensors: a vector
    ([1.0, 2.0], -2, IndexError, DIM_RANGE.format(-1, 0, -2)),
    ([[1.0, 2.0], [3.0]], 5, IndexError, DIM_RANGE.format(-2, 1, 5)),  # the dim first
    ([[1.0, 2.0], [3.0]], 0, RuntimeError, "stack expects each tensor to be equal size, but "
     "got [2] at entry 0 and [1] at entry 1"),
    ([], 0, RuntimeError, "stack expects a non-empty TensorList"),
])
def test_stack_raises_pytorchs_errors(tensors, dim, error, message):
    with pytest.raises(error) as e:
        gradcalc.stack([gradcalc.tensor(t) for t in tensors], dim=dim)
    assert str(e.value) == message


def test_stack_along_a_last_new_dim_passes_each_gradient_back():
    a = gradcalc.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = gradcalc.tensor([[5.0, 6.0], [7.0, 8.0]], requires_grad=True)
    y = gradcalc.stack([a, b], dim=2)
    assert y.shape == (2, 2, 2) and y[0, 1].tolist() == [2.0, 6.0]
    (y * gradcalc.arange(8).reshape(2, 2, 2)).sum().backward()
    assert a.grad.tolist() == [[0.0, 2.0], [4.0, 6.0]]
    assert b.grad.tolist() == [[1.0, 3.0], [5.0, 7.0]]

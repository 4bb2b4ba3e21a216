"""The Tensor: printing like PyTorch, construction, indexing, in-place updates, methods."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import gradcalc
from gradcalc import Tensor
from gradcalc.engine import ops

# What PyTorch 2 prints for the same tensors (with torch.set_default_dtype(torch.float64)),
# recorded once from PyTorch itself; the test suite does not import torch.
PYTORCH_PRINTS = [
    ('gradcalc.arange(40.) * 1.5 - 20',
     'tensor([-20.0000, -18.5000, -17.0000, -15.5000, -14.0000, -12.5000, -11.0000,\n'
     '         -9.5000,  -8.0000,  -6.5000,  -5.0000,  -3.5000,  -2.0000,  -0.5000,\n'
     '          1.0000,   2.5000,   4.0000,   5.5000,   7.0000,   8.5000,  10.0000,\n'
     '         11.5000,  13.0000,  14.5000,  16.0000,  17.5000,  19.0000,  20.5000,\n'
     '         22.0000,  23.5000,  25.0000,  26.5000,  28.0000,  29.5000,  31.0000,\n'
     '         32.5000,  34.0000,  35.5000,  37.0000,  38.5000])'),
    ('(gradcalc.arange(40., requires_grad=True) * 1.5).sum()',
     'tensor(1170., grad_fn=<SumBackward0>)'),
    ('gradcalc.arange(25., requires_grad=True) * 1.5 - 3',
     'tensor([-3.0000, -1.5000,  0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,\n'
     '         9.0000, 10.5000, 12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000,\n'
     '        21.0000, 22.5000, 24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000,\n'
     '        33.0000], grad_fn=<SubBackward0>)'),
    ('gradcalc.arange(12., requires_grad=True) * 1.5',
     'tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n'
     '        12.0000, 13.5000, 15.0000, 16.5000], grad_fn=<MulBackward0>)'),
    ('gradcalc.tensor([1e9, 1.])',
     'tensor([1.0000e+09, 1.0000e+00])'),
    ('gradcalc.tensor([123456789., 1.])',
     'tensor([1.2346e+08, 1.0000e+00])'),
    ('gradcalc.tensor([-1.5, 0., 2.25])',
     'tensor([-1.5000,  0.0000,  2.2500])'),
    ('gradcalc.tensor([[-1.5, 0.], [1e-3, 100.]])',
     'tensor([[-1.5000e+00,  0.0000e+00],\n        [ 1.0000e-03,  1.0000e+02]])'),
    ('gradcalc.tensor([[1e-5, 1.]], requires_grad=True)',
     'tensor([[1.0000e-05, 1.0000e+00]], requires_grad=True)'),
    ('gradcalc.tensor([-0.0, 1.0])',
     'tensor([-0., 1.])'),
    ("gradcalc.tensor([float('nan'), 1.0, -2.0])",
     'tensor([nan,  1., -2.])'),
    ("gradcalc.tensor([float('-inf'), 0.5])",
     'tensor([  -inf, 0.5000])'),
    ('gradcalc.tensor(1234.5678)',
     'tensor(1234.5678)'),
    ('gradcalc.tensor(-7.0, requires_grad=True)',
     'tensor(-7., requires_grad=True)'),
    ('gradcalc.zeros(2, 0)',
     'tensor([], size=(2, 0))'),
    ('gradcalc.ones(2, 2, 2, 2)',
     'tensor([[[[1., 1.],\n' '          [1., 1.]],\n' '\n' '         [[1., 1.],\n'
     '          [1., 1.]]],\n' '\n' '\n' '        [[[1., 1.],\n' '          [1., 1.]],\n' '\n'
     '         [[1., 1.],\n' '          [1., 1.]]]])'),
    ('gradcalc.tensor([0.1, 0.25]) > 0.2',
     'tensor([False,  True])'),
    ('gradcalc.eye(3)[1:]',
     'tensor([[0., 1., 0.],\n        [0., 0., 1.]])'),
    ('gradcalc.linspace(0, 1, 5)',
     'tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])'),
    ('gradcalc.tensor([1e-4, 1.0])',
     'tensor([1.0000e-04, 1.0000e+00])'),
    ('gradcalc.tensor([0.00012, 0.1])',
     'tensor([0.0001, 0.1000])'),
    ('gradcalc.tensor([1001., 1.])',
     'tensor([1.0010e+03, 1.0000e+00])'),
    ('gradcalc.tensor([999.5, 1.])',
     'tensor([999.5000,   1.0000])'),
    ('gradcalc.full((2, 3), 7.0)',
     'tensor([[7., 7., 7.],\n        [7., 7., 7.]])'),
    ('gradcalc.tensor([True, False])', 'tensor([ True, False])'),
    ('gradcalc.tensor(float("nan"))', 'tensor(nan)'),
    ('gradcalc.tensor([float("inf"), 1.5])', 'tensor([   inf, 1.5000])'),
    ('gradcalc.tensor([])', 'tensor([])'),
    ('gradcalc.zeros(0, 3)', 'tensor([], size=(0, 3))'),
    ('gradcalc.tensor(-0.0)', 'tensor(-0.)'),
    ('gradcalc.tensor(1e-5)', 'tensor(1.0000e-05)'),
    ('gradcalc.tensor(91.5)', 'tensor(91.5000)'),
    ('gradcalc.arange(2000.)',
     'tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n'
     '        1.9990e+03])'),
    ('gradcalc.arange(24.).reshape(2, 3, 4)',
     'tensor([[[ 0.,  1.,  2.,  3.],\n         [ 4.,  5.,  6.,  7.],\n'
     '         [ 8.,  9., 10., 11.]],\n\n        [[12., 13., 14., 15.],\n'
     '         [16., 17., 18., 19.],\n         [20., 21., 22., 23.]]])'),
    ('gradcalc.ones(10, 200) * 1.5',
     'tensor([[1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000],\n'
     '        [1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000],\n'
     '        [1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000],\n'
     '        ...,\n'
     '        [1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000],\n'
     '        [1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000],\n'
     '        [1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000]])'),
]


@pytest.mark.parametrize(("code", "printed"), PYTORCH_PRINTS)
def test_prints_like_pytorch(code, printed):
    t = eval(code, {"gradcalc": gradcalc})
    assert repr(t) == printed
    assert str(t) == printed


def test_grad_fn_and_requires_grad_suffixes():
    x = gradcalc.tensor([2.0, 3.0], requires_grad=True)
    assert repr(x) == "tensor([2., 3.], requires_grad=True)"
    assert repr(x * 2) == "tensor([4., 6.], grad_fn=<MulBackward0>)"
    assert repr((x * 2).mean()) == "tensor(5., grad_fn=<MeanBackward0>)"
    assert repr(x.detach()) == "tensor([2., 3.])"
    with gradcalc.no_grad():
        assert repr(x * 2) == "tensor([4., 6.])"


def test_format_of_a_scalar_tensor_uses_its_value():
    assert f"{gradcalc.tensor(2.0 / 3):.3f}" == "0.667"
    assert f"{gradcalc.tensor([1.0])}" == "tensor([1.])"


# --------------------------------------------------------------------------- construction


def test_everything_is_float64():
    t = gradcalc.tensor([2, 3], dtype=gradcalc.float64)
    assert t.dtype == np.float64
    assert t.tolist() == [2.0, 3.0]
    for dtype in (gradcalc.float, gradcalc.float32, gradcalc.double, float, None, "float32",
                  np.float32):
        assert gradcalc.tensor([1], dtype=dtype).dtype == np.float64
    assert gradcalc.ones(2, dtype=gradcalc.float).dtype == np.float64


def test_non_float_dtypes_are_refused():
    with pytest.raises(TypeError, match="float64 only"):
        gradcalc.tensor([1, 2], dtype=int)
    with pytest.raises(TypeError, match="float64"):
        gradcalc.tensor("abc")
    with pytest.raises(TypeError):
        gradcalc.tensor([1 + 2j])


def test_boolean_tensors_cannot_require_grad():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        gradcalc.tensor([True, False], requires_grad=True)


def test_tensor_copies_its_data():
    data = np.array([1.0, 2.0])
    t = gradcalc.tensor(data)
    data[0] = 99.0
    assert t.tolist() == [1.0, 2.0]
    a = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    b = gradcalc.tensor([a[0] * 2, [5.0][0]])  # tensors inside lists: values, no graph
    assert b.tolist() == [2.0, 5.0] and not b.requires_grad
    assert gradcalc.tensor([[a[0], a[1]]]).shape == (1, 2)


def test_factories():
    assert gradcalc.ones(2, 3).shape == (2, 3)
    assert gradcalc.zeros((2, 3)).shape == (2, 3)
    assert gradcalc.ones(3, requires_grad=True).requires_grad
    assert gradcalc.full((2,), 7).tolist() == [7.0, 7.0]
    assert gradcalc.arange(3).tolist() == [0.0, 1.0, 2.0]
    assert gradcalc.arange(1, 2, 0.5).tolist() == [1.0, 1.5]
    assert gradcalc.linspace(0, 1, 3).tolist() == [0.0, 0.5, 1.0]
    assert gradcalc.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    x = gradcalc.tensor([[1.0, 2.0]])
    assert gradcalc.ones_like(x).tolist() == [[1.0, 1.0]]
    assert gradcalc.zeros_like(x, requires_grad=True).requires_grad
    assert gradcalc.full_like(x, 3).tolist() == [[3.0, 3.0]]
    assert gradcalc.FloatTensor([1, 0]).tolist() == [1.0, 0.0]
    assert gradcalc.FloatTensor(2, 3).shape == (2, 3)
    assert gradcalc.as_tensor(x) is x
    assert gradcalc.from_numpy(np.ones(2)).tolist() == [1.0, 1.0]
    assert gradcalc.is_tensor(x) and not gradcalc.is_tensor([1.0])


def test_stack_along_any_dim_is_differentiable():
    a = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    b = gradcalc.tensor([3.0, 4.0], requires_grad=True)
    s = gradcalc.stack([a, b], dim=1)
    assert s.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    (s * gradcalc.tensor([[1.0, 10.0], [100.0, 1000.0]])).sum().backward()
    assert a.grad.tolist() == [1.0, 100.0]
    assert b.grad.tolist() == [10.0, 1000.0]


# --------------------------------------------------------------------------- attributes


def test_attributes():
    x = gradcalc.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    assert x.shape == (1, 3) and x.size() == (1, 3) and x.size(1) == 3
    assert x.ndim == 2 and x.dim() == 2 and x.numel() == 3 and len(x) == 1
    assert x.is_leaf and x.grad is None and x.grad_fn is None
    y = x * 2
    assert not y.is_leaf and y.requires_grad and y.grad_fn.name() == "MulBackward0"
    assert repr(y.grad_fn) == "<MulBackward0>"
    assert x.T.shape == (3, 1)
    x.requires_grad = False
    assert not x.requires_grad
    x.requires_grad_()
    assert x.requires_grad and x.is_leaf
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
        y.requires_grad_(False)
    assert y.requires_grad_(True) is y


def test_data_is_cut_from_the_graph_and_settable():
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    assert not y.data.requires_grad and y.data.tolist() == [3.0, 6.0]
    x.data = [5.0, 6.0]
    assert x.tolist() == [5.0, 6.0] and x.requires_grad


def test_conversions():
    t = gradcalc.tensor([[1.5]])
    assert t.item() == 1.5 and float(t) == 1.5 and int(t) == 1 and bool(t)
    assert t.tolist() == [[1.5]]
    assert isinstance(t.numpy(), np.ndarray)
    assert np.asarray(gradcalc.tensor([1.0, 2.0])).tolist() == [1.0, 2.0]
    assert [3.0, 4.0][gradcalc.tensor(1.0)] == 4.0
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted"):
        gradcalc.tensor([1.0, 2.0]).item()
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value"):
        bool(gradcalc.tensor([1.0, 2.0]))
    x = gradcalc.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.0]
    with pytest.raises(TypeError):
        len(gradcalc.tensor(1.0))
    assert [float(e) for e in gradcalc.tensor([1.0, 2.0])] == [1.0, 2.0]


# --------------------------------------------------------------------------- operators


def test_operators_with_numbers_arrays_and_tensors():
    x = gradcalc.tensor([1.0, 2.0])
    assert (x + 1).tolist() == [2.0, 3.0] and (1 + x).tolist() == [2.0, 3.0]
    assert (x - 1).tolist() == [0.0, 1.0] and (1 - x).tolist() == [0.0, -1.0]
    assert (x * x).tolist() == [1.0, 4.0] and (2 / x).tolist() == [2.0, 1.0]
    assert (x ** 2).tolist() == [1.0, 4.0] and (2 ** x).tolist() == [2.0, 4.0]
    assert (x @ x).item() == 5.0 and (-x).tolist() == [-1.0, -2.0]
    assert (np.array([1.0, 1.0]) + x).tolist() == [2.0, 3.0]
    assert isinstance(np.array([1.0, 1.0]) * x, Tensor)
    assert abs(gradcalc.tensor([-1.0])).tolist() == [1.0]


def test_comparisons_give_boolean_tensors():
    x = gradcalc.tensor([1.0, 2.0, 3.0], requires_grad=True)
    mask = x > 1.5
    assert mask.dtype == bool and mask.tolist() == [False, True, True]
    assert not mask.requires_grad
    assert (x == 2).tolist() == [False, True, False]
    assert ((x > 1) & (x < 3)).tolist() == [False, True, False]
    assert (~mask).tolist() == [True, False, False]
    assert x.equal(gradcalc.tensor([1.0, 2.0, 3.0]))
    assert x.allclose([1.0, 2.0, 3.0 + 1e-12])


# --------------------------------------------------------------------------- indexing


def test_indexing_and_its_gradient():
    x = gradcalc.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    assert x[1, 0].item() == 4.0 and x[-1, -1].item() == 6.0
    assert x[0, 1:].tolist() == [2.0, 3.0] and x[:, 0].tolist() == [1.0, 4.0]
    assert x[x > 4].tolist() == [5.0, 6.0]
    assert x[0][gradcalc.tensor([2, 0])].tolist() == [3.0, 1.0]
    assert x[0, [0, 0, 1]].tolist() == [1.0, 1.0, 2.0]
    (x[0, [0, 0, 1]].sum() + x[1, 2] * 10).backward()
    assert x.grad.tolist() == [[2.0, 1.0, 0.0], [0.0, 0.0, 10.0]]


def test_index_assignment_is_recorded():
    a = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    n = gradcalc.zeros(3)
    n[0] = a[0] * 3
    n[1:] = a ** 2
    assert n.tolist() == [3.0, 1.0, 4.0] and n.grad_fn is not None and not n.is_leaf
    n.sum().backward()
    assert a.grad.tolist() == [3.0 + 2.0, 4.0]


def test_index_assignment_with_a_mask_on_a_clone():
    g = gradcalc.tensor([1.0, -2.0, 3.0])
    h = g.clone()
    h[g < 0] = 0
    assert h.tolist() == [1.0, 0.0, 3.0] and g.tolist() == [1.0, -2.0, 3.0]
    h[[0, 2]] = [7.0, 8.0]
    assert h.tolist() == [7.0, 0.0, 8.0]


def test_overwritten_elements_get_no_gradient():
    x = gradcalc.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y[1] = 0.0
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 2.0]


def test_a_leaf_that_requires_grad_cannot_change_in_place():
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    message = "a leaf Variable that requires grad is being used in an in-place operation."
    for change in (lambda: x.__setitem__(0, 5.0), lambda: x.zero_(), lambda: x.add_(1),
                   lambda: x.__iadd__(1), lambda: x.fill_(2.0), lambda: x.copy_([0.0, 0.0]),
                   lambda: x.__setitem__(..., 5.0)):
        with pytest.raises(RuntimeError) as error:
            change()
        assert str(error.value) in (message, "a view of " + message)  # x[0] is a view
    assert x.tolist() == [1.0, 2.0]


def test_in_place_under_no_grad_keeps_the_leaf():
    w = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    with gradcalc.no_grad():
        w -= 0.5
        w[0] = 7.0
        w.mul_(2)
    assert w.tolist() == [14.0, 3.0] and w.requires_grad and w.is_leaf
    (w * w).sum().backward()
    assert w.grad.tolist() == [28.0, 6.0]


def test_in_place_operators_on_non_leaves_are_recorded():
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1.0
    before = y
    y += x
    y *= 3
    y.sub_(x, alpha=2)
    y.div_(2)
    assert y is before
    assert y.tolist() == [2.0, 4.0]
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]  # ((x + x) * 3 - 2x) / 2 = 2x
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        z = x * 1.0
        z += gradcalc.ones(2, 2)


def test_values_saved_by_the_graph_do_not_change_with_in_place_updates():
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1.0
    z = y * y  # saves y's value
    y += 100.0
    z.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_zero_fill_and_copy():
    g = gradcalc.tensor([1.0, 2.0])
    assert g.zero_() is g and g.tolist() == [0.0, 0.0]
    assert g.fill_(3).tolist() == [3.0, 3.0]
    assert g.copy_([1.0, 5.0]).tolist() == [1.0, 5.0]
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.zero_()  # as in PyTorch, the history stays: x gets a zero gradient through it
    assert y.tolist() == [0.0, 0.0] and y.requires_grad and y.grad_fn.name() == "ZeroBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


# --------------------------------------------------------------------------- methods


def test_reductions_and_shapes():
    x = gradcalc.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.sum().item() == 10.0 and x.sum(0).tolist() == [4.0, 6.0]
    assert x.sum(dim=1, keepdim=True).tolist() == [[3.0], [7.0]]
    assert x.mean().item() == 2.5 and x.mean(0).tolist() == [2.0, 3.0]
    assert x.prod().item() == 24.0 and x.prod(1).tolist() == [2.0, 12.0]
    assert x.norm().item() == pytest.approx(np.sqrt(30.0))
    assert x.reshape(4).tolist() == [1.0, 2.0, 3.0, 4.0]
    assert x.reshape(-1, 1).shape == (4, 1) and x.view(1, 4).shape == (1, 4)
    assert x.flatten().shape == (4,)
    assert x.unsqueeze(0).shape == (1, 2, 2) and x.unsqueeze(-1).shape == (2, 2, 1)
    assert x.unsqueeze(0).squeeze().shape == (2, 2)
    assert x.unsqueeze(0).squeeze(0).shape == (2, 2) and x.squeeze(0).shape == (2, 2)
    assert x.t().tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert gradcalc.tensor([1.0, 2.0]).t().shape == (2,)
    assert x.transpose(0, 1).tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert gradcalc.ones(2, 3, 4).permute(2, 0, 1).shape == (4, 2, 3)
    assert gradcalc.tensor([1.0, 2.0]).expand(3, 2).shape == (3, 2)
    with pytest.raises(RuntimeError, match="t\\(\\) expects a tensor with <= 2 dimensions"):
        gradcalc.ones(2, 2, 2).t()


def test_elementwise_methods():
    x = gradcalc.tensor([-1.0, 0.5, 2.0])
    assert x.clamp(min=0).tolist() == [0.0, 0.5, 2.0]
    assert x.clamp(max=1).tolist() == [-1.0, 0.5, 1.0]
    assert x.clamp(-0.5, 0.5).tolist() == [-0.5, 0.5, 0.5]
    assert x.clip(min=0).tolist() == [0.0, 0.5, 2.0]
    assert x.abs().tolist() == [1.0, 0.5, 2.0] and x.relu().tolist() == [0.0, 0.5, 2.0]
    assert x.pow(2).tolist() == [1.0, 0.25, 4.0]
    assert x.exp().tolist() == pytest.approx(np.exp([-1.0, 0.5, 2.0]).tolist())
    assert x.abs().log().tolist() == pytest.approx(np.log([1.0, 0.5, 2.0]).tolist())
    for name in ("sin", "cos", "tanh", "sigmoid", "softplus", "atan", "sinh", "cosh", "sign"):
        assert np.allclose(getattr(x, name)().numpy(), ops.value(getattr(ops, name)(x)))
    assert x.abs().sqrt().tolist() == pytest.approx(np.sqrt([1.0, 0.5, 2.0]).tolist())
    assert x.maximum(gradcalc.zeros(3)).tolist() == [0.0, 0.5, 2.0]
    assert x.minimum(gradcalc.zeros(3)).tolist() == [-1.0, 0.0, 0.0]
    assert x.dot(x).item() == 5.25 and x.matmul(x).item() == 5.25
    assert x.double() is x and x.float() is x


def test_clone_and_detach():
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    c = x.clone()
    d = x.detach()
    assert c.grad_fn is not None and not d.requires_grad
    (c * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_retain_grad_keeps_the_gradient_of_an_intermediate():
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    z = x * 3
    z.retain_grad()
    assert z.retains_grad and not x.retains_grad
    w = x * 5
    (z * z + w).sum().backward()
    assert z.grad.tolist() == [6.0, 12.0]
    assert w.grad is None  # not retained
    assert x.grad.tolist() == [18.0 + 5.0, 36.0 + 5.0]
    with pytest.raises(RuntimeError, match="retain_grad on Tensor that has requires_grad=False"):
        gradcalc.tensor(1.0).retain_grad()


# --------------------------------------------------------------------------- module functions


def test_module_functions_are_the_language_table():
    for name in ops.FUNCTIONS:
        assert callable(getattr(gradcalc, name)), name
        assert name in gradcalc.__all__
    x = gradcalc.tensor([0.5, 1.0], requires_grad=True)
    for name in ("sin", "cos", "exp", "log", "sqrt", "relu", "sigmoid", "tanh", "abs"):
        out = getattr(gradcalc, name)(x)
        assert isinstance(out, Tensor) and out.requires_grad
        assert np.allclose(out.detach().numpy(), ops.value(getattr(ops, name)(x)))
    assert isinstance(gradcalc.sin(0.5), Tensor)
    assert gradcalc.sum(gradcalc.ones(2, 3), dim=0).tolist() == [2.0, 2.0, 2.0]
    assert gradcalc.mean(gradcalc.ones(2, 3), 1, keepdim=True).shape == (2, 1)
    assert gradcalc.prod(gradcalc.tensor([2.0, 3.0])).item() == 6.0
    assert gradcalc.maximum(x, 0.75).tolist() == [0.75, 1.0]
    assert gradcalc.clamp(x, max=0.6).tolist() == [0.5, 0.6]
    assert gradcalc.where(x > 0.7, x, -x).tolist() == [-0.5, 1.0]
    assert gradcalc.transpose(gradcalc.ones(2, 3)).shape == (3, 2)
    assert gradcalc.transpose(gradcalc.ones(2, 3, 4), 0, 2).shape == (4, 3, 2)
    assert gradcalc.matmul(gradcalc.eye(2), x).tolist() == [0.5, 1.0]
    assert gradcalc.atan2(gradcalc.tensor(1.0), gradcalc.tensor(1.0)).item() == np.pi / 4
    assert gradcalc.norm(gradcalc.tensor([3.0, 4.0])).item() == 5.0
    assert gradcalc.dot(x, x).item() == 1.25


def test_import_uses_neither_sympy_nor_torch():
    code = ("import sys, gradcalc; x = gradcalc.tensor([1.], requires_grad=True); "
            "(x * 2).sum().backward(); "
            "print('sympy' in sys.modules, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["False", "False"]

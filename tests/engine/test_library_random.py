"""The seeded random constructors and dropout, against PyTorch's semantics.

gradcalc's stream is NumPy's generator (reset by `manual_seed`), not PyTorch's, so what is
pinned is what PyTorch documents and does (measured with torch 2.13.0, float64): shapes,
dtypes, ranges, reproducibility under one seed, dropout's scaling by 1/(1-p), its
gradient mask/(1-p), its identity in eval mode, and the errors. The statistical checks run
on a fixed seed with bounds of five standard errors or more: they cannot flake.
"""

from __future__ import annotations

import numpy as np
import pytest

import gradcalc
from gradcalc import nn
from gradcalc.nn import functional as F

N = 40_000


def test_manual_seed_reproduces_every_constructor():
    def draw():
        return [gradcalc.rand(3, 2), gradcalc.randn(4), gradcalc.randint(0, 9, (5,)),
                gradcalc.randperm(6), F.dropout(gradcalc.ones(8), 0.5),
                gradcalc.rand_like(gradcalc.ones(2)), gradcalc.randn_like(gradcalc.ones(2))]

    gradcalc.manual_seed(11)
    first = draw()
    gradcalc.manual_seed(11)
    again = draw()
    gradcalc.manual_seed(12)
    other = draw()
    for a, b, c in zip(first, again, other, strict=True):
        assert np.array_equal(a.numpy(), b.numpy())
        assert a.shape == c.shape and not np.array_equal(a.numpy(), c.numpy())


@pytest.mark.parametrize(("make", "shape"), [
    (lambda: gradcalc.rand(2, 3), (2, 3)),
    (lambda: gradcalc.rand((4,)), (4,)),
    (lambda: gradcalc.rand([]), ()),
    (lambda: gradcalc.randn(2, 1, 3), (2, 1, 3)),
    (lambda: gradcalc.rand_like(gradcalc.zeros(3, 2)), (3, 2)),
    (lambda: gradcalc.randn_like(gradcalc.zeros(5)), (5,)),
    (lambda: gradcalc.rand(0, 2), (0, 2)),
])
def test_float_constructors_give_float64_of_the_shape_asked(make, shape):
    t = make()
    assert tuple(t.shape) == shape and str(t.dtype) == "float64"
    assert not t.requires_grad and t.is_leaf


def test_rand_can_be_a_leaf_that_requires_grad():
    gradcalc.manual_seed(0)
    t = gradcalc.rand(2, requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.grad is None
    t.sum().backward()
    assert t.grad.tolist() == [1.0, 1.0]


def test_rand_is_uniform_on_the_unit_interval():
    gradcalc.manual_seed(0)
    v = gradcalc.rand(N).numpy()
    assert v.min() >= 0.0 and v.max() < 1.0
    # mean 1/2 and variance 1/12: standard errors 0.0014 and 0.0004
    assert abs(v.mean() - 0.5) < 0.01 and abs(v.var() - 1 / 12) < 0.003
    assert np.histogram(v, bins=10, range=(0, 1))[0].min() > 0.09 * N


def test_randn_is_standard_normal():
    gradcalc.manual_seed(0)
    v = gradcalc.randn(N).numpy()
    # standard errors: mean 0.005, standard deviation 0.0035
    assert abs(v.mean()) < 0.03 and abs(v.std() - 1.0) < 0.02
    assert abs((np.abs(v) < 1).mean() - 0.6827) < 0.012


def test_randint_gives_int64_in_the_half_open_range_printed_as_pytorchs():
    gradcalc.manual_seed(0)
    t = gradcalc.randint(3, 10, (2, 2))
    assert str(t.dtype) == "int64" and tuple(t.shape) == (2, 2)
    (a, b), (c, d) = t.tolist()
    assert repr(t) == f"tensor([[{a}, {b}],\n        [{c}, {d}]])"  # no decimal points
    wide = gradcalc.randint(3, 10, (N,)).numpy()
    assert wide.min() == 3 and wide.max() == 9
    assert abs(np.bincount(wide)[3:].min() / N - 1 / 7) < 0.01
    assert tuple(gradcalc.randint(5, (3,)).shape) == (3,)  # high only, as PyTorch's
    assert set(gradcalc.randint(5, (N,)).numpy().tolist()) == {0, 1, 2, 3, 4}


def test_integer_results_index_and_mix_with_floats_as_pytorchs():
    gradcalc.manual_seed(2)
    idx = gradcalc.randint(0, 3, (4,))
    x = gradcalc.tensor([10.0, 20.0, 30.0], requires_grad=True)
    picked = x[idx]
    picked.sum().backward()
    assert picked.tolist() == [10.0 * (i + 1) for i in idx.tolist()]
    assert x.grad.tolist() == [float(idx.tolist().count(i)) for i in range(3)]
    assert str((idx / 2).dtype) == "float64" and str((idx + 1).dtype) == "int64"


def test_randint_like_keeps_the_dtype_of_its_input():
    # PyTorch 2.13: randint_like(float tensor) is float64, of an int64 tensor int64
    assert str(gradcalc.randint_like(gradcalc.ones(2, 2), 4).dtype) == "float64"
    assert str(gradcalc.randint_like(gradcalc.randint(0, 2, (3,)), 4).dtype) == "int64"


def test_randperm_is_a_permutation_of_int64():
    gradcalc.manual_seed(0)
    p = gradcalc.randperm(7)
    assert str(p.dtype) == "int64" and sorted(p.tolist()) == list(range(7))


@pytest.mark.parametrize(("make", "error", "words"), [
    (lambda: gradcalc.rand(-1), RuntimeError,
     "Trying to create tensor with negative dimension -1: [-1]"),
    (lambda: gradcalc.randn(2, -3), RuntimeError,
     "Trying to create tensor with negative dimension -3: [2, -3]"),
    (lambda: gradcalc.randint(5, 3, (2,)), RuntimeError,
     "random_ expects 'from' to be less than 'to', but got from=5 >= to=3"),
    (lambda: F.dropout(gradcalc.ones(3), 1.5), ValueError,
     "dropout probability has to be between 0 and 1, but got 1.5"),
    (lambda: nn.Dropout(-0.1), ValueError,
     "dropout probability has to be between 0 and 1, but got -0.1"),
])
def test_errors_are_pytorchs(make, error, words):
    with pytest.raises(error) as caught:
        make()
    assert str(caught.value) == words


# --------------------------------------------------------------------------- dropout


@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_dropout_zeros_a_fraction_p_and_scales_the_rest(p):
    gradcalc.manual_seed(5)
    x = gradcalc.tensor(np.linspace(0.5, 2.0, N))
    y = F.dropout(x, p).numpy()
    kept = y != 0
    # the fraction dropped: standard error at most 0.0025
    assert abs((1 - kept.mean()) - p) < 0.015
    assert np.allclose(y[kept], x.numpy()[kept] / (1 - p), rtol=1e-15, atol=0)


def test_dropout_gradient_is_the_mask_over_one_minus_p():
    gradcalc.manual_seed(1)
    x = gradcalc.tensor(np.linspace(-1.0, 1.0, 1000) + 0.0005, requires_grad=True)
    y = F.dropout(x, 0.3)
    w = gradcalc.tensor(np.cos(np.arange(1000.0)))
    (y * w).sum().backward()
    mask = (y.detach().numpy() != 0)
    assert mask.sum() not in (0, 1000)
    assert np.allclose(x.grad.numpy(), mask * np.cos(np.arange(1000.0)) / 0.7, rtol=1e-15)
    assert y.grad_fn.name() == "MulBackward0"  # PyTorch's node for dropout is a product too


def test_dropout_p_zero_and_one():
    # PyTorch: p=0 passes the values and a gradient of ones; p=1 gives zeros and zeros
    x = gradcalc.ones(3, requires_grad=True)
    F.dropout(x, 0.0).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    x.grad = None
    y = F.dropout(x, 1.0)
    y.sum().backward()
    assert y.tolist() == [0.0, 0.0, 0.0] and x.grad.tolist() == [0.0, 0.0, 0.0]


def test_dropout_outside_training_is_the_identity():
    x = gradcalc.tensor([1.0, -2.0, 3.0], requires_grad=True)
    assert F.dropout(x, 0.5, training=False) is x  # PyTorch returns its input as well
    layer = nn.Dropout(0.5)
    layer.eval()
    out = layer(x)
    assert out.tolist() == [1.0, -2.0, 3.0]
    gradcalc.manual_seed(0)
    layer.train()
    trained = layer(gradcalc.ones(2000)).numpy()
    assert set(np.unique(trained).tolist()) == {0.0, 2.0}

"""gradcalc.engine.indexing: PyTorch's indexing rules, pinned with torch 2.13.0's results
(float64) so that they stay fixed without torch: tuples of indices (tinygrad's
test_slice_fancy_indexing_tuple_indices) and the tensors that may not index."""

from __future__ import annotations

import numpy as np
import pytest

import gradcalc

SHAPE = (2, 5, 6, 5, 3, 4)
#: tinygrad's index tensors, drawn once (its randint bounds and shapes)
RNG = np.random.default_rng(1)
A = RNG.integers(-1, 1, (2, 1, 1, 1, 1, 1))
B = RNG.integers(0, 1, (1, 3, 1, 1, 1, 1))
C = RNG.integers(-5, 5, (1, 1, 4, 1, 1, 1))
D = RNG.integers(0, 4, (2, 1, 1, 5, 1, 1))
E = RNG.integers(0, 1, (1, 1, 1, 1, 6, 1))

#: name -> (the index, given the index tensors; PyTorch's result shape)
TUPLES = {
    "static": (lambda a, b, c, d, e: (((0,),),), (1, 1, 5, 6, 5, 3, 4)),
    "leading": (lambda a, b, c, d, e: ((0,), b, c, d, slice(None)), (2, 3, 4, 5, 1, 1, 3, 4)),
    "negative": (lambda a, b, c, d, e: ((1, 0), b, c, d, slice(None)),
                 (2, 3, 4, 5, 1, 2, 3, 4)),
    "trailing": (lambda a, b, c, d, e: (a, b, c, (1, 2, 3), ...), (2, 3, 4, 1, 1, 3, 3, 4)),
    "column": (lambda a, b, c, d, e: (a, ((2,), (1,), (0,)), c, (2, 1, 0)),
               (2, 1, 4, 1, 3, 3, 3, 4)),
    "none": (lambda a, b, c, d, e: (1, (2, 1, 0), None, c, (2, 1, 0), e),
             (1, 1, 4, 1, 6, 3, 1, 4)),
}


@pytest.mark.parametrize("name", TUPLES)
def test_tuples_of_indices_give_pytorchs_shape_values_and_gradient(name):
    index, shape = TUPLES[name]
    x0 = np.arange(np.prod(SHAPE), dtype=np.float64).reshape(SHAPE)
    x = gradcalc.tensor(x0, requires_grad=True)
    y = x[index(*(gradcalc.tensor(v).long() for v in (A, B, C, D, E)))]
    assert y.shape == shape
    plain = index(A, B, C, D, E)
    np.testing.assert_array_equal(y.detach().numpy(), x0[plain])  # NumPy agrees here
    w = np.cos(np.arange(y.numel())).reshape(shape)
    (y * gradcalc.tensor(w)).sum().backward()
    expected = np.zeros(SHAPE)
    np.add.at(expected, plain, w)  # each read element gets its weights, repeats summed
    np.testing.assert_allclose(x.grad.numpy(), expected)


def test_a_tuple_inside_an_index_is_a_sequence_as_a_list_is():
    x = gradcalc.arange(12).reshape(3, 4)
    assert x[(2, 0), 1].tolist() == x[[2, 0], 1].tolist() == [9.0, 1.0]
    assert x[(2, 0),].shape == x[[2, 0]].shape == (2, 4)
    x[(0, 2), 0] = -1.0
    assert x[:, 0].tolist() == [-1.0, 4.0, -1.0]


NOT_INDICES = "tensors used as indices must be long, int, byte or bool tensors"

#: PyTorch refuses these as indices: floating-point tensors, even with whole values
FLOATING = {
    "fractions' data": lambda: gradcalc.tensor([0.0, 1.0]),
    "a 0-d float": lambda: gradcalc.tensor(1.0),
    "ones": lambda: gradcalc.ones(2),
    "arange of a float": lambda: gradcalc.arange(2.0),
    "full of a float": lambda: gradcalc.full((2,), 1.0),
    "float()": lambda: gradcalc.tensor([0, 1]).float(),
    "rand": lambda: gradcalc.rand(2) * 0,
    "requires grad": lambda: gradcalc.tensor([0.0, 1.0], requires_grad=True),
    "computed on the tape": lambda: gradcalc.tensor([0.0, 0.5], requires_grad=True) * 2,
    "detached": lambda: gradcalc.tensor([0.0, 1.0], requires_grad=True).detach(),
    "cloned": lambda: gradcalc.ones(2).clone(),
    "stacked": lambda: gradcalc.stack([gradcalc.tensor(0.0), gradcalc.tensor(1.0)]),
}
#: and takes these (integers, or gradcalc's float64 stand-ins for PyTorch's int64)
INTEGRAL = {
    "integers' data": lambda: gradcalc.tensor([0, 1]),
    "a NumPy int array": lambda: gradcalc.tensor(np.array([0, 1])),
    "arange": lambda: gradcalc.arange(2),
    "full of an int": lambda: gradcalc.full((2,), 1),
    "an integer tensor plus one": lambda: gradcalc.tensor([0, 1]) + 1,
    "zeros_like an integer tensor": lambda: gradcalc.zeros_like(gradcalc.tensor([0, 1])),
    "long()": lambda: gradcalc.tensor([0.0, 1.0]).long(),
    "randint": lambda: gradcalc.randint(0, 2, (2,)),
}


@pytest.mark.parametrize("name", FLOATING)
def test_a_floating_tensor_may_not_index(name):
    x = gradcalc.ones(3, 3)
    index = FLOATING[name]()
    with pytest.raises(IndexError, match=NOT_INDICES):
        x[index]
    with pytest.raises(IndexError, match=NOT_INDICES):
        x[index, 0]
    with pytest.raises(IndexError, match=NOT_INDICES):
        x[index] = 0.0


@pytest.mark.parametrize("name", INTEGRAL)
def test_an_integer_tensor_indexes(name):
    x = gradcalc.arange(9).reshape(3, 3)
    index = INTEGRAL[name]()
    assert x[index].shape == (*index.shape, 3)
    np.testing.assert_array_equal(x[index].numpy(), x.numpy()[index.numpy().astype(int)])


def test_fractions_may_not_index_whatever_made_them():
    with pytest.raises(IndexError, match=NOT_INDICES):
        gradcalc.ones(3)[gradcalc.tensor([0, 1]) / 2]

"""PyTorch's max/min along a dim, argmax/argmin (gradcalc/engine/selecting.py).

The expected values were measured with torch 2.13 (float64) on the same tensor: the index
is the first largest element, nan wins, and the gradient goes to the chosen element only.
"""

from __future__ import annotations

import math

import pytest

import gradcalc

NAN = math.nan

# dim -> (values, indices, x.grad after (values * arange).sum().backward())
MAX_ALONG = {
    0: ([[NAN, 5.0], [5.0, 3.0]], [[1, 0], [0, 1]],
        [[[0.0, 1.0], [2.0, 0.0]], [[0.0, 0.0], [0.0, 3.0]]]),
    1: ([[5.0, 5.0], [NAN, 3.0]], [[1, 0], [0, 1]],
        [[[0.0, 1.0], [0.0, 0.0]], [[2.0, 0.0], [0.0, 3.0]]]),
    2: ([[5.0, 5.0], [NAN, 3.0]], [[1, 0], [0, 0]],
        [[[0.0, 0.0], [1.0, 0.0]], [[2.0, 0.0], [3.0, 0.0]]]),
    -1: ([[5.0, 5.0], [NAN, 3.0]], [[1, 0], [0, 0]],
         [[[0.0, 0.0], [1.0, 0.0]], [[2.0, 0.0], [3.0, 0.0]]]),
}


def _x() -> gradcalc.Tensor:
    return gradcalc.tensor([[[1.0, 5.0], [5.0, 2.0]], [[NAN, 0.0], [3.0, 3.0]]],
                           requires_grad=True)


def _same(a, b) -> bool:
    return str(a).replace("nan", "NAN") == str(b).replace("nan", "NAN")


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", sorted(MAX_ALONG))
def test_max_along_a_dim_matches_pytorch(dim, keepdim):
    values, indices, grad = MAX_ALONG[dim]
    x = _x()
    r = x.max(dim, keepdim=keepdim)
    axis = dim % 3
    got_values = r.values.squeeze(axis).tolist() if keepdim else r.values.tolist()
    got_indices = r.indices.squeeze(axis).tolist() if keepdim else r.indices.tolist()
    assert _same(got_values, values) and got_indices == indices
    assert r.values.shape == ((2, 2)[:axis] + (1,) + (2, 2)[axis:] if keepdim else (2, 2))
    weights = gradcalc.arange(4.0).reshape(r.values.shape)
    (r.values * weights).sum().backward()
    assert x.grad.tolist() == grad


def test_min_argmax_and_argmin_match_pytorch():
    x = _x()
    low = x.min(1)
    assert _same(low.values.tolist(), [[1.0, 2.0], [NAN, 0.0]])
    assert low.indices.tolist() == [[0, 1], [0, 0]]
    assert x.argmax().item() == 4 and x.argmax(2).tolist() == [[1, 0], [0, 0]]
    assert x.argmin(0, keepdim=True).tolist() == [[[1, 1], [1, 0]]]
    assert gradcalc.argmax(x, 2).tolist() == [[1, 0], [0, 0]]


def test_a_0d_tensor_and_a_dimension_out_of_range():
    z = gradcalc.tensor(2.0, requires_grad=True)
    values, indices = z.max(-1)
    assert values.item() == 2.0 and values.requires_grad and indices.item() == 0
    assert z.argmax(0).item() == 0
    with pytest.raises(IndexError, match=r"expected to be in range of \[-3, 2\], but got 3"):
        _x().max(3)


def test_the_pair_unpacks_indexes_and_names_its_fields():
    x = gradcalc.tensor([[1.0, 3.0], [4.0, 2.0]])
    values, indices = gradcalc.max(x, 1)
    assert values.tolist() == [3.0, 4.0] and indices.tolist() == [1, 0]
    pair = gradcalc.max(x, dim=1)
    assert pair[0] is pair.values and pair[1] is pair.indices
    assert type(pair).__name__ == "max" and type(gradcalc.min(x, 0)).__name__ == "min"
    assert gradcalc.max(x, other=gradcalc.tensor(2.5)).tolist() == [[2.5, 3.0], [4.0, 2.5]]
    with pytest.raises(TypeError, match="unexpected keyword"):
        gradcalc.max(x, 1, out=None)


def test_the_language_keeps_max_along_an_axis_with_ties_shared():
    # the command line's max(x, axis) is amax: a tie shares the gradient
    from gradcalc.engine.ops import FUNCTIONS

    x = gradcalc.tensor([[3.0, 3.0]], requires_grad=True)
    FUNCTIONS["max"][0](x, (1,)).sum().backward()
    assert x.grad.tolist() == [[0.5, 0.5]]

"""The diagonal seed of a Jacobian's sweep: the same numbers as the dense identity batch,
IEEE-exact (nan, signed zeros), at O(n) cost while operations stay elementwise."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcalc.engine import functional
from gradcalc.engine.diagonal import Diagonal

from conftest import examples, same_ieee

specials = st.sampled_from([0.0, -0.0, 1.0, -2.5, 1e-300, 1e300, np.inf, -np.inf, np.nan])
vectors = st.integers(1, 6).flatmap(lambda n: st.lists(
    st.one_of(specials, st.floats(-10, 10)), min_size=n, max_size=n).map(np.array))


def test_identity_is_the_dense_identity():
    seed = Diagonal.identity(4)
    assert seed.shape == (4, 4) and seed.ndim == 2 and seed.size == 16 and len(seed) == 4
    assert same_ieee(np.asarray(seed), np.eye(4))
    assert np.asarray(seed, dtype=np.float32).dtype == np.float32


UFUNCS = [np.add, np.subtract, np.multiply, np.true_divide, np.maximum, np.power]


@settings(max_examples=examples(60), deadline=None)
@given(v=vectors, ufunc=st.sampled_from(UFUNCS), left=st.booleans())
def test_elementwise_operations_stay_diagonal_and_equal_the_dense_ones(v, ufunc, left):
    n = len(v)
    seed = Diagonal(v, np.zeros(n))
    other = v[::-1].copy()
    with np.errstate(all="ignore"):
        got = ufunc(seed, other) if left else ufunc(other, seed)
        want = ufunc(np.asarray(seed), other) if left else ufunc(other, np.asarray(seed))
    assert isinstance(got, Diagonal)
    assert same_ieee(np.asarray(got), want)


@settings(max_examples=examples(40), deadline=None)
@given(v=vectors)
def test_a_dense_square_operand_gives_the_dense_result(v):
    n = len(v)
    seed = Diagonal(v, np.full(n, -0.0))
    dense = np.arange(n * n, dtype=np.float64).reshape(n, n) - 3.0
    with np.errstate(all="ignore"):
        got = np.multiply(seed, dense)
        want = np.multiply(np.asarray(seed), dense)
    assert not isinstance(got, Diagonal)
    assert same_ieee(got, want)


@settings(max_examples=examples(60), deadline=None)
@given(v=vectors, z=st.sampled_from([0.0, -0.0]))
def test_row_sums_keep_the_sign_of_zero(v, z):
    seed = Diagonal(v, np.full(len(v), z))
    dense = np.asarray(seed)
    with np.errstate(all="ignore"):
        for axis in (1, -1, 0, None):
            assert same_ieee(seed.sum(axis=axis), dense.sum(axis=axis)), axis
        assert same_ieee(seed.sum(axis=1, keepdims=True), dense.sum(axis=1, keepdims=True))


def test_operators_and_what_mixes_elements():
    seed = Diagonal.identity(3)
    x = np.array([1.0, 2.0, 3.0])
    for got, want in [(seed + x, np.eye(3) + x), (x - seed, x - np.eye(3)),
                      (seed * 2, np.eye(3) * 2), (seed / x, np.eye(3) / x),
                      (1 / (seed + 1), 1 / (np.eye(3) + 1)), (-seed, -np.eye(3))]:
        assert isinstance(got, Diagonal) and same_ieee(np.asarray(got), want)
    m = np.arange(9.0).reshape(3, 3)
    assert same_ieee(np.matmul(seed, m), m)  # a product sees the dense array
    assert "Diagonal(d=" in repr(seed)


@pytest.mark.parametrize("program", [
    lambda t: t.sin() * 3 + t * t,
    lambda t: (t.exp() - 1) / (t * t + 1),
    lambda t: t.relu() + t.abs(),
    lambda t: t.relu().sqrt(),  # relu masks sqrt's inf and the nan it makes: exact zeros
    lambda t: t.clamp(min=0.1).sqrt() * 2,
])
def test_a_jacobian_through_the_diagonal_seed_equals_the_dense_one(program):
    x = np.array([0.5, -1.0, 0.0, 2.0])
    jac = functional.jacobian(program, (x,))[0]
    rows = []
    for k in range(len(x)):
        (g,) = functional.vjp(program, (x,), np.eye(len(x))[k])[1]
        rows.append(np.asarray(g))
    assert same_ieee(jac, np.array(rows))
    assert np.count_nonzero(jac - np.diag(np.diag(jac))) == 0  # elementwise: diagonal


@settings(max_examples=examples(60), deadline=None)
@given(v=vectors, keep=st.lists(st.booleans(), min_size=6, max_size=6))
def test_masking_gives_exact_zeros_and_stays_diagonal(v, keep):
    n = len(v)
    seed = Diagonal(v, np.full(n, np.nan))  # off-diagonal nan: a mask must still zero it
    mask = np.array(keep[:n])
    got = seed.masked(mask)
    assert isinstance(got, Diagonal)
    assert same_ieee(np.asarray(got), np.where(mask, np.asarray(seed), 0.0))
    square = np.ones((n, n), dtype=bool)
    assert same_ieee(seed.masked(square), np.asarray(seed))


def test_a_jacobian_through_relu_of_an_infinite_derivative_is_pytorchs():
    # torch.autograd.functional.jacobian(lambda v: v.relu().sqrt(), [-0.5, 1, 0]), float64
    jac = functional.jacobian(lambda t: t.relu().sqrt(), (np.array([-0.5, 1.0, 0.0]),))[0]
    assert same_ieee(jac, np.array([[0.0, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 0.0]]))

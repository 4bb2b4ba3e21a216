"""The engine's pool of large buffers (gradcalc/engine/pool.py): an idle buffer is taken
again, a buffer anyone holds never is, what it keeps is bounded, and `fresh` writes a
ufunc's result into a buffer only where NumPy would give the same array."""

from __future__ import annotations

import numpy as np
import pytest

from gradcalc.engine import pool
from gradcalc.engine.tensor import Tensor

N = pool.POOLED


@pytest.fixture(autouse=True)
def empty_pool():
    pool.clear()
    yield
    pool.clear()


def test_an_idle_buffer_is_taken_again() -> None:
    first = pool.take((N,))
    kept = id(first)
    del first
    again = pool.take((N,))
    assert id(again) == kept and pool.holds(again) == 1 and pool.made() >= 1


@pytest.mark.parametrize("holder", ["name", "view", "tensor", "broadcast"])
def test_a_buffer_someone_holds_is_never_given(holder: str) -> None:
    buffer = pool.take((N,))
    held = {"name": buffer, "view": buffer[::2], "tensor": Tensor.wrap(buffer, None),
            "broadcast": np.broadcast_to(buffer, (2, N))}[holder]
    buffer_id = id(buffer)
    del buffer
    others = [pool.take((N,)) for _ in range(3)]
    assert buffer_id not in {id(o) for o in others}
    assert held is not None


def test_small_arrays_are_not_pooled() -> None:
    small = pool.take((N - 1,))
    assert small.shape == (N - 1,) and pool.holds(small) == 0 and pool.held() == 0


def test_at_most_so_many_buffers_of_one_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool, "MOST_PER_SHAPE", 2)
    held = [pool.take((N,)) for _ in range(4)]
    assert [pool.holds(b) for b in held] == [1, 1, 0, 0]  # the rest made outside it


def test_the_memory_kept_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool, "MOST_BYTES", 3 * N * 8)
    idle = pool.take((N,))
    del idle  # idle: given up to make room for another shape
    held = [pool.take((N, 1)), pool.take((N, 1)), pool.take((N, 1)), pool.take((N, 1))]
    assert [pool.holds(b) for b in held] == [1, 1, 1, 0]
    assert pool.held() == 3 * N * 8


def test_clear_gives_idle_buffers_back() -> None:
    in_use = pool.take((N,))
    idle = pool.take((N,))
    del idle
    pool.clear()
    assert pool.held() == 0 and pool.holds(in_use) == 0


def test_fresh_is_the_ufuncs_array() -> None:
    x = np.linspace(-3.0, 3.0, N)
    for ufunc, operands in [(np.sin, (x,)), (np.add, (np.float64(1.0), x)),
                            (np.multiply, (x, x)), (np.power, (x, 3.0)),
                            (np.true_divide, (np.asarray(2.0), x))]:
        made = pool.fresh(ufunc, *operands)
        assert pool.holds(made) == 1
        assert made.tobytes() == ufunc(*operands).tobytes()


@pytest.mark.parametrize("operands", [
    (np.arange(N),),  # not float64
    (np.ones(N), np.ones((2, N))),  # broadcast
    (np.ones((N, 2), order="F"),),  # NumPy would lay it out as the input is
    (np.ones(N - 1),),  # too small to be worth a buffer
    (np.ones(N), "text"),
])
def test_fresh_declines_what_numpy_would_lay_out_otherwise(operands: tuple) -> None:
    assert pool.fresh(np.negative if len(operands) == 1 else np.add, *operands) is None

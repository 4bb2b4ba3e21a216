"""The eager engine's work, counted (never timed): the point is not copied, a result
never aliases the caller's array, the sweep writes its results into the cotangents it
alone holds, and never into an array anyone else holds, and a gradient of large arrays
takes its buffers from the engine's pool, allocating none once they exist
(docs/performance.md)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import gradcalc
from gradcalc.backends.numeric import as_function
from gradcalc.engine import functional, pool, scratch, tape
from gradcalc.engine.fused import fusion
from gradcalc.language.parse import parse

W1 = "y = sum(sin(x)*exp(-x**2) + log(1+x**2))"
X = np.linspace(-3.0, 3.0, 1001)


def _f(program: str, names: tuple[str, ...] = ("x",)):
    return as_function(parse(program), list(names), {}, of="y")[0]


def test_the_point_is_not_copied() -> None:
    seen = []

    def f(t):
        seen.append(t.value)
        return gradcalc.sum(t * t)

    functional.grad(f, X)
    assert np.shares_memory(seen[0], X) and not seen[0].flags.writeable


def test_a_result_never_aliases_the_point() -> None:
    value, grad = functional.vjp(lambda t: t, X, np.ones_like(X))
    assert not np.shares_memory(value, X) and np.array_equal(value, X)
    value, _ = functional.jvp(lambda t: t, X, np.ones_like(X))
    assert not np.shares_memory(value, X)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many rule results were written into their cotangent, and how many sums into
    the sweep's pending cotangent."""
    counts = {"into g": 0, "sums in place": 0}
    into, addable = scratch._into, tape._addable

    def spy_into(g, v):
        done = into(g, v)
        counts["into g"] += done
        return done

    def spy_addable(before, gi):
        done = addable(before, gi)
        counts["sums in place"] += done
        return done

    monkeypatch.setattr(scratch, "_into", spy_into)
    monkeypatch.setattr(tape, "_addable", spy_addable)
    return counts


def test_w1s_sweep_reuses_its_buffers(counted: dict[str, int]) -> None:
    with fusion(False):  # the tape's sweep, not a fused kernel
        functional.grad(_f(W1), X)
    # neg and both x**2 write into g; x's three parts are summed into the first. mul's
    # rule, given sum's broadcast of 1, passes sin(x) and exp(-x²) on as they are (1·v
    # is v, a read-only alias); by the time exp's and sin's rules run, each alias alone
    # holds its array, which the sweep lends them: s·e goes into sin x's array and
    # g·cos(x) into exp(-x²)'s (3 into g before)
    assert counted == {"into g": 5, "sums in place": 2}


def test_w1s_sweep_makes_three_arrays(monkeypatch: pytest.MonkeyPatch) -> None:
    """The arrays W1's sweep makes (every one from the pool): 1/q, 2x (once for both
    x**2: 4 arrays before) and cos x (s·e goes into sin x's array: 5 before that). The
    code before those made 7 (1·sin x and 1·exp(-x²) too)."""
    taken: list[tuple[int, ...]] = []
    take = pool.take

    def spy(shape):
        taken.append(shape)
        return take(shape)

    leaves = functional._leaves(BIG)[0]
    with fusion(False):
        out, t = functional.record(_f(W1), leaves, lean=True)
        monkeypatch.setattr(pool, "take", spy)
        functional.sweep(out, np.ones(()), leaves, retain_graph=False, on=t)
    assert taken == [BIG.shape] * 3


def test_a_traced_cotangent_is_never_overwritten(counted: dict[str, int]) -> None:
    x = gradcalc.tensor(X, requires_grad=True)
    with tape.recording() as t:
        y = gradcalc.sum(gradcalc.exp(gradcalc.sin(x)) * x)
    trace: dict = {}
    tape.backward([(y.node, np.float64(1.0))], tape=t, trace=trace, retain_graph=True)
    sin_node = next(n for n in t.nodes if n.prim is not None and n.prim.name == "sin")
    assert np.array_equal(trace[sin_node], X * np.exp(np.sin(X)))
    assert counted["into g"] == 0  # every cotangent was also the trace's


def _sin_times_exp(x: gradcalc.Tensor, held: list) -> tuple[gradcalc.Tensor, tape.Tape]:
    """sum(sin(x)·exp(x)) recorded lean (as `grad` records), its two factors kept in
    `held`."""
    with tape.recording() as t, tape.lean():
        s, e = gradcalc.sin(x), gradcalc.exp(x)
        y = gradcalc.sum(s * e)
    held.extend((s, e))
    return y, t


@pytest.mark.parametrize("holding", [True, False])
def test_an_alias_is_written_into_only_when_it_alone_holds_its_array(
        counted: dict[str, int], holding: bool) -> None:
    """mul's rule passes sin x and exp x on as read-only aliases (g is 1): exp's and
    sin's rules write into them only when no one else holds their arrays."""
    x = gradcalc.tensor(BIG, requires_grad=True)
    held: list = []
    y, t = _sin_times_exp(x, held)
    kept = [v.value.copy() for v in held]
    if not holding:
        held.clear()
    found = tape.backward([(y.node, np.ones(()))], tape=t)
    assert counted["into g"] == (0 if holding else 2)
    assert all(v.value.tobytes() == k.tobytes() for v, k in zip(held, kept))
    assert found[x.node].tobytes() == (
        np.sin(BIG) * np.exp(BIG) + np.exp(BIG) * np.cos(BIG)).tobytes()


def test_a_callers_seed_is_never_overwritten(counted: dict[str, int]) -> None:
    x = gradcalc.tensor(X, requires_grad=True)
    with tape.recording() as t:
        y = gradcalc.exp(-gradcalc.sin(x))
    seed = np.cos(X)
    kept = seed.copy()
    found = tape.backward([(y.node, seed)], tape=t)
    assert np.array_equal(seed, kept)
    assert np.array_equal(found[x.node], kept * y.value * -1.0 * np.cos(X))
    assert counted["into g"] == 2  # the rules after exp's: into exp's fresh result


#: W1's point at a size whose arrays come from the pool
BIG = np.linspace(-3.0, 3.0, pool.POOLED)


def _w1_gradient() -> np.ndarray:
    with fusion(False):
        return functional.grad(_f(W1), BIG)


def test_w1_takes_five_buffers_and_then_allocates_none() -> None:
    pool.clear()
    before = pool.made()
    first = _w1_gradient()
    # its most arrays alive at once, forward and sweep (6 before the interpreter's
    # temporaries were written over)
    assert pool.made() - before == 5
    del first
    tracemalloc.start()  # NumPy reports every array's memory to tracemalloc
    try:
        again = _w1_gradient()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert pool.made() - before == 5  # none made again
    assert peak < BIG.nbytes / 4  # no array of W1's size made (six at once before)
    assert np.allclose(again, _plain_w1_gradient(), rtol=1e-14, atol=0.0)


def _plain_w1_gradient() -> np.ndarray:
    """W1's gradient by hand (its bits are tests/engine/test_tape_bits.py's)."""
    x = BIG
    s, e, q = np.sin(x), np.exp(-(x ** 2.0)), 1.0 + x ** 2.0
    from_log = (1.0 / q) * (2.0 * x)
    from_exp = -(s * e) * (2.0 * x)
    return from_log + from_exp + e * np.cos(x)


def test_a_cotangent_passed_on_as_it_is_reaches_no_caller() -> None:
    """sum(t·c)'s gradient is c, passed on by mul's rule as a read-only view of c: the
    caller gets an array of its own, for a leaf and for an intermediate value alike."""
    c = np.cos(BIG)
    t = gradcalc.tensor(BIG, requires_grad=True)
    with tape.recording() as recorded:
        u = t * 1.0
        y = gradcalc.sum(u * c)
    found = tape.backward([(y.node, np.ones(()))], tape=recorded, stop_at={u.node})
    for g in (found[u.node], functional.grad(lambda v: gradcalc.sum(v * c), BIG)):
        assert np.array_equal(g, c) and not np.shares_memory(g, c) and g.flags.writeable


def test_a_result_the_caller_holds_is_never_reused() -> None:
    first = _w1_gradient()
    kept = first.copy()
    with fusion(False):
        functional.grad(_f("y = sum(x*x*x)"), BIG)
        functional.grad(_f(W1), -BIG)
    assert np.array_equal(first, kept)


def _div_dy_cases() -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(g, x, y) for div's rule for its divisor: a cotangent of its own, sum's broadcast
    of 1, a caller's array; nan, inf and signed zeros among the values."""
    awkward = np.resize([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-300, -2.5, 3.0], BIG.size)
    x, y = np.cos(BIG) + awkward, np.sin(BIG) * 3.0 - awkward[::-1]
    return {"own": (np.exp(BIG) - awkward, x, y),
            "ones": (np.broadcast_to(np.ones(()), BIG.shape), x, y),
            "held": (np.tan(BIG), y, x)}


@pytest.mark.parametrize("case", ["own", "ones", "held"])
def test_divs_rule_for_its_divisor_keeps_its_bits_and_makes_no_array(case: str) -> None:
    """-g·x / y², computed in the pool's buffers (and into g when the sweep lends it): the
    bits of the expression, and no array made outside the pool (two before)."""
    from gradcalc.engine import rules

    g, x, y = _div_dy_cases()[case]
    with np.errstate(all="ignore"):
        wanted = (-g * x / (y * y)).tobytes()
        rules.div_dy(g.copy() if case == "own" else g, x, x, y)  # the pool's buffers made
        lent = g.copy() if case == "own" else g
        held = g.copy()
        tape.state.spare = lent if case == "own" else None
        tracemalloc.start()
        try:
            got = rules.div_dy(lent, x, x, y)  # ans: any array of the shape
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
            tape.state.spare = None
    assert got.tobytes() == wanted
    assert peak < BIG.nbytes / 4
    assert (got is lent) == (case == "own")  # a lent cotangent is written into
    if case != "own":
        assert g.tobytes() == held.tobytes()


@pytest.mark.parametrize("which", [0, 1, 2])
def test_divs_rule_for_its_divisor_of_other_shapes_is_the_expression(which: int) -> None:
    """A 0-d array among g, x and y: NumPy's expression itself."""
    g, x, y = [np.array(-1.5) if i == which else v for i, v in
               enumerate(_div_dy_cases()["own"])]
    with np.errstate(all="ignore"):
        wanted = (-g * x / (y * y)).tobytes()
        tape.state.spare = g
        try:
            got = scratch.minus_times_over_square(g, x, y)
        finally:
            tape.state.spare = None
    assert got.tobytes() == wanted


def test_2x_is_made_once_per_sweep_for_the_same_x(monkeypatch: pytest.MonkeyPatch) -> None:
    """x**2's rule wants 2·x: made once for W1's two x**2 of one x, once for each of two
    x's that are different arrays (even with equal values), and forgotten when the
    sweep ends."""
    made: list[float] = []
    scaled = scratch.scaled
    monkeypatch.setattr(scratch, "scaled", lambda c, x: made.append(c) or scaled(c, x))
    with fusion(False):
        functional.grad(_f(W1), X)
        assert len(made) == 1
        g = functional.grad(_f("y = sum((x*1)**2 + (x*3)**2 + (x*1)**2)"), X)
    assert len(made) == 4
    assert tape.state.once is None
    assert np.allclose(g, 2.0 * X + 18.0 * X + 2.0 * X, rtol=1e-15, atol=0.0)

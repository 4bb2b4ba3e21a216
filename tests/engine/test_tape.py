"""The tape and its reverse sweep: diamonds, depth, freeing, batching, shapes, indexing."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

import gradcalc as gc
from gradcalc import autograd
from gradcalc.engine import functional, ops, tape
from gradcalc.engine.tensor import Tensor


def leaf(data) -> Tensor:
    return gc.tensor(data, requires_grad=True)


def close(a, b, rtol=1e-12) -> None:
    a = np.asarray(getattr(a, "value", a), dtype=float)
    assert np.allclose(a, b, rtol=rtol, atol=rtol), (a, b)


# ------------------------------------------------------------------------------- diamonds


def test_diamond_x_times_x_plus_x():
    x = leaf(3.0)
    y = x * x + x
    y.backward()
    assert y.item() == 12.0 and x.grad.item() == 7.0


def test_value_used_many_times():
    x = leaf(0.7)
    s = x
    for _ in range(49):
        s = s + x  # 50 uses of x along one chain
    t = x * x * x + gc.sin(x) * x  # and several uses inside one expression
    (s + t).backward()
    close(x.grad, 50 + 3 * 0.7**2 + math.cos(0.7) * 0.7 + math.sin(0.7))


def test_intermediate_used_on_two_paths():
    x = leaf(2.0)
    u = gc.exp(x)
    y = u * gc.sin(u) + u  # u reaches y along three edges
    y.backward()
    e = math.exp(2.0)
    close(x.grad, (math.sin(e) + e * math.cos(e) + 1) * e)


def test_a_plus_b_times_b_plus_c():
    a, b, c = leaf(1.0), leaf(2.0), leaf(3.0)
    y = (a + b) * (b + c)
    y.backward()
    assert y.item() == 15.0
    assert (a.grad.item(), b.grad.item(), c.grad.item()) == (5.0, 8.0, 3.0)


def test_leaf_created_after_intermediate_nodes():
    x = leaf(2.0)
    u = x * 3.0
    z = leaf(5.0)  # a later sequence number than u
    y = u * z + z * x
    y.backward()
    assert (x.grad.item(), z.grad.item()) == (20.0, 8.0)


# ------------------------------------------------------------------------------- depth


def _loop_reference(x0: float, steps: int) -> tuple[float, float]:
    """The value and forward-mode derivative of y <- 1.0001*y + 0.001*sin(y)."""
    y, dy = x0, 1.0
    for _ in range(steps):
        y, dy = y * 1.0001 + math.sin(y) * 0.001, dy * (1.0001 + math.cos(y) * 0.001)
    return y, dy


def _loop(x: Tensor, steps: int) -> Tensor:
    y = x
    for _ in range(steps):
        y = y * 1.0001 + gc.sin(y) * 0.001
    return y


def test_hundred_thousand_operation_loop_without_recursion():
    steps = 25_000  # four recorded operations per step: 10^5 nodes (10^6: see below)
    x = leaf(0.5)
    y = _loop(x, steps)
    y.backward()
    value, derivative = _loop_reference(0.5, steps)
    close(y, value, 1e-12)
    close(x.grad, derivative, 1e-9)


def _chain(steps: int) -> None:
    x = leaf(1.0)
    y = x
    for _ in range(steps):
        y = y * 1.000001
    y.backward()
    close(x.grad, 1.000001**steps, 1e-9)
    del y  # freeing a chain this long must not overflow the C stack either


def test_two_hundred_thousand_step_chain():
    _chain(200_000)


@pytest.mark.skipif(not os.environ.get("GRADCALC_SLOW"),
                    reason="10^6 steps take ~13 s; set GRADCALC_SLOW=1 to run them")
def test_million_step_chain():
    _chain(1_000_000)


# ------------------------------------------------------------------------------- freeing


def test_second_backward_through_a_freed_graph_raises():
    x = leaf(2.0)
    y = x * x
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    z = gc.sin(x) * x
    autograd.grad(z, x)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        autograd.grad(z, x)


def test_retain_graph_allows_a_second_backward_and_grads_accumulate():
    x = leaf([2.0, 3.0])
    y = x**2
    y.backward(gc.tensor([1.0, 0.0]), retain_graph=True)
    close(x.grad, [4.0, 0.0])
    y.backward(gc.tensor([0.0, 1.0]))
    close(x.grad, [4.0, 6.0])
    x.grad.zero_()
    close(x.grad, [0.0, 0.0])


def test_freeing_keeps_other_graphs_intact():
    x = leaf(2.0)
    shared = x * x
    a, b = shared + 1.0, shared * 3.0
    a.backward()  # frees a's nodes, and `shared` too
    with pytest.raises(RuntimeError):
        b.backward()
    c = x * 4.0  # a new graph from the same leaf still works
    c.backward()
    close(x.grad, 4.0 + 4.0)


# ------------------------------------------------------------------------------- no_grad


def test_no_grad_records_nothing():
    x = leaf(2.0)
    with gc.no_grad():
        y = x * x + gc.sin(x)
        assert not y.requires_grad and y.grad_fn is None and y.node is None
        with gc.no_grad():
            pass
        z = x * 2.0  # still off after a nested block ends
        assert z.node is None
    assert tape.grad_enabled()
    w = x * x
    assert w.requires_grad and w.grad_fn is not None
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.backward()


def test_no_grad_is_restored_after_an_exception():
    with pytest.raises(ValueError), gc.no_grad():
        raise ValueError
    assert tape.grad_enabled()


# ------------------------------------------------------------------------------- batches


def test_identity_seed_gives_the_jacobian_in_one_sweep():
    x0 = np.array([0.3, -1.2, 2.0])
    x = leaf(x0)
    y = gc.stack([x[0] * x[1], gc.sin(x[2]), gc.sum(x * x), x[1] / x[2]])
    seed = functional.identity_seed((4,))
    found = tape.backward([(y.node, seed)], retain_graph=True)
    a, b, c = x0
    expected = np.array([[b, a, 0.0], [0.0, 0.0, math.cos(c)], 2 * x0, [0.0, 1 / c, -b / c**2]])
    close(found[x.node], expected)
    close(functional.jacobian(lambda v: gc.stack([v[0] * v[1], gc.sin(v[2]), gc.sum(v * v),
                                                  v[1] / v[2]]), x0), expected)


def test_batched_seed_through_matrix_ops_and_reductions():
    r = np.random.default_rng(0)
    a0, x0 = r.normal(size=(3, 4)), r.normal(size=4)

    def f(a, x):
        return gc.tanh(a @ x) * a.sum(0).mean() + (x @ a.T)

    def f_value(a, x):
        return f(gc.tensor(a), gc.tensor(x)).value

    ja, jx = functional.jacobian(f, (a0, x0))
    assert ja.shape == (3, 3, 4) and jx.shape == (3, 4)
    h = 1e-6
    for arr, jac in ((a0, ja), (x0, jx)):
        for idx in np.ndindex(arr.shape):
            e = np.zeros(arr.shape)
            e[idx] = h
            args_p = (a0 + e, x0) if arr is a0 else (a0, x0 + e)
            args_m = (a0 - e, x0) if arr is a0 else (a0, x0 - e)
            fd = (f_value(*args_p) - f_value(*args_m)) / (2 * h)
            assert np.allclose(jac[(slice(None),) + idx], fd, atol=1e-7)


def test_jvp_is_the_transpose_of_the_vjp():
    x0, v = np.array([0.5, -0.3, 1.1]), np.array([1.0, 2.0, -1.0])

    def f(x):
        return gc.stack([gc.exp(x[0]) * x[1], gc.norm(x), gc.prod(x)])

    _, jv = functional.jvp(f, x0, v)
    close(jv, functional.jacobian(f, x0) @ v)


def test_create_graph_differentiates_a_gradient_again():
    x = leaf(1.5)
    y = x**3 + gc.sin(x)
    (g,) = autograd.grad(y, x, create_graph=True)
    close(g, 3 * 1.5**2 + math.cos(1.5))
    g.backward()
    close(x.grad, 6 * 1.5 - math.sin(1.5))


# ------------------------------------------------------------------------------- unused


def test_gradient_with_respect_to_an_unused_input():
    x, y = leaf([1.0, 2.0]), leaf(3.0)
    out = gc.sum(x * x)
    assert autograd.grad(out, [x, y], retain_graph=True, allow_unused=True)[1] is None
    with pytest.raises(RuntimeError, match="not have been used"):
        autograd.grad(out, [x, y], retain_graph=True)
    out.backward()
    assert y.grad is None
    gx, gy = functional.grad(lambda a, b: gc.sum(a * a), (np.array([1.0, 2.0]), np.array(3.0)))
    close(gx, [2.0, 4.0])
    assert np.shape(gy) == () and gy == 0.0
    jx, jy = functional.jacobian(lambda a, b: a * 2.0, (np.ones(2), np.ones(3)))
    assert jy.shape == (2, 3) and not jy.any()


# ------------------------------------------------------------------------------- matrices


def test_matrix_shapes():
    r = np.random.default_rng(1)
    a0, b0, x0, w0 = (r.normal(size=(3, 4)), r.normal(size=(4, 2)), r.normal(size=4),
                      r.normal(size=3))
    a, b, x, w = leaf(a0), leaf(b0), leaf(x0), leaf(w0)
    gc.sum((a @ x) * w0).backward()  # A @ x
    close(a.grad, np.outer(w0, x0))
    close(x.grad, a0.T @ w0)
    a.grad = x.grad = None
    gc.sum((w @ a) * x0).backward()  # x @ A
    close(w.grad, a0 @ x0)
    close(a.grad, np.outer(w0, x0))
    a.grad = None
    c = r.normal(size=(3, 2))
    gc.sum((a @ b) * c).backward()  # A @ B
    close(a.grad, c @ b0.T)
    close(b.grad, a0.T @ c)
    x.grad = None
    y = leaf(x0[::-1].copy())
    d = gc.dot(x, y)  # vector dot
    assert d.shape == ()
    d.backward()
    close(x.grad, x0[::-1])
    close(y.grad, x0)


def test_batched_matmul_with_a_vector():
    r = np.random.default_rng(2)
    a0, x0 = r.normal(size=(2, 3, 4)), r.normal(size=4)
    a, x = leaf(a0), leaf(x0)
    w = r.normal(size=(2, 3))
    gc.sum((a @ x) * w).backward()
    close(a.grad, w[..., None] * x0)
    close(x.grad, np.einsum("bij,bi->j", a0, w))


# ------------------------------------------------------------------------------- indexing


def test_indexing_ints_slices_negative():
    x0 = np.arange(12.0).reshape(3, 4)
    x = leaf(x0)
    y = x[0, 1] * 2.0 + gc.sum(x[1:3, ::2]) + x[-1, -1] * 10.0 + gc.sum(x[-2])
    y.backward()
    expected = np.zeros((3, 4))
    expected[0, 1] += 2.0
    expected[1:3, ::2] += 1.0
    expected[-1, -1] += 10.0
    expected[-2] += 1.0
    close(x.grad, expected)


def test_repeated_advanced_index_accumulates():
    x = leaf([1.0, 2.0, 3.0, 4.0])
    gc.sum(x[np.array([0, 2, 0, 0, 3])] * np.array([1.0, 1.0, 2.0, 3.0, 1.0])).backward()
    close(x.grad, [6.0, 0.0, 1.0, 1.0])
    m = leaf(np.ones((3, 2)))
    gc.sum(m[np.array([1, 1, 2]), np.array([0, 0, 1])]).backward()
    close(m.grad, [[0.0, 0.0], [2.0, 0.0], [0.0, 1.0]])


def test_boolean_mask_and_index_assignment():
    x = leaf([-1.0, 2.0, -3.0, 4.0])
    y = x * 3.0
    gc.sum(y[x > 0]).backward(retain_graph=True)
    close(x.grad, [0.0, 3.0, 0.0, 3.0])
    x.grad = None
    g = x * x
    g[x < 0] = 0.0  # index assignment on a non-leaf: the overwritten entries get no gradient
    gc.sum(g).backward()
    close(x.grad, [0.0, 4.0, 0.0, 8.0])


def test_stack_of_constants_and_tensors():
    x, y = leaf(2.0), leaf([1.0, 3.0])
    s = gc.stack([x * 1.0, 5.0, y[1], np.float64(7.0)])
    assert s.shape == (4,)
    close(s, [2.0, 5.0, 3.0, 7.0])
    gc.sum(s * np.array([1.0, 2.0, 3.0, 4.0])).backward()
    close(x.grad, 1.0)
    close(y.grad, [0.0, 3.0])


# ------------------------------------------------------------------------------- reductions


def test_reductions_with_axis_and_keepdims():
    x0 = np.arange(1.0, 7.0).reshape(2, 3)
    w = np.array([[1.0], [2.0]])
    x = leaf(x0)
    s = x.sum(dim=1, keepdim=True)
    assert s.shape == (2, 1)
    gc.sum(s * w).backward()
    close(x.grad, np.broadcast_to(w, (2, 3)))
    x.grad = None
    m = x.mean(dim=0)
    assert m.shape == (3,)
    gc.sum(m * np.array([1.0, 2.0, 3.0])).backward()
    close(x.grad, np.broadcast_to(np.array([1.0, 2.0, 3.0]) / 2, (2, 3)))
    x.grad = None
    p = x.prod(dim=-1, keepdim=True)
    close(p, [[6.0], [120.0]])
    gc.sum(p).backward()
    close(x.grad, np.prod(x0, axis=1, keepdims=True) / x0)
    x.grad = None
    gc.sum(ops.mean(x, axis=(0, 1), keepdims=True) * 6.0).backward()
    close(x.grad, np.ones((2, 3)))


def test_prod_with_one_zero_and_with_two_zeros():
    x = leaf([2.0, 0.0, 3.0, 4.0])
    y = x.prod()
    y.backward()
    close(y, 0.0)
    close(x.grad, [0.0, 24.0, 0.0, 0.0])
    x = leaf([2.0, 0.0, 3.0, 0.0])
    x.prod().backward()
    close(x.grad, [0.0, 0.0, 0.0, 0.0])
    m = leaf([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.0, 2.0, 3.0]])
    gc.sum(m.prod(dim=1)).backward()
    close(m.grad, [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [6.0, 3.0, 2.0]])
    m.grad = None
    gc.sum(ops.prod(m, axis=(0, 1))).backward()  # several axes with zeros
    close(m.grad, np.zeros((3, 3)))


def test_norm_at_zero_and_elsewhere():
    v = leaf([0.0, 0.0, 0.0])
    n = v.norm()
    n.backward()
    assert n.item() == 0.0
    close(v.grad, [0.0, 0.0, 0.0])
    v = leaf([3.0, 4.0])
    v.norm().backward()
    close(v.grad, [0.6, 0.8])


def test_zero_sized_and_scalar_shapes():
    x = leaf(np.zeros((0, 3)))
    gc.sum(x * 2.0).backward()
    assert x.grad.shape == (0, 3)
    s = leaf(2.0)
    (s * ops.ones(3)).sum().backward()
    assert s.grad.shape == () and s.grad.item() == 3.0


# ------------------------------------------------------------------------------- spans, lists


def test_a_program_run_records_its_nodes_in_order_with_their_source_spans():
    from gradcalc.backends.numeric import run_numeric
    from gradcalc.language.parse import parse

    x = gc.tensor(1.5, requires_grad=True)
    with tape.recording() as t:
        out = run_numeric(parse("y = x*2\nz = sin(y) + y"), {"x": x}, of="z")
    assert [n.prim.name for n in t.nodes] == ["mul", "sin", "add"]
    assert [(n.span.line, n.span.text) for n in t.nodes] == [
        (1, "x * 2"), (2, "sin(y)"), (2, "sin(y) + y")]
    assert [n.index for n in t.nodes] == [0, 1, 2] and tape.state.span is None
    trace: dict = {}
    found = tape.backward([(out.node, 1.0)], tape=t, retain_graph=True, trace=trace)
    dz_dy = math.cos(3.0) + 1.0
    close(trace[t.nodes[0]], dz_dy)
    close(found[x.node], 2 * dz_dy)
    assert all(n.span is None for n in [(x * 2).node])  # library use: no span


def test_the_list_walk_and_the_topological_order_agree_on_a_diamond():
    x1, x2 = leaf(0.3), leaf(0.3)
    with tape.recording() as t:
        u = gc.exp(x1)
        y = u * gc.sin(u) + u * u
    found = tape.backward([(y.node, 1.0)], tape=t)
    z = gc.exp(x2)
    w = z * gc.sin(z) + z * z
    w.backward()
    close(found[x1.node], x2.grad.item())


# ------------------------------------------------------------------------------- lean


def _arrays_kept(t: tape.Tape) -> int:
    """The distinct arrays of more than a few elements the tape's nodes hold."""
    held = {id(v) for n in t.nodes if n.saved is not None
            for v in (*n.saved[0], n.saved[1]) if isinstance(v, np.ndarray) and v.size > 256
            and v.strides != (0,)}
    return len(held)


def test_a_lean_recording_keeps_only_what_the_rules_read():
    from gradcalc.backends.numeric import as_function
    from gradcalc.language.parse import parse

    f, _ = as_function(parse("y = sum(sin(x)*exp(-x**2) + log(1+x**2))"), ["x"], {}, of="y")
    x = np.linspace(-3.0, 3.0, 1001)
    _, full = functional.record(f, [Tensor(x, requires_grad=True)])
    out, lean = functional.record(f, [Tensor(x, requires_grad=True)], lean=True)
    # x, sin(x), exp(-x²) and 1 + x² are read by the rules; x², -x², the product, the
    # second x², the log and the sum's operand are not, and are freed as the forward goes
    assert (_arrays_kept(full), _arrays_kept(lean)) == (10, 4)
    assert not tape.state.lean  # switched off again after the recording


def test_a_plain_sweep_runs_a_scalar_nodes_rules_inline(monkeypatch):
    """The scalar tape's sweep (docs/performance.md, W4), counted: a node whose cotangent
    is a NumPy scalar runs its rules in `_run_plain`, never through `_rules`; the others
    (arrays, recorded sweeps) still do, with the same numbers."""
    from gradcalc.engine import primitive

    calls = {"rules": 0, "apply": 0}
    rules, apply = tape._Sweep._rules, primitive.apply

    def counted_rules(self, *args):
        calls["rules"] += 1
        return rules(self, *args)

    def counted_apply(*args, **params):
        calls["apply"] += 1
        return apply(*args, **params)

    monkeypatch.setattr(tape._Sweep, "_rules", counted_rules)
    monkeypatch.setattr(primitive, "apply", counted_apply)

    def f(x):
        y = x
        for _ in range(20):
            y = y * 1.0001 + gc.sin(y) * 0.001
        return y

    _, grad = functional.vjp(f, 0.5, 1.0)
    # the seed is a 0-d array: the last node's rules (an add's) and the two products
    # it reaches take `_rules`; every other node, 77 of 80, runs inline
    assert calls == {"rules": 3, "apply": 0}
    expected = 1.0
    y = 0.5
    for _ in range(20):
        expected *= 1.0001 + math.cos(y) * 0.001
        y = y * 1.0001 + math.sin(y) * 0.001
    assert float(grad) == pytest.approx(expected, rel=1e-14)


def test_the_librarys_sweep_takes_under_seven_and_a_half_calls_an_operation():
    """The library's backward of W4's loop (no tape: a topological order, sorted by
    creation): the order is found in a loop and sorted by a C key, no call per node.
    The code before made 9.9 calls an operation (a generator per node, a key function)."""
    import sys

    x = leaf(0.5)
    y = x
    for _ in range(100):
        y = y * 1.0001 + gc.sin(y) * 0.001
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        calls += event == "call"

    sys.setprofile(count)
    try:
        y.backward()
    finally:
        sys.setprofile(None)
    assert calls / 400 < 7.5
    expected, v = 1.0, 0.5
    for _ in range(100):
        expected *= 1.0001 + math.cos(v) * 0.001
        v = v * 1.0001 + math.sin(v) * 0.001
    assert float(x.grad) == pytest.approx(expected, rel=1e-13)


def test_after_a_paused_block_the_collector_does_not_walk_what_it_made():
    """`hot()` pauses the cyclic collector while a program records; on leaving, what the
    block made goes to the oldest generation unwalked, so the first allocations after
    it start no collection (before, one walked the whole tape: a sixth of W4's time)."""
    import gc

    collections = []

    def seen(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    assert gc.isenabled()
    try:
        with tape.hot():
            kept = [(i, [i]) for i in range(50_000)]  # 100,000 tracked objects, a tape's
            assert not gc.isenabled()
            gc.callbacks.append(seen)
        after = [[i] for i in range(100)]
    finally:
        gc.callbacks.remove(seen)
    assert gc.isenabled() and collections == []
    assert len(kept) == 50_000 and len(after) == 100


def test_after_a_paused_block_that_made_few_objects_the_collector_runs_as_ever():
    """A block that left fewer objects than a tape's (`tape._UNWALKED`) leaves them young:
    the first allocation past the collector's threshold starts a young collection."""
    import gc

    collections = []

    def seen(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    made = gc.get_threshold()[0] + 100
    assert made < tape._UNWALKED
    try:
        with tape.hot():
            kept = [[i] for i in range(made)]
            gc.callbacks.append(seen)
        after = [[i] for i in range(100)]
    finally:
        gc.callbacks.remove(seen)
    assert collections and collections[0] < 2
    assert len(kept) == made and len(after) == 100


def test_a_callers_frozen_objects_stay_frozen_through_a_paused_block():
    import gc

    marker = [object()]
    gc.freeze()
    try:
        with tape.hot():
            with tape.hot():  # nested: the outer block turns the collector on again
                kept = [[i] for i in range(2 * tape._UNWALKED)]
            assert not gc.isenabled()
        assert gc.isenabled() and gc.get_freeze_count() > 0
        assert not any(o is marker for o in gc.get_objects(generation=2))
        assert len(kept) == 2 * tape._UNWALKED
    finally:
        gc.unfreeze()

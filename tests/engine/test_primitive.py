"""One registry: a primitive registered once reaches the language, the CLI, the library,
the Tensor methods, the symbolic check and the per-primitive tests."""

from __future__ import annotations

import json

import numpy as np
import pytest
from engine import test_ops

import gradcalc as gc
from gradcalc.cli import main
from gradcalc.engine import ops, pool, primitive, table, twins
from gradcalc.engine.primitive import PRIMITIVES, Prim
from gradcalc.engine.tensor import Tensor
from gradcalc.language.parse import parse


def _cube_entry() -> Prim:
    """x**3 under a new name: one entry, with its forward, VJP, twin and domain."""
    return table.unary("cube", lambda x: np.asarray(x) ** 3,
                       lambda g, ans, x: g * 3.0 * x * x,
                       twins.piecewise(lambda s, x: x**3), domain=(-1.5, 1.5),
                       aliases=("cubed",), rule="g·3x²")


@pytest.fixture
def cube():
    prim = table.register(_cube_entry())
    try:
        yield prim
    finally:
        table.unregister("cube")


def _run(args: list[str], capsys) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().out


def test_a_new_primitive_runs_in_the_language_with_the_symbolic_check(cube, capsys):
    code, out = _run(["grad", "y = cube(x) + cubed(2*x)", "--at", "x=2", "--json"], capsys)
    assert code == 0, out
    result = json.loads(out)
    assert result["output"]["value"] == 8.0 + 64.0
    assert result["gradient"]["x"] == 3 * 4.0 + 6 * 16.0
    assert result["check"]["status"] == "pass" and result["check"]["method"] == "symbolic"


def test_a_new_primitive_explains_its_rule_in_the_words_of_its_entry(cube, capsys):
    code, out = _run(["grad", "y = cube(x)", "--at", "x=2", "--explain"], capsys)
    assert code == 0, out
    assert "∂#2·3x²" in out  # the entry's words, its cotangent named by step


def test_a_new_primitive_runs_at_many_points(cube, capsys, tmp_path):
    points = tmp_path / "points.csv"
    points.write_text("x\n1\n2\n")
    code, out = _run(["grad", "y = cube(x)", "--points", str(points), "--json"], capsys)
    assert code == 0, out
    assert [json.loads(line)["gradient"]["x"] for line in out.splitlines()] == [3.0, 12.0]


def test_a_new_primitive_is_a_library_function_and_a_tensor_method(cube):
    x = gc.tensor([1.0, 2.0], requires_grad=True)
    y = gc.cube(x).sum() + x.cubed().sum()
    y.backward()
    assert y.item() == 18.0 and x.grad.tolist() == [6.0, 24.0]
    assert ops.cube is ops.fn.cube and "cube" in ops.FUNCTIONS
    assert parse("y = cube(x)").body[0].value.func == "cube"


def test_a_new_primitive_is_in_the_per_primitive_suites(cube):
    found = {c.id: c.values for c in test_ops.cases()}
    assert "cube" in found
    name, build, params = found["cube"]
    test_ops.test_vjp_matches_central_differences(name, build, params)
    test_ops.test_batched_cotangents_equal_single_ones(name, build, params)
    test_ops.test_recorded_rule_matches_plain_rule(name, build, params)
    test_ops.test_symbolic_twin_matches_forward_and_gradient(name, build, params)
    test_ops.test_hessian_of_recorded_vjp_matches_sympy(name, build, params)


def test_unregistering_takes_it_out_everywhere(cube):
    table.unregister("cube")
    try:
        assert "cube" not in ops.FUNCTIONS and not hasattr(Tensor, "cube")
        assert not hasattr(ops.fn, "cubed")
        with pytest.raises(AttributeError):
            gc.cube  # noqa: B018
        assert "cube" not in {c.id for c in test_ops.cases()}
    finally:
        table.register(_cube_entry())  # the fixture takes it out again


def test_a_name_cannot_be_registered_twice(cube):
    with pytest.raises(ValueError, match="already taken"):
        table.register(_cube_entry())
    with pytest.raises(ValueError, match="already taken"):
        table.register(table.unary("sine", np.sin, lambda g, ans, x: g * np.cos(x), None,
                                   aliases=("sin",)))


# --------------------------------------------------------------------------- derived lists


def test_the_language_functions_are_the_table_names_plus_constructors():
    from_table = {n for p in ops.PRIMITIVES.values() if p.arity is not None for n in p.names}
    assert set(ops.FUNCTIONS) == from_table | table.NOT_PRIMITIVES


def test_tensor_methods_come_from_the_table():
    for prim in ops.PRIMITIVES.values():
        for method in prim.methods:
            assert hasattr(Tensor, method), method
    x = gc.tensor([0.25, 0.5])
    assert np.allclose(x.arcsin().value, np.arcsin([0.25, 0.5]))
    assert np.allclose(x.clip(0.3, 0.4).value, [0.3, 0.4])


def test_library_names_come_from_the_table():
    for prim in ops.PRIMITIVES.values():
        for name in prim.names:
            assert hasattr(gc, name) or not prim.library, name


def test_kinks_with_no_sympy_form_are_predicates_in_the_entries():
    clamp, power = ops.PRIMITIVES["clamp"].kink, ops.PRIMITIVES["pow"].kink
    assert clamp.where([0.5, 1.0, 1.0], [True, False, False])
    assert not clamp.where([0.5, 0.0, 1.0], [True, False, False])
    assert power.where([2.0, 0.0], [False, True]) and not power.where([2.0, 0.0], [True, False])
    assert "lo == hi" in clamp.text


def _functions_called(thunk) -> tuple[object, list[str]]:
    """thunk() and the Python functions it called, in order, as file:function."""
    import sys
    from pathlib import Path

    called: list[str] = []

    def count(frame, event, arg):
        if event == "call":
            called.append(f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}")

    sys.setprofile(count)
    try:
        result = thunk()
    finally:
        sys.setprofile(None)
    return result, called


def test_an_operation_makes_its_node_and_tensor_in_one_call():
    """`recorded` makes the node and the tensor inline (the scalar tape's per-operation
    work, docs/performance.md): no Node.__init__, no Tensor.wrap. The node is the one
    `Node(...)` makes: on the tape at its place, with the span, no params, no leaf."""
    from gradcalc.engine import tape
    from gradcalc.engine.primitive import NO_PARAMS

    x, w = gc.tensor(0.5, requires_grad=True), gc.tensor(3.0, requires_grad=True)
    with tape.hot(), tape.recording() as t:
        tape.state.span = tape.Span(1, 5, "x*w")
        try:
            y, called = _functions_called(lambda: x * w)
        finally:
            tape.state.span = None
    assert called.count("primitive.py:recorded") == 1
    assert "tape.py:__init__" not in called and "tensor.py:wrap" not in called
    node = y.node
    assert type(y) is Tensor and y.grad is None and not y._retain_grad
    assert t.nodes == [node] and node.index == 0 and node.span == tape.Span(1, 5, "x*w")
    assert node.prim is ops.PRIMITIVES["mul"] and node.parents == (x.node, w.node)
    assert node.params is NO_PARAMS and node.leaf is None
    assert node.saved == ((0.5, 3.0), 1.5)
    off_tape = [gc.sin(x).node.index for _ in range(2)]  # off a tape: minus the creation count
    assert off_tape[1] == off_tape[0] - 1 < 0


def test_an_operation_on_a_parameter_makes_a_plain_tensor():
    from gradcalc.nn import Parameter

    w = Parameter(np.float64(3.0))
    for y in (w * 2.0, 2.0 * w, gc.sin(w)):
        assert type(y) is Tensor and y.grad is None and y.node.prim.name in ("mul", "sin")


# --------------------------------------------------------------------------- the pool

#: special values and a spread of magnitudes, at a size whose results are pooled
_SPECIAL = np.resize(np.array([0.0, -0.0, 1.0, -1.0, 2.0, 0.5, np.inf, -np.inf, np.nan,
                               1e-310, -1e-310, 1e154, -1e154, 3.7, -2.2]), pool.POOLED)


@pytest.mark.parametrize("name", ["sin", "exp", "log", "neg", "sqrt", "tanh", "atan"])
def test_an_elementwise_forward_into_the_pool_is_the_forward(name: str) -> None:
    prim = PRIMITIVES[name]
    with np.errstate(all="ignore"):
        made, plain = primitive.computed(prim, _SPECIAL), prim.forward(_SPECIAL)
    assert pool.holds(made) == 1 and made.tobytes() == plain.tobytes()


@pytest.mark.parametrize("exponent", [np.float64(e) for e in (2.0, 0.5, -1.0, 1.0, 0.0, 3.0)]
                         + [2, 0.5, -1, 3])
def test_a_power_into_the_pool_is_the_forwards(exponent) -> None:
    """`x ** y` into a pool buffer by `power` only where the forward calls `power`."""
    prim = PRIMITIVES["pow"]
    with np.errstate(all="ignore"):
        made, plain = primitive.computed(prim, _SPECIAL, exponent), prim.forward(_SPECIAL,
                                                                                 exponent)
    assert made.tobytes() == plain.tobytes()
    pooled = primitive._power_only() or type(exponent) is not np.float64 or \
        exponent not in primitive._SHORTCUTS
    assert pool.holds(made) == pooled


def test_before_numpy_2_a_shortcut_exponent_runs_the_forward(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(primitive, "_seen_power", [False])  # as NumPy 1.x's `**` behaves
    with np.errstate(all="ignore"):
        assert primitive._power(_SPECIAL, np.float64(2.0)) is None
        assert primitive._power(_SPECIAL, 2) is not None  # a Python number: `power` anyway
        assert primitive._power(_SPECIAL, np.float64(3.0)) is not None


# writing over a temporary (apply_into) -----------------------------------------------
def _spare(lean: bool = True) -> Tensor:
    """exp(-x) of a large x recorded on a tape: neg's output, a pool buffer, feeds exp."""
    x = Tensor(np.linspace(-1.0, 1.0, pool.POOLED), requires_grad=True)
    with gc.engine.tape.recording(), gc.engine.tape.lean(lean), gc.engine.tape.hot():
        return ops.neg(x)


def test_a_temporary_no_node_reads_is_written_over_with_the_same_bits():
    x = np.linspace(-1.0, 1.0, pool.POOLED)
    t = _spare()
    with gc.engine.tape.recording(), gc.engine.tape.lean(True), gc.engine.tape.hot():
        out = primitive.apply_into(PRIMITIVES["exp"], (0,), t)
    assert out.value is t.value
    assert out.value.tobytes() == np.exp(-x).tobytes()


def test_a_value_a_node_keeps_or_a_rule_reads_is_never_written_over():
    full = _spare(lean=False)  # a full recording: neg's node holds its output
    with gc.engine.tape.recording(), gc.engine.tape.hot():
        assert primitive.apply_into(PRIMITIVES["exp"], (0,), full).value is not full.value
    t = _spare()
    before = t.value.copy()
    with gc.engine.tape.recording(), gc.engine.tape.lean(True), gc.engine.tape.hot():
        logged = primitive.apply_into(PRIMITIVES["log"], (0,), t)  # log's rule reads x
        e = primitive.apply_into(PRIMITIVES["exp"], (0,), t.detach() * 1.0)  # no node
    assert logged.value is not t.value and t.value.tobytes() == before.tobytes()
    assert e.value is not t.value


def test_a_callers_array_is_never_written_over():
    x = Tensor(np.linspace(-1.0, 1.0, pool.POOLED), requires_grad=True)
    before = x.value.copy()
    with gc.engine.tape.recording(), gc.engine.tape.lean(True), gc.engine.tape.hot():
        out = primitive.apply_into(PRIMITIVES["neg"], (0,), x)
    assert out.value is not x.value and x.value.tobytes() == before.tobytes()

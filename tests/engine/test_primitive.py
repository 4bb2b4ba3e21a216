"""One registry: a primitive registered once reaches the language, the CLI, the library,
the Tensor methods, the symbolic check and the per-primitive tests."""

from __future__ import annotations

import json

import numpy as np
import pytest
from engine import test_ops

import gradcalc as gc
from gradcalc.cli import main
from gradcalc.engine import ops, table, twins
from gradcalc.engine.primitive import Prim
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

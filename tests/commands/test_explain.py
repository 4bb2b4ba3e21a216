"""--explain (the tape and its sweep, as data and as text) and --wrt on assigned names."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from gradcalc.cli import app, main
from gradcalc.commands.one_point import Job, run
from gradcalc.language.parse import parse
from gradcalc.language.unparse import unparse

runner = CliRunner()


def _explain(command: str, program: str, at: str, **kw):
    return run(Job(command, program, at=[at], explain=True, **kw))


def test_the_graph_of_a_plus_b_times_b_plus_c():
    result = _explain("grad", "y = (a+b)*(b+c)", "a=1, b=2, c=3")
    ex = result.explain
    assert [(s.op, s.text, float(s.value)) for s in ex.steps] == [
        ("input", "a", 1), ("input", "b", 2), ("input", "c", 3), ("add", "a + b", 3),
        ("add", "b + c", 5), ("mul", "(a + b) * (b + c)", 15)]
    assert ex.steps[-1].name == "y" and ex.output == 6
    (sweep,) = ex.sweeps
    assert {k: float(v) for k, v in sweep.cotangent.items()} == {6: 1, 5: 3, 4: 5, 3: 3, 2: 8,
                                                                  1: 5}
    assert sweep.adds[2] == 2  # b is reached along two paths, which add up
    assert [(p, float(v)) for p, v in sweep.flows[6]] == [(4, 5), (5, 3)]


def test_explain_text_shows_forward_then_sweep_then_gradients():
    out = runner.invoke(app, ["grad", "y = (a+b)*(b+c)", "--at", "a=1, b=2, c=3", "--explain"])
    assert out.exit_code == 0, out.output
    text = out.output
    tape, sweep, answer = text.index("tape"), text.index("backward sweep"), text.index("∂y/∂a")
    assert tape < sweep < answer
    assert "8  (sum of 2 paths)" in text
    assert [line.split()[-1] for line in text[tape:sweep].splitlines()[2:8]] == [
        "1", "2", "3", "3", "5", "15"]


def test_mean_is_weights_of_one_over_n():
    ex = _explain("grad", "b = a + 3; c = b*b*3; out = mean(c)", "a=[2,3]").explain
    mean_step = ex.steps[-1]
    assert mean_step.op == "mean" and mean_step.rule == f"∂#{mean_step.id} / n to every element"
    ((parent, flow),) = ex.sweeps[0].flows[mean_step.id]
    assert flow.tolist() == [0.5, 0.5]
    assert ex.sweeps[0].cotangent[1].tolist() == [15, 18]


def test_weights_of_ones_give_column_sums():
    result = _explain("grad", "k = [m[0]**2 + 3*m[1], m[1]**2 + 2*m[0]]", "m=[2,4]",
                      weights="[1, 1]")
    jac, w, wj, names = result.explain.weights_table
    assert jac.tolist() == [[4, 3], [2, 8]] and names == ["m[0]", "m[1]"]
    assert wj.tolist() == jac.sum(axis=0).tolist() == [6, 11]
    assert result.derivative["m"].tolist() == [6, 11]


def test_jacobian_rows_are_sweeps_of_one_hot_weights():
    result = _explain("jacobian", "k = [m[0]**2 + 3*m[1], m[1]**2 + 2*m[0]]", "m=[2,4]")
    sweeps = result.explain.sweeps
    assert [s.seed.tolist() for s in sweeps] == [[1, 0], [0, 1]]
    assert [s.cotangent[1].tolist() for s in sweeps] == result.derivative["m"].tolist()


def test_a_loop_is_compressed_where_it_repeats():
    result = _explain("grad", "y = x*2; while norm(y) < 1000: y = y*2", "x=[2,3,4]",
                      weights="[1,1,1]")
    ex = result.explain
    assert [s.text for s in ex.steps] == ["x", "x * 2"] + ["y * 2"] * 7
    assert ex.runs() == [(2, 1, 7)]
    shown = ex.shown()
    notes = [s for s in shown if isinstance(s, str)]
    assert notes == ["#4–#8: 5 more times y * 2 (values [16, 24, 32] … [256, 384, 512])"]
    assert len(shown) == 5
    assert ex.sweeps[0].cotangent[1].tolist() == [256, 256, 256]


def test_a_loop_body_of_several_steps_is_one_block():
    ex = _explain("grad", "y = x; for i in range(6): y = sin(y) * 2", "x=0.5").explain
    assert ex.runs() == [(1, 2, 6)]


def test_explain_json_carries_the_same_data():
    out = runner.invoke(app, ["grad", "y = x*x + x", "--at", "x=3", "--explain", "--json"])
    data = json.loads(out.output)["explain"]
    assert [s["source"] for s in data["steps"]] == ["x", "x * x", "x * x + x"]
    assert data["steps"][1]["inputs"] == [1, 1]
    (sweep,) = data["sweeps"]
    assert sweep["cotangents"]["1"] == 7.0  # 2x + 1: three contributions add up
    assert sorted(f["value"] for f in sweep["flows"] if f["to"] == 1) == [1.0, 3.0, 3.0]


def test_hessian_explains_its_first_sweep():
    ex = _explain("hessian", "y = x**3", "x=2").explain
    assert ex.sweeps[0].cotangent[1] == 12
    assert any("once more" in n for n in ex.notes)


def test_output_free_of_inputs():
    ex = _explain("grad", "y = 2 + 3", "x=1").explain
    assert ex.sweeps == [] and "does not depend" in ex.notes[0]


# --------------------------------------------------------------- --wrt on assigned names


def test_gradients_of_intermediates_like_retain_grad():
    result = run(Job("grad", "b = a + 3; c = b*b*3; out = mean(c)", at=["a=[2,3]"],
                     wrt=["b", "c"]))
    assert result.derivative["b"].tolist() == [15, 18]  # 6b / 2
    assert result.derivative["c"].tolist() == [0.5, 0.5]
    assert result.check.status == "skipped" and "covers inputs" in result.check.detail


def test_inputs_beside_intermediates_are_checked():
    result = run(Job("grad", "b = a + 3; c = b*b*3; out = mean(c)", at=["a=[2,3]"],
                     wrt=["a", "b"]))
    assert list(result.derivative) == ["a", "b"]
    assert result.derivative["a"].tolist() == result.derivative["b"].tolist() == [15, 18]
    assert result.check.status == "pass"


def test_jacobian_with_respect_to_an_intermediate():
    result = run(Job("jacobian", "b = a*2; c = b**2", at=["a=[1,2]"], wrt=["b"]))
    assert result.derivative["b"].tolist() == [[4, 0], [0, 8]]


def test_an_intermediate_the_output_does_not_use():
    result = run(Job("grad", "b = a*2; y = a**2", at=["a=3"], wrt=["b"]))
    assert result.derivative["b"] == 0


@pytest.mark.parametrize("args, message", [
    (["grad", "b = a*2; c = b**2", "--at", "a=1", "--wrt", "zz"], "assigned names: b, c"),
    (["hessian", "b = a*2; c = b**2", "--at", "a=1", "--wrt", "b"], "inputs only"),
    (["grad", "y = x", "--points", "-", "--explain", "--explain-row", "0"], "--explain-row"),
    (["grad", "y = x", "--at", "x=1", "--graph", "png"], "--graph takes dot or mermaid"),
])
def test_refusals(args, message, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err


# --------------------------------------------------------------- source text


@pytest.mark.parametrize("text", [
    "(a + b) * (b + c)", "a - (b - c)", "a - b - c", "-x**2", "(-x)**2", "x**y**z",
    "(x**y)**z", "a / (b * c)", "sum(x[1:3]) + x[0, 1]", "[x, y * 2]", "m @ v", "2 * -x",
    "mean(x, 1, keepdims=True)", "sum(x, axis=0, keepdims=True) - x",
])
def test_unparse_reads_back_as_the_same_expression(text):
    expr = parse(f"r = {text}").body[0].value
    again = unparse(expr)
    assert parse(f"r = {again}").body[0].value == parse(f"r = {again}").body[0].value
    assert _strip(parse(f"r = {again}").body[0].value) == _strip(expr)


def _strip(e):
    """An expression without positions, to compare structure only."""
    if isinstance(e, tuple):
        return tuple(_strip(i) for i in e)
    if hasattr(e, "__dataclass_fields__"):
        return (type(e).__name__,) + tuple(_strip(getattr(e, f)) for f in e.__dataclass_fields__
                                           if f != "pos")
    return e


def test_values_agree_with_the_answer():
    rng = np.random.default_rng(0)
    at = f"x={rng.uniform(0.5, 2):.6f}"
    result = _explain("grad", "y = exp(x) * log(x) / (1 + x**2)", at)
    assert np.isclose(result.explain.sweeps[0].cotangent[1], result.derivative["x"])
    assert np.isclose(result.explain.steps[-1].value, result.output)


def test_postorder_is_an_evaluation_order():
    from gradcalc.commands.explain import trace
    from gradcalc.engine.tape import postorder
    from gradcalc.limits import DEFAULT_LIMITS

    values = {"a": np.array(1.0), "b": np.array(2.0), "c": np.array(3.0)}
    traced = trace(parse("y = (a+b)*(b+c)"), values, ["a", "b", "c"], {}, "y",
                   DEFAULT_LIMITS)
    order = [n.prim.name if n.prim else "leaf" for n in postorder(traced.out.node)]
    assert order == ["leaf", "leaf", "add", "leaf", "add", "mul"]


def test_every_primitive_has_its_rule_in_words():
    from gradcalc.engine.ops import PRIMITIVES

    missing = [name for name, prim in PRIMITIVES.items() if not prim.rule]
    assert not missing, f"give these table entries rule='...' (the VJP in words): {missing}"
    for prim in PRIMITIVES.values():  # one phrase, or one per argument
        assert isinstance(prim.rule, str) or len(prim.rule) == len(prim.vjps), prim.name


def test_steps_follow_the_program_not_the_graph():
    """Two statements that do not depend on each other stay in the order they ran."""
    ex = _explain("grad", "c = x*3; b = x + 1; y = b * c", "x=2").explain
    assert [s.text for s in ex.steps] == ["x", "x * 3", "x + 1", "b * c"]


def test_rule_text_names_arguments_by_their_steps():
    """The table writes pow's rule g·y·x^(y−1); in a program whose output is y (or that
    has its own x), the rule names the arguments by their steps and constants instead,
    and the cotangent arriving at step #3 is ∂#3."""
    ex = _explain("grad", "y = x**b", "x=2, b=3").explain
    (pow_step,) = [s for s in ex.steps if s.op == "pow"]
    assert pow_step.rule == "∂#3·#2·#1^(#2−1);  ∂#3·log(#1)·#1^#2"
    ex = _explain("grad", "y = sin(x)**2", "x=1").explain
    rules = {s.op: s.rule for s in ex.steps if s.op != "input"}
    assert rules == {"sin": "∂#2·cos(#1)", "pow": "∂#3·2·#2^(2−1)"}
    ex = _explain("grad", "y = logb(x, 2)", "x=2").explain  # the table calls the base b
    assert ex.steps[-1].rule == "∂#2 / (#1·ln 2)"


def test_rule_text_never_reads_as_a_program_name():
    """A program with its own g, u and v (the letters rules are often written in): every
    rule names arguments by step (#1), the cotangent by the step it arrives at (∂#4), and
    a step's own result by its number; no rule has a bare letter a program could own."""
    import re

    program = "u = sin(g); v = u * g; w = sigmoid(v); y = w ** 2"
    ex = _explain("grad", program, "g=0.5").explain
    rules = {s.text: s.rule for s in ex.steps if s.op != "input"}
    assert rules == {"sin(g)": "∂#2·cos(#1)", "u * g": "∂#3 × the other factor",
                     "sigmoid(v)": "∂#4·#4·(1 − #4)", "w**2": "∂#5·2·#4^(2−1)"}
    names = set(re.findall(r"[A-Za-z_]\w*", program))
    for rule in rules.values():
        assert not names & set(re.findall(r"[A-Za-z_]\w*", rule)), rule
    out = runner.invoke(app, ["grad", program, "--at", "g=0.5", "--explain", "--plain"])
    assert out.exit_code == 0, out.output
    sweep = [line.split("\t") for line in out.output.splitlines()
             if line.startswith("sweep\t")]
    # --plain spells them in ASCII: ∂#5 is d#5
    assert [row[4] for row in sweep] == ["d#5*2*#4^(2-1)", "d#4*#4*(1 - #4)",
                                         "d#3 * the other factor", "d#2*cos(#1)",
                                         "input: its gradient"]
    assert out.output.isascii()


def test_loop_steps_are_numbered_by_iteration(capsys):
    from gradcalc.cli import main

    ex = _explain("grad", "y = x\nfor i in range(3): y = y * y", "x=1.1").explain
    assert [s.iteration for s in ex.steps] == [(), (1,), (2,), (3,)]
    nested = _explain("grad", "y = x\nfor i in range(2):\n    for j in range(2): y = y * 2",
                      "x=1").explain
    assert [s.where for s in nested.steps if s.op == "mul"] == [
        " [iteration 1.1]", " [iteration 1.2]", " [iteration 2.1]", " [iteration 2.2]"]
    assert main(["grad", "y = x\nwhile y < 3: y = y * 2", "--at", "x=1", "--graph",
                 "mermaid", "--no-check"]) == 0
    out = capsys.readouterr().out
    assert "mul: y * 2 [iteration 2]" in out
    assert main(["grad", "y = x\nwhile y < 3: y = y * 2", "--at", "x=1", "--explain",
                 "--json", "--no-check"]) == 0
    steps = __import__("json").loads(capsys.readouterr().out)["explain"]["steps"]
    assert [s.get("iteration") for s in steps] == [None, [1], [2]]

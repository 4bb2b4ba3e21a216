"""Backprop homework step by step: a linear layer with MSE and softmax cross-entropy, each
intermediate's gradient with its shape, in the order of the backward pass; every step's
formula checked here again against central differences of the loss."""

from __future__ import annotations

import numpy as np

from gradcalc.backends.numeric import run_numeric
from gradcalc.engine import ops
from gradcalc.homework.backprop.formulas import program_of
from gradcalc.homework.dispatch import solve
from gradcalc.homework.judge import Settings
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.solutions.matrix_chain import solution as chain_solution
from gradcalc.language.parse import parse
from gradcalc.language.program import RESULT_NAME
from gradcalc.limits import DEFAULT_LIMITS


def tensor(loss: str, wrt: str, shapes: str):
    return solve(loss, [wrt], Kind.read(shape=shapes), Settings())


def test_a_linear_layer_with_mse():
    s = tensor("L = mean((X@W + b - Y)^2)", "W", "X=4x3, W=3x2, b=2, Y=4x2")
    steps = [st for _, _, st in s.steps]
    assert [st.rule for st in steps] == ["backprop-mean", "backprop-elementwise",
                                         "backprop-broadcast", "backprop-broadcast",
                                         "backprop-matmul"]
    assert [st.shape for st in steps] == ["4×2", "4×2", "4×2", "4×2", "3×2"]
    assert steps[-1].text == "∂L/∂W = X.T@((X@W + b - Y)/4)"
    assert s.answer == "∂L/∂W = X.T@((X@W + b - Y)/4)" and s.merged == 0


def test_the_bias_gradient_sums_over_the_batch():
    s = tensor("L = mean((X@W + b - Y)^2)", "b", "X=4x3, W=3x2, b=2, Y=4x2")
    last = s.steps[-1][2]
    assert last.shape == "2" and "sum(" in last.after and "axis=0" in last.after


def test_softmax_cross_entropy():
    s = tensor("L = -sum(y*log(softmax(z)))", "z", "z=4, y=4")
    steps = [st for _, _, st in s.steps]
    assert steps[-1].rule == "backprop-softmax"
    assert s.answer == "∂L/∂z = softmax(z)*sum(y) - y"


def test_one_hot_targets_give_the_short_formula():
    s = solve("L = -sum(y*log(softmax(z)))", ["z"],
              Kind.read(shape="z=3, y=3", at="y=[0, 1, 0]"), Settings())
    assert s.answer == "∂L/∂z = softmax(z) - y"


def test_a_named_step_collects_its_uses():
    s = tensor("h = relu(W1@x); L = sum((W2@h - y)^2)", "W1", "W1=3x2, x=2, W2=1x3, y=1")
    rules = [st.rule for _, _, st in s.steps]
    assert "backprop-use" in rules and "backprop-relu" in rules
    assert rules.index("backprop-use") < rules.index("backprop-relu")


def _central(program, values, e_name, shape, eps=1e-6):
    """∂L/∂(input) by central differences (the steps' last formula is the input's)."""
    out = np.zeros(shape)
    for idx in np.ndindex(*shape):
        for sign in (1, -1):
            moved = {n: np.array(v, dtype=np.float64) for n, v in values.items()}
            moved[e_name][idx] += sign * eps
            out[idx] += sign * float(ops.value(run_numeric(program, moved, of=RESULT_NAME)))
    return out / (2 * eps)


def test_the_last_step_agrees_with_central_differences():
    source = "L = sum((W@x - y)^2); result = L"
    program = parse(source)
    rng = np.random.default_rng(3)
    draws = [{"W": rng.standard_normal((3, 2)), "x": rng.standard_normal(2),
              "y": rng.standard_normal(3)} for _ in range(3)]
    s = chain_solution("L = sum((W@x - y)^2)", program, "W",
                       {"W": (3, 2), "x": (2,), "y": (3,)}, draws, "L", DEFAULT_LIMITS)
    formula = parse(s.answer.split(" = ", 1)[1]).body[-1].value
    for values in draws:
        got = np.asarray(ops.value(run_numeric(program_of(formula, program), dict(values),
                                               of=RESULT_NAME)))
        assert np.allclose(got, _central(program, values, "W", (3, 2)), atol=1e-5)


def test_a_loss_the_rules_do_not_cover_says_so():
    s = tensor("L = prod(W@x)", "W", "W=2x2, x=2")
    assert not s.steps and s.note.startswith("no worked steps")

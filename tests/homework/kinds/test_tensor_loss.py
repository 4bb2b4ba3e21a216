"""gradcalc.homework.kinds.tensor_loss: backprop homework, ∂L/∂W of linear, softmax
cross-entropy and two-layer ReLU losses, right, rewritten and wrong (transposed, unsummed,
a missing factor), judged entry by entry."""

from __future__ import annotations

import numpy as np
import pytest

from gradcalc.errors import GradcalcError
from gradcalc.homework.dispatch import check
from gradcalc.homework.kinds.registry import Kind, read_shapes


def verdict(function, answer, wrt, shape, **kind):
    return check(function, answer, [wrt], Kind.read(shape=shape, **kind))


LINEAR = ("L = sum((W@x - y)**2)", "W", "W=3x2, x=2, y=3")
BATCH = ("L = sum((X@W + b - Y)**2)", "X=4x3, W=3x2, b=2, Y=4x2")
SOFTMAX = "L = -sum(y*log(softmax(W@x)))"
RELU = "h = relu(W1@x)\nL = sum((W2@h - y)**2)"
RELU_SHAPES = "W1=4x3, x=3, W2=2x4, y=2"


def test_shapes_are_read():
    assert read_shapes("W=3x2, x=2, s=scalar") == (("W", (3, 2)), ("x", (2,)), ("s", ()))
    assert read_shapes("A = 2×3×4") == (("A", (2, 3, 4)),)
    for bad in ("W", "W=3x", "W=0x2", "W=2, W=3", "1W=2"):
        with pytest.raises(GradcalcError):
            read_shapes(bad)
    with pytest.raises(GradcalcError) as err:
        read_shapes("W=1000x1000")
    assert err.value.kind == "limit"


@pytest.mark.parametrize("answer", [
    "2*outer(W@x - y, x)",
    "outer(2*(W@x - y), x)",
    "2*outer(W@x, x) - 2*outer(y, x)",
    "r = W@x - y\n2*outer(r, x)",
])
def test_linear_correct(answer):
    function, w, shapes = LINEAR
    v = verdict(function, answer, w, shapes)
    assert v.verdict == "correct" and v.score == 1.0 and len(v.entries) == 6


@pytest.mark.parametrize("answer,fragment", [
    ("2*outer(x, W@x - y)", "transposed"),
    ("outer(W@x - y, x)", "1/2 times the gradient"),
    ("-2*outer(W@x - y, x)", "sign error"),
    ("2*(W@x - y)", "shape 3; ∂L/∂W has W's shape 3×2"),
])
def test_linear_wrong(answer, fragment):
    function, w, shapes = LINEAR
    v = verdict(function, answer, w, shapes)
    assert v.verdict == "incorrect" and fragment in v.feedback, v.feedback
    assert v.score == 0.0


def test_batched_linear_with_transposes():
    function, shapes = BATCH
    assert verdict(function, "2*X.T@(X@W + b - Y)", "W", shapes).verdict == "correct"
    assert verdict(function, "2*transpose(X)@(X@W + b - Y)", "W", shapes).verdict == "correct"
    assert verdict(function, "2*((X@W + b - Y).T@X).T", "W", shapes).verdict == "correct"
    wrong = verdict(function, "2*(X@W + b - Y).T@X", "W", shapes)
    assert wrong.verdict == "incorrect" and "transposed" in wrong.feedback
    assert "it is g.T @ X, and ∂L/∂W is X.T @ g" in wrong.feedback
    assert wrong.misconception == {"rule": "transposed-product", "at": "X@W"}


def test_a_missing_sum_over_the_batch():
    function, shapes = BATCH
    assert verdict(function, "2*sum(X@W + b - Y, axis=0)", "b", shapes).verdict == "correct"
    v = verdict(function, "2*(X@W + b - Y)", "b", shapes)
    assert v.verdict == "incorrect" and "sum them over the batch axis" in v.feedback
    mean = verdict("L = mean((X@W + b - Y)**2)", "2*X.T@(X@W + b - Y)", "W", shapes)
    assert mean.verdict == "incorrect" and "8 times" in mean.feedback


def test_softmax_cross_entropy():
    shapes = "W=3x2, x=2, y=3"
    one_hot = "y=[0, 1, 0]"
    right = verdict(SOFTMAX, "outer(softmax(W@x) - y, x)", "W", shapes, at=one_hot)
    assert right.verdict == "correct"
    again = verdict(SOFTMAX, "outer(exp(W@x)/sum(exp(W@x)) - y, x)", "W", shapes, at=one_hot)
    assert again.verdict == "correct"
    transposed = verdict(SOFTMAX, "outer(x, softmax(W@x) - y)", "W", shapes, at=one_hot)
    assert transposed.verdict == "incorrect" and "transposed" in transposed.feedback
    sign = verdict(SOFTMAX, "outer(y - softmax(W@x), x)", "W", shapes, at=one_hot)
    assert sign.verdict == "incorrect" and "sign" in sign.feedback


@pytest.mark.parametrize("integers", [False, True])
def test_two_layer_relu(integers):
    right = "outer(where(W1@x > 0, 2*W2.T@(W2@h - y), 0), x)"
    v = verdict(RELU, right, "W1", RELU_SHAPES, integers=integers)
    assert v.verdict == "correct", v
    v = verdict(RELU, "outer(2*W2.T@(W2@h - y), x)", "W1", RELU_SHAPES, integers=integers)
    assert v.verdict == "incorrect" and v.score < 1
    wrong = [e for e in v.entries if e["verdict"] == "incorrect"]
    assert wrong and all(len(e["index"]) == 2 for e in wrong)
    t = verdict(RELU, "outer(x, where(W1@x > 0, 2*W2.T@(W2@h - y), 0))", "W1", RELU_SHAPES,
                integers=integers)
    assert t.verdict == "incorrect" and "transposed" in t.feedback


def test_integers_are_small_whole_numbers():
    function, w, shapes = LINEAR
    v = verdict(function, "2*outer(W@x - y, x)", w, shapes, integers=True)
    for p in v.points:
        values = np.concatenate([np.ravel(p[n]) for n in ("W", "x", "y")])
        assert np.all(values == np.round(values)) and np.all(np.abs(values) <= 3)


def test_a_hand_computed_answer_at_given_values():
    at = "W=[[1, 2], [3, 4], [5, 6]], x=[1, 1], y=[0, 0, 0]"
    # W@x - y = [3, 7, 11]; 2*outer(r, x)
    v = verdict(*LINEAR[:1], "[[6, 6], [14, 14], [22, 22]]", "W", LINEAR[2], at=at)
    assert v.verdict == "correct"
    v = verdict(*LINEAR[:1], "[[6, 6], [14, 14], [22, 21]]", "W", LINEAR[2], at=at)
    assert v.verdict == "incorrect" and v.score == pytest.approx(5 / 6)
    assert v.entries[5] == {"index": [2, 1], "of": "d/dW[2, 1]", "verdict": "incorrect"}


@pytest.mark.parametrize("kind,message", [
    ({"shape": "Q=2"}, "--shape 'Q'"),
    ({"shape": "W=3x2, x=2, y=3", "at": "x=[1, 2, 3]"}, "--at x"),
])
def test_bad_settings(kind, message):
    with pytest.raises(GradcalcError) as err:
        check(LINEAR[0], "0", ["W"], Kind.read(**kind))
    assert message in err.value.message


def test_wrt_is_needed_and_the_loss_is_a_number():
    with pytest.raises(GradcalcError):
        check(LINEAR[0], "0", None, Kind.read(shape=LINEAR[2]))
    with pytest.raises(GradcalcError) as err:
        check("W@x", "0", ["W"], Kind.read(shape="W=3x2, x=2"))
    assert "not one number" in err.value.message


BATCH_RELU = "h = relu(X@W1 + b1)\nL = sum((h@W2 - Y)**2)"
BATCH_RELU_SHAPES = "X=4x3, W1=3x5, b1=5, W2=5x2, Y=4x2"
BATCH_SOFTMAX = "L = -sum(Y*log(softmax(X@W + b, axis=1)))"
ONE_HOT = "Y=[[1, 0], [0, 1], [0, 1], [1, 0]]"


@pytest.mark.parametrize("function,w,shapes,formula", [
    (*LINEAR, "outer(2*(W@x - y), x)"),
    (BATCH[0], "W", BATCH[1], "X.T@(2*(X@W + b - Y))"),
    (BATCH[0], "b", BATCH[1], "sum(2*(X@W + b - Y), axis=0)"),
    (BATCH[0], "X", BATCH[1], "2*(X@W + b - Y)@W.T"),
    ("L = mean((X@W + b - Y)**2)", "W", BATCH[1], "X.T@((X@W + b - Y)/4)"),
    (SOFTMAX, "W", "W=3x2, x=2, y=3", "outer(softmax(W@x)*sum(y) - y, x)"),
    (BATCH_SOFTMAX, "W", "X=4x3, W=3x2, b=2, Y=4x2",
     "X.T@(softmax(X@W + b, axis=1)*sum(Y, axis=1, keepdims=True) - Y)"),
    (RELU, "W1", RELU_SHAPES, "outer(where(W1@x > 0, W2.T@(2*(W2@h - y)), 0), x)"),
    ("L = sum(X@W)", "W", "W=2x3, X=4x2", "X.T@ones(4, 3)"),
    ("L = sum(exp(W)@x)", "W", "W=2x3, x=3", "exp(W)*x"),
    (BATCH_RELU, "b1", BATCH_RELU_SHAPES,
     "sum(where(X@W1 + b1 > 0, 2*(h@W2 - Y)@W2.T, 0), axis=0)"),
])
def test_the_expected_gradient_is_a_formula(function, w, shapes, formula):
    """Derived by the matrix-calculus rules, shown once it agrees with the tape, and
    itself judged correct when typed back as the answer."""
    v = verdict(function, "0*" + w, w, shapes)
    assert v.expected.startswith(f"∂L/∂{w} = {formula}, of {w}'s shape"), v.expected
    assert verdict(function, formula, w, shapes).verdict == "correct"


@pytest.mark.parametrize("function", [
    "L = prod(W)",
    "L = sum(maximum(W, 0.5))",
    "L = sum(W[0:9, 0:9]**2)",  # the selection lists would have 90 entries
])
def test_outside_the_rules_the_expected_gradient_is_described(function):
    v = verdict(function, "0*W", "W", "W=10x3")
    assert v.verdict == "incorrect" and v.expected == "∂L/∂W, of W's shape 10×3"


def test_relu_mask_missing():
    v = verdict(RELU, "outer(2*W2.T@(W2@h - y), x)", "W1", RELU_SHAPES)
    assert v.verdict == "incorrect" and v.feedback.startswith("ReLU mask missing"), v.feedback
    assert "where(W1@x > 0, …, 0)" in v.feedback
    assert v.misconception == {"rule": "relu-mask-missing", "at": "relu(W1@x)"}
    batch = verdict(BATCH_RELU, "sum(2*(h@W2 - Y)@W2.T, axis=0)", "b1", BATCH_RELU_SHAPES)
    assert batch.feedback.startswith("ReLU mask missing"), batch.feedback
    w1 = verdict(BATCH_RELU, "X.T@(2*(h@W2 - Y)@W2.T)", "W1", BATCH_RELU_SHAPES)
    assert w1.feedback.startswith("ReLU mask missing"), w1.feedback


def test_batched_two_layer_relu_unsummed_and_transposed():
    unsummed = verdict(BATCH_RELU, "where(X@W1 + b1 > 0, 2*(h@W2 - Y)@W2.T, 0)", "b1",
                       BATCH_RELU_SHAPES)
    assert "sum them over the batch axis" in unsummed.feedback
    t = verdict(BATCH_RELU, "where(X@W1 + b1 > 0, 2*(h@W2 - Y)@W2.T, 0).T@X", "W1",
                BATCH_RELU_SHAPES)
    assert "transposed: it is g.T @ X, and ∂L/∂W1 is X.T @ g" in t.feedback


def test_batched_softmax_cross_entropy_right_unsummed_and_transposed():
    shapes = "X=4x3, W=3x2, b=2, Y=4x2"
    right = verdict(BATCH_SOFTMAX, "X.T@(softmax(X@W + b, axis=1) - Y)", "W", shapes,
                    at=ONE_HOT)
    assert right.verdict == "correct"
    db = verdict(BATCH_SOFTMAX, "sum(softmax(X@W + b, axis=1) - Y, axis=0)", "b", shapes,
                 at=ONE_HOT)
    assert db.verdict == "correct"
    unsummed = verdict(BATCH_SOFTMAX, "softmax(X@W + b, axis=1) - Y", "b", shapes,
                       at=ONE_HOT)
    assert "sum them over the batch axis" in unsummed.feedback
    t = verdict(BATCH_SOFTMAX, "(softmax(X@W + b, axis=1) - Y).T@X", "W", shapes, at=ONE_HOT)
    assert t.misconception == {"rule": "transposed-product", "at": "X@W"}


def test_product_order_is_named_apart_from_a_transpose():
    """With square shapes g @ X.T has W's shape too: the feedback says which order the
    answer multiplied in, and which is right."""
    shapes = "X=3x3, W=3x3, b=3, Y=3x3"
    order = verdict(BATCH[0], "2*(X@W + b - Y)@X.T", "W", shapes)
    assert order.feedback.startswith(
        "the product is in the wrong order: the answer is g @ X.T, and ∂L/∂W is X.T @ g")
    assert order.misconception == {"rule": "product-order", "at": "X@W"}
    flipped = verdict(BATCH[0], "2*(X@W + b - Y).T@X", "W", shapes)
    assert flipped.feedback.startswith("the answer is ∂L/∂W transposed: it is g.T @ X")
    dx = verdict(BATCH[0], "W.T@(2*(X@W + b - Y))", "X", shapes)
    assert "the answer is W.T @ g, and ∂L/∂X is g @ W.T" in dx.feedback

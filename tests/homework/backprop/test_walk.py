"""gradcalc.homework.backprop.walk and backprop_scatter: the expected gradient of
a loss with sums and means along an axis, `where`, and indexing, as a formula shown only
once it agrees with the tape; each rule with a right answer, a transposed one and one that
forgot the rule (not repeated along the axis, not masked, not scattered back)."""

from __future__ import annotations

import pytest

from gradcalc.homework.backprop import formulas as backprop
from gradcalc.homework.dispatch import check
from gradcalc.homework.kinds.registry import Kind
from gradcalc.language.parse import parse

from conftest import examples


def verdict(function, answer, wrt, shape, **kind):
    return check(function, answer, [wrt], Kind.read(shape=shape, **kind))


NORMS = ("L = sum(sqrt(sum((X@W - Y)**2, axis=1)))", "W", "X=4x3, W=3x2, Y=4x2")
ROWS = ("L = sum(sum(X, axis=1)**2)", "X", "X=4x3")
COLUMN_MEANS = ("L = sum(mean(X@W, axis=0)**2)", "W", "X=4x3, W=3x2")
HINGE = ("L = sum(where(x > 0, x**2, -x))", "x", "x=4")
MASKED = ("L = sum(where(X@W > 0, (X@W)**2, 0))", "W", "X=4x3, W=3x2")
ROW = ("L = sum(W[0]**2)", "W", "W=3x2")
SLICE = ("L = sum(x[1:3]**2)", "x", "x=5")
COLUMN = ("L = sum((X@W)[:, 0]**2)", "W", "X=4x3, W=3x2")
KEPT = ("L = sum((X - mean(X, axis=1, keepdims=True))**2)", "X", "X=4x3")
ONE_HOT = "Y=[[1, 0], [0, 1], [0, 1], [1, 0]]"
BATCH_SOFTMAX = ("L = -sum(Y*log(softmax(X@W + b, axis=1)))", "W", "X=4x3, W=3x2, b=2, Y=4x2")


@pytest.mark.parametrize("problem,formula", [
    (NORMS, "X.T@(2*(X@W - Y)*outer(1/(2*sqrt(sum((X@W - Y)**2, axis=1))), ones(2)))"),
    (ROWS, "outer(2*sum(X, axis=1), ones(3))"),
    (("L = sum(mean(X, axis=0)**2)", "X", "X=4x3"), "outer(ones(4), 2*mean(X, axis=0)/4)"),
    (COLUMN_MEANS, "X.T@outer(ones(4), 2*mean(X@W, axis=0)/4)"),
    (("L = sum(exp(X)*sum(X, axis=0))", "X", "X=3x2"),
     "exp(X)*sum(X, axis=0) + outer(ones(3), sum(exp(X), axis=0))"),
    (HINGE, "where(x > 0, 2*x, -1)"),
    (MASKED, "X.T@where(X@W > 0, 2*(X@W), 0)"),
    (ROW, "outer([1, 0, 0], 2*W[0])"),
    (SLICE, "2*x[1:3]@[[0, 1, 0, 0, 0], [0, 0, 1, 0, 0]]"),
    (("L = x[-1]**3", "x", "x=3"), "3*x[-1]**2*[0, 0, 1]"),
    (("L = W[1, 0]**2", "W", "W=3x2"), "2*W[1, 0]*[[0, 0], [1, 0], [0, 0]]"),
    (("L = sum(W[0:2]**2)", "W", "W=3x2"), "[[1, 0], [0, 1], [0, 0]]@(2*W[0:2])"),
    (COLUMN, "X.T@outer(2*(X@W)[:, 0], [1, 0])"),
    (("L = sum(W[1, 0:2]**2)", "W", "W=3x3"), "outer([0, 1, 0], 2*W[1, 0:2]@[[1, 0, 0], "
                                              "[0, 1, 0]])"),
    (("L = sum(sum(X, axis=-1)**2)", "X", "X=4x3"), "outer(2*sum(X, axis=-1), ones(3))"),
    (("L = sum(x[-2:]**2)", "x", "x=4"), "2*x[-2:]@[[0, 0, 1, 0], [0, 0, 0, 1]]"),
    (("L = sum(x[::-1]*x)", "x", "x=3"), "x@[[0, 0, 1], [0, 1, 0], [1, 0, 0]] + x[::-1]"),
    (("L = sum(where(W > 0, W, 0)) + sum(relu(W))", "W", "W=3x2"), "where(W > 0, 2, 0)"),
    (("L = sum(mean(X, axis=1))", "X", "X=4x3"), "ones(4, 3)/3"),
    (("L = sum(log(sum(exp(Z), axis=0)))", "Z", "Z=3x2"), "exp(Z)/sum(exp(Z), axis=0)"),
    (("h = relu(W@x); L = sum(h[0:2]**2)", "W", "W=3x2, x=2"),
     "outer(where(W@x > 0, 2*h[0:2]@[[1, 0, 0], [0, 1, 0]], 0), x)"),
    (KEPT, "2*(X - mean(X, axis=1, keepdims=True)) - "
           "sum(2*(X - mean(X, axis=1, keepdims=True)), axis=1, keepdims=True)/3"),
    (("L = sum(log(sum(exp(X), axis=1, keepdims=True)))", "X", "X=4x3"),
     "exp(X)/sum(exp(X), axis=1, keepdims=True)"),
    (("L = sum(X/sum(X, axis=0, keepdims=True)*Y)", "X", "X=3x2, Y=3x2"),
     "Y/sum(X, axis=0, keepdims=True) - sum(X*Y/sum(X, axis=0, keepdims=True)**2, axis=0, "
     "keepdims=True)"),
])
def test_the_expected_gradient_is_a_formula_that_reads_back(problem, formula):
    """Derived by the rules, shown once it agrees with the tape at every draw, and itself
    judged correct when typed back as the answer."""
    function, w, shapes = problem
    v = verdict(function, "0*" + w, w, shapes)
    assert v.expected.startswith(f"∂L/∂{w} = {formula}, of {w}'s shape"), v.expected
    assert verdict(function, formula, w, shapes).verdict == "correct"


@pytest.mark.parametrize("problem,answer", [
    (NORMS, "X.T@((X@W - Y)*outer(1/sqrt(sum((X@W - Y)**2, axis=1)), ones(2)))"),
    (ROWS, "2*outer(sum(X, axis=1), ones(3))"),
    (ROWS, "2*X@ones(3, 3)"),
    (COLUMN_MEANS, "X.T@outer(ones(4), mean(X@W, axis=0))/2"),
    (HINGE, "2*relu(x) - where(x > 0, 0, 1)"),
    (MASKED, "2*X.T@relu(X@W)"),
    (ROW, "2*W*[[1, 1], [0, 0], [0, 0]]"),
    (SLICE, "2*x*[0, 1, 1, 0, 0]"),
    (COLUMN, "2*X.T@(X@W*[1, 0])"),
    (KEPT, "2*(X - mean(X, axis=1, keepdims=True))"),  # the mean's own path sums to 0
])
def test_right_answers_written_another_way(problem, answer):
    function, w, shapes = problem
    v = verdict(function, answer, w, shapes)
    assert v.verdict == "correct" and v.score == 1.0, v


@pytest.mark.parametrize("problem,answer", [
    (NORMS, "((X@W - Y)*outer(1/sqrt(sum((X@W - Y)**2, axis=1)), ones(2))).T@X"),
    (ROWS, "outer(ones(3), 2*sum(X, axis=1))"),
    (COLUMN_MEANS, "outer(ones(4), mean(X@W, axis=0)).T@X/2"),
    (MASKED, "where(X@W > 0, 2*X@W, 0).T@X"),
    (ROW, "outer(2*W[0], [1, 0, 0])"),
    (COLUMN, "outer(2*(X@W)[:, 0], [1, 0]).T@X"),
    (KEPT, "(2*(X - mean(X, axis=1, keepdims=True)) - "
           "sum(2*(X - mean(X, axis=1, keepdims=True)), axis=1, keepdims=True)/3).T"),
])
def test_transposed_answers(problem, answer):
    function, w, shapes = problem
    v = verdict(function, answer, w, shapes)
    assert v.verdict == "incorrect" and "transposed" in v.feedback, v.feedback


def test_a_transposed_answer_of_the_right_shape():
    v = verdict("L = sum(sum(X, axis=1)**2)", "outer(ones(3), 2*sum(X, axis=1))", "X", "X=3x3")
    assert v.verdict == "incorrect" and "transposed" in v.feedback, v.feedback


@pytest.mark.parametrize("problem,answer,rule,at", [
    (ROWS, "2*sum(X, axis=1)", "sum-not-broadcast", "sum(X, axis=1)"),
    (("L = sum(mean(X, axis=0)**2)", "X", "X=4x3"), "2*mean(X, axis=0)/4",
     "sum-not-broadcast", "mean(X, axis=0)"),
    (HINGE, "2*x - 1", "where-mask-missing", "where(x > 0, …)"),
    (MASKED, "X.T@(2*X@W)", "where-mask-missing", "where(X@W > 0, …)"),
    (ROW, "2*W[0]", "index-not-scattered", "W[0]"),
    (SLICE, "2*x[1:3]", "index-not-scattered", "x[1:3]"),
])
def test_the_rule_left_out_is_named(problem, answer, rule, at):
    function, w, shapes = problem
    v = verdict(function, answer, w, shapes)
    assert v.verdict == "incorrect" and v.misconception == {"rule": rule, "at": at}, v
    assert v.score == 0.0


def test_the_feedback_says_how_to_spread_the_gradient_back():
    v = verdict(*ROWS[:1], "2*sum(X, axis=1)", "X", ROWS[2])
    assert v.feedback == (
        "the answer is ∂L/∂(sum(X, axis=1)), of shape 4: the gradient of a sum along an "
        "axis is repeated along that axis, back to X's shape 4×3: outer(g, ones(3)), "
        "with g = 2*sum(X, axis=1)")
    v = verdict(*ROW[:1], "2*W[0]", "W", ROW[2])
    assert v.feedback == (
        "the answer is ∂L/∂(W[0]), of shape 2: ∂L/∂W has W's shape 3×2, that gradient in "
        "the places W[0] picks and 0 elsewhere: outer([1, 0, 0], g), with g = 2*W[0]")
    v = verdict(*HINGE[:1], "2*x - 1", "x", HINGE[2])
    assert v.feedback.startswith("where's mask missing: the gradient of where(x > 0, a, b) "
                                 "goes to a only where x > 0")


def test_one_hot_targets_give_the_textbook_formula():
    """With targets whose rows sum to 1 (given with --at), cross-entropy's gradient is
    shown as softmax(u) - y; with drawn targets that would not agree with the tape, so
    the general formula is shown."""
    function, w, shapes = BATCH_SOFTMAX
    v = verdict(function, "0*W", w, shapes, at=ONE_HOT)
    assert v.expected.startswith("∂L/∂W = X.T@(softmax(X@W + b, axis=1) - Y), of"), v.expected
    drawn = verdict(function, "0*W", w, shapes)
    assert "sum(Y, axis=1, keepdims=True)" in drawn.expected
    one = verdict("L = -sum(y*log(softmax(W@x)))", "0*W", "W", "W=3x2, x=2, y=3",
                  at="y=[0, 1, 0]")
    assert one.expected.startswith("∂L/∂W = outer(softmax(W@x) - y, x), of"), one.expected
    mean = verdict("L = -mean(Y*log_softmax(X@W, axis=1))", "0*W", "W", "X=4x3, W=3x2, Y=4x2",
                   at=ONE_HOT)
    assert mean.expected.startswith("∂L/∂W = X.T@(softmax(X@W, axis=1)/8 - Y/8), of")
    t = verdict(function, "(softmax(X@W + b, axis=1) - Y).T@X", w, shapes, at=ONE_HOT)
    assert "with g = softmax(X@W + b, axis=1) - Y" in t.feedback, t.feedback


def test_the_derivations_are_offered_most_readable_first():
    program = parse("L = -sum(Y*log(softmax(X@W, axis=1)))")
    found = backprop.derive_all(program, "W", {"X": (4, 3), "W": (3, 2), "Y": (4, 2)})
    assert [d.text for d in found] == [
        "X.T@(softmax(X@W, axis=1) - Y)",
        "X.T@(softmax(X@W, axis=1)*sum(Y, axis=1, keepdims=True) - Y)"]
    plain = backprop.derive_all(parse("L = sum(W**2)"), "W", {"W": (2, 2)})
    assert [d.text for d in plain] == ["2*W"]


def _matrices(depth: int):
    """Text of 3×2 matrix expressions of X, with the rules' constructs."""
    from hypothesis import strategies as st

    if depth == 0:
        return st.just("X")
    inner = _matrices(depth - 1)
    rows, cols = _vectors(depth - 1, 2), _vectors(depth - 1, 3)
    return st.one_of(
        inner,
        st.tuples(st.sampled_from(["exp", "tanh", "sigmoid"]), inner).map(
            lambda t: f"{t[0]}({t[1]})"),
        st.tuples(inner, inner).map(lambda t: f"({t[0]})*({t[1]})"),
        st.tuples(inner, rows).map(lambda t: f"({t[0]}) - {t[1]}"),
        inner.map(lambda m: f"where({m} > 0, {m}, 0.5*{m})"),
        st.tuples(cols, rows).map(lambda t: f"outer({t[0]}, {t[1]})"),
        inner.map(lambda m: f"({m}) - mean({m}, axis=0, keepdims=True)"),
        st.tuples(inner, inner).map(
            lambda t: f"({t[0]})*sum({t[1]}, axis=1, keepdims=True)"),
    )


def _vectors(depth: int, n: int):
    """Text of vectors of length n (2: a row's, 3: a column's) of 3×2 matrices."""
    from hypothesis import strategies as st

    m = _matrices(depth)
    if n == 2:
        return st.one_of(m.map(lambda e: f"sum({e}, axis=0)"),
                         m.map(lambda e: f"mean({e}, axis=0)"),
                         st.tuples(m, st.sampled_from(["0", "-1", "1"])).map(
                             lambda t: f"({t[0]})[{t[1]}]"))
    return st.one_of(m.map(lambda e: f"sum({e}, axis=1)"),
                     st.tuples(m, st.sampled_from(["0", "1"])).map(
                         lambda t: f"({t[0]})[:, {t[1]}]"),
                     m.map(lambda e: f"({e})[0:3]@ones(2)"))


def test_the_rules_agree_with_the_tape_on_random_losses():
    """Every formula the rules derive for a random loss of axis sums and means (keepdims
    or not), where, indexing and broadcasting, typed back as the answer, is judged
    correct: the rules are right, not merely filtered by the check."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    losses = st.one_of(_vectors(2, 2).map(lambda v: f"L = sum(({v})**2)"),
                       _vectors(2, 3).map(lambda v: f"L = sum(tanh({v}))"),
                       _matrices(2).map(lambda m: f"L = sum(({m})[0:2]**2)"))
    derived = []

    @settings(max_examples=examples(25), deadline=None, database=None)
    @given(losses)
    def judged(loss):
        found = backprop.derive_all(parse(loss), "X", {"X": (3, 2)})
        assert found, loss
        v = verdict(loss, found[0].text, "X", "X=3x2")
        assert v.verdict == "correct", (loss, found[0].text, v)
        derived.append(found[0].text)

    judged()
    assert len(derived) >= 20


def test_an_answer_numpy_cannot_broadcast_says_how_to_repeat_a_row_sum():
    """The answer of a student who forgot that a sum along axis 1 has one entry per
    row: an error about the answer, saying how to repeat it along each row."""
    from gradcalc.errors import GradcalcError

    function, w, shapes = NORMS
    with pytest.raises(GradcalcError) as err:
        verdict(function, "X.T@((X@W - Y)/sqrt(sum((X@W - Y)**2, axis=1)))", w, shapes)
    assert err.value.message.startswith("the answer: '/' at line 1, column 15 failed on "
                                        "shape (4, 2) and shape (4,)")
    assert err.value.message.endswith("so keep its axis, sum(…, axis=1, keepdims=True), or "
                                      "repeat it along each row, outer(v, ones(m))")
    with pytest.raises(GradcalcError) as err:
        verdict(function, "ones(2)@X", w, shapes)
    assert err.value.message.startswith("the answer: '@'") and "NumPy" not in err.value.message

"""gradcalc.testing.check_backward judges CS231n-style hand-written backward passes:
correct ones pass, and each classic bug (a missing transpose, a missing sum over the batch,
a wrong mask, a forgotten 1/N, an off-by-one in a window) is caught and named."""

from __future__ import annotations

import numpy as np
import pytest

import gradcalc
from gradcalc.nn import functional as F
from gradcalc.testing import check_backward

rng = np.random.default_rng(7)

# --------------------------------------------------------------------------- affine


def affine_forward(x, w, b):
    return x.reshape(x.shape[0], -1) @ w + b


def affine_backward(dout, x, w, b):
    dx = (dout @ w.T).reshape(x.shape)
    dw = x.reshape(x.shape[0], -1).T @ dout
    db = dout.sum(axis=0)
    return dx, dw, db


def affine_backward_missing_transpose(dout, x, w, b):
    dx, _, db = affine_backward(dout, x, w, b)
    return dx, dout.T @ x.reshape(x.shape[0], -1), db


def affine_backward_missing_batch_sum(dout, x, w, b):
    dx, dw, _ = affine_backward(dout, x, w, b)
    return dx, dw, dout


AFFINE = {"x": rng.normal(size=(4, 2, 3)), "w": rng.normal(size=(6, 5)),
          "b": rng.normal(size=5)}


def test_affine_correct():
    report = check_backward(affine_forward, affine_backward, AFFINE)
    assert report.ok and report.points == 3
    assert [v.name for v in report.verdicts] == ["x", "w", "b"]
    assert all(v.max_error < 1e-12 for v in report.verdicts)
    assert str(report).startswith("backward correct at 3 points\n  x: correct")


def test_affine_missing_transpose_is_named():
    report = check_backward(affine_forward, affine_backward_missing_transpose, AFFINE)
    assert not report and report["x"].correct and report["b"].correct
    w = report["w"]
    assert w.status == "wrong shape" and w.got_shape == (5, 6)
    assert "transpose" in w.diagnosis
    assert str(w) == ("w: wrong shape (5, 6), expected (6, 5): the transpose of the "
                      "gradient (a missing or extra .T)")


def test_affine_missing_batch_sum_is_named():
    report = check_backward(affine_forward, affine_backward_missing_batch_sum, AFFINE)
    b = report["b"]
    assert b.status == "wrong shape" and b.got_shape == (4, 5)
    assert "missing the sum over the batch" in b.diagnosis


# --------------------------------------------------------------------------- relu


def relu_backward(dout, x):
    return dout * (x > 0)


def relu_backward_wrong_mask(dout, x):
    return dout * (dout > 0)


def test_relu_correct_and_wrong_mask():
    x = rng.normal(size=(3, 4))
    assert check_backward(gradcalc.relu, relu_backward, (x,))
    report = check_backward(gradcalc.relu, relu_backward_wrong_mask, (x,))
    (v,) = report.verdicts
    assert v.status == "incorrect" and v.name == "input 0"
    assert v.max_error > 0.1 and v.where is not None
    assert v.got_value == 0.0 or v.expected_value == 0.0


# --------------------------------------------------------------------------- softmax loss


def softmax_loss(x, y):
    return F.cross_entropy(x, y)


def softmax_loss_grad(dout, x, y):
    shifted = x - x.max(axis=1, keepdims=True)
    p = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    p[np.arange(x.shape[0]), y.astype(int)] -= 1
    return dout * p / x.shape[0]


def softmax_loss_grad_without_mean(dout, x, y):
    return softmax_loss_grad(dout, x, y) * x.shape[0]


def test_softmax_loss_correct_and_a_forgotten_mean():
    inputs = {"x": rng.normal(size=(5, 3)), "y": np.array([0, 2, 1, 1, 0])}
    assert check_backward(softmax_loss, softmax_loss_grad, inputs, wrt=["x"])
    report = check_backward(softmax_loss, softmax_loss_grad_without_mean, inputs, wrt=["x"])
    assert report["x"].status == "incorrect"
    assert report["x"].diagnosis == "it is 5 times the right gradient (a sum where a mean is " \
                                    "meant)"


# --------------------------------------------------------------------------- batchnorm


def batchnorm_forward(x, gamma, beta):
    mu = x.mean(0)
    var = ((x - mu) ** 2).mean(0)
    return gamma * (x - mu) / gradcalc.sqrt(var + 1e-5) + beta


def batchnorm_backward(dout, x, gamma, beta):
    n = x.shape[0]
    mu, var = x.mean(0), x.var(0)
    xhat = (x - mu) / np.sqrt(var + 1e-5)
    dxhat = dout * gamma
    dx = (n * dxhat - dxhat.sum(0) - xhat * (dxhat * xhat).sum(0)) / (n * np.sqrt(var + 1e-5))
    return dx, (dout * xhat).sum(0), dout.sum(0)


def batchnorm_backward_ignoring_the_mean(dout, x, gamma, beta):
    dx, dgamma, dbeta = batchnorm_backward(dout, x, gamma, beta)
    var = x.var(0)
    return dout * gamma / np.sqrt(var + 1e-5), dgamma, dbeta


def batchnorm_backward_per_sample_dgamma(dout, x, gamma, beta):
    dx, _, dbeta = batchnorm_backward(dout, x, gamma, beta)
    xhat = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5)
    return dx, dout * xhat, dbeta


BN = {"x": rng.normal(size=(6, 4)) * 2 + 1, "gamma": rng.normal(size=4),
      "beta": rng.normal(size=4)}


def test_batchnorm_correct_and_buggy():
    assert check_backward(batchnorm_forward, batchnorm_backward, BN)
    report = check_backward(batchnorm_forward, batchnorm_backward_ignoring_the_mean, BN)
    assert report["x"].status == "incorrect" and report["gamma"].correct
    report = check_backward(batchnorm_forward, batchnorm_backward_per_sample_dgamma, BN)
    assert report["gamma"].status == "wrong shape"
    assert "missing the sum over the batch" in report["gamma"].diagnosis


# --------------------------------------------------------------------------- conv


def conv_forward(x, w, b):
    return F.conv2d(x, w, b, stride=1, padding=1)


def conv_backward_naive(dout, x, w, b, shift=0):
    pad = 1
    n, c, h, wd = x.shape
    f, _, hh, ww = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    dxp, dw = np.zeros_like(xp), np.zeros_like(w)
    db = dout.sum(axis=(0, 2, 3))
    for i in range(n):
        for k in range(f):
            for r in range(dout.shape[2]):
                for s in range(dout.shape[3]):
                    r0 = min(r + shift, xp.shape[2] - hh)
                    window = xp[i, :, r0:r0 + hh, s:s + ww]
                    dw[k] += window * dout[i, k, r, s]
                    dxp[i, :, r:r + hh, s:s + ww] += w[k] * dout[i, k, r, s]
    return dxp[:, :, pad:-pad, pad:-pad], dw, db


CONV = {"x": rng.normal(size=(2, 2, 4, 4)), "w": rng.normal(size=(3, 2, 3, 3)),
        "b": rng.normal(size=3)}


def test_conv_backward_correct_and_off_by_one():
    assert check_backward(conv_forward, conv_backward_naive, CONV)
    report = check_backward(conv_forward, lambda dout, x, w, b: conv_backward_naive(
        dout, x, w, b, shift=1), CONV)
    assert report["x"].correct and report["b"].correct
    assert report["w"].status == "incorrect" and len(report["w"].where) == 4


# --------------------------------------------------------------------------- max pool


def max_pool_backward_naive(dout, x, start=0):
    dx = np.zeros_like(x)
    for i, j, r, s in np.ndindex(*dout.shape):
        r0 = min(2 * r + start, x.shape[2] - 2)
        window = x[i, j, r0:r0 + 2, 2 * s:2 * s + 2]
        a, b = np.unravel_index(np.argmax(window), window.shape)
        dx[i, j, r0 + a, 2 * s + b] += dout[i, j, r, s]
    return dx


def test_max_pool_backward_correct_and_off_by_one():
    x = rng.normal(size=(2, 3, 4, 4))
    forward = lambda x: F.max_pool2d(x, 2, 2)  # noqa: E731
    assert check_backward(forward, max_pool_backward_naive, (x,))
    report = check_backward(forward, lambda d, x: max_pool_backward_naive(d, x, start=1), (x,))
    assert report.verdicts[0].status == "incorrect"


# --------------------------------------------------------------------------- the report


def test_a_missing_gradient_and_bad_names():
    report = check_backward(affine_forward, lambda dout, x, w, b: (None, None), AFFINE)
    assert [v.status for v in report.verdicts] == ["missing"] * 3
    with pytest.raises(ValueError, match="wrt names inputs that do not exist"):
        check_backward(affine_forward, affine_backward, AFFINE, wrt=["z"])


def test_the_given_grad_output_is_used_at_the_given_point():
    seen = []

    def backward(dout, x):
        seen.append(dout.copy())
        return 2 * x * dout

    dout = np.arange(3.0)
    assert check_backward(lambda x: x * x, backward, (np.ones(3),), grad_output=dout)
    assert np.array_equal(seen[0], dout) and len(seen) == 3

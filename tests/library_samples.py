"""Samples for the table entries of PyTorch's library ops (gradcalc/engine/extended.py),
read by tests/engine/test_ops.py's parametrised suites: name -> (argument builder, parameters)."""

from __future__ import annotations

import numpy as np


def _n(r, *shape):
    return r.normal(size=shape)


def _off_grid(r, *shape):
    """Values at least 0.2 away from whole and half numbers (where rounding jumps)."""
    return r.integers(-3, 3, size=shape) + r.choice([0.25, 0.7], size=shape)


def _away(r, *shape):
    return r.choice([-1.0, 1.0], size=shape) * r.uniform(0.3, 1.5, size=shape)


GEOMETRY = {"stride": (1, 1), "padding": ((0, 0), (0, 0)), "dilation": (1, 1), "groups": 1}
STRIDED = {"stride": (2, 1), "padding": ((1, 1), (0, 1)), "dilation": (1, 2), "groups": 2}

SAMPLES = {
    "erf": (lambda r: [_n(r, 2, 3)], {}),
    "elu": (lambda r: [_away(r, 2, 3)], {"alpha": 1.5}),
    "leaky_relu": (lambda r: [_away(r, 2, 3)], {"negative_slope": 0.1}),
    "hardtanh": (lambda r: [np.array([-1.4, -0.5, 0.2, 0.9, 1.3, -0.1])],
                 {"min_val": -1.0, "max_val": 1.0}),
    "leaky_relu_backward": (lambda r: [_n(r, 2, 3), _away(r, 2, 3)], {"negative_slope": 0.1}),
    "hardtanh_backward": (lambda r: [_n(r, 2, 3), np.array([[-1.4, -0.5, 0.2], [0.9, 1.3, -0.1]])],
                          {"min_val": -1.0, "max_val": 1.0}),
    "log_softmax": (lambda r: [_n(r, 2, 3)], {"axis": (1,)}),
    **{name: (lambda r: [_off_grid(r, 2, 3)], {}) for name in ("floor", "ceil", "trunc")},
    "round": (lambda r: [_off_grid(r, 2, 3)], {"decimals": 0}),
    "cat": (lambda r: [_n(r, 2, 3), _n(r, 1, 3)], {"axis": 0}),
    "flip": (lambda r: [_n(r, 2, 3)], {"dims": (1,)}),
    "roll": (lambda r: [_n(r, 2, 3)], {"shifts": (1,), "dims": (1,)}),
    "repeat": (lambda r: [_n(r, 2, 1)], {"repeats": (2, 1, 3)}),
    "tril": (lambda r: [_n(r, 3, 3)], {"diagonal": 0}),
    "triu": (lambda r: [_n(r, 3, 3)], {"diagonal": 1}),
    "pad": (lambda r: [_n(r, 2, 2)], {"pads": ((0, 1), (2, 0)), "value": 0.0}),
    "cumsum": (lambda r: [_n(r, 2, 3)], {"axis": 1}),
    "cumprod": (lambda r: [_away(r, 2, 3)], {"axis": 1}),
    "einsum": (lambda r: [_n(r, 2, 3), _n(r, 3, 2)], {"spec": "ij,jk->ik"}),
    "conv": (lambda r: [_n(r, 1, 2, 3, 3), _n(r, 2, 2, 2, 2)], GEOMETRY),
    "conv_input_grad": (lambda r: [_n(r, 1, 2, 2, 2), _n(r, 2, 2, 2, 2)],
                        {"x_shape": (1, 2, 3, 3), **GEOMETRY}),
    "conv_weight_grad": (lambda r: [_n(r, 1, 2, 3, 3), _n(r, 1, 2, 2, 2)],
                         {"w_shape": (2, 2, 2, 2), **GEOMETRY}),
}

EXTRA = [
    ("gelu", "tanh", lambda r: [_n(r, 2, 3)], {"approximate": "tanh"}),
    ("cumprod", "zeros", lambda r: [np.array([[2.0, 0.0, -1.5, 0.0], [0.5, 1.0, 0.0, 3.0]])],
     {"axis": 1}),
    ("cumsum", "axis0", lambda r: [_n(r, 3, 2)], {"axis": 0}),
    ("roll", "flat", lambda r: [_n(r, 2, 3)], {"shifts": (2,), "dims": ()}),
    ("einsum", "broadcast-index", lambda r: [_n(r, 2, 3), _n(r, 4)], {"spec": "ij,k->i"}),
    ("einsum", "three", lambda r: [_n(r, 2), _n(r, 2, 3), _n(r, 3)], {"spec": "i,ij,j->"}),
    ("conv", "strided-groups", lambda r: [_n(r, 1, 2, 4, 3), _n(r, 2, 1, 2, 2)], STRIDED),
    ("conv", "1d", lambda r: [_n(r, 2, 1, 5), _n(r, 2, 1, 3)],
     {"stride": (2,), "padding": ((1, 1),), "dilation": (1,), "groups": 1}),
]

"""The library ops' cases pinned to PyTorch (tests/engine/test_library_pinned.py): name ->
(inputs, code).

Each input is a float64 leaf that requires grad; `code` is one expression over the
inputs, `lib` (torch or gradcalc) and `F` (its nn.functional). tests/pin_library.py runs
every case once with torch 2.13.0 (float64) and writes what it gave, values, shapes,
dtypes, the printout of integer and boolean results, the gradient of each input for fixed
output weights, or the error's class and first words, into tests/library_pinned.py.
"""

from __future__ import annotations

import math

import numpy as np


def grid(*shape: int, s: float = 0.0) -> list:
    """Deterministic values in [-2, 2] with three decimals (no random stream involved)."""
    n = math.prod(shape)
    v = np.round(2 * np.sin(np.arange(n) * 1.37 + s), 3)
    return v.reshape(shape).tolist()


def weights(shape: tuple[int, ...]) -> np.ndarray:
    """The fixed output weights of a case's backward: out.backward(weights)."""
    n = math.prod(shape)
    return np.cos(np.arange(n) * 0.9 + 0.3).reshape(shape)


A23, B23, B3, S0 = grid(2, 3), grid(2, 3, s=1.0), grid(3, s=2.0), 0.7
KINKED = [[-1.0, 0.0, 2.0, 0.0], [0.0, 1.5, -0.5, 0.0]]
X4 = grid(1, 2, 5, 5, s=0.3)  # a batch of one, two channels, 5 x 5
X3 = grid(2, 2, 7, s=0.4)  # conv1d: batch 2, 2 channels, length 7
POOL = grid(2, 1, 4, 5, s=0.2)
TIES = [[[[1.0, 1.0, 0.0, 2.0], [1.0, 0.5, 2.0, 2.0], [0.0, 0.0, -1.0, 3.0],
          [0.0, 0.0, 3.0, -1.0]]]]

CASES: dict[str, tuple[dict[str, object], str]] = {
    # the methods add sub mul div neg pow, alpha where PyTorch has it
    "add": ({"a": A23, "b": B23}, "a.add(b)"),
    "add_alpha": ({"a": A23, "b": B3}, "a.add(b, alpha=2.5)"),
    "add_number_alpha": ({"a": A23}, "a.add(3, alpha=-2)"),
    "add_function_alpha": ({"a": A23, "b": B23}, "lib.add(a, b, alpha=0.5)"),
    "sub": ({"a": A23, "b": B3}, "a.sub(b)"),
    "sub_alpha": ({"a": A23, "b": B23}, "a.sub(b, alpha=3)"),
    "sub_function_alpha": ({"a": A23, "b": B3}, "lib.sub(a, b, alpha=-1.5)"),
    "mul": ({"a": A23, "b": B3}, "a.mul(b)"),
    "mul_number": ({"a": A23}, "a.mul(-1.5)"),
    "div": ({"a": A23, "b": B23}, "a.div(b)"),
    "div_number": ({"a": A23}, "lib.div(a, 4)"),
    "neg": ({"a": A23}, "a.neg()"),
    "neg_function": ({"a": KINKED}, "lib.neg(a)"),
    "pow_number": ({"a": A23}, "a.pow(3)"),
    "pow_half": ({"a": KINKED}, "a.abs().pow(0.5)"),
    "pow_tensor": ({"a": B3, "b": A23}, "a.abs().pow(b)"),
    "pow_function": ({"a": A23}, "lib.pow(2, a)"),
    "add_mismatch": ({"a": A23, "b": [1.0, 2.0]}, "a.add(b, alpha=2)"),
    "sub_bool": ({"a": A23}, "(a > 0).sub(a > 1)"),
    # pieces and arrangement
    "cat": ({"a": A23, "b": grid(1, 3, s=3.0)}, "lib.cat([a, b])"),
    "cat_dim": ({"a": A23, "b": B23}, "lib.cat((a, b), dim=-1)"),
    "cat_mismatch": ({"a": A23, "b": grid(2, 2)}, "lib.cat([a, b])"),
    "cat_dim_range": ({"a": A23, "b": B23}, "lib.cat([a, b], 2)"),
    "split": ({"a": grid(5, 2)}, "lib.split(a, 2)"),
    "split_sizes": ({"a": grid(2, 5)}, "a.split([1, 4], dim=1)"),
    "split_bad_sizes": ({"a": grid(2, 5)}, "a.split([1, 3], dim=1)"),
    "chunk": ({"a": grid(2, 5)}, "a.chunk(3, 1)"),
    "chunk_function": ({"a": grid(6)}, "lib.chunk(a, 4)"),
    "flip": ({"a": grid(2, 3, 2)}, "a.flip(0, 2)"),
    "flip_function": ({"a": A23}, "lib.flip(a, [-1])"),
    "flip_range": ({"a": A23}, "a.flip(2)"),
    "repeat": ({"a": B3}, "a.repeat(2, 2)"),
    "repeat_same": ({"a": A23}, "a.repeat(1, 3)"),
    "repeat_too_few": ({"a": A23}, "a.repeat(2)"),
    "roll": ({"a": A23}, "a.roll(1, 1)"),
    "roll_flat": ({"a": A23}, "lib.roll(a, -2)"),
    "roll_dims": ({"a": grid(2, 3, 2)}, "a.roll((1, -1), (0, 2))"),
    "tril": ({"a": grid(3, 4)}, "a.tril()"),
    "tril_diagonal": ({"a": grid(3, 4)}, "lib.tril(a, -1)"),
    "triu": ({"a": grid(3, 4)}, "a.triu(1)"),
    "triu_batch": ({"a": grid(2, 3, 3)}, "lib.triu(a)"),
    "tril_1d": ({"a": B3}, "a.tril()"),
    # cumulative
    "cumsum": ({"a": A23}, "a.cumsum(1)"),
    "cumsum_neg": ({"a": grid(3, 2)}, "lib.cumsum(a, dim=-2)"),
    "cumprod": ({"a": A23}, "a.cumprod(1)"),
    "cumprod_zeros": ({"a": KINKED}, "a.cumprod(1)"),
    "cumprod_0d": ({"a": S0}, "a.cumprod(0)"),
    "cumsum_range": ({"a": A23}, "a.cumsum(2)"),
    "cummax": ({"a": KINKED}, "lib.cummax(a, 1)"),
    "cummax_values": ({"a": A23}, "a.cummax(0).values"),
    "cummin": ({"a": KINKED}, "a.cummin(dim=1)"),
    "cummin_indices": ({"a": grid(5)}, "lib.cummin(a, 0).indices"),
    # spread
    "var": ({"a": grid(3, 4)}, "a.var()"),
    "var_dim": ({"a": grid(3, 4)}, "a.var(1, keepdim=True)"),
    "var_correction0": ({"a": grid(3, 4)}, "a.var(0, correction=0)"),
    "var_dims": ({"a": grid(2, 3, 2)}, "lib.var(a, (0, 2), correction=2)"),
    "std": ({"a": grid(3, 4)}, "a.std()"),
    "std_dim": ({"a": grid(3, 4)}, "lib.std(a, dim=0, correction=0)"),
    "std_unbiased": ({"a": grid(3, 4)}, "a.std(1, unbiased=False)"),
    "var_mean": ({"a": grid(3, 4)}, "lib.var_mean(a, 1)"),
    "std_one": ({"a": [[1.5, 2.0]]}, "a.std(0)"),
    "var_range": ({"a": A23}, "a.var(3)"),
    # softmax family and activations
    "log_softmax": ({"a": A23}, "a.log_softmax(1)"),
    "log_softmax_dim0": ({"a": A23}, "F.log_softmax(a, dim=0)"),
    "log_softmax_0d": ({"a": S0}, "a.log_softmax(0)"),
    "log_softmax_function": ({"a": grid(2, 2, 3)}, "lib.log_softmax(a, -1)"),
    "gelu": ({"a": KINKED}, "F.gelu(a)"),
    "gelu_grid": ({"a": A23}, "F.gelu(a)"),
    "gelu_tanh": ({"a": A23}, "F.gelu(a, approximate='tanh')"),
    "silu": ({"a": A23}, "F.silu(a)"),
    "elu": ({"a": KINKED}, "F.elu(a)"),
    "elu_alpha": ({"a": A23}, "F.elu(a, alpha=0.5)"),
    "leaky_relu": ({"a": KINKED}, "F.leaky_relu(a)"),
    "leaky_relu_slope": ({"a": A23}, "F.leaky_relu(a, 0.2)"),
    "hardtanh": ({"a": [[-1.0, 1.0, 2.0, -0.5], [0.0, 1.5, -3.0, 0.999]]}, "F.hardtanh(a)"),
    "hardtanh_range": ({"a": A23}, "F.hardtanh(a, -0.5, 0.75)"),
    "round": ({"a": [[0.5, 1.5, 2.5, -0.5], [-1.5, 0.49, 2.51, -2.6]]}, "a.round() * a"),
    "round_decimals": ({"a": A23}, "a.round(decimals=1)"),
    "floor": ({"a": KINKED}, "a.floor() + a"),
    "floor_grid": ({"a": A23}, "lib.floor(a)"),
    "ceil": ({"a": A23}, "a.ceil()"),
    "ceil_function": ({"a": KINKED}, "lib.ceil(a) * a"),
    # contraction
    "einsum_matmul": ({"a": A23, "b": grid(3, 2, s=1.0)}, "lib.einsum('ij,jk->ik', a, b)"),
    "einsum_trace": ({"a": grid(3, 3)}, "lib.einsum('ii', a)"),
    "einsum_diagonal": ({"a": grid(3, 3)}, "lib.einsum('ii->i', a)"),
    "einsum_batch": ({"a": grid(2, 2, 3), "b": grid(2, 3, 2, s=1.0)},
                     "lib.einsum('bij,bjk->bik', a, b)"),
    "einsum_outer": ({"a": B3, "b": grid(2)}, "lib.einsum('i,j->ij', a, b)"),
    "einsum_implicit": ({"a": A23, "b": B23}, "lib.einsum('ij,ij', a, b)"),
    "einsum_list": ({"a": A23, "b": B3}, "lib.einsum('ij,j->i', [a, b])"),
    "einsum_ellipsis": ({"a": grid(2, 2, 3)}, "lib.einsum('...ij->...ji', a)"),
    "einsum_three": ({"a": grid(2), "b": A23, "c": B3}, "lib.einsum('i,ij,j->', a, b, c)"),
    "einsum_bad_shapes": ({"a": A23, "b": A23}, "lib.einsum('ij,jk->ik', a, b)"),
    "outer": ({"a": B3, "b": grid(2)}, "lib.outer(a, b)"),
    "outer_method": ({"a": grid(2), "b": B3}, "a.outer(b)"),
    "outer_2d": ({"a": A23, "b": B3}, "lib.outer(a, b)"),
    # padding
    "pad": ({"a": A23}, "F.pad(a, (1, 2))"),
    "pad_two_dims": ({"a": A23}, "F.pad(a, (1, 0, 0, 2), value=-1.5)"),
    "pad_negative": ({"a": grid(3, 4)}, "F.pad(a, (-1, 1, 0, -1))"),
    "pad_3d": ({"a": grid(1, 2, 3)}, "F.pad(a, [0, 1, 1, 1, 2, 0])"),
    "pad_odd": ({"a": A23}, "F.pad(a, (1, 2, 3))"),
    "pad_too_many": ({"a": B3}, "F.pad(a, (1, 1, 1, 1))"),
    # convolution
    "conv2d": ({"x": X4, "w": grid(3, 2, 3, 3, s=0.5), "b": grid(3, s=0.9)},
               "F.conv2d(x, w, b)"),
    "conv2d_stride_padding": ({"x": X4, "w": grid(2, 2, 2, 3, s=0.5)},
                              "F.conv2d(x, w, stride=2, padding=1)"),
    "conv2d_asymmetric": ({"x": X4, "w": grid(2, 2, 3, 2, s=0.5)},
                          "F.conv2d(x, w, stride=(2, 1), padding=(0, 1), dilation=(1, 2))"),
    "conv2d_dilation": ({"x": X4, "w": grid(1, 2, 2, 2, s=0.5)}, "F.conv2d(x, w, dilation=2)"),
    "conv2d_groups": ({"x": X4, "w": grid(4, 1, 3, 3, s=0.5), "b": grid(4, s=0.1)},
                      "F.conv2d(x, w, b, padding=1, groups=2)"),
    "conv2d_same": ({"x": X4, "w": grid(2, 2, 3, 3, s=0.5)}, "F.conv2d(x, w, padding='same')"),
    "conv2d_unbatched": ({"x": grid(2, 4, 4), "w": grid(1, 2, 2, 2, s=0.5)}, "F.conv2d(x, w)"),
    "conv2d_channels": ({"x": X4, "w": grid(2, 3, 2, 2, s=0.5)}, "F.conv2d(x, w)"),
    "conv2d_kernel_too_big": ({"x": grid(1, 1, 2, 2), "w": grid(1, 1, 3, 3, s=0.5)},
                              "F.conv2d(x, w)"),
    "conv2d_groups_divide": ({"x": X4, "w": grid(3, 1, 2, 2, s=0.5)}, "F.conv2d(x, w, groups=2)"),
    "conv1d": ({"x": X3, "w": grid(3, 2, 3, s=0.5), "b": grid(3, s=0.9)}, "F.conv1d(x, w, b)"),
    "conv1d_geometry": ({"x": X3, "w": grid(2, 1, 2, s=0.5)},
                        "F.conv1d(x, w, stride=2, padding=2, dilation=3, groups=2)"),
    "conv_transpose2d": ({"x": grid(1, 2, 3, 3, s=0.3), "w": grid(2, 3, 2, 2, s=0.5),
                          "b": grid(3, s=0.9)}, "F.conv_transpose2d(x, w, b)"),
    "conv_transpose2d_stride": ({"x": grid(1, 2, 3, 3, s=0.3), "w": grid(2, 1, 3, 3, s=0.5)},
                                "F.conv_transpose2d(x, w, stride=2, padding=1)"),
    "conv_transpose2d_output_padding": (
        {"x": grid(1, 2, 2, 3, s=0.3), "w": grid(2, 2, 2, 2, s=0.5)},
        "F.conv_transpose2d(x, w, stride=2, output_padding=1)"),
    "conv_transpose2d_groups_dilation": (
        {"x": grid(1, 2, 3, 3, s=0.3), "w": grid(2, 2, 2, 2, s=0.5)},
        "F.conv_transpose2d(x, w, groups=2, dilation=2)"),
    "conv_transpose2d_channels": ({"x": grid(1, 2, 3, 3, s=0.3), "w": grid(3, 1, 2, 2)},
                                  "F.conv_transpose2d(x, w)"),
    # pooling
    "max_pool2d": ({"x": POOL}, "F.max_pool2d(x, 2)"),
    "max_pool2d_stride_padding": ({"x": POOL}, "F.max_pool2d(x, 3, stride=1, padding=1)"),
    "max_pool2d_dilation": ({"x": POOL}, "F.max_pool2d(x, (2, 2), dilation=(1, 2))"),
    "max_pool2d_ceil": ({"x": POOL}, "F.max_pool2d(x, 2, ceil_mode=True)"),
    "max_pool2d_ties": ({"x": TIES}, "F.max_pool2d(x, 2, stride=1)"),
    "max_pool2d_indices": ({"x": POOL}, "F.max_pool2d(x, 2, return_indices=True)[1]"),
    "max_pool2d_padding_too_big": ({"x": POOL}, "F.max_pool2d(x, 2, padding=2)"),
    "max_pool2d_kernel_too_big": ({"x": grid(1, 1, 2, 2)}, "F.max_pool2d(x, 3)"),
    "avg_pool2d": ({"x": POOL}, "F.avg_pool2d(x, 2)"),
    "avg_pool2d_padding": ({"x": POOL}, "F.avg_pool2d(x, 3, stride=2, padding=1)"),
    "avg_pool2d_exclude_pad": ({"x": POOL},
                               "F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False)"),
    "avg_pool2d_ceil": ({"x": POOL}, "F.avg_pool2d(x, (2, 3), ceil_mode=True)"),
    "avg_pool2d_divisor": ({"x": POOL}, "F.avg_pool2d(x, 2, divisor_override=3)"),
    "avg_pool2d_padding_too_big": ({"x": POOL}, "F.avg_pool2d(x, 2, padding=2)"),
    # booleans
    "all": ({"a": KINKED}, "a.all()"),
    "all_dim": ({"a": KINKED}, "a.all(1)"),
    "all_keepdim": ({"a": KINKED}, "lib.all(a, dim=0, keepdim=True)"),
    "all_negative_dim": ({"a": A23}, "(a > -1).all(-1)"),
    "any": ({"a": KINKED}, "(a > 1).any()"),
    "any_dim": ({"a": KINKED}, "lib.any(a, 1, keepdim=True)"),
    "any_0d": ({"a": S0}, "a.any(0)"),
    "any_range": ({"a": KINKED}, "a.any(2)"),
    "isclose": ({"a": A23, "b": B23}, "lib.isclose(a, a + 1e-9)"),
    "isclose_tolerance": ({"a": A23, "b": B23}, "a.isclose(b, rtol=0.0, atol=1.5)"),
    "isclose_broadcast": ({"a": A23, "b": B3}, "lib.isclose(a, b, rtol=2.0)"),
    "isclose_nan": ({"a": A23}, "lib.isclose(a.log(), a.log(), equal_nan=True)"),
    "isclose_nan_unequal": ({"a": A23}, "lib.isclose(a.log(), a.log())"),
    # found by the differential test (tests/differential_library.py)
    "einsum_broadcast_ones": ({"a": grid(2, 1), "b": grid(1, 3, s=1.0)},
                              "lib.einsum('ij,ij->ij', a, b)"),
    "einsum_output_letter": ({"a": A23}, "lib.einsum('ij->ijk', a)"),
    "einsum_repeated_sizes": ({"a": A23}, "lib.einsum('ii->i', a)"),
    "conv_transpose2d_output_padding_dilation": (
        {"x": grid(1, 1, 2, 3, s=0.3), "w": grid(1, 2, 2, 2, s=0.5)},
        "F.conv_transpose2d(x, w, padding=1, output_padding=1, dilation=2)"),
    "conv_transpose2d_output_padding_past_stride": (
        {"x": grid(1, 1, 2, 3, s=0.3), "w": grid(1, 1, 2, 3, s=0.5)},
        "F.conv_transpose2d(x, w, stride=(2, 1), output_padding=(1, 2), dilation=3)"),
    "conv_transpose2d_too_small": ({"x": grid(1, 1, 1, 4), "w": grid(1, 1, 1, 1)},
                                   "F.conv_transpose2d(x, w, padding=1)"),
    "conv_transpose2d_groups_weight": ({"x": grid(1, 4, 2, 2), "w": grid(5, 2, 1, 1)},
                                       "F.conv_transpose2d(x, w, groups=2)"),
    "conv_transpose2d_bias_size": ({"x": grid(1, 2, 2, 2), "w": grid(2, 1, 2, 2),
                                    "b": grid(3)}, "F.conv_transpose2d(x, w, b)"),
    "conv2d_bias_size": ({"x": X4, "w": grid(2, 2, 2, 2), "b": grid(3)}, "F.conv2d(x, w, b)"),
    "conv2d_bias_before_size": ({"x": grid(1, 2, 1, 1), "w": grid(2, 2, 2, 2), "b": grid(3)},
                                "F.conv2d(x, w, b)"),
    "conv2d_negative_padding": ({"x": X4, "w": grid(3, 1, 2, 2)},
                                "F.conv2d(x, w, padding=-1, groups=2)"),
    "conv2d_same_strided_first": ({"x": X4, "w": grid(3, 1, 2, 2)},
                                  "F.conv2d(x, w, stride=2, padding='same', groups=2)"),
    "conv2d_padding_string": ({"x": X4, "w": grid(2, 2, 2, 2)}, "F.conv2d(x, w, padding='full')"),
    "conv2d_stride_zero": ({"x": X4, "w": grid(2, 2, 2, 2)}, "F.conv2d(x, w, stride=0)"),
    "pad_replicate_sizes": ({"a": grid(1, 1, 2, 2)}, "F.pad(a, (0, 1), mode='replicate')"),
    "pad_reflect_1d": ({"a": B3}, "F.pad(a, (1, 1), mode='reflect')"),
    "pad_crop_past_size": ({"a": grid(2, 2)}, "F.pad(a, (-2, -1))"),
    "pad_crop_to_nothing": ({"a": grid(2, 2)}, "F.pad(a, (-1, -1), value=2.0)"),
    "pad_crop_then_grow": ({"a": grid(2, 2)}, "F.pad(a, (-2, 1))"),
    "bce_shape": ({"a": grid(3, 2)}, "F.binary_cross_entropy(a.sigmoid(), lib.ones(2, 2) / 2)"),
    "bce_logits_shape": ({"a": grid(3, 2)},
                         "F.binary_cross_entropy_with_logits(a, lib.ones(2) / 2)"),
    "cross_entropy_probabilities_batch": ({"a": A23},
                                          "F.cross_entropy(a, lib.ones(3, 3) / 3)"),
    "cross_entropy_indices_batch": ({"a": A23}, "F.cross_entropy(a, lib.ones(3).long())"),
    "nll_out_of_range": ({"a": A23}, "F.nll_loss(a, lib.tensor([0, 3]).long())"),
    "cat_zero_dim_first": ({"a": A23, "b": grid(1, 2)}, "lib.cat([a, b, a.sum()])"),
    "pad_reflect_two_pairs": ({"a": grid(1, 1, 4)}, "F.pad(a, (0, 1, 2, 0), mode='reflect')"),
    "pad_reflect_three_pairs": ({"a": grid(1, 1, 1, 1, 2)},
                                "F.pad(a, (1, 1, 1, 1, 1, 1), mode='reflect')"),
    "cross_entropy_all_ignored": ({"a": grid(1, 3)},
                                  "F.cross_entropy(a, lib.tensor([0]).long(), ignore_index=0)"),
    "cross_entropy_all_ignored_smoothing": (
        {"a": grid(1, 3)},
        "F.cross_entropy(a, lib.tensor([0]).long(), ignore_index=0, label_smoothing=0.2)"),
    "nll_all_ignored_weight": ({"a": grid(2, 3)}, "F.nll_loss(a, lib.tensor([1, 1]).long(), "
                               "weight=lib.tensor([1.0, 2.0, 3.0]), ignore_index=1)"),
    "pad_reflect_nothing": ({"a": grid(2, 4, 2)}, "F.pad(a, (0, 0), mode='reflect')"),
    "cumprod_nan_before_zero": ({"a": [[0.0, -1.0, 0.5], [1.5, 2.0, 0.5]]},
                                "(lib.tensor([[0.0, 0.0, 1.5], [0.5, -0.5, -1.0]]) / a)"
                                ".cumprod(1)"),
    "cross_entropy_reduction_first": ({"a": grid(3, 4)}, "F.cross_entropy(a, lib.ones(4)"
                                      ".long(), reduction='average')"),
    "cumprod_two_zeros": ({"a": [[2.0, 0.5, 0.0, 3.0, 0.0, 2.0], [0.0, 3.0, 4.0, 1.0, 2.0, 0.5]]},
                          "a.cumprod(1)"),
    "cumprod_nan_first": ({"a": [math.nan, -0.0, 3.0, 0.0, 2.0]}, "a.cumprod(0)"),
    "stack_sizes": ({"a": B3}, "lib.stack([a.sum(), a])"),
    "argmax_dim": ({"a": KINKED}, "a.argmax(1)"),
    "compare_index": ({"a": A23, "b": B23}, "b[a > 0]"),
    "int_index": ({"a": A23}, "a[:, a.argmax(1)]"),
}


ERROR_KINDS = (IndexError, TypeError, NotImplementedError, RuntimeError, ValueError)


def kind(exc: Exception) -> str:
    """The built-in class an error is (torch's subclasses count as their base)."""
    return next((k.__name__ for k in ERROR_KINDS if isinstance(exc, k)), type(exc).__name__)


def message(exc: Exception) -> str:
    """An error's first line, with PyTorch's `torch.Size` spelled as gradcalc prints it."""
    return str(exc).strip().split("\n")[0].replace("torch.Size", "Size")


def bind(lib_name: str) -> tuple:
    """(lib, F) for torch in float64 or for gradcalc."""
    if lib_name == "torch":
        import torch

        torch.set_default_dtype(torch.float64)
        return torch, torch.nn.functional
    import gradcalc
    from gradcalc.nn import functional

    return gradcalc, functional


def _outputs(out: object) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def observe(lib_name: str, name: str) -> dict:
    """What case `name` gives: each output's shape, dtype, values (and printout when not
    float), each input's gradient for the fixed weights, or the error."""
    lib, functional = bind(lib_name)
    inputs, code = CASES[name]
    leaves = {k: lib.tensor(v, requires_grad=True) for k, v in inputs.items()}
    try:
        out = eval(code, {"lib": lib, "F": functional}, dict(leaves))  # noqa: S307 - the test's own code
    except Exception as exc:  # noqa: BLE001 - which error is what is pinned
        return {"error": (kind(exc), message(exc))}
    records, terms = [], []
    for o in _outputs(out):
        dtype = str(o.dtype).replace("torch.", "")
        record = {"shape": tuple(o.shape), "dtype": dtype,
                  "values": np.asarray(o.detach().numpy(), dtype=np.float64).tolist()}
        if dtype != "float64":
            record["print"] = repr(o)
        elif o.requires_grad:
            terms.append((o * lib.tensor(weights(tuple(o.shape)))).sum())
        records.append(record)
    grads = None
    if terms:
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        found = lib.autograd.grad(total, list(leaves.values()), allow_unused=True)
        grads = {k: None if g is None else np.asarray(g.numpy(), dtype=np.float64).tolist()
                 for k, g in zip(leaves, found, strict=True)}
    return {"out": records, "grads": grads}

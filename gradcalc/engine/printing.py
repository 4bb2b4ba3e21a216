"""Printing tensors as PyTorch does."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

# A port of PyTorch's tensor printing (torch/_tensor_str.py) with its default options, so a
# tensor prints as it does in the tutorials: `tensor([ 512.,  768., 1024.])`,
# `tensor(91.5000, grad_fn=<MeanBackward0>)`. gradcalc's dtype is float64 throughout, so
# it is never shown (as PyTorch omits the default dtype).

PRECISION, LINEWIDTH, THRESHOLD, EDGEITEMS = 4, 80, 1000, 3


class _Formatter:
    """Chooses one format for all elements: integers `4.`, fixed `1.5000`, or `1.0000e-05`;
    booleans `True`, and indices (argmax, max along a dim) `4`."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.width = True, False, 1
        flat = values.reshape(-1)
        if not self.floating:
            self.width = max((len(self._plain(v)) for v in flat), default=1)
            return
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        magnitudes = np.abs(finite)
        low, high = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        self.sci_mode = high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4
        if self.sci_mode:
            self.width = max(len(f"{v:.{PRECISION}e}") for v in finite)
        elif self.int_mode:
            self.width = max(len(f"{v:.0f}") + 1 for v in finite)
        else:
            self.width = max(len(f"{v:.{PRECISION}f}") for v in finite)

    @staticmethod
    def _plain(v: Any) -> str:
        return str(bool(v)) if isinstance(v, (bool, np.bool_)) else str(int(v))

    def format(self, v: Any) -> str:
        if not self.floating:
            text = self._plain(v)
        elif self.sci_mode:
            text = f"{v:{self.width}.{PRECISION}e}"
        elif self.int_mode:
            text = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            text = f"{v:.{PRECISION}f}"
        return text.rjust(self.width)


def _summarized(v: np.ndarray) -> np.ndarray:
    """The elements that a summarized print shows (the first and last EDGEITEMS per axis)."""
    if v.ndim == 0:
        return v
    if v.ndim == 1:
        return np.concatenate((v[:EDGEITEMS], v[-EDGEITEMS:])) if len(v) > 2 * EDGEITEMS else v
    rows = (list(range(EDGEITEMS)) + list(range(len(v) - EDGEITEMS, len(v)))
            if len(v) > 2 * EDGEITEMS else range(len(v)))
    return np.stack([_summarized(v[i]) for i in rows])


def _vector_str(v: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    per_line = max(1, math.floor((LINEWIDTH - indent) / (fmt.width + 2)))
    if summarize and len(v) > 2 * EDGEITEMS:
        data = ([fmt.format(x) for x in v[:EDGEITEMS].tolist()] + [" ..."]
                + [fmt.format(x) for x in v[-EDGEITEMS:].tolist()])
    else:
        data = [fmt.format(x) for x in v.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _array_str(v: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if v.ndim == 0:
        return fmt.format(v.item())
    if v.ndim == 1:
        return _vector_str(v, indent, summarize, fmt)
    if summarize and len(v) > 2 * EDGEITEMS:
        slices = ([_array_str(v[i], indent + 1, summarize, fmt) for i in range(EDGEITEMS)]
                  + ["..."]
                  + [_array_str(v[i], indent + 1, summarize, fmt)
                     for i in range(len(v) - EDGEITEMS, len(v))])
    else:
        slices = [_array_str(v[i], indent + 1, summarize, fmt) for i in range(len(v))]
    return "[" + ("," + "\n" * (v.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def format_array(value: Any, indent: int = len("tensor(")) -> str:
    """The body of a tensor's print, as PyTorch lays it out."""
    v = np.asarray(value)
    if v.size == 0:
        return "[]"
    summarize = v.size > THRESHOLD
    return _array_str(v, indent, summarize, _Formatter(_summarized(v) if summarize else v))


def tensor_repr(t: Any) -> str:
    prefix = "tensor("
    indent = len(prefix)
    body = format_array(t.value, indent)
    suffixes = []
    if t.numel() == 0 and t.ndim != 1:
        suffixes.append(f"size={tuple(t.shape)}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    text = prefix + body
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > LINEWIDTH:
            text += ",\n" + " " * indent + suffix
            last_line = indent + len(suffix)
        else:
            text += ", " + suffix
            last_line += len(suffix) + 2
    return text + ")"

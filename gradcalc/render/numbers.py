"""Numbers as text, in one place: float64 values that read back exactly, and nan and ±inf
as the words "nan", "inf" and "-inf" in every output (JSON, CSV, plain rows, tables)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def nonfinite(v: float) -> str:
    """The word for a value that is not a finite number: nan, inf or -inf."""
    return "nan" if math.isnan(v) else "inf" if v > 0 else "-inf"


def jsonable(x: Any) -> Any:
    """Nested lists of floats; nan and ±inf as the strings "nan", "inf", "-inf" (JSON has
    no numbers for them)."""
    if isinstance(x, (np.ndarray, np.generic)):
        return jsonable(np.asarray(x, dtype=np.float64).tolist())
    if isinstance(x, (list, tuple)):
        return [jsonable(i) for i in x]
    if isinstance(x, float) and not math.isfinite(x):
        return nonfinite(x)
    return x


def exact(v: float) -> str:
    """repr of a float64 (reads back as the same value), or its word when not finite."""
    return repr(v) if math.isfinite(v) else nonfinite(v)


def number(v: float) -> str:
    """Shortest text that reads back as the same float64 (whole numbers without ".0")."""
    v = float(v)
    if not math.isfinite(v):
        return nonfinite(v)
    if v == int(v) and abs(v) < 1e16:
        return str(int(v)) if v != 0 or math.copysign(1, v) > 0 else "-0"
    return repr(v)


def rows(array: np.ndarray) -> list[str]:
    """An array as lines of space-separated numbers: one line per row of its last axis."""
    a = np.asarray(array, dtype=np.float64)
    if a.ndim == 0:
        return [number(a)]
    flat = a.reshape(-1, a.shape[-1]) if a.size else a.reshape(0, 0)
    return [" ".join(number(v) for v in row) for row in flat]


def literal(array: np.ndarray) -> str:
    """An array as a nested list literal, the syntax --at accepts."""
    a = np.asarray(array, dtype=np.float64)
    if a.ndim == 0:
        return number(a)
    return "[" + ", ".join(literal(sub) for sub in a) + "]"

"""One check's inputs, shared by the symbolic and the finite-difference comparisons."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gradcalc.engine import ops
from gradcalc.language.program import Program
from gradcalc.limits import Limits


@dataclass
class TapeCheck:
    """What to check: the tape's derivative of `of` with respect to `wrt` at `inputs`,
    along the numeric run's recorded `path` (its decisions), whose output was `output`."""

    kind: str  # 'gradient' | 'vjp' | 'jacobian' | 'hessian'
    program: Program
    inputs: dict[str, np.ndarray]
    wrt: list[str]
    constants: dict[str, np.ndarray]
    of: str
    tape: dict[Any, np.ndarray]
    weights: np.ndarray | None
    limits: Limits
    path: Any = None
    output: Any = None
    fd_seconds: float = 1.0  # time left for finite differences


def as_float(v: Any) -> np.ndarray:
    """A tensor, array or number as a float64 array."""
    return np.asarray(ops.value(v), dtype=np.float64)

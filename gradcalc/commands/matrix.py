"""Derivatives with several inputs as one matrix: rows are output entries, columns inputs'.

JSON keeps one block per input (docs/scripting.md); the readable and plain views assemble the
blocks into the matrix a textbook writes: the Jacobian's row i is output entry i, its
columns are the inputs' entries in --wrt order (each input flattened row-major); the
Hessian's rows and columns are both the inputs' entries; a gradient is the one row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass
class Matrix:
    values: np.ndarray  # 2-D
    rows: list[str]  # a label per row
    columns: list[str]  # a label per column


def entry_labels(name: str, shape: tuple[int, ...]) -> list[str]:
    """`x` for a scalar, else `x[0]`, `x[1]`, … (`A[0,1]` for a matrix), row-major."""
    if shape == ():
        return [name]
    return [f"{name}[{','.join(str(i) for i in ix)}]" for ix in np.ndindex(*shape)]


def assemble(command: str, output_name: str, output_shape: tuple[int, ...],
             derivative: dict[str, np.ndarray], wrt: list[str],
             input_shapes: dict[str, tuple[int, ...]]) -> Matrix:
    """The blocks of `derivative` (keyed by input, or "a,b" for a Hessian) as one matrix."""
    columns = [label for n in wrt for label in entry_labels(n, input_shapes[n])]
    sizes = {n: math.prod(input_shapes[n]) for n in wrt}
    if command == "hessian":
        if len(wrt) == 1:
            blocks = [[derivative[wrt[0]]]]
        else:
            blocks = [[derivative[f"{a},{b}"] for b in wrt] for a in wrt]
        values = np.block([[np.reshape(blk, (sizes[a], sizes[b])) for b, blk in zip(wrt, row)]
                           for a, row in zip(wrt, blocks)])
        return Matrix(values, list(columns), columns)
    outputs = math.prod(output_shape) if command == "jacobian" else 1
    values = np.concatenate([np.reshape(derivative[n], (outputs, sizes[n])) for n in wrt],
                            axis=1)
    rows = entry_labels(output_name, output_shape) if command == "jacobian" else [output_name]
    return Matrix(values, rows, columns)

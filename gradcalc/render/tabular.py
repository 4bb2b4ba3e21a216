"""The fast extra's writers (pyarrow, imported only here): CSV rows formatted by Arrow's
C++ number formatting with the same text `render.numbers.number` gives (the shortest
that reads back to the same float64; whole numbers without ".0"; nan, inf, -inf), and a
chunk as an Arrow table for Parquet.

Arrow and Python agree on the shortest digits but not on when to use an exponent: Arrow
writes 1e-7 and 1e+10 where Python writes 1e-07 and 10000000000. Values outside
[1e-4, 1e10) in magnitude (and nan) are rare in practice; those cells are formatted by
`number` and put in place, so the text is the default writer's, byte for byte.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.commands.points import PointsResult
from gradcalc.render.numbers import number
from gradcalc.render.points import header


def matrix(result: PointsResult) -> np.ndarray:
    """Each row's numbers: the table's inputs, the output, then the derivatives."""
    n = result.count
    parts = [result.table.data, result.output.reshape(n, -1)]
    parts += [v.reshape(n, -1) for v in result.derivative.values()]
    return np.concatenate(parts, axis=1)


def column_text(values: np.ndarray) -> Any:
    """A column of float64 as Arrow strings, each `number(v)`."""
    import pyarrow as pa
    import pyarrow.compute as pc

    text = pc.cast(pa.array(values), pa.string())
    size = np.abs(values)
    odd = ~((size >= 1e-4) & (size < 1e10)) & (values != 0)  # nan and inf included
    if odd.any():
        fixed = pa.array([number(v) for v in values[odd]], type=pa.string())
        text = pc.replace_with_mask(text, pa.array(odd), fixed)
    return text


def csv_text(result: PointsResult, sep: str = ",") -> str:
    """The chunk's CSV rows (no header row) as the default writer writes them."""
    import io

    import pyarrow as pa
    import pyarrow.csv as pcsv

    m = matrix(result)
    table = pa.table([column_text(np.ascontiguousarray(m[:, j])) for j in range(m.shape[1])],
                     names=[f"c{j}" for j in range(m.shape[1])])
    buffer = io.BytesIO()
    pcsv.write_csv(table, buffer, pcsv.WriteOptions(include_header=False, delimiter=sep,
                                                    quoting_style="none"))
    return buffer.getvalue().decode("ascii")


def arrow_table(result: PointsResult) -> Any:
    """The chunk as an Arrow table: the table's columns (inputs as float64, others as
    text), the output's and derivatives' columns as float64, and the error of a bad row."""
    import pyarrow as pa

    names = header(result)
    table, rows = result.table, result.table.rows
    width = len(table.columns)
    columns: list[Any] = [None] * width
    for j, k in enumerate(table.inputs):
        columns[k] = pa.array(table.data[:, j])
    others = [k for k in range(width) if k not in set(table.inputs)]
    for j, k in enumerate(others):
        columns[k] = pa.array([r[j] for r in rows.extra] if rows is not None else [],
                              type=pa.string())
    n = result.count
    results = np.concatenate([result.output.reshape(n, -1)]
                             + [v.reshape(n, -1) for v in result.derivative.values()], axis=1)
    columns += [pa.array(results[:, j]) for j in range(results.shape[1])]
    if result.has_errors:
        bad = table.bad
        columns.append(pa.array([rows.reason(k) if rows is not None and k in bad else None
                                 for k in range(n)], type=pa.string()))
    return pa.table(columns, names=names)

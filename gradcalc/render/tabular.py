"""The fast extra's writers (imported only here): CSV rows formatted by polars (Rust,
every core) with the same text `render.numbers.number` gives (the shortest that reads
back to the same float64; whole numbers without ".0"; nan, inf, -inf), and a chunk as an
Arrow table for Parquet (pyarrow).

polars and Python agree on the shortest digits but not on when to use an exponent:
polars writes 1e-7 and 1e10 where Python writes 1e-07 and 10000000000. Values outside
[1e-4, 1e10) in magnitude (and nan, inf) are rare in practice; those cells are written
empty by polars and filled by `number`, so the text is the default writer's, byte for
byte.
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


def _odd(values: np.ndarray) -> np.ndarray:
    """Where Arrow's text differs from `number`'s: magnitudes outside [1e-4, 1e10), nan."""
    size = np.abs(values)
    return ~((size >= 1e-4) & (size < 1e10)) & (values != 0)


def csv_text(result: PointsResult, sep: str = ",") -> bytes:
    """The chunk's CSV rows (no header row), byte for byte as the default writer writes
    them: polars formats every cell but the odd ones, left empty, which `number` fills;
    a whole number loses polars' ".0"."""
    import io

    import polars as pl

    m = matrix(result)
    odd = _odd(m)
    frame = pl.from_numpy(np.where(odd, np.nan, m) if odd.any() else m)
    if odd.any():
        frame = frame.fill_nan(None)
    buffer = io.BytesIO()
    frame.write_csv(buffer, include_header=False, separator=sep, null_value="")
    text = buffer.getvalue()
    if ((m == np.trunc(m)) & ~odd).any():  # 2.0 -> 2, as `number` writes it
        text = text.replace(b".0" + sep.encode(), sep.encode()).replace(b".0\n", b"\n")
    rows = np.flatnonzero(odd.any(axis=1))
    if not rows.size:
        return text
    starts = np.concatenate(([0], np.flatnonzero(np.frombuffer(text, np.uint8) == 10) + 1))
    parts, at, comma = [], 0, sep.encode()
    for r in rows.tolist():
        begin, end = int(starts[r]), int(starts[r + 1]) - 1
        cells = text[begin:end].split(comma)
        for j in np.flatnonzero(odd[r]).tolist():
            cells[j] = number(m[r, j]).encode()
        parts += [text[at:begin], comma.join(cells)]
        at = end
    parts.append(text[at:])
    return b"".join(parts)


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

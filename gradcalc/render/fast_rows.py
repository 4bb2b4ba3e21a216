"""The fast extra's writers (imported only here): CSV rows formatted by polars (Rust,
every core) with the same text `render.numbers.number` gives (the shortest that reads
back to the same float64; whole numbers without ".0"; nan, inf, -inf), and a chunk as an
Arrow table for Parquet (pyarrow).

polars and Python agree on the shortest digits but not on when to use an exponent:
polars writes 1e-7 and 0.00001 where Python writes 1e-07 and 1e-05. Values outside
[1e-4, 1e10) in magnitude (and nan, inf) are rare in practice; those cells are written
by polars as NaN (the only text of its with an "N") and filled by `number`, so the text
is the default writer's, byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.commands.points import PointsResult
from gradcalc.render.numbers import number
from gradcalc.render.point_rows import header

#: what polars writes for an odd cell (set to nan), replaced by `number`'s text
_MARK = b"NaN"


def matrix(result: PointsResult) -> np.ndarray:
    """Each row's numbers: the table's inputs, the output, then the derivatives; in
    column-major order, so polars takes its columns without a copy."""
    n = result.count
    parts = [result.table.data, result.output.reshape(n, -1)]
    parts += [v.reshape(n, -1) for v in result.derivative.values()]
    out = np.empty((n, sum(p.shape[1] for p in parts)), order="F")
    at = 0
    for p in parts:
        out[:, at:at + p.shape[1]] = p
        at += p.shape[1]
    return out


def _odd(values: np.ndarray) -> np.ndarray:
    """Where Arrow's text differs from `number`'s: magnitudes outside [1e-4, 1e10), nan."""
    size = np.abs(values)
    return ~((size >= 1e-4) & (size < 1e10)) & (values != 0)


@dataclass
class Patched:
    """CSV text with a few cells to fill in: the marks (NaN) at `at` are `subs`. Written
    in pieces (views of the text), so the chunk's text is never copied to be patched;
    it pickles (a --jobs worker's answer) as bytes and lists."""

    text: bytes
    at: list[int] = field(default_factory=list)
    subs: list[bytes] = field(default_factory=list)
    head: bytes = b""  # the header row, before the first chunk's rows

    def pieces(self) -> Iterator[bytes | memoryview]:
        if self.head:
            yield self.head
        view, start = memoryview(self.text), 0
        for at, sub in zip(self.at, self.subs, strict=True):
            yield view[start:at]
            yield sub
            start = at + len(_MARK)
        yield view[start:]

    def __bytes__(self) -> bytes:
        return b"".join(self.pieces())


def csv_text(result: PointsResult, sep: str = ",") -> Patched:
    """The chunk's CSV rows (no header row), byte for byte as the default writer writes
    them: polars formats every cell, the odd ones set to nan first (in the chunk's own
    matrix: no copy), whose NaN marks are found (one byte search each) and filled by
    `number` in row order; a whole number loses polars' ".0"."""
    import io

    import polars as pl

    m = matrix(result)
    odd = _odd(m)
    subs = [number(v).encode() for v in m[odd].tolist()] if odd.any() else []  # row order
    if subs:
        m[odd] = np.nan
    buffer = io.BytesIO()
    pl.from_numpy(m).write_csv(buffer, include_header=False, separator=sep)
    text = buffer.getvalue()
    del buffer
    if (m == np.trunc(m)).any():  # 2.0 -> 2, as `number` writes it (nan is never whole)
        text = text.replace(b".0" + sep.encode(), sep.encode()).replace(b".0\n", b"\n")
    return Patched(text, _marks(text, len(subs)), subs)


def _marks(text: bytes, count: int) -> list[int]:
    """Where the first `count` marks are in `text`: a search for its first byte each
    (memchr), never a pass of its own over the text."""
    at, found = [], -len(_MARK)
    for _ in range(count):
        found = text.index(_MARK[:1], found + len(_MARK))
        at.append(found)
    return at


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

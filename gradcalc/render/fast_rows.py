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


def columns(result: PointsResult) -> list[np.ndarray]:
    """Each row's numbers by column: the table's inputs, the output, then the derivatives;
    views of the chunk's arrays (polars takes a contiguous one without a copy)."""
    n = result.count
    parts = [result.table.data, result.output.reshape(n, -1)]
    parts += [v.reshape(n, -1) for v in result.derivative.values()]
    return [p[:, k] for p in parts for k in range(p.shape[1])]


@dataclass
class Column:
    """A column as polars is to format it: its odd cells (`odd`, rows) set to nan in a
    copy, the column itself where it has none; and whether it holds a whole number."""

    values: np.ndarray
    odd: np.ndarray  # the odd cells' rows
    numbers: np.ndarray  # their numbers
    whole: bool


def column_of(values: np.ndarray, wholes: bool = True) -> Column:
    """Where Arrow's text differs from `number`'s (magnitudes outside [1e-4, 1e10), nan)
    and (`wholes`: if not yet known) whether a whole number, written "2.0" by polars, is
    there. |v|, its least and its greatest say which bounds some cell passes (nan makes
    both nan, which no bound passes); only those bounds are looked for, cell by cell, and
    the whole numbers last, in |v|'s array."""
    if not values.size:
        return Column(values, _NONE, _NONE_NUMBERS, False)
    size = np.abs(values)
    least, most = size.min(), size.max()
    odd = _NONE
    if not least >= 1e-4:  # nan: every bound is looked for
        odd = np.flatnonzero(size < 1e-4)
        odd = odd[values[odd] != 0]
    if not most < 1e10:
        odd = np.union1d(odd, np.flatnonzero(~(size < 1e10)))
    whole = wholes and (bool(least == 0) or (
        not most < 1 and bool((values == np.trunc(values, out=size)).any())))
    if not odd.size:
        return Column(values, _NONE, _NONE_NUMBERS, whole)
    numbers = values[odd]
    values = values.copy()
    values[odd] = np.nan
    return Column(values, odd, numbers, whole)


#: no odd cells
_NONE, _NONE_NUMBERS = np.empty(0, dtype=np.intp), np.empty(0)


class Lines:
    """What polars writes, kept as the pieces it writes (never copied into one buffer),
    each of whole lines: a piece's unfinished last line waits for the next."""

    def __init__(self) -> None:
        self.texts: list[bytes] = []
        self.tail = b""

    def write(self, data: bytes) -> int:
        size = len(data)
        if self.tail:
            data, self.tail = self.tail + data, b""
        cut = data.rfind(b"\n") + 1
        if cut < len(data):
            data, self.tail = data[:cut], data[cut:]
        if data:
            self.texts.append(data)
        return size

    def flush(self) -> None:
        """Nothing to flush: the pieces are kept."""

    def close(self) -> list[bytes]:
        """The pieces, the last line's (if it was not finished) last."""
        if self.tail:
            self.texts.append(self.tail)
        return self.texts


@dataclass
class Patched:
    """CSV text with a few cells to fill in: the marks (NaN) at `at` (piece, byte) are
    `subs`. Written in pieces (views of polars' pieces of text), so the chunk's text is
    never copied to be patched; it pickles (a --jobs worker's answer) as bytes and lists."""

    texts: list[bytes]
    at: list[tuple[int, int]] = field(default_factory=list)
    subs: list[bytes] = field(default_factory=list)
    head: bytes = b""  # the header row, before the first chunk's rows

    def pieces(self) -> Iterator[bytes | memoryview]:
        if self.head:
            yield self.head
        marks = iter(zip(self.at, self.subs, strict=True))
        mark = next(marks, None)
        for k, text in enumerate(self.texts):
            view, start = memoryview(text), 0
            while mark is not None and mark[0][0] == k:
                (_, at), sub = mark
                yield view[start:at]
                yield sub
                start = at + len(_MARK)
                mark = next(marks, None)
            yield view[start:]

    def __bytes__(self) -> bytes:
        return b"".join(self.pieces())


def csv_text(result: PointsResult, sep: str = ",") -> Patched:
    """The chunk's CSV rows (no header row), byte for byte as the default writer writes
    them: polars formats every cell of the chunk's columns (views where they have no odd
    cell), the odd ones set to nan first, whose NaN marks are found (one byte search each)
    and filled by `number` in row order; a whole number loses polars' ".0"."""
    import polars as pl

    found: list[Column] = []
    whole = False
    for values in columns(result):
        found.append(column_of(values, wholes=not whole))
        whole = whole or found[-1].whole
    subs = [number(v).encode() for v in _odd_values(found)]  # in row order
    lines = Lines()
    pl.DataFrame({f"c{k}": c.values for k, c in enumerate(found)}).write_csv(
        lines, include_header=False, separator=sep)
    texts = lines.close()
    if whole:  # 2.0 -> 2, as `number` writes it (nan is never whole)
        cut, end = b".0" + sep.encode(), b".0\n"
        texts = [t.replace(cut, sep.encode()).replace(end, b"\n") for t in texts]
    return Patched(texts, _marks(texts, len(subs)), subs)


def _odd_values(found: list[Column]) -> list[float]:
    """The odd cells' numbers, in the order their rows are written (row, then column)."""
    if not any(c.odd.size for c in found):
        return []
    rows = np.concatenate([c.odd for c in found])
    where = np.concatenate([np.full(c.odd.size, k) for k, c in enumerate(found)])
    return np.concatenate([c.numbers for c in found])[np.lexsort((where, rows))].tolist()


def _marks(texts: list[bytes], count: int) -> list[tuple[int, int]]:
    """Where the first `count` marks are in the pieces `texts` (piece, byte): a search for
    the mark's first byte each (memchr), never a pass of its own over the text."""
    at: list[tuple[int, int]] = []
    for k, text in enumerate(texts):
        found = text.find(_MARK[:1]) if len(at) < count else -1
        while found >= 0:
            at.append((k, found))
            found = text.find(_MARK[:1], found + len(_MARK)) if len(at) < count else -1
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

"""The --points table: a CSV file of points, read into one array per input name.

The header row names the inputs (`x`, or `x[0]`, `x[1]` for a vector's elements, `A[0][1]`
or a quoted "A[0,1]" for a matrix's), then one point per row of numbers (quoted or not).
Columns the program does not read (an id, a label) are carried through as text; a row that
cannot be read is kept, with its reason, in its place (tables/cells.py).
"""

from __future__ import annotations

import csv
import re
import sys
from dataclasses import dataclass, field
from typing import TextIO

import numpy as np

from gradcalc.errors import GradcalcError
from gradcalc.ingest.cells import Rows, read_rows

#: a header cell: a name, then optionally indices as [i], [i,j] (quoted in CSV) or [i][j]
_COLUMN = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*((?:\[[\d\s,]*\])*)\s*$")
_INDEX = re.compile(r"^\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]$")


@dataclass
class PointTable:
    """The points: CSV columns as given, and each input name's values, shaped (P,) + shape."""

    columns: list[str]
    data: np.ndarray  # (P, number of input columns); nan in a bad row
    values: dict[str, np.ndarray]
    inputs: list[int] = field(default_factory=list)  # positions of data's columns
    rows: Rows | None = None  # the other columns' text and the bad rows, when there are any

    @property
    def count(self) -> int:
        return self.data.shape[0]

    @property
    def plain(self) -> bool:
        """Every column an input and every row read: the fast paths apply."""
        return self.rows is None or (not self.rows.bad and len(self.inputs) == len(self.columns))

    @property
    def bad(self) -> dict[int, str]:
        return {} if self.rows is None else self.rows.bad


def read_table(source: TextIO, where: str = "--points",
               reads: set[str] | None = None) -> PointTable:
    """A CSV table: a header row of input names (`x`, or `x[0]`, `x[1]` for a vector's
    elements), then one point per row. Blank lines are skipped. `reads`: the names the
    program reads (other columns are carried through as text); None: every column."""
    head = read_header(source, where, reads)
    text = source.read()
    if not text.strip():
        raise GradcalcError(f"{where}: no points: the table has a header row but no rows",
                            kind="value")
    return head.table(read_rows(text, head.columns, head.inputs, head.lines + 1))


@dataclass(frozen=True)
class Header:
    """A table's header row read once: its columns, which are inputs, and each input
    name's columns and per-point shape; every chunk of the table is read against it."""

    columns: list[str]
    inputs: list[int]
    layout: dict[str, tuple[list[int], tuple[int, ...]]]
    lines: int  # lines of the file up to the header row (blank lines before it included)

    def table(self, rows: Rows) -> PointTable:
        """The rows read against this header, as a PointTable."""
        data = rows.data
        values = {name: _gather(data, cols, shape) for name, (cols, shape) in self.layout.items()}
        return PointTable(self.columns, data, values, self.inputs, rows)


def _gather(data: np.ndarray, cols: list[int], shape: tuple[int, ...]) -> np.ndarray:
    """An input's columns of `data`, shaped (points,) + shape and C-contiguous: a view where
    they are already (one column of column-major data), else a copy."""
    first = cols[0]
    if cols == list(range(first, first + len(cols))):
        view = data[:, first:first + len(cols)].reshape((data.shape[0],) + shape)
        if view.flags.c_contiguous:
            return view
    gathered = np.empty((data.shape[0], len(cols)), dtype=data.dtype)  # row-major
    return np.take(data, cols, axis=1, out=gathered).reshape((data.shape[0],) + shape)


def read_header(source: TextIO, where: str = "--points",
                reads: set[str] | None = None) -> Header:
    """The header row of a CSV table (after any blank lines), checked: see `read_table`."""
    header_line, skipped = source.readline(), 1
    while header_line and not header_line.strip():
        header_line, skipped = source.readline(), skipped + 1
    if not header_line:
        raise GradcalcError(f"{where}: the table is empty; the first row names the inputs, "
                            "e.g. 'x,y'", kind="usage")
    return header_of([c.strip() for c in next(csv.reader([header_line.lstrip("\ufeff")]))],
                     where, reads, skipped)


def header_of(columns: list[str], where: str = "--points", reads: set[str] | None = None,
              lines: int = 1) -> Header:
    """A Header from the column names (of a CSV header row or a Parquet schema)."""
    for column in columns:
        if not column.isprintable():  # it would be written back: never a terminal sequence
            raise GradcalcError(f"{where}: header column {column!r} is not an input name "
                                "(it holds control characters)", kind="usage")
    inputs = [k for k, c in enumerate(columns) if reads is None or _name(c) in reads]
    if not inputs:
        raise GradcalcError(f"{where}: no column names an input the program reads "
                            f"({', '.join(sorted(reads or ())) or 'none'})", kind="usage")
    return Header(columns, inputs, _layout([columns[k] for k in inputs], where), lines)


def _name(column: str) -> str | None:
    m = _COLUMN.match(column)
    return m.group(1) if m else None


def plural(n: int, noun: str) -> str:
    """"1 point", "2 points": a count and its noun."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _layout(columns: list[str], where: str) -> dict[str, tuple[list[int], tuple[int, ...]]]:
    """name -> (column numbers in C order, per-point shape)."""
    found: dict[str, dict[tuple[int, ...], int]] = {}
    for k, column in enumerate(columns):
        m = _COLUMN.match(column)
        if not m:
            hint = (" (a header cell with a comma, such as A[0,1], is quoted in CSV: "
                    "\"A[0,1]\"; or write A[0][1])") if column.count("[") > column.count("]") \
                else ""
            raise GradcalcError(
                f"{where}: header column {column!r} is not an input name; use names such as "
                f"x or x[0], x[1] for the elements of a vector x{hint}", kind="usage")
        name, brackets = m.group(1), m.group(2).replace(" ", "")
        parts = brackets.replace("][", "],[").split("],[") if brackets else []
        if brackets and (brackets.count("[") > 1 and "," in brackets
                         or not all(_INDEX.match("[" + p.strip("[]") + "]") for p in parts)):
            raise GradcalcError(
                f"{where}: header column {column!r} is not an input name; use names such as "
                "x or x[0], x[1] for the elements of a vector x", kind="usage")
        index = tuple(int(i) for p in parts for i in p.strip("[]").split(","))
        cells = found.setdefault(name, {})
        if cells and len(next(iter(cells))) != len(index):
            raise GradcalcError(f"{where}: column {column!r} mixes {name} with {name}[...] "
                                "columns of another number of indices", kind="usage")
        if index in cells:
            raise GradcalcError(f"{where}: column {column!r} appears twice", kind="usage")
        cells[index] = k
    layout = {}
    for name, cells in found.items():
        rank = len(next(iter(cells)))
        shape = tuple(max(ix[d] for ix in cells) + 1 for d in range(rank))
        missing = [ix for ix in np.ndindex(*shape) if ix not in cells]
        if missing:
            first = ",".join(str(i) for i in missing[0])
            raise GradcalcError(f"{where}: column {name}[{first}] is missing (the columns "
                                f"of {name} must cover every index up to the largest)",
                                kind="usage")
        layout[name] = ([cells[ix] for ix in np.ndindex(*shape)], shape)
    return layout


def open_source(path: str) -> TextIO:
    """The CSV table from a file, or standard input for '-'."""
    if path == "-":
        return sys.stdin
    try:
        return open(path, encoding="utf-8", newline="")  # noqa: SIM115 - the caller closes
    except OSError as exc:
        raise GradcalcError(f"cannot read --points file {path!r}: {exc.strerror}",
                            kind="usage") from None

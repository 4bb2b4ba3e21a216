"""The rows of a --points table: numbers for the input columns, text for the others, and
a reason for every row that cannot be read, so one bad row does not stop the rest.

Cells may be quoted ("1.5"); columns the program does not read (an id, a label) are
carried through as text. A table of plain numbers is read by NumPy in one call; anything
else (quotes around text, extra columns, a bad row) row by row with the csv module.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

import numpy as np

#: most bad rows described one by one in a message (the rest are counted)
SHOW_BAD_ROWS = 10


@dataclass
class Rows:
    """The table's body: one row per point, blank lines skipped."""

    data: np.ndarray  # (P, number of input columns); a bad row holds nan
    extra: list[list[str]]  # per row, the text of the other columns (empty lists if none)
    bad: dict[int, str] = field(default_factory=dict)  # row index -> what is wrong
    lines: dict[int, int] = field(default_factory=dict)  # bad row index -> its file line
    raw: dict[int, list[str]] = field(default_factory=dict)  # bad row index -> its cells
    offset: int = 0  # rows of the table before these (a chunk of a larger table)
    source: str = ""  # the file, named when a table is read from several

    def reason(self, k: int) -> str:
        """Where bad row `k` is and what is wrong with it."""
        where = f"{self.source}, line" if self.source else "line"
        return f"row {k + self.offset + 1} ({where} {self.lines[k]}): {self.bad[k]}"

    @property
    def count(self) -> int:
        return self.data.shape[0]

    def summary(self, where: str = "--points") -> str:
        """One message for the bad rows: how many, and the first few reasons."""
        shown = [self.reason(k) for k in list(self.bad)[:SHOW_BAD_ROWS]]
        more = len(self.bad) - len(shown)
        tail = f"; and {more:,} more" if more > 0 else ""
        return (f"{where}: {len(self.bad):,} of {self.count:,} rows could not be read, "
                f"the others were computed: " + "; ".join(shown) + tail)


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def read_rows(text: str, columns: list[str], inputs: list[int], first_line: int) -> Rows:
    """The rows of `text` (the table after its header, whose first line is `first_line` of
    the file): numbers of the `inputs` columns, text of the others."""
    if len(inputs) == len(columns):
        try:
            data = np.loadtxt(io.StringIO(text), delimiter=",", quotechar='"',
                              dtype=np.float64, ndmin=2, comments=None)
        except ValueError:
            pass
        else:
            if data.shape[1] == len(columns):
                return Rows(data, [[]] * data.shape[0])  # no text columns: one shared []
    return _slow(text, columns, inputs, first_line)


def _slow(text: str, columns: list[str], inputs: list[int], first_line: int) -> Rows:
    others = [k for k in range(len(columns)) if k not in set(inputs)]
    numbers: list[list[float]] = []
    extra: list[list[str]] = []
    bad: dict[int, str] = {}
    lines: dict[int, int] = {}
    raw: dict[int, list[str]] = {}
    nan_row = [float("nan")] * len(inputs)
    reader = csv.reader(io.StringIO(text))
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:  # e.g. a quote never closed: the rest is one cell
            bad[len(numbers)] = f"unreadable CSV: {exc}"
            lines[len(numbers)] = first_line + reader.line_num - 1
            numbers.append(nan_row)
            extra.append([""] * len(others))
            break
        if not any(cell.strip() for cell in row):
            continue
        k = len(numbers)
        line = first_line + reader.line_num - 1
        extra.append([row[j] if j < len(row) else "" for j in others])
        if len(row) != len(columns):
            bad[k] = (f"{_plural(len(row), 'value')}, but the header names "
                      f"{_plural(len(columns), 'column')}")
            lines[k], raw[k] = line, row
            numbers.append(nan_row)
            continue
        values, reason = _numbers(row, columns, inputs)
        if reason:
            bad[k], lines[k], raw[k] = reason, line, row
        numbers.append(values)
    data = np.array(numbers, dtype=np.float64).reshape(len(numbers), len(inputs))
    return Rows(data, extra, bad, lines, raw)


def _numbers(row: list[str], columns: list[str], inputs: list[int]
             ) -> tuple[list[float], str | None]:
    values = []
    for j in inputs:
        cell = row[j].strip()
        try:
            if "_" in cell:
                raise ValueError(cell)
            values.append(float(cell))
        except ValueError:
            shown = cell[:40] if cell else ""
            what = f"{shown!r} is not a number" if cell else "the cell is empty"
            return [float("nan")] * len(inputs), f"{what} (column {columns[j]})"
    return values, None

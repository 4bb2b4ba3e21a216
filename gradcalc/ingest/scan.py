"""A --points table's files, before any row is answered: which files make the table (a
glob, a directory of partitions), their header, a scan of their bytes (how many rows, and
whether every row is plain numbers), and their rows cut into pieces of text, so a table
of any length is read a chunk at a time.

A table that is not plain numbers (text columns, quotes, nan, a bad row) is read once
more, row by row, to learn whether some row cannot be read, since that decides the
output's `error` column (`count_bad`).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

import numpy as np

from gradcalc.errors import GradcalcError
from gradcalc.ingest.cells import read_rows
from gradcalc.ingest.point_table import Header, read_header

#: the bytes of a plain-number table (with ',' between cells and a line break after rows)
_NUMERIC = b"0123456789.eE+-,\r\n"
#: bytes of a file scanned at a time: a block and its masks stay in the core's cache (at
#: 4 MiB, counting a 10^6-row table's lines took half as long again, its scan 1.7 times)
SCAN_BYTES = 1 << 18
#: the kind of error a columnar reader raises for a cell that passed the byte scan but
#: is not a number (such as 1e): the table is then read again as text
NOT_PLAIN = "not-plain"
#: file name endings read as Parquet
PARQUET = (".parquet", ".pq")


@dataclass
class Piece:
    """A chunk of the table: its rows as CSV text (or, from a columnar reader, as numbers),
    where they start in the whole table, and where in which file."""

    offset: int  # rows of the table before this chunk
    rows: int
    text: str | None = None
    line: int = 0  # the file line of the text's first line
    data: np.ndarray | None = None  # (rows, input columns)
    source: str = ""  # the file, when the table has several


def sources(path: str, where: str = "--points") -> list[str]:
    """The files of a table: one file, '-', every file of a directory (recursively, by
    name), or the files a glob matches (sorted): one table, read in that order."""
    if path == "-" or os.path.isfile(path):
        return [path]
    if os.path.isdir(path):
        found = sorted(os.path.join(d, f) for d, _, files in os.walk(path) for f in files
                       if f.lower().endswith((".csv", *PARQUET)) and not f.startswith((".", "_")))
        what = f"the directory {path!r} has no .csv or .parquet files"
    elif any(c in path for c in "*?["):
        found = sorted(f for f in glob.glob(path, recursive=True) if os.path.isfile(f))
        what = f"no file matches {path!r}"
    else:
        raise GradcalcError(f"cannot read {where} file {path!r}: No such file or directory",
                            kind="usage")
    if not found:
        raise GradcalcError(f"{where}: {what}", kind="usage")
    kinds = {f.lower().endswith(PARQUET) for f in found}
    if len(kinds) > 1:
        raise GradcalcError(f"{where}: {path!r} mixes CSV and Parquet files", kind="usage")
    return found


def not_plain() -> GradcalcError:
    """The error a columnar reader raises for a cell that only looks like a number."""
    return GradcalcError("a cell of the table looks like a number but is not one",
                         kind=NOT_PLAIN)


def is_parquet(files: list[str]) -> bool:
    return files[0].lower().endswith(PARQUET)


def csv_header(files: list[str], reads: set[str], where: str = "--points") -> Header:
    """The header of the table's first file; every other file must have the same."""
    header = None
    for path in files:
        with _open(path, where) as fh:
            head = read_header(fh, f"{where} {path}" if len(files) > 1 else where, reads)
        if header is not None and head.columns != header.columns:
            raise GradcalcError(f"{where}: {path} has the columns {','.join(head.columns)}, "
                                f"but {files[0]} has {','.join(header.columns)}",
                                kind="usage")
        header = header or head
    assert header is not None
    return header


def _open(path: str, where: str):  # noqa: ANN202 - a text file
    try:
        return open(path, encoding="utf-8", newline="")
    except OSError as exc:
        raise GradcalcError(f"cannot read {where} file {path!r}: {exc.strerror}",
                            kind="usage") from None


def scan(files: list[str], header: Header) -> tuple[int, bool]:
    """(rows, plain): the table's rows, counted as bytes, and whether every row is plain
    numbers, one per input column (then no row can be unreadable for want of a number)."""
    plain = len(header.inputs) == len(header.columns)
    rows = 0
    for path in files:
        with open(path, "rb") as fh:
            for _ in range(header.lines):
                fh.readline()
            lines = commas = 0
            last = 10  # the byte before the block: a line break
            while block := fh.read(SCAN_BYTES):
                b = np.frombuffer(block, np.uint8)
                comma, newline = b == 44, b == 10
                lines += int(np.count_nonzero(newline))
                if plain:  # past the first odd byte only the line breaks are counted
                    commas += int(np.count_nonzero(comma))
                    plain = not block.translate(None, _NUMERIC) and not _gaps(
                        block, b, comma | newline, last)
                last = int(b[-1])
            if last != 10:
                lines += 1  # a last row without a line break
            rows += lines
            plain = plain and commas == lines * (len(header.columns) - 1)
    return rows, plain


def count_lines(files: list[str], header: Header) -> int:
    """The table's rows if it is plain numbers (its lines after the header), counted
    without looking at them otherwise: for a table whose plainness its reader checks as
    it reads (`plain_block`), where a table that is not can still be read again."""
    rows = 0
    for path in files:
        with open(path, "rb") as fh:
            for _ in range(header.lines):
                fh.readline()
            last = 10
            while block := fh.read(SCAN_BYTES):
                rows += int(np.count_nonzero(np.frombuffer(block, np.uint8) == 10))
                last = block[-1]
            rows += last != 10
    return rows


def plain_block(block: bytes, width: int, last: int = 10) -> bool:
    """Whether whole lines of a table (a block of them, after a byte `last`) are plain
    numbers, `width` to a line, as the scan tells a whole table."""
    if not block:
        return True
    if not numeric_bytes(block):
        return False
    b = np.frombuffer(block, np.uint8)
    comma, newline = b == 44, b == 10
    lines = int(np.count_nonzero(newline)) + (block[-1] != 10)
    return int(np.count_nonzero(comma)) == lines * (width - 1) and \
        not _gaps(block, b, comma | newline, last)


def numeric_bytes(block: bytes) -> bool:
    """Whether the bytes are only those of plain numbers, separators and line breaks."""
    return not block.translate(None, _NUMERIC)


def odd_bytes(block: bytes) -> bytes:
    """The bytes of the block that are not those of plain numbers, separators or line
    feeds, in order: carriage returns among them, so one pass tells both."""
    return block.translate(None, _NUMERIC.replace(b"\r", b""))


def _gaps(block: bytes, b: np.ndarray, sep: np.ndarray, last: int) -> bool:
    """Whether the block has an empty cell or a blank line: two separators (',' or a line
    break) in a row; a carriage return is allowed only before a line break."""
    if b"\r" in block:  # rare: read \r\n as \n (one more pass over the block)
        cr = b == 13
        if not (b[1:][cr[:-1]] == 10).all() or cr[-1]:
            return True
        keep = ~cr
        b, sep = b[keep], sep[keep]
    return bool((sep[:-1] & sep[1:]).any() or (last in (10, 44) and sep[0]))


def csv_pieces(files: list[str], header: Header, chunk_rows: int, offset: int = 0,
               skip: int = 0, several: bool | None = None) -> Iterator[Piece]:
    """The table's rows as text, `chunk_rows` lines at a time (a quoted cell that spans
    lines stays in one chunk); blank lines are not rows. From row `offset` of the table,
    which is `skip` lines past the header of the first file."""
    several = len(files) > 1 if several is None else several
    for n, path in enumerate(files):
        with _open(path, "--points") as fh:
            for _ in range(header.lines + (skip if n == 0 else 0)):
                fh.readline()
            line = header.lines + 1 + (skip if n == 0 else 0)
            while lines := list(islice(fh, chunk_rows)):
                while sum(t.count('"') for t in lines) % 2 and (more := fh.readline()):
                    lines.append(more)
                rows = sum(1 for t in lines if t.strip(' \t\r\n,"'))
                if rows:
                    yield Piece(offset, rows, "".join(lines), line,
                                source=path if several else "")
                offset += rows
                line += len(lines)


def count_bad(files: list[str], header: Header, chunk_rows: int) -> tuple[int, int]:
    """(rows, unreadable rows) of a table that is not plain numbers: read row by row."""
    rows = bad = 0
    for piece in csv_pieces(files, header, chunk_rows):
        found = read_rows(piece.text or "", header.columns, header.inputs, piece.line)
        rows += found.count
        bad += len(found.bad)
    return rows, bad

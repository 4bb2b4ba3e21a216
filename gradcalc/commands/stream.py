"""--points in chunks: a table of any length read, answered and written a chunk of rows
at a time, so memory depends on the chunk, not on the table.

Before any row is answered the table is scanned once, as bytes: how many rows it has
(for the check's sample and the progress bar) and whether every row is plain numbers. A
table that is not (text columns, quotes, nan, a bad row) is read once more, row by row,
to learn whether some row cannot be read, since that decides the header's `error`
column. Then each chunk is one `points.run` (its own vectorised passes: points that take
different paths are split within the chunk), and the check looks at the rows of the whole
table's sample that fall in it. A table may be several files (a glob, or a directory of
partitions) with the same header: one table, rows numbered across them.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from itertools import islice

import numpy as np

from gradcalc.commands import points
from gradcalc.commands.cells import SHOW_BAD_ROWS, Rows, read_rows
from gradcalc.commands.jobs import Job
from gradcalc.commands.table import Header, Table, read_header
from gradcalc.errors import GradcalcError
from gradcalc.limits import CHUNK_ROWS

#: rows read, answered and written at a time (--chunk-rows)
DEFAULT_CHUNK_ROWS = CHUNK_ROWS
#: the bytes of a plain-number table (with ',' between cells and a line break after rows)
_NUMERIC = b"0123456789.eE+-,\r\n"
#: bytes of a file scanned at a time
SCAN_BYTES = 1 << 22
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


@dataclass(frozen=True)
class Plan:
    """What every chunk shares: the job, the header, the scan's findings, the sample."""

    job: Job
    header: Header
    total: int  # rows in the table
    errors: bool  # some row cannot be read: the output has an error column
    chunk_rows: int = DEFAULT_CHUNK_ROWS
    sample: tuple[int, ...] = ()  # the check's rows of the whole table (with several chunks)

    def whole(self, piece: Piece) -> bool:
        """Whether the piece is the whole table: then the check samples exactly as an
        unchunked run does."""
        return piece.offset == 0 and piece.rows >= self.total


@dataclass
class Stats:
    """What a chunk adds to the run's warnings and error line."""

    paths: int = 1
    passes: int = 1
    nonfinite: dict[str, tuple[int, int]] = field(default_factory=dict)  # what: (n, 1st row)
    bad: int = 0
    reasons: list[str] = field(default_factory=list)  # the first few bad rows


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
    if block.translate(None, _NUMERIC):
        return False
    b = np.frombuffer(block, np.uint8)
    comma, newline = b == 44, b == 10
    lines = int(np.count_nonzero(newline)) + (block[-1] != 10)
    return int(np.count_nonzero(comma)) == lines * (width - 1) and \
        not _gaps(block, b, comma | newline, last)


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


def plan(job: Job, header: Header, total: int, errors: bool,
         chunk_rows: int = DEFAULT_CHUNK_ROWS) -> Plan:
    """The plan of a run over `total` rows in chunks of `chunk_rows`."""
    if total == 0:
        raise GradcalcError("--points: no points: the table has a header row but no rows",
                            kind="value")
    sample = tuple(points.sample_rows(total)) if job.check else ()
    return Plan(job, header, total, errors, chunk_rows, sample)


def table_of(plan: Plan, piece: Piece) -> Table:
    """A chunk's rows read against the header (numbers, text columns, bad rows)."""
    if piece.text is not None:
        rows = read_rows(piece.text, plan.header.columns, plan.header.inputs, piece.line)
        rows.offset, rows.source = piece.offset, piece.source
    else:
        assert piece.data is not None
        rows = Rows(piece.data, [[]] * piece.data.shape[0], offset=piece.offset)  # no text
    return plan.header.table(rows)


def compute(plan: Plan, piece: Piece, defer: bool = False) -> points.PointsResult:
    """A chunk answered: `points.run` on its rows, the check on the sample's rows in it
    (`defer`: not checked here; their `points.Sample`s in `checks`, for commands.checker)."""
    table = table_of(plan, piece)
    n, bad = table.count, table.bad
    if bad and not plan.errors:  # the byte scan said plain numbers, a cell is not one
        raise not_plain()
    sample = None
    single = plan.whole(piece)
    if not single:  # the whole table's sample; a bad row's turn goes to the next row
        local = set()
        for r in plan.sample:
            k = r - piece.offset
            if 0 <= k < n:
                while k in bad:  # work: the bad rows at most, never the chunk's rows
                    k += 1
                if k < n:
                    local.add(k)
        sample = sorted(local)
    job = plan.job if single or sample else replace(plan.job, check=False)
    if len(bad) == n:  # no row read: the shapes from one stand-in point, every answer nan
        stand_in = plan.header.table(Rows(np.ones((1, len(plan.header.inputs))), [[]]))
        one = points.run(replace(job, check=False), stand_in)
        result = replace(one, table=table, checks=[], warnings=[],
                         output=np.full((n,) + one.output.shape[1:], np.nan),
                         derivative={k: np.full((n,) + v.shape[1:], np.nan)
                                     for k, v in one.derivative.items()})
    else:
        result = points.run(job, table, sample=sample, defer=defer)
    result.offset, result.errors = piece.offset, plan.errors
    return result


def stats(result: points.PointsResult) -> Stats:
    """A chunk's paths, non-finite values (rows of the whole table) and bad rows."""
    out = Stats(result.paths, result.passes)
    read = np.ones(result.count, dtype=bool)
    read[list(result.table.bad)] = False
    arrays = {"": result.output, **result.derivative}
    for name, a in arrays.items():
        hit = read & ~np.isfinite(a.reshape(a.shape[0], -1)).all(axis=1)
        if hit.any():
            out.nonfinite[name] = (int(hit.sum()), result.offset + int(np.argmax(hit)))
    rows = result.table.rows
    if rows is not None and rows.bad:
        out.bad = len(rows.bad)
        out.reasons = [rows.reason(k) for k in list(rows.bad)[:SHOW_BAD_ROWS]]
    return out


@dataclass
class Totals:
    """The run's warnings, check and bad rows, summed over its chunks."""

    count: int = 0
    chunks: int = 0
    paths: int = 1
    passes: int = 0
    nonfinite: dict[str, tuple[int, int]] = field(default_factory=dict)
    bad: int = 0
    reasons: list[str] = field(default_factory=list)
    checks: list = field(default_factory=list)  # (row of the table, CheckResult)

    def add(self, rows: int, s: Stats, checks: list) -> None:
        self.count += rows
        self.chunks += 1
        self.paths = max(self.paths, s.paths)
        self.passes += s.passes
        for name, (n, first) in s.nonfinite.items():
            had = self.nonfinite.get(name)
            self.nonfinite[name] = (n, first) if had is None else (had[0] + n, had[1])
        self.bad += s.bad
        self.reasons += s.reasons[:max(0, SHOW_BAD_ROWS - len(self.reasons))]
        self.checks += checks

    def merge(self, other: Totals) -> None:
        """Another part of the table's totals, after these rows."""
        self.chunks += other.chunks - 1
        self.add(other.count, Stats(other.paths, other.passes, other.nonfinite, other.bad,
                                    other.reasons), other.checks)

    def warnings(self, of: str, chunk_rows: int) -> list[str]:
        out = []
        if self.paths > 1:
            where = "" if self.chunks == 1 else f" (at most, in a chunk of {chunk_rows:,} rows)"
            out.append(f"the points took {self.paths} different paths through the program's "
                       f"control flow{where}; evaluated as {self.passes} vectorised passes")
        for name, (n, first) in self.nonfinite.items():
            what = f"the output '{of}'" if name == "" else \
                f"the derivative with respect to {name}"
            out.append(f"{what} has non-finite values at {n:,} point{'' if n == 1 else 's'} "
                       f"(first: row {first + 1})")
        return out

    def error(self, where: str = "--points") -> str | None:
        if not self.bad:
            return None
        more = self.bad - len(self.reasons)
        return (f"{where}: {self.bad:,} of {self.count:,} rows could not be read, the others "
                "were computed: " + "; ".join(self.reasons)
                + (f"; and {more:,} more" if more > 0 else ""))

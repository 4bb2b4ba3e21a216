"""--points in chunks: each chunk of a table (an `ingest.scan.Piece`) answered on its own,
so memory depends on the chunk, not on the table.

Each chunk is one `points.run` (its own vectorised passes: points that take different
paths are split within the chunk), and the check looks at the rows of the whole table's
sample that fall in it; what the chunks add up to (paths, non-finite values, bad rows)
is gathered in `Totals`. Reading the table's files is `gradcalc.ingest.scan`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from gradcalc.commands import points
from gradcalc.commands.jobs import Job, nonfinite_rows
from gradcalc.errors import GradcalcError
from gradcalc.ingest.cells import SHOW_BAD_ROWS, Rows, read_rows
from gradcalc.ingest.point_table import Header, PointTable
from gradcalc.ingest.scan import Piece, not_plain
from gradcalc.limits import CHUNK_ROWS

#: rows read, answered and written at a time (--chunk-rows)
DEFAULT_CHUNK_ROWS = CHUNK_ROWS


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


def plan(job: Job, header: Header, total: int, errors: bool,
         chunk_rows: int = DEFAULT_CHUNK_ROWS) -> Plan:
    """The plan of a run over `total` rows in chunks of `chunk_rows`."""
    if total == 0:
        raise GradcalcError("--points: no points: the table has a header row but no rows",
                            kind="value")
    sample = tuple(points.sample_rows(total)) if job.check else ()
    return Plan(job, header, total, errors, chunk_rows, sample)


def table_of(plan: Plan, piece: Piece) -> PointTable:
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
    (`defer`: not checked here; their `points.Sample`s in `checks`, for run.checker)."""
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
        rows = nonfinite_rows(a)
        if rows is None:
            continue
        hit = read & rows
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

"""--points from end to end in chunks: the table's files read a chunk at a time, each
chunk answered (`commands.chunks`) and written (the format's writer: `render.point_rows`,
or the columnar writer of `render.fast_rows` where the fast extra is installed), in order,
by this process or by --jobs workers (`run.workers`). Memory is the chunk's, whatever
the table's length.

Output goes to standard output (CSV, --plain rows or JSON lines) or to --output FILE.csv
or FILE.parquet, written beside it under a temporary name and renamed into place only
when every row is written: a run that fails leaves no file that looks whole.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from gradcalc.commands import chunks
from gradcalc.commands.jobs import Job
from gradcalc.commands.points import program_reads
from gradcalc.errors import GradcalcError
from gradcalc.ingest import scan
from gradcalc.render import point_rows as write
from gradcalc.render.formats import Format, named, rows_for
from gradcalc.render.rows_writer import RowsFile, TextRows
from gradcalc.run import checker
from gradcalc.run import workers as parallel


@dataclass(frozen=True)
class Writing:
    """How chunks are written: by which row format's writer (`render.rows_writer`: csv,
    plain or json text, or parquet), whether through the columnar writer, whether their
    check is deferred."""

    rows: TextRows
    quick: bool = False  # through the columnar writer (same text, faster)
    defer: bool = False  # the check's sampled rows left to run.checker


@dataclass
class Answered:
    """A chunk's answer: its output, header row and what it adds to the warnings."""

    offset: int
    rows: int
    out: Any  # text, or an arrow table for Parquet
    header: list[str]
    stats: chunks.Stats
    checks: list = field(default_factory=list)  # (row of the table, CheckResult)
    of: str = ""  # the output's name
    part: str | None = None  # a worker's part file holding `out` (run.ranges)
    placed: int | None = None  # bytes a worker wrote into the output file itself


@dataclass
class Outcome:
    """The run, for the command line: warnings, the check's note, the bad rows' error."""

    totals: chunks.Totals
    warnings: list[str]
    note: str | None
    error: str | None

    @property
    def failed(self) -> bool:
        return any(c.status == "fail" for _, c in self.totals.checks)


def answer(plan: chunks.Plan, fmt: Writing, piece: scan.Piece) -> Answered:
    """One chunk computed and written: the function --jobs workers run."""
    result = chunks.compute(plan, piece, defer=fmt.defer)
    out = fmt.rows.chunk(result, piece.offset == 0, fmt.quick)
    checks = [(piece.offset + k, c) for k, c in result.checks]
    return Answered(piece.offset, result.count, out, write.header(result),
                    chunks.stats(result), checks, result.output_name)


#: a CSV table of fewer bytes is read and written by Python alone, in the same text:
#: importing polars (about a quarter of a second of CPU) costs more than its reader and
#: writer save on a table this small (docs/performance.md)
FAST_BYTES = 1 << 20


def fast_available() -> bool:
    """Whether the fast extra (pyarrow) is installed."""
    import importlib.util

    return importlib.util.find_spec("pyarrow") is not None


def worth_the_fast_extra(files: list[str]) -> bool:
    """Whether a CSV table is large enough (`FAST_BYTES`) for polars' reader and writer."""
    total = 0
    for path in files:
        try:
            total += os.path.getsize(path)
        except OSError:  # unreadable: reported where it is opened
            return False
        if total >= FAST_BYTES:
            return True
    return False


@dataclass
class Pass:
    """A --points run under way: what each of its steps shares."""

    job: Job
    files: list[str]
    rows: TextRows  # the writer of the rows' format
    output: str | None  # the output file (standard output: None)
    chunk_rows: int
    jobs: int
    progress: Any  # progress(stage, done, total), or None
    stdout: Any
    #: chunks gone to standard output (they cannot be taken back)
    written: list[int] = field(default_factory=lambda: [0])
    workers: parallel.Workers | None = None
    with_extra: bool = False  # through the fast extra's readers and writers


def run(job: Job, source: str, view: Format | str, output: str | None = None,
        chunk_rows: int = chunks.DEFAULT_CHUNK_ROWS, jobs: int = 1,
        progress: Any = None, stdout: Any = None) -> Outcome:
    """--points over the table at `source` (a file, '-', a glob or a directory), written
    to `output` or `stdout`, its rows in the format of `view` (or Parquet, for
    --output FILE.parquet)."""
    if chunk_rows < 1:
        raise GradcalcError("--chunk-rows takes a number of rows of at least 1", kind="usage")
    spooled = None
    if source == "-":  # standard input, to a temporary file: it is scanned, then read
        spooled = tempfile.NamedTemporaryFile(prefix="gradcalc-", suffix=".csv", delete=False)
        with spooled:
            shutil.copyfileobj(sys.stdin.buffer, spooled, 1 << 20)
        source = spooled.name
    try:
        rows = rows_for(named(view), output)
        return _run(Pass(job, scan.sources(source), rows, output, chunk_rows, jobs, progress,
                         stdout or sys.stdout))
    finally:
        checker.stop()
        if spooled is not None:
            os.unlink(spooled.name)


def _run(p: Pass) -> Outcome:
    checker.start(p.job, p.rows, p.jobs)  # first: a fork is safe only before polars is imported
    fast = p.with_extra = fast_available()
    p.rows.require(fast)
    if scan.is_parquet(p.files):
        if not fast:
            raise GradcalcError("reading Parquet needs the fast extra: "
                                "pip install 'gradcalc[fast]'", kind="usage")
        from gradcalc.ingest import columnar as tabular

        header, total = tabular.parquet_header(p.files, program_reads(p.job))
        plan = chunks.plan(p.job, header, total, False, p.chunk_rows)
        return _answer(p, plan, tabular.parquet_pieces(p.files, header, p.chunk_rows))
    fast = p.with_extra = fast and worth_the_fast_extra(p.files)  # small: Python's
    with _workers(p.jobs, p.rows.reads_columnar(fast)) as p.workers:
        return _run_csv(p, fast)


def _run_csv(p: Pass, fast: bool) -> Outcome:
    """A CSV table: by its plain-number readers where the byte scan (or, for an output
    file, the reader as it reads) finds plain numbers, else read as text."""
    header = scan.csv_header(p.files, program_reads(p.job))
    columnar = p.rows.reads_columnar(fast) and not _spaced(p.files)
    # an output file is written under a temporary name, so a table its reader finds is
    # not plain numbers can still be read again as text: no byte scan first, each block
    # checked as it is read (for standard output, rows once written cannot be taken
    # back, and the scan decides before the first)
    ranged = p.jobs > 1 and p.rows.by_ranges()  # workers on byte ranges (run.ranges)
    verify = p.output is not None and len(header.inputs) == len(header.columns) \
        and (columnar or ranged)
    cuts = None
    if verify and ranged:  # the rows counted as they are cut
        from gradcalc.run.ranges import ranges

        cuts = list(ranges(p.files, header, p.chunk_rows))
        total, plain = sum(r.rows for r in cuts), True
    elif verify:
        total, plain = scan.count_lines(p.files, header), True
    else:
        total, plain = scan.scan(p.files, header)  # while the workers start
    if plain:
        try:
            plan = chunks.plan(p.job, header, total, False, p.chunk_rows)
            return _run_plain(p, Cut(header, plan, verify, columnar, cuts))
        except GradcalcError as exc:
            if exc.kind != scan.NOT_PLAIN:
                raise
            if p.written[0] and p.output is None:
                raise GradcalcError(
                    "--points: a cell looks like a number but is not one (such as 1e); "
                    "the rows before its chunk are written: give --output FILE (or --jobs "
                    "1 --chunk-rows larger) to have it answered in its place, or correct "
                    "it", kind="value") from None
    # not plain numbers (or a cell that only looked like one): read as text
    total, bad = scan.count_bad(p.files, header, p.chunk_rows)
    plan = chunks.plan(p.job, header, total, bad > 0, p.chunk_rows)
    return _answer(p, plan, scan.csv_pieces(p.files, header, p.chunk_rows))


def _workers(jobs: int, columnar: bool) -> Any:
    """--jobs workers, started before the table is scanned (each importing the columnar
    writer while this process scans), or nothing for one job."""
    import contextlib

    if jobs <= 1:
        return contextlib.nullcontext(None)
    warm = ("polars", "gradcalc.render.fast_rows", "gradcalc.ingest.columnar") \
        if columnar else ()
    return parallel.Workers(jobs, warm=warm)


@dataclass(frozen=True)
class Cut:
    """How a table of plain numbers is read: its header and plan; whether its reader
    checks the cells as it reads (`verify`), whether through polars (`columnar`: the
    fast extra, bare cells), and its byte ranges when already found (`cuts`)."""

    header: Any
    plan: chunks.Plan
    verify: bool = False
    columnar: bool = False
    cuts: list | None = None


def _run_plain(p: Pass, cut: Cut) -> Outcome:
    """A table the byte scan found to be plain numbers (or, with `verify`, that its reader
    checks as it reads): by byte ranges on --jobs workers, or through polars' reader, or
    the byte reader."""
    if p.jobs > 1 and p.rows.by_ranges():
        return _run_ranges(p, cut)
    if cut.columnar:
        from gradcalc.ingest import columnar as tabular

        pieces: Iterator[scan.Piece] = tabular.csv_pieces(p.files, cut.header, p.chunk_rows,
                                                            cut.verify)
        if p.jobs <= 1:  # polars parses the next chunk while this one is answered
            pieces = parallel.read_ahead(pieces)
    else:
        pieces = scan.csv_pieces(p.files, cut.header, p.chunk_rows)
    return _answer(p, cut.plan, pieces)


def _answer(p: Pass, plan: chunks.Plan, pieces: Iterator[scan.Piece]) -> Outcome:
    fmt = _format(p.job, p.rows, p.with_extra)
    answers = checker.feed(parallel.ordered_map(partial(answer, plan, fmt), pieces, p.jobs,
                                                workers=p.workers))
    return _outcome(p.job, *_write(p, answers, fmt, plan), p.chunk_rows)


def _format(job: Job, rows: TextRows, fast: bool) -> Writing:
    """How chunks are written: the columnar writer where the rows' writer has one and
    the run uses the `fast` extra; the check's rows left to run.checker but for rows that
    carry their own check (JSON lines)."""
    return Writing(rows, quick=rows.quick(fast),
                   defer=job.check and not rows.checks_inline)


def _outcome(job: Job, totals: chunks.Totals, of: str, chunk_rows: int) -> Outcome:
    """The run's outcome once every chunk is written: the sampled rows' checks resolved."""
    totals.checks = checker.resolve(totals.checks)
    return Outcome(totals, totals.warnings(of, chunk_rows),
                   write.sample_note(totals.checks, totals.count) if job.check else None,
                   totals.error())


def _run_ranges(p: Pass, cut: Cut) -> Outcome:
    """A plain table on --jobs workers that read their own byte ranges (`cut.cuts`, when
    already found) and write their text straight into the output file at its place, or,
    for standard output, to part files joined here in order (`run.ranges`)."""
    from gradcalc.run import ranges

    fmt = _format(p.job, p.rows, p.with_extra)
    output = p.output
    folder = tempfile.mkdtemp(prefix=".gradcalc-parts-",
                              dir=os.path.dirname(os.path.abspath(output)) if output else None)
    target = _target(output, fmt) if output is not None else None
    place = ranges.Place(target.temp, ranges.Chain.create(folder)) if target else None
    try:
        answers = checker.feed(parallel.ordered_map(
            partial(ranges.answer_range, answer, cut.plan, fmt, cut.columnar, folder,
                    verify=cut.verify, place=place),
            cut.cuts if cut.cuts is not None else
            ranges.ranges(p.files, cut.header, p.chunk_rows), p.jobs, workers=p.workers))
        totals, of = _write(p, answers, fmt, cut.plan, target)
    finally:
        if target is not None:
            target.abandon()  # nothing left after a commit; the temporary file otherwise
        shutil.rmtree(folder, ignore_errors=True)
    return _outcome(p.job, totals, of, p.chunk_rows)


def _spaced(files: list[str]) -> bool:
    """Whether cells have spaces around them (the columnar reader wants bare numbers)."""
    with open(files[0], "rb") as fh:
        start = fh.read(1 << 16)
    return b" " in start or b"\t" in start


def _target(output: str, fmt: Writing) -> RowsFile:
    """The output file, opened under a temporary name beside it."""
    fd, temp = tempfile.mkstemp(prefix=".gradcalc-", suffix=".part",
                                dir=os.path.dirname(os.path.abspath(output)))
    os.close(fd)
    return fmt.rows.open(temp)


def _write(p: Pass, answers: Iterator[Answered], fmt: Writing, plan: chunks.Plan,
           target: RowsFile | None = None) -> tuple[chunks.Totals, str]:
    """The answers in order to the output (`target`, when it is already open); the run's
    totals and the output's name; `p.written` counts the chunks gone to standard output
    (they cannot be taken back)."""
    totals = chunks.Totals()
    header: list[str] | None = None
    of = ""
    placed = 0  # bytes the workers wrote into the output file themselves
    if p.output is not None and target is None:
        target = _target(p.output, fmt)
    try:
        for done in answers:
            if header is None:
                header, of = done.header, done.of
            elif done.header != header:
                raise GradcalcError(
                    f"--points: the points' outputs have different shapes: row "
                    f"{done.offset + 1} has the columns {','.join(done.header)}, row 1 has "
                    f"{','.join(header)}", kind="shape")
            placed += _put(done, fmt, target, p.stdout)
            p.written[0] += target is None
            totals.add(done.rows, done.stats, done.checks)
            if p.progress is not None:
                p.progress("answering", totals.count, plan.total)
        if target is not None:
            if placed and os.path.getsize(target.temp) != placed:
                raise GradcalcError(f"--points: the workers wrote {os.path.getsize(target.temp)}"
                                    f" bytes of the {placed} they answered", kind="internal")
            target.commit(p.output or "")
            target = None
    finally:
        if target is not None:
            target.abandon()
    return totals, of


def _put(done: Answered, fmt: Writing, target: RowsFile | None, stdout: Any) -> int:
    """One chunk's answer to the output file (`target`) or `stdout`; the bytes a worker
    wrote into the output file itself."""
    if done.placed is not None:
        return done.placed
    if done.part is not None:  # a worker's part file
        from gradcalc.run.ranges import copy_part

        if target is not None:
            copy_part(done.part, target.fh)
        else:
            stdout.flush()
            copy_part(done.part, stdout.buffer if hasattr(stdout, "buffer")
                      else _TextSink(stdout))
    elif target is not None:
        target.write(done.out)
    elif done.out is not None and fmt.rows.printable():
        emit(stdout, done.out)
    return 0


def emit(stdout: Any, text: Any) -> None:
    """A chunk to the output stream (which takes text and bytes: the command line's)."""
    if not isinstance(text, (str, bytes)):  # the columnar writer's patched text
        text = bytes(text)
    if isinstance(text, bytes) and not getattr(stdout, "takes_bytes", False):
        if hasattr(stdout, "buffer"):
            stdout.flush()
            stdout.buffer.write(text)
        else:
            stdout.write(text.decode())
    else:
        stdout.write(text)
    stdout.flush()


class _TextSink:
    """A text stream taking bytes (a test's stand-in for standard output)."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, data: bytes) -> None:
        emit(self.stream, bytes(data))


class LazyBar:
    """The progress bar of `render.terminal`, made when the run first reports, once the
    table's length is known (a short table or a pipe gets none)."""

    def __init__(self) -> None:
        self.bar: Any = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.bar is None:
            from gradcalc.render.terminal import Bar

            self.bar = Bar(total)
        self.bar(stage, done, total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

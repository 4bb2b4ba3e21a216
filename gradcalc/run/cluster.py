"""--engine dask: --points over a partitioned table on a Dask cluster (the dask extra).

Each partition (a file of the glob or directory) is one task, answered on a worker by the
same chunked pipeline as a local run (`run.stream.answer`: the batched backend, chunk
by chunk), so the rows are byte for byte a local run's. Two rounds: first every
partition is scanned where it lies (its rows, and whether any row is unreadable), which
fixes each partition's first row number and the whole table's check sample; then every
partition is answered. Without --scheduler a LocalCluster of this machine's cores runs.

The files are read and written by the workers: the client and every worker must see the
same paths (a shared filesystem). With --output FILE.csv each partition is written as a
part beside the output and the parts are joined in order into FILE.csv; with --output
DIR.parquet (or a directory) each partition becomes DIR/part-NNNNN.parquet. Either is
built under a temporary name and renamed into place only when every partition is done:
a worker that dies has its tasks run again by Dask, and a run that cannot finish leaves
nothing that looks whole.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gradcalc.commands import chunks
from gradcalc.commands.jobs import Job
from gradcalc.commands.points import program_reads
from gradcalc.errors import GradcalcError
from gradcalc.ingest import scan
from gradcalc.render import point_rows as write
from gradcalc.render.formats import CSV, PARQUET, Format, named, rows_for
from gradcalc.run import stream


@dataclass
class Part:
    """A partition's answer: its rows and stats, and its text (when not written)."""

    rows: int
    totals: chunks.Totals
    of: str
    header: list[str]
    text: str | bytes | None = None


def scan_partition(path: str, header: Any, chunk_rows: int) -> tuple[int, int, bool]:
    """(rows, unreadable rows, plain) of one partition, on a worker."""
    if path.lower().endswith(scan.PARQUET):
        from gradcalc.ingest import columnar as tabular

        return tabular.parquet_header([path], set(header.layout))[1], 0, True
    rows, plain = scan.scan([path], header)
    bad = 0
    if not plain:
        rows, bad = scan.count_bad([path], header, chunk_rows)
    return rows, bad, plain


def answer_partition(plan: chunks.Plan, fmt: stream.Writing, path: str, offset: int,
                     plain: bool, target: str | None) -> Part:
    """One partition answered chunk by chunk, written to `target` (renamed into place
    when whole) or returned as text."""
    if path.lower().endswith(scan.PARQUET):
        from gradcalc.ingest import columnar as tabular

        pieces = tabular.parquet_pieces([path], plan.header, plan.chunk_rows)
    elif plain and stream.fast_available():
        from gradcalc.ingest import columnar as tabular

        pieces = tabular.csv_pieces([path], plan.header, plan.chunk_rows)
    else:
        pieces = scan.csv_pieces([path], plan.header, plan.chunk_rows, several=True)
    totals, of, header = chunks.Totals(), "", []
    texts: list[Any] = []
    sink = None if target is None else fmt.rows.open(target + ".tmp")
    try:
        for piece in pieces:
            piece.offset += offset
            done = stream.answer(plan, fmt, piece)
            totals.add(done.rows, done.stats, done.checks)
            of, header = done.of, done.header
            if sink is None:
                texts.append(done.out)
            else:
                sink.write(done.out)
        if sink is not None:
            sink.commit(target or "")
            sink = None
    finally:
        if sink is not None:
            sink.abandon()
    text = None if target is not None else (
        b"".join(t if isinstance(t, bytes) else t.encode() if isinstance(t, str)
                 else bytes(t) for t in texts))
    return Part(totals.count, totals, of, header, text)


#: how long a scheduler named by --scheduler is tried before it is called unreachable
CONNECT_TIMEOUT = "20s"


def client_for(scheduler: str | None) -> tuple[Any, Any]:
    """A distributed Client on the scheduler at ADDRESS, or on a new LocalCluster."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise GradcalcError("--engine dask needs the dask extra: "
                            "pip install 'gradcalc[dask]'", kind="usage") from None
    if scheduler:
        try:
            return Client(scheduler, timeout=CONNECT_TIMEOUT), None
        except OSError as exc:
            raise GradcalcError(f"cannot reach the Dask scheduler at {scheduler!r}: {exc}",
                                kind="usage") from None
    cluster = LocalCluster(threads_per_worker=1, dashboard_address=None,
                           silence_logs=40)
    return Client(cluster), cluster


def run_points(job: Job, source: str, view: Format | str = CSV, output: str | None = None,
               chunk_rows: int = chunks.DEFAULT_CHUNK_ROWS, scheduler: str | None = None,
               progress: Callable[[str, int, int], None] | None = None,
               stdout: Any = None) -> stream.Outcome:
    """--points over the partitions of `source` on a Dask cluster; see the module."""
    if source == "-":
        raise GradcalcError("--engine dask reads files the workers can see, not standard "
                            "input: save it to a shared file", kind="usage")
    files = [os.path.abspath(f) for f in scan.sources(source)]
    reads = program_reads(job)
    parquet = scan.is_parquet(files)
    if parquet:
        from gradcalc.ingest import columnar as tabular

        header = tabular.parquet_header(files[:1], reads)[0]
    else:
        header = scan.csv_header(files, reads)
    rows = PARQUET.rows_writer if output is not None and os.path.isdir(output) else \
        rows_for(named(view), output)
    client, cluster = client_for(scheduler)
    try:
        return _run(client, stream.Pass(job, files, rows, output, chunk_rows, 1, progress,
                                        stdout or sys.stdout), header)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _run(client: Any, p: stream.Pass, header: Any) -> stream.Outcome:
    """The partitions scanned, then answered, in order, on the cluster."""
    job, files, rows, output, chunk_rows = p.job, p.files, p.rows, p.output, p.chunk_rows
    scans = client.gather(client.map(scan_partition, files, header=header,
                                     chunk_rows=chunk_rows, pure=False))
    total = sum(rows for rows, _, _ in scans)
    plan = chunks.plan(job, header, total, any(bad for _, bad, _ in scans), chunk_rows)
    fmt = stream.Writing(rows, quick=rows.quick(stream.fast_available()))
    offsets = [sum(rows for rows, _, _ in scans[:k]) for k in range(len(files))]
    workdir = None
    if output is not None:
        folder = os.path.dirname(os.path.abspath(output.rstrip("/")))
        workdir = tempfile.mkdtemp(prefix=".gradcalc-", suffix=".parts", dir=folder)
    targets = [None if workdir is None else os.path.join(workdir, f"part-{k:05d}{rows.ending}")
               for k in range(len(files))]
    futures = [client.submit(answer_partition, plan, fmt, path, offset, scan[2], target,
                             pure=False)
               for path, offset, scan, target in zip(files, offsets, scans, targets)]
    totals = chunks.Totals()
    header_row: list[str] | None = None
    of = ""
    try:
        for k, future in enumerate(futures):
            try:
                part = future.result()
            except Exception as exc:  # noqa: BLE001 - whatever ended the task, reported
                raise GradcalcError(f"--engine dask: partition {files[k]} could not be "
                                    f"answered: {type(exc).__name__}: {exc}; no output was "
                                    "written", kind="internal") from None
            if header_row is None:
                header_row, of = part.header, part.of
            elif part.header != header_row and part.rows:
                raise GradcalcError(f"--points: the points' outputs have different shapes: "
                                    f"{files[k]} has the columns {','.join(part.header)}",
                                    kind="shape")
            if part.text is not None:
                stream.emit(p.stdout, part.text)
            totals.merge(part.totals)
            if p.progress is not None:
                p.progress("answering", totals.count, total)
        if workdir is not None:
            rows.join_parts(workdir, targets, output or "")
            workdir = None
    finally:
        for future in futures:
            future.cancel()
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
    return stream.Outcome(totals, totals.warnings(of, chunk_rows),
                          write.sample_note(totals.checks, totals.count) if job.check
                          else None, totals.error())


def judge_partition(path: str, fmt: Format, settings: Any, limits: Any
                    ) -> tuple[str, Any, list[str]]:
    """One class file of a partitioned class judged on a worker: its rows' text (JSON or
    plain lines, in order), its summary and its students."""
    from gradcalc.grading import classfile

    assert fmt.row is not None
    table, rows = classfile.open_class(path, None)
    summary, out, students = classfile.Summary(), [], {}
    for task in classfile.iter_tasks(table, rows, None, settings):
        result = classfile.judge_task(task, limits)
        summary.add(result)
        students.setdefault(task.student, None)
        out.append(fmt.row(result, False))
    return "".join(out), summary, list(students)


def run_class(source: str, fmt: Format | str, settings: Any, limits: Any, scheduler: str | None,
              stdout: Any, stderr: Any) -> int:
    """check --file over a partitioned class (a glob or a directory of class files) on a
    Dask cluster: one task per file, the rows written in order as JSON or plain lines;
    the exit code as without Dask (0 only when every row is correct)."""
    from gradcalc.grading.classfile import Summary

    fmt = named(fmt)
    if fmt.class_end is None:
        raise GradcalcError("--engine dask writes --json or --plain lines", kind="usage")
    if source == "-":
        raise GradcalcError("--engine dask reads class files the workers can see, not "
                            "standard input: save it to a shared file", kind="usage")
    files = [os.path.abspath(f) for f in scan.sources(source, "--file")]
    client, cluster = client_for(scheduler)
    summary, students = Summary(), {}
    try:
        futures = [client.submit(judge_partition, path, fmt, settings, limits, pure=False)
                   for path in files]
        for path, future in zip(files, futures):
            try:
                text, part, names = future.result()
            except GradcalcError:
                raise
            except Exception as exc:  # noqa: BLE001 - whatever ended the task, reported
                raise GradcalcError(f"--engine dask: {path} could not be judged: "
                                    f"{type(exc).__name__}: {exc}", kind="internal") from None
            stdout.write(text)
            stdout.flush()
            for status, n in part.counts.items():
                summary.counts[status] += n
            summary.earned += part.earned
            summary.possible += part.possible
            students.update(dict.fromkeys(names))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    fmt.class_end(summary, len(students), stdout, stderr)
    return 0 if summary.all_correct else 1

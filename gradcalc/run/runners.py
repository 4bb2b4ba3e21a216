"""The engines a run can go on, by name (--engine): `local` (this process and its --jobs
workers: `run.stream`, `run.classrun`) and `dask` (a Dask cluster: `run.cluster`). Each
engine runs a --points table and a class; the command line names one and hands it a
`run.record.Run`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.limits import CHUNK_ROWS
from gradcalc.run.record import Run

#: what only a local class run writes (a Dask run writes lines): its options' names
LOCAL_ONLY = ("key", "grades", "gradescope", "report", "summary")


def _local_points(run: Run, job: Any) -> Any:
    from gradcalc.run import stream
    from gradcalc.run.workers import one_heap

    one_heap()  # the chunks' memory stays one chunk's (see one_heap)
    bar = stream.LazyBar()
    try:
        return stream.run(job, run.source, run.sink.fmt, output=run.sink.output,
                          chunk_rows=run.options.chunk_rows or CHUNK_ROWS,
                          jobs=run.options.jobs, progress=bar, stdout=run.sink.out)
    finally:
        bar.close()


def _dask_points(run: Run, job: Any) -> Any:
    from gradcalc.run import cluster

    return cluster.run_points(job, run.source, run.sink.fmt, output=run.sink.output,
                              chunk_rows=run.options.chunk_rows or CHUNK_ROWS,
                              scheduler=run.options.scheduler)


def _local_class(run: Run, job: Any) -> int:
    from gradcalc.run.classrun import write_class

    return write_class(job, run.sink.out, run.sink.err)


def _dask_class(run: Run, job: Any) -> int:
    from gradcalc.run.cluster import run_class

    given = [f"--{n}" for n in LOCAL_ONLY if getattr(job, n)]
    if job.course is not None:  # a course's options (grading.course.Course)
        given.append("--roster, --policy, --due, --late-until, --late-penalty or "
                     "--blank-missing")
    if given:
        raise GradcalcError(f"{given[0]} goes without --engine dask", kind="usage")
    return run_class(run.source, run.sink.fmt, job.settings, job.limits,
                     run.options.scheduler, run.sink.out, run.sink.err)


@dataclass(frozen=True)
class Engine:
    """An engine: how it runs a --points table (the run's Outcome) and a class (its exit
    code), each given the Run and the command's job."""

    name: str
    points: Callable[[Run, Any], Any]
    grade: Callable[[Run, Any], int]


ENGINES: dict[str, Engine] = {e.name: e for e in (
    Engine("local", _local_points, _local_class),
    Engine("dask", _dask_points, _dask_class),
)}


def engine_of(run: Run) -> Engine:
    """The run's engine; an unknown name is a usage error naming those there are."""
    try:
        return ENGINES[run.engine]
    except KeyError:
        raise GradcalcError(f"--engine takes {' or '.join(ENGINES)}, not {run.engine!r}",
                            kind="usage") from None

"""--points: one program at many points, as one vectorised pass over a leading point axis
(`gradcalc.backends.batched`), with the symbolic check on a small sample of points (first,
last and a few between), never per point. Nothing here prints; `render.point_rows` writes the
rows as CSV or JSON lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from gradcalc.backends.batched import Progress, evaluate, hessian_seed, no_progress
from gradcalc.commands.jobs import (
    Job,
    check_kind,
    grad_seed,
    load_values,
    nonfinite_warnings,
    plan,
    program_of,
    reads,
)
from gradcalc.errors import GradcalcError
from gradcalc.ingest.point_table import PointTable, open_source, read_table
from gradcalc.language.program import Program

__all__ = ["PointsResult", "Sample", "PointTable", "check_sample", "open_source", "program_reads",
           "read_table", "run", "sample_rows"]

#: how many points the symbolic check samples
CHECK_SAMPLE = 5


@dataclass
class PointsResult:
    """Every point's output and derivative, and the check of a sample of points."""

    command: str
    output_name: str
    table: PointTable
    names: list[str]
    output: np.ndarray  # (P,) + output shape
    derivative: dict[str, np.ndarray]  # (P,) + output shape (jacobian) + input shape
    weights: np.ndarray | None = None
    checks: list[tuple[int, Any]] = field(default_factory=list)  # (row index, CheckResult)
    paths: int = 1
    passes: int = 1
    warnings: list[str] = field(default_factory=list)
    offset: int = 0  # rows of the whole table before this chunk's first
    errors: bool | None = None  # the whole table has unreadable rows (None: this chunk's)

    @property
    def has_errors(self) -> bool:
        """Whether the output carries an error column: some row of the table is bad."""
        return bool(self.table.bad) if self.errors is None else self.errors

    @property
    def count(self) -> int:
        return self.output.shape[0]

    @property
    def failed(self) -> bool:
        return any(c.status == "fail" for _, c in self.checks)

    @property
    def derivative_key(self) -> str:
        return {"grad": "gradient", "jacobian": "jacobian", "hessian": "hessian"}[self.command]


@dataclass
class Sample:
    """What the check of one sampled point needs, and nothing else of the table: small,
    so it can be sent to another process (run.checker) and checked there."""

    job: Job
    point: dict[str, np.ndarray]  # every input's value at the point
    names: list[str]  # the inputs differentiated
    of: str
    tape: dict[str, np.ndarray]  # the tape's derivative at the point, by result column
    weights: np.ndarray | None
    ticket: int = -1  # its number in the checker process (run.checker)


def check_sample(sample: Sample, programs: dict[str, Program] | None = None) -> Any:
    """The check of one sampled point (a CheckResult): its path recorded by a numeric run,
    then `verify.check.check_derivative`; `programs` keeps parsed programs by text."""
    from gradcalc.backends.numeric import as_function
    from gradcalc.engine.tape import no_grad
    from gradcalc.verify.check import check_derivative  # imports sympy: only when checking

    job, point, names, of = sample.job, sample.point, sample.names, sample.of
    programs = {} if programs is None else programs
    key = (job.program, tuple(sorted(point)))
    if key not in programs:
        programs[key] = program_of(job, point)
    program = programs[key]
    constants = {k: v for k, v in point.items() if k not in names}
    f, decisions = as_function(program, names, constants, of=of, limits=job.limits)
    with no_grad():
        f(*(point[n] for n in names))  # records this point's path for the check
    tape_result: dict[Any, np.ndarray] = dict(sample.tape)
    if job.command == "hessian":  # blocks keyed by (row input, column input)
        tape_result = {tuple(k.split(",")) if "," in k else (k, k): v
                       for k, v in tape_result.items()}
    return check_derivative(check_kind(job.command, sample.weights), program, point, names,
                            constants, of, decisions, tape_result, weights=sample.weights,
                            limits=job.limits)


def sample_rows(count: int, size: int = CHECK_SAMPLE) -> list[int]:
    """First, last and evenly spaced rows between: the points the check looks at."""
    if count <= size:
        return list(range(count))
    return sorted({round(i * (count - 1) / (size - 1)) for i in range(size)})


def run(job: Job, table: PointTable, progress: Progress = no_progress,
        sample: list[int] | None = None, defer: bool = False) -> PointsResult:
    """The job (grad or jacobian, with --points) on every point of `table`; the check (if
    on) looks at the rows `sample` of it (None: `sample_rows` of its rows read). `defer`:
    the checks are not made here; `checks` holds each sampled row's `Sample` instead."""

    if job.command not in ("grad", "jacobian", "hessian"):
        raise GradcalcError(f"--points goes with grad, jacobian and hessian, not "
                            f"{job.command}", kind="usage")
    if job.expect is not None:
        raise GradcalcError("--expect cannot be used with --points", kind="usage")
    values = _point_values(job, table)
    program = program_of(job, values)
    names, chosen, weights = plan(job, program, values)
    of = chosen.name
    seed = partial(grad_seed, of=of, weights=weights, where=" at each point") \
        if job.command == "grad" else hessian_seed if job.command == "hessian" else None
    good = _good_rows(table)
    if good is None:
        output, derivative, paths, passes = evaluate(program, values, names, of, job.limits,
                                                     seed, progress)
    else:  # compute the rows that were read; the others stay nan, reported in place
        subset = {k: v[good] for k, v in values.items()}
        output, derivative, paths, passes = evaluate(program, subset, names, of, job.limits,
                                                     seed, progress)
        output, derivative = _scatter(good, table.count, output, derivative)
    result = PointsResult(job.command, of, table, names, output, derivative, weights,
                          paths=paths, passes=passes)
    result.warnings = _warnings(result)
    if job.check:
        samples = _samples(job, values, names, of, result, sample)
        result.checks = samples if defer else _check_samples(samples, program, progress)
    return result


def program_reads(job: Job) -> set[str]:
    """The names the program may read (and --wrt names): the table's input columns."""
    return reads(job)


def _good_rows(table: PointTable) -> np.ndarray | None:
    """The indices of the rows that were read, or None when every row was."""
    if not table.bad:
        return None
    good = np.array([k for k in range(table.count) if k not in table.bad], dtype=np.intp)
    if not good.size:
        raise GradcalcError(f"--points: no row could be read: {table.rows.reason(0)}"
                            if table.rows else "--points: no row could be read", kind="value")
    return good


def _scatter(good: np.ndarray, count: int, output: np.ndarray,
             derivative: dict[str, np.ndarray]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Results of the rows read, placed at their rows of the whole table (nan elsewhere)."""
    def place(a: np.ndarray) -> np.ndarray:
        full = np.full((count,) + a.shape[1:], np.nan)
        full[good] = a
        return full

    return place(output), {k: place(v) for k, v in derivative.items()}


def _point_values(job: Job, table: PointTable) -> dict[str, np.ndarray]:
    """The table's columns, and the --at values repeated at every point."""
    shared = load_values(job.at, limits=job.limits) if job.at else {}
    both = sorted(set(shared) & set(table.values))
    if both:
        raise GradcalcError(f"{', '.join(both)} given both in --points and --at", kind="usage")
    values = dict(table.values)
    values.update({k: np.ascontiguousarray(np.broadcast_to(v, (table.count,) + v.shape))
                   for k, v in shared.items()})
    return values


def _warnings(result: PointsResult) -> list[str]:
    out = []
    if result.paths > 1:
        out.append(f"the points took {result.paths} different paths through the program's "
                   f"control flow; evaluated as {result.passes} vectorised passes")
    output, derivative = result.output, result.derivative
    if result.table.bad:  # rows not read are reported as such, not as non-finite values
        bad = np.zeros(result.count, dtype=bool)
        bad[list(result.table.bad)] = True

        def read(a: np.ndarray) -> np.ndarray:
            return np.where(bad.reshape((-1,) + (1,) * (a.ndim - 1)), 0.0, a)

        output, derivative = read(output), {k: read(v) for k, v in derivative.items()}
    return out + nonfinite_warnings(result.output_name, output, derivative, points=True)


def _samples(job: Job, values: dict[str, np.ndarray], names: list[str], of: str,
             result: PointsResult, sample: list[int] | None = None
             ) -> list[tuple[int, Sample]]:
    """The sampled rows' points and tape derivatives (copies: nothing of the table)."""
    good = [k for k in range(result.count) if k not in result.table.bad]
    rows = [good[i] for i in sample_rows(len(good))] if sample is None else sample
    return [(row, Sample(job, {k: v[row].copy() for k, v in values.items()}, list(names), of,
                         {k: v[row].copy() for k, v in result.derivative.items()},
                         result.weights)) for row in rows]


def _check_samples(samples: list[tuple[int, Sample]], program: Program,
                   progress: Progress) -> list[tuple[int, Any]]:
    """Each sampled row checked here, in order."""
    checks = []
    programs = {samples[0][1].job.program: program} if samples else {}
    for done, (row, sample) in enumerate(samples):
        progress("checking a sample", done, len(samples))
        checks.append((row, check_sample(sample, programs)))
    progress("checking a sample", len(samples), len(samples))
    return checks

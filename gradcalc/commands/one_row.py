"""One row of a --points table as a job of its own, so that `--explain`, `--graph` and
`--symbolic` (which show one run) can show the run at that row (`--explain-row N`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gradcalc.commands.jobs import Job, load_values
from gradcalc.errors import GradcalcError
from gradcalc.ingest.point_table import PointTable


def row_job(job: Job, table: PointTable, row: int) -> Job:
    """The job at data row `row` of the table (counted from 1, the header not counted):
    the row's values and the --at values, exactly (float64 goes through as a number)."""
    if not 1 <= row <= table.count:
        raise GradcalcError(f"--explain-row {row}: the table has {table.count} row"
                            f"{'s' if table.count != 1 else ''} (counted from 1)",
                            kind="usage")
    if row - 1 in table.bad:
        reason = table.rows.reason(row - 1) if table.rows is not None else "not read"
        raise GradcalcError(f"--explain-row {row}: that row could not be read: {reason}",
                            kind="value")
    shared = load_values(job.at, limits=job.limits) if job.at else {}
    both = sorted(set(shared) & set(table.values))
    if both:
        raise GradcalcError(f"{', '.join(both)} given both in --points and --at", kind="usage")
    point = {name: np.asarray(values[row - 1]).tolist() for name, values in table.values.items()}
    point.update({name: value.tolist() for name, value in shared.items()})
    return replace(job, at=point)


def describe(job: Job) -> str:
    """'x=1.5, y=[1, 2]': the point a row's explanation is about."""
    assert isinstance(job.at, dict)
    return ", ".join(f"{k}={_compact(v)}" for k, v in job.at.items())


def _compact(v: object) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_compact(x) for x in v) + "]"
    f = float(v)  # type: ignore[arg-type]
    return str(int(f)) if f.is_integer() and abs(f) < 1e15 else repr(f)

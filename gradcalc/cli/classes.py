"""A teacher's commands: `gradcalc grade` (a class's answers judged, with an answer key or
the function on every row; grades, Gradescope, the report, the summary) and `gradcalc
replay` (saved verdicts judged again from their receipts)."""

from __future__ import annotations

import sys
from typing import Any

import typer

from gradcalc.cli.app import REQUIRED, Parameter, declare
from gradcalc.cli.checking import JUDGING, settings_of
from gradcalc.cli.course import COURSE, GradeJsonOpt, ShowAnswersOpt, course_of
from gradcalc.cli.options import (
    ClassChunkRowsOpt,
    ClassPlainOpt,
    EngineOpt,
    GradescopeOpt,
    GradesOpt,
    JobsOpt,
    JsonOpt,
    KeyOpt,
    ReceiptsArg,
    ReportOpt,
    SchedulerOpt,
    SecondsOpt,
    SubmissionsArg,
    SummaryOpt,
    limits_of,
    stdin_note,
)
from gradcalc.errors import GradcalcError
from gradcalc.limits import DEFAULT_LIMITS
from gradcalc.render.formats import chosen

GRADE: list[Parameter] = [
    ("answers", SubmissionsArg, REQUIRED),
    ("key", KeyOpt, None),
    ("json_out", GradeJsonOpt, False),
    ("plain_out", ClassPlainOpt, False),
    *JUDGING,
    ("grades", GradesOpt, None),
    ("gradescope", GradescopeOpt, None),
    ("show_answers", ShowAnswersOpt, None),
    ("report", ReportOpt, None),
    ("summary", SummaryOpt, False),
    *COURSE,
    ("jobs", JobsOpt, "1"),
    ("chunk_rows", ClassChunkRowsOpt, None),
    ("engine", EngineOpt, "local"),
    ("scheduler", SchedulerOpt, None),
]
REPLAY: list[Parameter] = [
    ("verdicts", ReceiptsArg, REQUIRED),
    ("json_out", JsonOpt, False),
    ("plain_out", ClassPlainOpt, False),
    ("check_seconds", SecondsOpt, DEFAULT_LIMITS.check_seconds),
]
#: what only a local run writes (a Dask run writes lines)
FILES = ("key", "grades", "gradescope", "report", "summary")


def grade(o: dict[str, Any]) -> None:
    from gradcalc.run.classrun import ClassJob, write_class
    from gradcalc.run.workers import job_count

    fmt, file = chosen(o["json_out"], o["plain_out"]), o["answers"]
    if file == "-":
        stdin_note("the class file (CSV)")
    if o["engine"] == "dask":
        from gradcalc.run.cluster import run_class

        given = [f"--{n}" for n in (*FILES, "roster", "due") if o[n]]
        if given:
            raise GradcalcError(f"{given[0]} goes without --engine dask", kind="usage")
        raise typer.Exit(run_class(file, fmt, settings_of(o), limits_of(o), o["scheduler"],
                                   sys.stdout, sys.stderr))
    job = ClassJob(file, fmt, settings_of(o), limits_of(o), o["key"], o["grades"],
                   o["gradescope"], o["report"], o["summary"], job_count(o["jobs"]),
                   o["chunk_rows"], course_of(o), o["show_answers"])
    raise typer.Exit(write_class(job, sys.stdout, sys.stderr))


def replay(o: dict[str, Any]) -> None:
    from gradcalc.grading.replay import replay_file
    from gradcalc.render.replayed import write_replay

    fmt = chosen(o["json_out"], o["plain_out"])
    raise typer.Exit(write_replay(replay_file(o["verdicts"], limits_of(o)), fmt, sys.stdout,
                                  sys.stderr))


declare("grade", "A class: every answer in ANSWERS.csv judged (against an answer key with "
        "--key),\n    one verdict per row; the grades, Gradescope's results, the report and "
        "the summary.", GRADE, grade)
declare("replay", "Saved verdicts judged again from their receipts; exit 1 if any differs.",
        REPLAY, replay)

"""A teacher's commands: `gradcalc grade` (a class's answers judged, with an answer key or
the function on every row; grades, Gradescope, the report, the summary) and `gradcalc
replay` (saved verdicts judged again from their receipts)."""

from __future__ import annotations

import sys
from typing import Any

import typer

from gradcalc.cli.checking import JUDGING, settings_of
from gradcalc.cli.course_options import COURSE, GradeJsonOpt, ShowAnswersOpt, course_of
from gradcalc.cli.declaring import REQUIRED, Parameter, declare
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
    format_of,
    format_parameter,
    limits_of,
    run_of,
    stdin_note,
)
from gradcalc.limits import DEFAULT_LIMITS

GRADE: list[Parameter] = [
    ("answers", SubmissionsArg, REQUIRED),
    ("key", KeyOpt, None),
    ("json_out", GradeJsonOpt, False),
    ("plain_out", ClassPlainOpt, False),
    format_parameter(("class_view",)),
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
    format_parameter(("replayed",)),
    ("check_seconds", SecondsOpt, DEFAULT_LIMITS.check_seconds),
]


def grade(o: dict[str, Any]) -> None:
    from gradcalc.run.classrun import ClassJob
    from gradcalc.run.runners import engine_of

    run = run_of(o, o["answers"], format_of(o, ("class_view",)), sys.stdout)
    engine = engine_of(run)
    if run.source == "-":
        stdin_note("the class file (CSV)")
    job = ClassJob(run.source, run.sink.fmt, settings_of(o), limits_of(o), o["key"],
                   o["grades"], o["gradescope"], o["report"], o["summary"], run.options.jobs,
                   run.options.chunk_rows, course_of(o), o["show_answers"])
    raise typer.Exit(engine.grade(run, job))


def replay(o: dict[str, Any]) -> None:
    from gradcalc.grading.replay import replay_file
    from gradcalc.render.replayed import write_replay

    fmt = format_of(o, ("replayed",))
    raise typer.Exit(write_replay(replay_file(o["verdicts"], limits_of(o)), fmt, sys.stdout,
                                  sys.stderr))


declare("grade", "A class: every answer in ANSWERS.csv judged (against an answer key with "
        "--key),\n    one verdict per row; the grades, Gradescope's results, the report and "
        "the summary.", GRADE, grade)
declare("replay", "Saved verdicts judged again from their receipts; exit 1 if any differs.",
        REPLAY, replay)

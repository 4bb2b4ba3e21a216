"""`gradcalc batch`: one job per JSON line in, one JSON result per line out, in order."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from gradcalc.cli.declaring import Parameter, declare
from gradcalc.cli.options import (
    ChunkRowsOpt,
    ExplainLineOpt,
    IterOpt,
    JobsOpt,
    NoCheckOpt,
    OpsOpt,
    SecondsOpt,
    format_of,
    format_parameter,
    limits_of,
    stdin_note,
)
from gradcalc.cli.stdout import write_all
from gradcalc.errors import GradcalcError
from gradcalc.limits import DEFAULT_LIMITS

BatchFileArg = Annotated[str | None, typer.Argument(
    help="A file of JSON lines, one job each, or - for standard input (the default when "
    "input is piped).", show_default=False)]
PARAMETERS: list[Parameter] = [
    ("file", BatchFileArg, None),
    ("no_check", NoCheckOpt, False),
    ("check_seconds", SecondsOpt, DEFAULT_LIMITS.check_seconds),
    ("max_iterations", IterOpt, DEFAULT_LIMITS.max_iterations),
    ("max_operations", OpsOpt, DEFAULT_LIMITS.max_operations),
    ("jobs", JobsOpt, "1"),
    ("chunk_rows", ChunkRowsOpt, 500),
    ("explain_row", ExplainLineOpt, None),
    format_parameter(("answer",)),
]


def _open(file: str | None) -> Any:
    """The batch's lines: FILE, or standard input for '-' (or when piped)."""
    if file is None:
        if sys.stdin.isatty():
            raise GradcalcError("batch needs a FILE of JSON lines, or - for standard input "
                                "(nothing is piped in)", kind="usage")
        file = "-"
    if file == "-":
        stdin_note("batch jobs (one JSON object per line)")
        return sys.stdin.buffer
    try:
        return open(file, "rb")  # noqa: SIM115 - closed by the caller
    except OSError as exc:
        raise GradcalcError(f"cannot read batch file {file!r}: {exc.strerror}",
                            kind="usage") from None


def batch(o: dict[str, Any]) -> None:
    from gradcalc.commands import batch
    from gradcalc.run.workers import job_count

    line = format_of(o, ("answer",)).writer("answer")
    fh = _open(o["file"])
    tally, limits, check = batch.Tally(), limits_of(o), not o["no_check"]
    workers = 1 if o["explain_row"] is not None else job_count(o["jobs"])
    try:
        if workers > 1:
            from gradcalc.run.batch_jobs import answer_chunks

            write_all(answer_chunks(fh, tally, check, limits, workers, o["chunk_rows"]))
        else:
            answers = batch.run(fh, tally, check=check, limits=limits,
                                  explain_line=o["explain_row"])
            write_all(line(answer) for answer in answers)
    finally:
        if fh is not sys.stdin.buffer:
            fh.close()
    if tally.exit_code:
        raise typer.Exit(tally.exit_code)


declare("batch", "One job per JSON line in, one JSON result per line out, in order (on "
        "--jobs\n    processes: the same output).", PARAMETERS, batch)

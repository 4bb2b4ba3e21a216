"""grad, jacobian and hessian: declared from one parameter list, and run at one point,
over a --points table (in chunks, on --jobs processes or a Dask cluster), or at one row
of the table explained."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

import typer

from gradcalc.cli.declaring import REQUIRED, Parameter, declare
from gradcalc.cli.options import (
    AtolOpt,
    AtOpt,
    ChunkRowsOpt,
    DigitsOpt,
    EngineOpt,
    ExpectOpt,
    ExplainOpt,
    ExplainRowOpt,
    GraphOpt,
    IterOpt,
    JobsOpt,
    JsonOpt,
    LatexOpt,
    NamesOpt,
    NoCheckOpt,
    OfOpt,
    OpsOpt,
    OutputOpt,
    PlainOpt,
    PointsOpt,
    ProgramArg,
    RowOpt,
    RtolOpt,
    SchedulerOpt,
    SecondsOpt,
    SymbolicOpt,
    WeightsOpt,
    WrtOpt,
    format_of,
    format_parameter,
    limits_of,
    program_text,
    run_of,
    stdin_note,
)
from gradcalc.cli.stdout import Stdout, printable
from gradcalc.errors import GradcalcError
from gradcalc.limits import CHUNK_ROWS, DEFAULT_LIMITS
from gradcalc.render.formats import Format

#: what the derivative commands write: a result at a point, a --points table's rows
WRITES = ("result", "chunk")
#: the parameters of grad, jacobian and hessian, in the order --help lists them; each
#: command takes the ones that apply to it
PARAMETERS: list[Parameter] = [
    ("program", ProgramArg, REQUIRED),
    ("at", AtOpt, []),
    ("weights", WeightsOpt, None),  # grad only
    ("wrt", WrtOpt, None),
    ("of", OfOpt, None),
    ("json_out", JsonOpt, False),
    ("plain_out", PlainOpt, False),
    format_parameter(WRITES),
    ("no_check", NoCheckOpt, False),
    ("check_seconds", SecondsOpt, DEFAULT_LIMITS.check_seconds),
    ("max_iterations", IterOpt, DEFAULT_LIMITS.max_iterations),
    ("max_operations", OpsOpt, DEFAULT_LIMITS.max_operations),
    ("expect", ExpectOpt, None),
    ("rtol", RtolOpt, None),
    ("atol", AtolOpt, None),
    ("digits", DigitsOpt, None),
    ("points", PointsOpt, None),
    ("chunk_rows", ChunkRowsOpt, CHUNK_ROWS),
    ("jobs", JobsOpt, "1"),
    ("output", OutputOpt, None),
    ("engine", EngineOpt, "local"),
    ("scheduler", SchedulerOpt, None),
    ("symbolic", SymbolicOpt, False),
    ("latex", LatexOpt, False),
    ("explain", ExplainOpt, False),
    ("graph", GraphOpt, None),
    ("names", NamesOpt, "gradcalc"),
    ("row", RowOpt, None),
    ("explain_row", ExplainRowOpt, None),
]
#: the --points run's options, and their defaults (given elsewhere, a usage error)
SCALE = {"chunk_rows": CHUNK_ROWS, "jobs": "1", "output": None, "engine": "local",
         "scheduler": None}


def extras_of(o: dict[str, Any]) -> dict[str, Any]:
    """--symbolic, --latex, --explain and --graph (with --names and --row), checked."""
    graph, names, row = o["graph"], o["names"], o["row"]
    if graph is not None:
        from gradcalc.render.graph import NOTATIONS

        if graph not in NOTATIONS:
            raise GradcalcError(f"--graph takes {' or '.join(NOTATIONS)}, not {graph!r}",
                                kind="usage")
    if names not in ("gradcalc", "torch"):
        raise GradcalcError(f"--names takes gradcalc or torch, not {names!r}", kind="usage")
    if graph is None and (names != "gradcalc" or row is not None):
        raise GradcalcError("--names and --row go with --graph", kind="usage")
    out = {"symbolic": o["symbolic"] or o["latex"], "latex": o["latex"],
           "explain": o["explain"], "graph": graph}
    if graph is not None:
        out.update(names=names, row=row)
    return out


def run_derivative(command: str, o: dict[str, Any]) -> None:
    """One derivative command from its options `o` (PARAMETERS' names)."""
    from gradcalc.commands.jobs import Job
    from gradcalc.render.digits import Numbers, parse_digits

    numbers = Numbers(parse_digits(o["digits"]))
    fmt = format_of(o, WRITES)
    points, explain_row = o["points"], o["explain_row"]
    if points == "-" and o["program"] == "-":
        raise GradcalcError("the program and --points cannot both come from standard input",
                            kind="usage")
    wrt = [w.strip() for w in o["wrt"].split(",") if w.strip()] if o["wrt"] else None
    job = Job(command=command, program=program_text(o["program"]), at=o["at"],
              weights=o.get("weights"), wrt=wrt, of=o["of"], check=not o["no_check"],
              expect=o["expect"], limits=limits_of(o))
    job = replace(job, rtol=job.rtol if o["rtol"] is None else o["rtol"],
                  atol=job.atol if o["atol"] is None else o["atol"])
    extras = extras_of(o)
    scale = {k: o[k] for k in SCALE}
    if points is not None and (any(extras.values()) or explain_row is not None):
        failed = explain_points_row(job, points, explain_row or 1, extras, fmt, numbers)
    elif points is not None:
        failed = run_points(job, run_of(o, points, fmt, Stdout()))
    elif explain_row is not None:
        raise GradcalcError("--explain-row N picks a row of the --points table", kind="usage")
    else:
        scale_unused(scale, "--points")
        job = replace(job, symbolic=extras["symbolic"],
                      explain=extras["explain"] or extras["graph"] is not None)
        failed = run_one(job, fmt, extras, numbers)
    if failed:
        raise typer.Exit(1)


def run_one(job: Any, fmt: Format, extras: dict[str, Any], numbers: Any) -> bool:
    """One point: the result on stdout in the chosen format (or the graph, with --graph);
    whether a check failed."""
    from gradcalc.commands import one_point

    write = fmt.writer("graph" if extras.get("graph") else "result")
    result = one_point.run(job)
    if extras.get("graph") or extras.get("latex"):
        result.view.update(graph=extras.get("graph"), latex=extras.get("latex"),
                           explain=extras.get("explain"), names=extras.get("names"),
                           row=extras.get("row"))
    write(result, numbers, sys.stdout)
    return result.failed


def explain_points_row(job: Any, source: str, row: int, extras: dict[str, Any],
                       fmt: Format, numbers: Any) -> bool:
    """--points with --explain, --graph or --symbolic: the run at one row of the table,
    shown as a one-point command shows it (--explain-row N; the first row by default)."""
    from gradcalc.commands import points
    from gradcalc.commands.one_row import describe, row_job

    if source == "-":
        stdin_note("the --points table")
    fh = points.open_source(source)
    try:
        table = points.read_table(fh, reads=points.program_reads(job))
    finally:
        if fh is not sys.stdin:
            fh.close()
    if not any(extras.values()):
        extras = {**extras, "explain": True}
    one = replace(row_job(job, table, row), symbolic=extras.get("symbolic", False),
                  explain=bool(extras.get("explain")) or extras.get("graph") is not None)
    sys.stderr.write(f"note: row {row} of {table.count} in the --points table: "
                     f"{describe(one)}\n")
    return run_one(one, fmt, extras, numbers)


def run_points(job: Any, run: Any) -> bool:
    """--points: a table in, one row per point out (to stdout or --output), a note on the
    sampled check; in chunks, on --jobs processes or a Dask cluster (`run.engines`)."""
    from gradcalc.run.runners import engine_of

    engine = engine_of(run)
    if run.source == "-":
        stdin_note("the --points table")
    outcome = engine.points(run, job)
    for warning in outcome.warnings:
        sys.stderr.write(f"warning: {warning}\n")
    if outcome.note:
        sys.stderr.write(f"note: {outcome.note}\n")
    if outcome.error:  # bad input, reported after the rest
        sys.stderr.write(f"error: {printable(outcome.error)}\n")
        raise typer.Exit(2)
    return outcome.failed


def scale_unused(scale: dict[str, Any], needs: str) -> None:
    """The scale options given where they do nothing: a usage error."""
    given = [k for k, v in scale.items() if v != SCALE.get(k)]
    if given:
        raise GradcalcError(f"--{given[0].replace('_', '-')} goes with {needs}", kind="usage")


def _declare(command: str, doc: str, without: tuple[str, ...] = ()) -> None:
    declare(command, doc, [p for p in PARAMETERS if p[0] not in without],
            lambda o: run_derivative(command, o))


_declare("grad", "Gradient of a scalar output, or with --weights the vector-Jacobian "
         "product.")
_declare("jacobian", "Full Jacobian: shape = output shape + input shape, one batched reverse "
         "sweep; with\n    several inputs shown as one matrix (rows: outputs, columns: inputs).",
         without=("weights",))
_declare("hessian", "Hessian of a scalar output (second order through the tape); with "
         "several inputs\n    shown as one matrix.", without=("weights",))

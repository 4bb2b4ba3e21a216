"""The command line: a thin shell that reads arguments, calls `commands`, and renders.

One place (`main`) maps every failure to an `error:` line and an exit code: 0 success,
1 a check failed, 2 bad input or usage. No traceback ever reaches the user.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
from collections.abc import Iterable
from dataclasses import replace
from typing import Annotated, Any

import typer

try:  # typer >= 0.2x carries its own copy of click (click is not installed with it)
    from typer._click.exceptions import ClickException, UsageError
except ImportError:  # older typer, built on click
    from click.exceptions import ClickException, UsageError

from gradcalc.argv import (
    AntiderivativeOpt,
    AtolOpt,
    AtOpt,
    ChunkRowsOpt,
    ConstantOpt,
    DigitsOpt,
    EngineOpt,
    ExpectOpt,
    ExplainLineOpt,
    ExplainOpt,
    ExplainRowOpt,
    GraphOpt,
    ImplicitOpt,
    IntegersOpt,
    IterOpt,
    JobsOpt,
    JsonOpt,
    LatexOpt,
    NamesOpt,
    NoCheckOpt,
    OfOpt,
    OpsOpt,
    OrderOpt,
    OutputOpt,
    PartialOpt,
    PlainOpt,
    PointsOpt,
    ProgramArg,
    RowOpt,
    RtolOpt,
    SchedulerOpt,
    SecondsOpt,
    ShapeOpt,
    SymbolicOpt,
    WeightsOpt,
    WrtOpt,
    program_text,
    read_program,
    stdin_note,
)
from gradcalc.errors import GradcalcError, failure
from gradcalc.limits import CHUNK_ROWS, DEFAULT_LIMITS, Limits

app = typer.Typer(
    name="gradcalc",
    help="Gradients, vector-Jacobian products, Jacobians and Hessians of small programs, "
    "computed on gradcalc's own autograd tape and checked against sympy.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

def _extras(symbolic: bool, latex: bool, explain: bool, graph: str | None,
            names: str = "gradcalc", row: int | None = None) -> dict[str, Any]:
    if graph is not None and graph not in ("dot", "mermaid"):
        raise GradcalcError(f"--graph takes dot or mermaid, not {graph!r}", kind="usage")
    if names not in ("gradcalc", "torch"):
        raise GradcalcError(f"--names takes gradcalc or torch, not {names!r}", kind="usage")
    if graph is None and (names != "gradcalc" or row is not None):
        raise GradcalcError("--names and --row go with --graph", kind="usage")
    out = {"symbolic": symbolic or latex, "latex": latex, "explain": explain, "graph": graph}
    if graph is not None:
        out.update(names=names, row=row)
    return out


def _format(json_out: bool, plain_out: bool) -> str:
    if json_out and plain_out:
        raise GradcalcError("--json and --plain cannot be used together", kind="usage")
    return "json" if json_out else "plain" if plain_out else "rich"


def _limits(check_seconds: float, max_iterations: int, max_operations: int) -> Limits:
    return replace(DEFAULT_LIMITS, check_seconds=check_seconds, max_iterations=max_iterations,
                   max_operations=max_operations)


def _run(command: str, program: str, at: list[str], weights: str | None, wrt: str | None,
         of: str | None, json_out: bool, plain_out: bool, no_check: bool, limits: Limits,
         expect: str | None, points: str | None = None,
         extras: dict[str, Any] | None = None,
         view: tuple[str | None, float | None, float | None] = (None, None, None),
         scale: dict[str, Any] | None = None, explain_row: int | None = None) -> None:
    """One derivative command; `view` is (--digits, --rtol, --atol); `scale` the options
    of a --points run (--chunk-rows, --jobs, --output, --engine, --scheduler)."""
    from gradcalc.commands.jobs import Job
    from gradcalc.render.digits import Numbers, parse_digits

    digits, rtol, atol = view
    numbers = Numbers(parse_digits(digits))
    fmt = _format(json_out, plain_out)
    _state["format"] = fmt
    if points == "-" and program == "-":
        raise GradcalcError("the program and --points cannot both come from standard input",
                            kind="usage")
    job = Job(command=command, program=program_text(program), at=at, weights=weights,
              wrt=[w.strip() for w in wrt.split(",") if w.strip()] if wrt else None,
              of=of, check=not no_check, expect=expect, limits=limits)
    job = replace(job, rtol=job.rtol if rtol is None else rtol,
                  atol=job.atol if atol is None else atol)
    extras = extras or {}
    if points is not None and (any(extras.values()) or explain_row is not None):
        failed = _explain_points_row(job, points, explain_row or 1, extras, fmt, numbers)
    elif points is not None:
        failed = _run_points(job, points, fmt, scale or {})
    elif explain_row is not None:
        raise GradcalcError("--explain-row N picks a row of the --points table", kind="usage")
    else:
        _scale_unused(scale or {}, "--points")
        job = replace(job, symbolic=extras.get("symbolic", False),
                      explain=extras.get("explain", False) or extras.get("graph") is not None)
        failed = _run_one(job, fmt, extras, numbers)
    if failed:
        raise typer.Exit(1)


def _run_one(job: Any, fmt: str, extras: dict[str, Any], numbers: Any) -> bool:
    """One point: the result on stdout in the chosen format (or the graph, with --graph);
    whether a check failed."""
    from gradcalc.commands import derivatives

    result = derivatives.run(job)
    if extras.get("graph") or extras.get("latex"):
        from gradcalc.render import explain as explained

        result.view.update(graph=extras.get("graph"), latex=extras.get("latex"),
                           explain=extras.get("explain"), names=extras.get("names"),
                           row=extras.get("row"))
        if extras.get("graph") and fmt != "json":
            sys.stdout.write(explained.graph_text(result, extras["graph"]) + "\n")
            return result.failed
    if fmt == "json":
        from gradcalc.render.as_json import to_json

        sys.stdout.write(json.dumps(to_json(result)) + "\n")
    elif fmt == "plain":
        from gradcalc.render.plain import notes, plain

        sys.stdout.write(plain(result, numbers) + "\n")
        sys.stderr.writelines(line + "\n" for line in notes(result, numbers))
    else:
        from gradcalc.render.terminal import draw, show

        draw(lambda console: show(result, console, numbers))
    return result.failed


def _explain_points_row(job: Any, source: str, row: int, extras: dict[str, Any], fmt: str,
                        numbers: Any) -> bool:
    """--points with --explain, --graph or --symbolic: the run at one row of the table,
    shown as a one-point command shows it (--explain-row N; the first row by default)."""
    from gradcalc.commands import points
    from gradcalc.commands.point_row import describe, row_job

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
    return _run_one(one, fmt, extras, numbers)


def _run_points(job: Any, source: str, fmt: str, scale: dict[str, Any]) -> bool:
    """--points: a table in, one row per point out (to stdout or --output), a note on the
    sampled check; in chunks, on --jobs processes or a Dask cluster."""
    from gradcalc.commands.parallel import job_count
    from gradcalc.render import stream

    if source == "-":
        stdin_note("the --points table")
    options = dict(kind="json" if fmt == "json" else "plain" if fmt == "plain" else "csv",
                   output=scale.get("output"), chunk_rows=scale.get("chunk_rows", CHUNK_ROWS))
    if scale.get("engine", "local") == "dask":
        from gradcalc.render import cluster

        outcome = cluster.run_points(job, source, scheduler=scale.get("scheduler"), **options)
    else:
        if scale.get("engine", "local") != "local":
            raise GradcalcError(f"--engine takes local or dask, not {scale['engine']!r}",
                                kind="usage")
        from gradcalc.commands.parallel import one_heap

        one_heap()  # the chunks' memory stays one chunk's (see one_heap)
        bar = stream.LazyBar()
        try:
            outcome = stream.run(job, source, jobs=job_count(scale.get("jobs")),
                                 progress=bar, stdout=_Stdout(), **options)
        finally:
            bar.close()
    for warning in outcome.warnings:
        sys.stderr.write(f"warning: {warning}\n")
    if outcome.note:
        sys.stderr.write(f"note: {outcome.note}\n")
    if outcome.error:  # bad input, reported after the rest
        sys.stderr.write(f"error: {_printable(outcome.error)}\n")
        raise typer.Exit(2)
    return outcome.failed


def _scale_unused(scale: dict[str, Any], needs: str) -> None:
    """The scale options given where they do nothing: a usage error."""
    defaults = {"chunk_rows": CHUNK_ROWS, "jobs": "1", "output": None, "engine": "local",
                "scheduler": None}
    given = [k for k, v in scale.items() if v != defaults.get(k)]
    if given:
        raise GradcalcError(f"--{given[0].replace('_', '-')} goes with {needs}", kind="usage")


class _Stdout:
    """Standard output for a stream of chunks (text, or bytes to its buffer): a closed
    pipe (`| head`) ends the output quietly (the reader has what it wanted)."""

    takes_bytes = True

    def write(self, text: str | bytes) -> None:
        try:
            if isinstance(text, bytes):
                sys.stdout.flush()
                if hasattr(sys.stdout, "buffer"):
                    sys.stdout.buffer.write(text)
                else:  # a test's captured output
                    sys.stdout.write(text.decode())
            else:
                sys.stdout.write(text)
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(0) from None

    def flush(self) -> None:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(0) from None


def _write_all(chunks: Iterable[str]) -> None:
    """Each chunk to stdout as it is ready; a closed pipe (`| head`) ends the output quietly:
    the reader has what it wanted."""
    try:
        for chunk in chunks:
            sys.stdout.write(chunk)
            sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


_state: dict[str, str] = {"format": "rich"}


def _version(value: bool) -> None:
    if value:
        from gradcalc import __version__

        sys.stdout.write(f"gradcalc {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _options(
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True,
        help="Print gradcalc's version and exit.")] = False,
) -> None:
    """Gradients, vector-Jacobian products, Jacobians and Hessians of small programs,
    computed on gradcalc's own autograd tape and checked against sympy."""


#: the parameters of grad, jacobian and hessian, in the order --help lists them: (name,
#: option alias, default); declared once, each command takes the ones that apply to it
_PARAMETERS: list[tuple[str, Any, Any]] = [
    ("program", ProgramArg, inspect.Parameter.empty),
    ("at", AtOpt, []),
    ("weights", WeightsOpt, None),  # grad only
    ("wrt", WrtOpt, None),
    ("of", OfOpt, None),
    ("json_out", JsonOpt, False),
    ("plain_out", PlainOpt, False),
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


def _derivative_command(command: str, doc: str, without: tuple[str, ...] = ()) -> None:
    """Register grad, jacobian or hessian: one function over the shared parameters, with
    the signature typer reads built from `_PARAMETERS` (less the ones in `without`)."""
    params = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                annotation=alias)
              for name, alias, default in _PARAMETERS if name not in without]

    def run(**o: Any) -> None:
        _run(command, o["program"], o["at"], o.get("weights"), o["wrt"], o["of"],
             o["json_out"], o["plain_out"], o["no_check"],
             _limits(o["check_seconds"], o["max_iterations"], o["max_operations"]),
             o["expect"], o["points"],
             _extras(o["symbolic"], o["latex"], o["explain"], o["graph"], o["names"],
                     o["row"]),
             (o["digits"], o["rtol"], o["atol"]),
             {k: o[k] for k in ("chunk_rows", "jobs", "output", "engine", "scheduler")},
             o["explain_row"])

    run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params}
    run.__doc__ = doc
    run.__name__ = command
    app.command(name=command)(run)


_derivative_command(
    "grad", "Gradient of a scalar output, or with --weights the vector-Jacobian product.")
_derivative_command(
    "jacobian", "Full Jacobian: shape = output shape + input shape, one batched reverse sweep; "
    "with\n    several inputs shown as one matrix (rows: outputs, columns: inputs).",
    without=("weights",))
_derivative_command(
    "hessian", "Hessian of a scalar output (second order through the tape); with several "
    "inputs\n    shown as one matrix.", without=("weights",))


@app.command()
def batch(
    file: Annotated[str | None, typer.Argument(
        help="A file of JSON lines, one job each, or - for standard input (the default when "
        "input is piped).", show_default=False)] = None,
    no_check: NoCheckOpt = False,
    check_seconds: SecondsOpt = DEFAULT_LIMITS.check_seconds,
    max_iterations: IterOpt = DEFAULT_LIMITS.max_iterations,
    max_operations: OpsOpt = DEFAULT_LIMITS.max_operations,
    jobs: JobsOpt = "1",
    chunk_rows: ChunkRowsOpt = 500,
    explain_row: ExplainLineOpt = None,
) -> None:
    """One job per JSON line in, one JSON result per line out, in order (on --jobs
    processes: the same output)."""
    from gradcalc.commands import batch as batch_mod
    from gradcalc.render.as_json import answer_json

    _state["format"] = "json"
    if file is None:
        if sys.stdin.isatty():
            raise GradcalcError("batch needs a FILE of JSON lines, or - for standard input "
                                "(nothing is piped in)", kind="usage")
        file = "-"
    if file == "-":
        stdin_note("batch jobs (one JSON object per line)")
        fh: Any = sys.stdin.buffer
    else:
        try:
            fh = open(file, "rb")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise GradcalcError(f"cannot read batch file {file!r}: {exc.strerror}",
                                kind="usage") from None
    from gradcalc.commands.parallel import job_count

    tally = batch_mod.Tally()
    limits = _limits(check_seconds, max_iterations, max_operations)
    workers = 1 if explain_row is not None else job_count(jobs)
    try:
        if workers > 1:
            from gradcalc.render.batch_jobs import answer_chunks

            _write_all(answer_chunks(fh, tally, not no_check, limits, workers, chunk_rows))
        else:
            answers = batch_mod.run(fh, tally, check=not no_check, limits=limits,
                                    explain_line=explain_row)
            _write_all(json.dumps(answer_json(answer)) + "\n" for answer in answers)
    finally:
        if fh is not sys.stdin.buffer:
            fh.close()
    if tally.exit_code:
        raise typer.Exit(tally.exit_code)


@app.command()
def plot(
    program: ProgramArg,
    over: Annotated[str, typer.Option(
        "--over", help="The input and its interval, e.g. x=-3:3.", show_default=False)],
    at: AtOpt = [],  # noqa: B006
    of: OfOpt = None,
    samples: Annotated[int, typer.Option("--samples", help="Grid points.")] = 201,
    width: Annotated[int, typer.Option("--width", min=20, max=1000,
                                       help="Columns of the drawing.")] = 72,
    height: Annotated[int, typer.Option("--height", min=8, max=500,
                                        help="Rows of the drawing.")] = 20,
    ylim: Annotated[str | None, typer.Option(
        "--ylim", metavar="LOW:HIGH", help="The y-axis range (default: the curves' range "
        "away from any pole); values beyond it are cut off.", show_default=False)] = None,
    save: Annotated[str | None, typer.Option(
        "--save", metavar="FILE.svg|png",
        help="Also write the plot to a file (needs the plot extra: matplotlib).")] = None,
    json_out: JsonOpt = False,
    max_iterations: IterOpt = DEFAULT_LIMITS.max_iterations,
    max_operations: OpsOpt = DEFAULT_LIMITS.max_operations,
) -> None:
    """The function and its derivative over an interval of one scalar input, drawn in the
    terminal (the function a line, its derivative dots, poles their asymptotes): the notes
    below name each pole, step, kink and undefined stretch."""
    from gradcalc.commands import plot as plotting
    from gradcalc.render import plot as drawing

    _state["format"] = "json" if json_out else "rich"
    limits = replace(DEFAULT_LIMITS, max_iterations=max_iterations,
                     max_operations=max_operations)
    data = plotting.run(read_program(program), over, at, samples, of, limits, ylim)
    if save is not None:
        drawing.save(data, save)
    if json_out:
        sys.stdout.write(json.dumps(drawing.to_json(data)) + "\n")
        return
    sys.stdout.write(drawing.terminal(data, width, height, drawing.want_color()) + "\n")
    sys.stdout.write("\n".join(drawing.notes(data)) + "\n")


@app.command()
def check(
    function: Annotated[str | None, typer.Argument(
        help="The function: text, @FILE or - for standard input (not with --file).",
        show_default=False)] = None,
    answer: Annotated[str | None, typer.Option(
        "--answer", help="The claimed derivative, gradient [d/dx, d/dy] or Jacobian "
        "[[row], ...] (text or @FILE).", show_default=False)] = None,
    wrt: WrtOpt = None,
    file: Annotated[str | None, typer.Option(
        "--file", metavar="ANSWERS.csv", help="A class: CSV columns id,function,answer[,wrt]; "
        "one verdict per row.", show_default=False)] = None,
    json_out: JsonOpt = False,
    plain_out: Annotated[bool, typer.Option("--plain", help="The verdict in one line.")] = False,
    rtol: Annotated[float, typer.Option("--rtol", min=0, help="Relative tolerance.")] = 1e-6,
    atol: Annotated[float, typer.Option("--atol", min=0, help="Absolute tolerance.")] = 1e-9,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the random points.")] = 0,
    samples: Annotated[int, typer.Option(
        "--samples", min=1, max=1000, help="Points that must agree for a numeric verdict.")] = 8,
    prove: Annotated[bool, typer.Option(
        "--prove", help="Also try sympy's full simplify (slower) before a numeric verdict.")]
    = False,
    check_seconds: SecondsOpt = DEFAULT_LIMITS.check_seconds,
    order: OrderOpt = 1,
    partial: PartialOpt = None,
    at: AtOpt = [],  # noqa: B006 - typer's list option
    implicit: ImplicitOpt = None,
    antiderivative: AntiderivativeOpt = False,
    constant: ConstantOpt = "optional",
    shape: ShapeOpt = None,
    integers: IntegersOpt = False,
    jobs: JobsOpt = "1",
    chunk_rows: ChunkRowsOpt = 500,
    engine: EngineOpt = "local",
    scheduler: SchedulerOpt = None,
    key: Annotated[str | None, typer.Option(
        "--key", metavar="KEY.csv", help="An answer key: columns problem,function[,wrt,"
        "rtol,atol,points] and, for other kinds of problem, order, partial, at, kind, "
        "implicit, constant, shape, integers; --file then holds submissions "
        "student,problem,answer.",
        show_default=False)] = None,
    grades: Annotated[str | None, typer.Option(
        "--grades", metavar="FILE.csv", help="Write the grades: one row per student, a "
        "column per problem and the total (Canvas/Moodle import).", show_default=False)] = None,
    gradescope: Annotated[str | None, typer.Option(
        "--gradescope", metavar="FILE.json", help="Write Gradescope's results.json for one "
        "student's submission.", show_default=False)] = None,
    report: Annotated[str | None, typer.Option(
        "--report", metavar="FILE.html", help="Write the class picture: one static HTML "
        "page.", show_default=False)] = None,
    summary: Annotated[bool, typer.Option(
        "--summary", help="Print the class picture: per problem, mistakes, students.")]
    = False,
    replay: Annotated[str | None, typer.Option(
        "--replay", metavar="VERDICTS.jsonl", help="Judge saved verdicts again from their "
        "receipts; exit 1 if any differs.", show_default=False)] = None,
) -> None:
    """Homework: is ANSWER the derivative, gradient or Jacobian of FUNCTION (or its N-th
    derivative, a mixed partial, dy/dx of an equation, an antiderivative)?"""
    from gradcalc.commands import check as checking
    from gradcalc.verify.homework.judge import Settings
    from gradcalc.verify.homework.kinds import Kind

    fmt = _format(json_out, plain_out)
    _state["format"] = fmt
    settings = Settings(rtol=rtol, atol=atol, samples=samples, seed=seed, prove=prove)
    limits = replace(DEFAULT_LIMITS, check_seconds=check_seconds)
    kind = Kind.read(order, partial, at, implicit, antiderivative, constant, shape, integers,
                     limits)
    if replay is not None:
        from gradcalc.render.replay import write_replay

        if function is not None or answer is not None or file is not None or key:
            raise GradcalcError("--replay goes alone: the receipts hold what was judged",
                                kind="usage")

        raise typer.Exit(write_replay(replay, fmt, limits, sys.stdout, sys.stderr))
    class_only = [o for o, v in (("--key", key), ("--grades", grades), ("--gradescope",
                  gradescope), ("--report", report), ("--summary", summary)) if v]
    if class_only and file is None:
        raise GradcalcError(f"{class_only[0]} goes with --file (a class's answers)",
                            kind="usage")
    if file is not None:
        if function is not None or answer is not None:
            raise GradcalcError("--file goes without FUNCTION and --answer", kind="usage")
        if not kind.plain:
            raise GradcalcError("--order, --partial, --at, --implicit, --antiderivative and "
                                "--shape go with one answer (FUNCTION --answer ANSWER), not "
                                "--file", kind="usage")
        from gradcalc.render.classrun import ClassJob, write_class

        if file == "-":
            stdin_note("the class file (CSV)")
        from gradcalc.commands.parallel import job_count

        if engine == "dask":
            from gradcalc.render.cluster import run_class

            if class_only:
                raise GradcalcError(f"{class_only[0]} goes without --engine dask",
                                    kind="usage")
            raise typer.Exit(run_class(file, fmt, settings, limits, scheduler, sys.stdout,
                                       sys.stderr))
        raise typer.Exit(write_class(ClassJob(file, fmt, settings, limits, key, grades,
                                              gradescope, report, summary, job_count(jobs),
                                              chunk_rows), sys.stdout, sys.stderr))
    if function is None or answer is None:
        raise GradcalcError("check needs FUNCTION and --answer ANSWER (or --file ANSWERS.csv)",
                            kind="usage")
    if function == "-" and answer == "-":
        raise GradcalcError("only one of FUNCTION and --answer can be read from standard "
                            "input (-)", kind="usage")
    _scale_unused({"jobs": jobs, "engine": engine, "scheduler": scheduler}, "--file")
    verdict = checking.run(checking.CheckJob(
        read_program(function), read_program(answer) if answer.startswith("@") or
        answer == "-" else answer,
        checking.split_wrt(wrt), settings, limits, kind=kind))
    from gradcalc.render import homework as render

    if fmt == "rich":
        from gradcalc.render.terminal import draw

        draw(lambda console: render.show(verdict, console))
    else:
        sys.stdout.write(render.verdict_text(verdict, fmt))
    if not verdict.ok:
        raise typer.Exit(1)


#: an error message is cut to this length (user text in it is already quoted and cut)
MAX_MESSAGE_CHARS = 2_000


def _printable(message: str) -> str:
    """The message with every non-printable character (ESC and other controls, bidi and
    zero-width marks, surrogates) as a \\uXXXX escape, so user text quoted in an error can
    never drive the terminal; line breaks stay."""
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[:MAX_MESSAGE_CHARS] + "..."
    if message.isprintable():
        return message
    return "".join(c if c == "\n" or c.isprintable() else
                   f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"
                   for c in message)


def _fail(kind: str, message: str) -> int:
    from gradcalc.render.as_json import error_json

    message = _printable(message)
    if _state["format"] == "json":
        sys.stdout.write(json.dumps(error_json(kind, message)) + "\n")
    sys.stderr.write(f"error: {message}\n")
    return 2


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `gradcalc` script: run the app, map failures to exit codes."""
    args = list(sys.argv[1:] if argv is None else argv)
    from gradcalc.render.encoding import tolerate_narrow_streams

    tolerate_narrow_streams()
    _state["format"] = "json" if "--json" in args else "rich"
    from typer.main import get_command

    from gradcalc.argv import protect_dash_program

    command = get_command(app)
    if not args:
        args = ["--help"]  # bare `gradcalc`: the help, and success
    try:
        code = command.main(args=protect_dash_program(args, command), prog_name="gradcalc",
                            standalone_mode=False)
        return code if isinstance(code, int) else 0
    except typer.Exit as exc:
        return exc.exit_code
    except UsageError as exc:
        return _fail("usage", exc.format_message())
    except ClickException as exc:
        return _fail("usage", exc.format_message())
    except typer.Abort:
        return _fail("usage", "aborted")
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        return 130
    except Exception as exc:  # noqa: BLE001 - the one place that turns bugs into a clean line
        if os.environ.get("GRADCALC_DEBUG") and not isinstance(
                exc, (GradcalcError, RecursionError, MemoryError)):
            raise
        return _fail(*failure(exc, "set GRADCALC_DEBUG=1 for a traceback and please report it"))

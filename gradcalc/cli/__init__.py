"""The command line: a thin shell that reads arguments, calls `commands`, and renders.

One place (`main`) maps every failure to an `error:` line and an exit code: 0 success,
1 a check failed, 2 bad input or usage. No traceback ever reaches the user.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
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
    ClassChunkRowsOpt,
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
    read_program,
    stdin_note,
)
from gradcalc.cli.run import (
    extras_of,
    limits_of,
    output_format,
    printable,
    run_derivative,
    scale_unused,
    state,
    write_all,
)
from gradcalc.errors import GradcalcError, failure
from gradcalc.limits import CHUNK_ROWS, DEFAULT_LIMITS

app = typer.Typer(
    name="gradcalc",
    help="Gradients, vector-Jacobian products, Jacobians and Hessians of small programs, "
    "computed on gradcalc's own autograd tape and checked against sympy.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

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
        run_derivative(command, o["program"], o["at"], o.get("weights"), o["wrt"], o["of"],
             o["json_out"], o["plain_out"], o["no_check"],
             limits_of(o["check_seconds"], o["max_iterations"], o["max_operations"]),
             o["expect"], o["points"],
             extras_of(o["symbolic"], o["latex"], o["explain"], o["graph"], o["names"],
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

    state["format"] = "json"
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
    limits = limits_of(check_seconds, max_iterations, max_operations)
    workers = 1 if explain_row is not None else job_count(jobs)
    try:
        if workers > 1:
            from gradcalc.render.batch_jobs import answer_chunks

            write_all(answer_chunks(fh, tally, not no_check, limits, workers, chunk_rows))
        else:
            answers = batch_mod.run(fh, tally, check=not no_check, limits=limits,
                                    explain_line=explain_row)
            write_all(json.dumps(answer_json(answer)) + "\n" for answer in answers)
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

    state["format"] = "json" if json_out else "rich"
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
    chunk_rows: ClassChunkRowsOpt = None,
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

    fmt = output_format(json_out, plain_out)
    state["format"] = fmt
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
    scale_unused({"jobs": jobs, "engine": engine, "scheduler": scheduler}, "--file")
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


def _fail(kind: str, message: str) -> int:
    from gradcalc.render.as_json import error_json

    message = printable(message)
    if state["format"] == "json":
        sys.stdout.write(json.dumps(error_json(kind, message)) + "\n")
    sys.stderr.write(f"error: {message}\n")
    return 2


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `gradcalc` script: run the app, map failures to exit codes."""
    args = list(sys.argv[1:] if argv is None else argv)
    from gradcalc.render.encoding import tolerate_narrow_streams

    tolerate_narrow_streams()
    state["format"] = "json" if "--json" in args else "rich"
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

"""The command line's arguments before a command runs: the options, declared once as
`Annotated` aliases that every command reuses; the program argument, read from the text
itself, @FILE or standard input; and forgiveness for what a user types that an option
parser would misread.

A program that starts with `-` (`grad "-x^2" --at x=1`) looks like an option to click,
so before parsing, such an argument in the program's place gets a leading space (which
the program reader strips). A program argument that names an existing file and is not a
program gets "did you mean @FILE?".
"""

from __future__ import annotations

import os
import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from gradcalc.errors import GradcalcError
from gradcalc.limits import DEFAULT_LIMITS, Limits

# --------------------------------------------------------------------------- the options

MAX_PROGRAM_BYTES = 1_000_000

ProgramArg = Annotated[str, typer.Argument(
    help="The program: text, @FILE to read a file, or - to read standard input.",
    show_default=False)]
AtOpt = Annotated[list[str], typer.Option(
    "--at", "-a", help="Input values, e.g. 'x=[1,2]' or 'a=1, b=2' (repeatable).",
    show_default=False)]
WrtOpt = Annotated[str | None, typer.Option(
    "--wrt", help="Differentiate with respect to these inputs only (comma-separated).")]
OfOpt = Annotated[str | None, typer.Option(
    "--of", help="The output to differentiate (default: the last assigned name).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")]
PlainOpt = Annotated[bool, typer.Option("--plain", help="Numbers only, one row per line.")]
NoCheckOpt = Annotated[bool, typer.Option(
    "--no-check", help="Skip the check against sympy's symbolic derivative.")]
SecondsOpt = Annotated[float, typer.Option(
    "--check-seconds", min=0.01, max=3600,
    help="CPU seconds sympy may spend on each step of the symbolic check (not wall-clock "
    "time: a busy machine changes nothing); past them, finite differences are used.")]
IterOpt = Annotated[int, typer.Option(
    "--max-iterations", min=1, max=100_000_000, help="Bound on loop iterations in one run.")]
OpsOpt = Annotated[int, typer.Option(
    "--max-operations", min=1, max=1_000_000_000,
    help="Bound on operations evaluated in one run (each costs about a microsecond).")]
WeightsOpt = Annotated[str | None, typer.Option(
    "--weights", "-w",
    help="Weights of the output's shape: computes the vector-Jacobian product "
    "(PyTorch's y.backward(w)).")]
ExpectOpt = Annotated[str | None, typer.Option(
    "--expect", help="Expected derivative: values or expressions of numbers, e.g. 'x=[6,6]' "
    "or 'x=2*sin(1)+cos(1)'; a mismatch exits with 1.")]
RtolOpt = Annotated[float | None, typer.Option(
    "--rtol", help="--expect's relative tolerance (default 1e-9).", show_default=False)]
AtolOpt = Annotated[float | None, typer.Option(
    "--atol", help="--expect's absolute tolerance (default 1e-12).", show_default=False)]
DigitsOpt = Annotated[str | None, typer.Option(
    "--digits", metavar="N|full",
    help="Significant digits in the readable and plain views (default 15; values below "
    "1e-15 of their array's scale read 0); 'full' prints every digit. JSON is never rounded.",
    show_default=False)]
PointsOpt = Annotated[str | None, typer.Option(
    "--points", metavar="FILE.csv",
    help="A CSV table of points (header: input names, x[0],x[1] for vectors; - for standard "
    "input), a Parquet file, a glob or a directory of them: one answer row per point, in "
    "vectorised passes of --chunk-rows rows.",
    show_default=False)]

# --- homework: check (one answer) and grade (a class) ---------------------------------
FunctionArg = Annotated[str | None, typer.Argument(
    help="The function: text, @FILE or - for standard input.", show_default=False)]
AnswerOpt = Annotated[str | None, typer.Option(
    "--answer", help="The claimed derivative, gradient [d/dx, d/dy] or Jacobian "
    "[[row], ...] (text or @FILE).", show_default=False)]
VerdictPlainOpt = Annotated[bool, typer.Option("--plain", help="The verdict in one line.")]
ClassPlainOpt = Annotated[bool, typer.Option("--plain", help="One verdict per line.")]
CheckRtolOpt = Annotated[float, typer.Option("--rtol", min=0, help="Relative tolerance.")]
CheckAtolOpt = Annotated[float, typer.Option("--atol", min=0, help="Absolute tolerance.")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed of the random points.")]
SamplesOpt = Annotated[int, typer.Option(
    "--samples", min=1, max=1000, help="Points that must agree for a numeric verdict.")]
ProveOpt = Annotated[bool, typer.Option(
    "--prove", help="Also try sympy's full simplify (slower) before a numeric verdict.")]
SubmissionsArg = Annotated[str, typer.Argument(
    metavar="ANSWERS.csv", help="A class's answers: with --key, submissions "
    "student,problem,answer; without, columns id,function,answer[,wrt] (- for standard "
    "input).", show_default=False)]
KeyOpt = Annotated[str | None, typer.Option(
    "--key", metavar="KEY.csv", help="An answer key: columns problem,function[,wrt,rtol,"
    "atol,points], for other kinds of problem the kind columns (kind, order, partial, at, "
    "implicit, constant, shape, integers, domain), and params, term, hints (parameters "
    "drawn per student, the term's seed, the teacher's hints); the answers are then "
    "submissions "
    "student,problem,answer.", show_default=False)]
GradesOpt = Annotated[str | None, typer.Option(
    "--grades", metavar="FILE.csv", help="Write the grades: one row per student, a column "
    "per problem and the total (Canvas/Moodle import).", show_default=False)]
GradescopeOpt = Annotated[str | None, typer.Option(
    "--gradescope", metavar="FILE.json", help="Write Gradescope's results.json for one "
    "student's submission.", show_default=False)]
ReportOpt = Annotated[str | None, typer.Option(
    "--report", metavar="FILE.html", help="Write the class picture: one static HTML page.",
    show_default=False)]
SummaryOpt = Annotated[bool, typer.Option(
    "--summary", help="Print the class picture: per problem, mistakes, students.")]
# --- handing out: sheets (run/sheetrun.py) -----------------------------------------------
SheetKeyOpt = Annotated[str, typer.Option(
    "--key", metavar="KEY.csv", help="The answer key (its params column: the parameters "
    "drawn for each student; term: the term's seed).", show_default=False)]
RosterOpt = Annotated[str | None, typer.Option(
    "--roster", metavar="ROSTER.csv", help="The students: Gradescope's, Canvas's or "
    "Moodle's roster export, or a CSV with a student column (id, student, email, ...); "
    "the name, the section and other columns go on each page.",
    show_default=False)]
StudentOpt = Annotated[list[str], typer.Option(
    "--student", metavar="ID", help="A student (repeatable), beside or instead of "
    "--roster.", show_default=False)]
SheetsOutOpt = Annotated[str | None, typer.Option(
    "--out", metavar="DIR", help="Write the files into DIR (made if missing): "
    "sheet-ID.html per student, sheets.csv, teacher.html; all or none. Without it, the "
    "sheets are printed.", show_default=False)]
TitleOpt = Annotated[str, typer.Option("--title", metavar="TEXT", help="The pages' title.")]
SheetsJsonOpt = Annotated[bool, typer.Option(
    "--json", help="One JSON object per student and problem (per line).")]
AnswersOpt = Annotated[bool, typer.Option(
    "--answers", help="Printed sheets also show each answer (the teacher's copy always "
    "does).")]
SheetsPlainOpt = Annotated[bool, typer.Option(
    "--plain", help="One line per student and problem, separated by tabs.")]
ReceiptsArg = Annotated[str, typer.Argument(
    metavar="VERDICTS.jsonl", help="Verdicts saved by check --json or grade --json, each "
    "with its receipt (- for standard input).", show_default=False)]


def kind_parameters() -> list[tuple[str, Any, Any]]:
    """The options of a problem's kind, from the registry (homework/kinds/registry.py):
    one per setting, named, explained and defaulted as the registry says."""
    from dataclasses import fields

    from gradcalc.homework.kinds.registry import MAX_ORDER, SETTINGS, Kind

    defaults = {f.name: f.default for f in fields(Kind)}
    out: list[tuple[str, Any, Any]] = []
    for s in SETTINGS:
        default = defaults[s.name]
        if s.flag:
            alias: Any = Annotated[bool, typer.Option(s.option, help=s.help)]
        elif isinstance(default, int):
            alias = Annotated[int, typer.Option(s.option, min=1, max=MAX_ORDER, help=s.help)]
        elif s.repeatable:
            alias = Annotated[list[str], typer.Option(s.option, metavar=s.metavar,
                                                      help=s.help, show_default=False)]
            default = []
        elif isinstance(default, str):
            alias = Annotated[str, typer.Option(s.option, metavar=s.metavar, help=s.help)]
        else:
            alias = Annotated[str | None, typer.Option(s.option, metavar=s.metavar,
                                                       help=s.help, show_default=False)]
            default = None
        out.append((s.name, alias, default))
    return out


# --- scale: chunks, processes, files and a cluster (run/stream.py, run/workers.py)
ChunkRowsOpt = Annotated[int, typer.Option(
    "--chunk-rows", min=1, max=100_000_000, help="Rows read, answered and written at a "
    "time: memory depends on this, not on the input's length.")]
ClassChunkRowsOpt = Annotated[int | None, typer.Option(
    "--chunk-rows", min=1, max=100_000_000, show_default=False, help="Rows of the class "
    "file a --jobs worker reads and judges at a time (default: about eight spans a "
    "worker, 20 to 500 rows), and rows of the table drawn at a time (default 500).")]
JobsOpt = Annotated[str, typer.Option(
    "--jobs", metavar="N|auto", help="Worker processes (auto: one per core); the output is "
    "the same as with one.")]
OutputOpt = Annotated[str | None, typer.Option(
    "--output", metavar="FILE.csv|FILE.parquet", help="Write the rows to this file "
    "(Parquet needs the fast extra); it appears only when every row is written.",
    show_default=False)]
EngineOpt = Annotated[str, typer.Option(
    "--engine", metavar="local|dask", help="Where the chunks run: this machine, or a Dask "
    "cluster (the dask extra).")]
SchedulerOpt = Annotated[str | None, typer.Option(
    "--scheduler", metavar="ADDRESS", help="The Dask scheduler (tcp://host:8786); none: a "
    "local cluster.", show_default=False)]

# --- explanations: --symbolic, --latex, --explain, --graph (render/explanations.py) -----------
SymbolicOpt = Annotated[bool, typer.Option(
    "--symbolic", help="Also the derivative as a formula (sympy, simplified within "
    "--check-seconds), and its exact value at the point where there is one.")]
LatexOpt = Annotated[bool, typer.Option("--latex", help="--symbolic, with the formula as LaTeX.")]
ExplainOpt = Annotated[bool, typer.Option(
    "--explain", help="Also the tape (each step, its source text and value) and the backward "
    "sweep that turns it into the derivative.")]
NamesOpt = Annotated[str, typer.Option(
    "--names", metavar="gradcalc|torch", help="--graph's node names: gradcalc's operations, "
    "or PyTorch's grad_fn names (MulBackward0, AccumulateGrad for an input) as torchviz "
    "shows them.")]
RowOpt = Annotated[int | None, typer.Option(
    "--row", metavar="K", min=0, help="--graph --explain of a Jacobian: only row K's sweep "
    "(from 0; default: every row, each labelled).", show_default=False)]
ExplainRowOpt = Annotated[int | None, typer.Option(
    "--explain-row", metavar="N", min=1, help="With --points: show the run at row N of the "
    "table (from 1) with --explain, --graph or --symbolic (--explain if none is given).",
    show_default=False)]
ExplainLineOpt = Annotated[int | None, typer.Option(
    "--explain-row", metavar="N", min=1, help="Line N's answer (from 1) also carries the "
    "tape and the backward sweep of its run, as --json --explain shows them.",
    show_default=False)]
GraphOpt = Annotated[str | None, typer.Option(
    "--graph", metavar="dot|mermaid", help="Print the computation graph as Graphviz dot or "
    "Mermaid text instead (with --explain: the gradients on its edges).")]


def format_parameter(writers: tuple[str, ...]) -> tuple[str, Any, Any]:
    """A command's --format NAME, its help listing the formats that have any of the
    command's `writers` (`render.formats.taking`)."""
    from gradcalc.render.formats import taking

    takes = taking(writers)
    listed = ", ".join(takes[:-1]) + " or " + takes[-1] if len(takes) > 1 else takes[0]
    alias = Annotated[str | None, typer.Option(
        "--format", metavar="NAME", help=f"The output format: {listed} (default "
        f"{takes[0] if 'rich' not in takes else 'rich'}).", show_default=False)]
    return ("format_name", alias, None)


def format_of(o: dict[str, Any], writers: tuple[str, ...]) -> Any:
    """The format a command's --format and alias flags (--json, --plain, --latex) name."""
    from gradcalc.render.formats import chosen

    flags = {n: bool(o.get(f"{n}_out")) for n in ("json", "plain", "latex")}
    return chosen(o.get("format_name"), flags, writers)


def run_of(o: dict[str, Any], source: str, fmt: Any, out: Any) -> Any:
    """The run a command's options describe (`run.record.Run`): its source, its sink
    (`out`, standard error, --output), --engine, --jobs, --chunk-rows and --scheduler."""
    from gradcalc.run.record import Options, Run, Sink
    from gradcalc.run.workers import job_count

    options = Options(job_count(o["jobs"]), o["chunk_rows"], o["scheduler"])
    return Run(source, Sink(fmt, out, sys.stderr, o.get("output")), o["engine"], options)


def limits_of(o: dict[str, Any]) -> Limits:
    """The run's bounds from a command's --check-seconds, --max-iterations and
    --max-operations (those it has)."""
    names = ("check_seconds", "max_iterations", "max_operations")
    return replace(DEFAULT_LIMITS, **{n: o[n] for n in names if n in o})


# --------------------------------------------------------------------------- the program

def read_program(text: str) -> str:
    """The program text itself, or the contents of @FILE, or standard input for '-'."""
    if text == "-":
        stdin_note("the program")
        data = sys.stdin.buffer.read(MAX_PROGRAM_BYTES + 1)
        return _decode(data, "standard input")
    if text.startswith("@") and len(text) > 1:
        path = Path(text[1:])
        try:
            with path.open("rb") as fh:
                data = fh.read(MAX_PROGRAM_BYTES + 1)
        except OSError as exc:
            raise GradcalcError(f"cannot read program file {text[1:]!r}: {exc.strerror}",
                                kind="usage") from None
        return _decode(data, repr(text[1:]))
    return text


def program_text(text: str) -> str:
    """The program, its surrounding whitespace removed; a program argument that names an
    existing file and does not parse asks "did you mean @FILE?"."""
    program = tidy(read_program(text))
    if text != "-" and not text.startswith("@") and "\n" not in program \
            and os.path.isfile(program):
        from gradcalc.language.parse import parse

        try:
            parse(program)
        except GradcalcError as exc:
            raise check_not_a_file(program, exc) from None
    return program


def _decode(data: bytes, where: str) -> str:
    if len(data) > MAX_PROGRAM_BYTES:
        raise GradcalcError(f"the program in {where} is over {MAX_PROGRAM_BYTES:,} bytes",
                            kind="limit")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GradcalcError(f"the program in {where} is not UTF-8 text (byte {exc.start})",
                            kind="usage") from None


def stdin_note(what: str) -> None:
    """Say so when standard input is a terminal, so a waiting prompt is not a mystery."""
    if sys.stdin.isatty():
        sys.stderr.write(f"reading {what} from the terminal; end with Ctrl-D\n")


# --------------------------------------------------------------------------- forgiveness


def _options(command: Any) -> tuple[set[str], set[str]]:
    """(every option name of `command`, the names of options that take a value)."""
    names: set[str] = {"--help", "-h"}
    valued: set[str] = set()
    for param in getattr(command, "params", []):
        opts = [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])]
        if not any(o.startswith("-") for o in opts):
            continue
        names.update(opts)
        if not getattr(param, "is_flag", False) and not getattr(param, "count", False):
            valued.update(opts)
    return names, valued


def _is_option(token: str, names: set[str], valued: set[str]) -> bool:
    """Whether click would read `token` as one of the command's options (`--at`,
    `--at=x=1`, `-a`, `-ax=1`, `-w[1,1]`)."""
    if token in names or token.split("=", 1)[0] in names and token.startswith("--"):
        return True
    short, rest = token[:2], token[2:]
    if short in valued and rest:
        return "=" in rest or (short == "-w" and rest[:1] in "[(0123456789.")
    return False


def protect_dash_program(args: list[str], group: Any) -> list[str]:
    """`args` with a program that starts with '-' (in the program's place, after the
    command name) given a leading space, so the option parser takes it as the program."""
    commands = getattr(group, "commands", {})
    start = next((k for k, a in enumerate(args) if not a.startswith("-")), None)
    if start is None or args[start] not in commands:
        return args
    command = commands[args[start]]
    if not any(getattr(p, "param_type_name", "") == "argument" for p in command.params):
        return args
    names, valued = _options(command)
    out = list(args)
    k = start + 1
    while k < len(out):
        token = out[k]
        if token == "--" or not token.startswith("-") or token == "-":
            return out  # the program's place is taken (or everything after is positional)
        if _is_option(token, names, valued):
            k += 2 if token in valued else 1
            continue
        if token.startswith("--"):
            return out  # an unknown --option: click says so
        out[k] = " " + token
        return out
    return out


def tidy(text: str) -> str:
    """The program text without its surrounding whitespace (and a common indent), so
    `" x**2"` is `x**2`, not an unexpected indent."""
    return textwrap.dedent(text).strip()


def check_not_a_file(text: str, error: GradcalcError) -> GradcalcError:
    """`error` (the program did not parse), or an error that asks "did you mean @FILE?"
    when the program text is the name of an existing file."""
    name = text.strip()
    if name and "\n" not in name and len(name) < 4096 and os.path.isfile(name):
        return GradcalcError(f"{name!r} is a file, not a program: did you mean @{name}? "
                             "(@FILE reads the program from a file)", kind="usage")
    return error

"""One derivative command run and written (grad, jacobian, hessian): at one point, over a
--points table (in chunks, on --jobs processes or a Dask cluster), or one row of the table
explained; with the output helpers the commands share (the output format, standard output
that a closed pipe ends quietly, error text made printable)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import typer

from gradcalc.argv import program_text, stdin_note
from gradcalc.errors import GradcalcError
from gradcalc.limits import CHUNK_ROWS, DEFAULT_LIMITS, Limits

#: an error message is cut to this length (user text in it is already quoted and cut)
MAX_MESSAGE_CHARS = 2_000


def printable(message: str) -> str:
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



def extras_of(symbolic: bool, latex: bool, explain: bool, graph: str | None,
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


def output_format(json_out: bool, plain_out: bool) -> str:
    if json_out and plain_out:
        raise GradcalcError("--json and --plain cannot be used together", kind="usage")
    return "json" if json_out else "plain" if plain_out else "rich"


def limits_of(check_seconds: float, max_iterations: int, max_operations: int) -> Limits:
    return replace(DEFAULT_LIMITS, check_seconds=check_seconds, max_iterations=max_iterations,
                   max_operations=max_operations)


def run_derivative(command: str, program: str, at: list[str], weights: str | None, wrt: str | None,
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
    fmt = output_format(json_out, plain_out)
    state["format"] = fmt
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
        failed = explain_points_row(job, points, explain_row or 1, extras, fmt, numbers)
    elif points is not None:
        failed = run_points(job, points, fmt, scale or {})
    elif explain_row is not None:
        raise GradcalcError("--explain-row N picks a row of the --points table", kind="usage")
    else:
        scale_unused(scale or {}, "--points")
        job = replace(job, symbolic=extras.get("symbolic", False),
                      explain=extras.get("explain", False) or extras.get("graph") is not None)
        failed = run_one(job, fmt, extras, numbers)
    if failed:
        raise typer.Exit(1)


def run_one(job: Any, fmt: str, extras: dict[str, Any], numbers: Any) -> bool:
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


def explain_points_row(job: Any, source: str, row: int, extras: dict[str, Any], fmt: str,
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
    return run_one(one, fmt, extras, numbers)


def run_points(job: Any, source: str, fmt: str, scale: dict[str, Any]) -> bool:
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
                                 progress=bar, stdout=Stdout(), **options)
        finally:
            bar.close()
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
    defaults = {"chunk_rows": CHUNK_ROWS, "jobs": "1", "output": None, "engine": "local",
                "scheduler": None}
    given = [k for k, v in scale.items() if v != defaults.get(k)]
    if given:
        raise GradcalcError(f"--{given[0].replace('_', '-')} goes with {needs}", kind="usage")


class Stdout:
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
            pipe_closed()
            raise typer.Exit(0) from None

    def flush(self) -> None:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            pipe_closed()
            raise typer.Exit(0) from None


def write_all(chunks: Iterable[str]) -> None:
    """Each chunk to stdout as it is ready; a closed pipe (`| head`) ends the output quietly:
    the reader has what it wanted."""
    try:
        for chunk in chunks:
            sys.stdout.write(chunk)
            sys.stdout.flush()
    except BrokenPipeError:
        pipe_closed()


def pipe_closed() -> None:
    """Standard output's reader has gone (`| head`): what is still to be written, and
    Python's flush at exit, go to /dev/null instead of raising again."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


state: dict[str, str] = {"format": "rich"}

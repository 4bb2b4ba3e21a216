"""The output formats, one registry: each format by name, with the writer of every kind of
result in it.

One vocabulary: `rich` (a person at a terminal: panels, tables, progress bars), `json`
(one object, or one per line, for scripts) and `plain` (numbers and words for awk) are
the views a command is shown in; `csv` and `parquet` are what a `--points` table's rows
are written as (a view writes its rows as its `rows` format: rich as csv; `--output
FILE.parquet` as parquet); `latex` is a worked solution as a document (`derive
--latex`). A command picks its format once (`chosen`) and hands results to the format's
writers; no module compares format names, and no format is held in a global. A new
format is one entry here and its writers.

The writers import what they write with when they are first called, so choosing a format
costs nothing at start-up.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gradcalc.errors import GradcalcError

# --------------------------------------------------------------------------- the writers

def _rich_result(result: Any, numbers: Any) -> None:
    from gradcalc.render.terminal import draw, show

    draw(lambda console: show(result, console, numbers))


def _json_result(result: Any, numbers: Any) -> None:
    from gradcalc.render.as_json import to_json

    sys.stdout.write(json.dumps(to_json(result)) + "\n")


def _plain_result(result: Any, numbers: Any) -> None:
    from gradcalc.render.plain import notes, plain

    sys.stdout.write(plain(result, numbers) + "\n")
    sys.stderr.writelines(line + "\n" for line in notes(result, numbers))


def _rich_verdict(verdict: Any) -> None:
    from gradcalc.render.terminal import draw
    from gradcalc.render.verdicts import show

    draw(lambda console: show(verdict, console))


def _json_verdict(verdict: Any) -> None:
    from gradcalc.render.verdicts import verdict_json

    sys.stdout.write(json.dumps(verdict_json(verdict)) + "\n")


def _plain_verdict(verdict: Any) -> None:
    from gradcalc.render.verdicts import plain

    sys.stdout.write(plain(verdict) + "\n")


def _rich_solution(solution: Any, verdict: Any) -> None:
    from gradcalc.render.terminal import draw
    from gradcalc.render.worked_steps import show

    draw(lambda console: show(solution, console, verdict))


def _json_solution(solution: Any, verdict: Any) -> None:
    from gradcalc.render.worked_steps import solution_json

    sys.stdout.write(json.dumps(solution_json(solution, verdict)) + "\n")


def _plain_solution(solution: Any, verdict: Any) -> None:
    from gradcalc.render.worked_steps import plain_text

    sys.stdout.write(plain_text(solution, verdict) + "\n")


def _latex_solution(solution: Any, verdict: Any) -> None:
    from gradcalc.render.latex_document import document

    sys.stdout.write(document(solution))


def _json_error(kind: str, message: str) -> None:
    from gradcalc.render.as_json import error_json

    sys.stdout.write(json.dumps(error_json(kind, message)) + "\n")


def _no_error(kind: str, message: str) -> None:
    """The error goes to standard error only (the command line's `error:` line)."""


def _json_row(result: Any, keyed: bool) -> str:
    from gradcalc.render.classlines import json_line

    return json_line(result, keyed)  # json.dumps(row_json(r, keyed)), a verdict encoded once


def _plain_row(result: Any, keyed: bool) -> str:
    from gradcalc.render.classview import row_plain

    return row_plain(result, keyed)


def _drawn_row(result: Any, keyed: bool) -> str:
    return ""  # the readable view draws the rows as a table (render.classview.show_rows)


def _json_class_end(summary: Any, students: int, out: Any, err: Any) -> None:
    from gradcalc.render.classview import summary_json

    out.write(json.dumps(summary_json(summary, students)) + "\n")


def _plain_class_end(summary: Any, students: int, out: Any, err: Any) -> None:
    from gradcalc.render.classview import summary_line

    err.write(summary_line(summary) + "\n")


def _json_replayed(replayed: Any, name: str, out: Any) -> None:
    out.write(json.dumps({"line": replayed.line, "id": replayed.ident, "same": replayed.same,
                          "differences": replayed.differences}) + "\n")


def _text_replayed(replayed: Any, name: str, out: Any) -> None:
    for d in replayed.differences:
        out.write(f"{name}: {d}\n")


def _json_replay_end(total: int, differ: int, said: str, out: Any, err: Any) -> None:
    out.write(json.dumps({"summary": {"verdicts": total, "same": total - differ,
                                      "differ": differ}}) + "\n")


def _text_replay_end(total: int, differ: int, said: str, out: Any, err: Any) -> None:
    err.write(said + "\n")


def _rich_sheet(sheet: Any, answers: bool, out: Any) -> None:
    from gradcalc.render.sheets import show_sheet
    from gradcalc.render.terminal import draw

    draw(lambda console: show_sheet(sheet, answers, console))


def _json_sheet(sheet: Any, answers: bool, out: Any) -> None:
    from gradcalc.render.sheets import sheet_json

    out.write(sheet_json(sheet, answers))


def _plain_sheet(sheet: Any, answers: bool, out: Any) -> None:
    from gradcalc.render.sheets import sheet_plain

    out.write(sheet_plain(sheet, answers))


def _csv_chunk(result: Any, first: bool, fast: bool) -> Any:
    if fast and result.table.plain and not result.has_errors:
        from gradcalc.render.fast_rows import csv_text
        from gradcalc.render.point_rows import header_text

        out = csv_text(result)
        out.head = header_text(result).encode() if first else b""
        return out
    from gradcalc.render.point_rows import csv_lines

    return "".join(csv_lines(result, header_row=True, sep=",", first=first))


def _plain_chunk(result: Any, first: bool, fast: bool) -> Any:
    from gradcalc.render.point_rows import csv_lines

    return "".join(csv_lines(result, header_row=False, sep=" ", first=first))


def _json_chunk(result: Any, first: bool, fast: bool) -> Any:
    from gradcalc.render.point_rows import json_lines

    return "".join(json_lines(result))


def _parquet_chunk(result: Any, first: bool, fast: bool) -> Any:
    from gradcalc.render.fast_rows import arrow_table

    return arrow_table(result)


# --------------------------------------------------------------------------- the registry

@dataclass(frozen=True)
class Format:
    """One output format: its name, what it is, and its writer of each kind of result
    (None where the format does not write that kind)."""

    name: str
    person: bool = False  # a person reads it: panels, tables, progress bars
    structured: bool = False  # one object holds the whole answer (the graph, the tape too)
    binary: bool = False  # rows as Arrow tables, not text (parquet)
    rows: str = ""  # the format a --points table's rows are written in, in this view
    #: rows that carry their own check (JSON lines): the check runs inline, not beside
    #: the stream, and the rows are read as text
    inline: bool = False
    fast: bool = False  # a columnar writer gives the same text faster (the fast extra)
    result: Callable[[Any, Any], None] | None = None  # grad/jacobian/hessian at a point
    verdict: Callable[[Any], None] | None = None  # one check's verdict
    error: Callable[[str, str], None] = _no_error  # an error, beside the `error:` line
    row: Callable[[Any, bool], str] | None = None  # a class's row as its line
    class_end: Callable[[Any, int, Any, Any], None] | None = None  # a class's summary
    replayed: Callable[[Any, str, Any], None] | None = None  # a verdict judged again
    replay_end: Callable[[int, int, str, Any, Any], None] | None = None
    chunk: Callable[[Any, bool, bool], Any] | None = None  # a chunk of a table's rows
    sheet: Callable[[Any, bool, Any], None] | None = None  # one student's handed-out sheet
    #: a worked solution, with the verdict beside it (check --steps) or alone (derive)
    solution: Callable[[Any, Any], None] | None = None

    @property
    def table_rows(self) -> Format:
        """The format this view writes a --points table's rows in."""
        return FORMATS[self.rows or self.name]


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("rich", person=True, rows="csv", result=_rich_result, verdict=_rich_verdict,
           row=_drawn_row, replayed=_text_replayed, replay_end=_text_replay_end,
           sheet=_rich_sheet, solution=_rich_solution),
    Format("json", structured=True, rows="json", inline=True, result=_json_result,
           verdict=_json_verdict, error=_json_error, row=_json_row, class_end=_json_class_end,
           replayed=_json_replayed, replay_end=_json_replay_end, chunk=_json_chunk,
           sheet=_json_sheet, solution=_json_solution),
    Format("plain", rows="plain", result=_plain_result, verdict=_plain_verdict,
           row=_plain_row, class_end=_plain_class_end, replayed=_text_replayed,
           replay_end=_text_replay_end, chunk=_plain_chunk, sheet=_plain_sheet,
           solution=_plain_solution),
    Format("csv", fast=True, chunk=_csv_chunk),
    Format("parquet", binary=True, chunk=_parquet_chunk),
    Format("latex", solution=_latex_solution),
)}
RICH, JSON, PLAIN, CSV, PARQUET, LATEX = (FORMATS[n] for n in ("rich", "json", "plain", "csv",
                                                               "parquet", "latex"))
#: file name endings written as Parquet
PARQUET_ENDINGS = (".parquet", ".pq")


def named(fmt: Format | str) -> Format:
    """A format given by itself or by its name ("json")."""
    if isinstance(fmt, Format):
        return fmt
    try:
        return FORMATS[fmt]
    except KeyError:
        raise GradcalcError(f"{fmt!r} is not an output format: give one of "
                            f"{', '.join(FORMATS)}", kind="usage") from None


def chosen(json_out: bool, plain_out: bool, latex_out: bool = False) -> Format:
    """The view of a command's --json and --plain flags (rich when neither); `latex_out`:
    a worked solution's --latex document."""
    given = [n for n, on in (("--json", json_out), ("--plain", plain_out),
                             ("--latex", latex_out)) if on]
    if len(given) > 1:
        raise GradcalcError(f"{' and '.join(given)} cannot be used together", kind="usage")
    return JSON if json_out else PLAIN if plain_out else LATEX if latex_out else RICH


def rows_for(view: Format, output: str | None) -> Format:
    """The format a --points table's rows are written in: Parquet for --output
    FILE.parquet, else the view's."""
    if output is not None and output.lower().endswith(PARQUET_ENDINGS):
        return PARQUET
    return view.table_rows

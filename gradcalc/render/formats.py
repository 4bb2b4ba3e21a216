"""The output formats, one registry: each format by name, with its writer of everything it
writes.

One vocabulary: `rich` (a person at a terminal: panels, tables, progress bars), `json`
(one object, or one per line, for scripts) and `plain` (numbers and words for awk) are
the views a command is shown in; `csv` and `parquet` are what a `--points` table's rows
are written as (a view writes its rows as its `rows` format: rich as csv; `--output
FILE.parquet` as parquet); `latex` is a worked solution as a document (`derive --format
latex`). A command picks its format once, by `--format NAME` or an alias flag (`chosen`), and
hands results to the format's writers, each given its stream; no module compares format
names, and no format is held in a global. A new format is one entry here and its
writers; every command that has a use for one of them takes it.

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
from gradcalc.render.rows_writer import ArrowRows, TextRows

# --------------------------------------------------------------------------- the writers

def _rich_result(result: Any, numbers: Any, out: Any) -> None:
    from gradcalc.render.terminal import draw, show

    draw(lambda console: show(result, console, numbers), out)


def _json_result(result: Any, numbers: Any, out: Any) -> None:
    from gradcalc.render.as_json import to_json

    out.write(json.dumps(to_json(result)) + "\n")


def _plain_result(result: Any, numbers: Any, out: Any) -> None:
    from gradcalc.render.plain import notes, plain

    out.write(plain(result, numbers) + "\n")
    sys.stderr.writelines(line + "\n" for line in notes(result, numbers))


def _graph_text(result: Any, numbers: Any, out: Any) -> None:
    """--graph in a text view: the graph alone, in its notation (dot, mermaid)."""
    from gradcalc.render.explanations import graph_text

    out.write(graph_text(result, result.view["graph"]) + "\n")


def _rich_verdict(verdict: Any, out: Any) -> None:
    from gradcalc.render.terminal import draw
    from gradcalc.render.verdicts import show

    draw(lambda console: show(verdict, console), out)


def _json_verdict(verdict: Any, out: Any) -> None:
    from gradcalc.render.verdicts import verdict_json

    out.write(json.dumps(verdict_json(verdict)) + "\n")


def _plain_verdict(verdict: Any, out: Any) -> None:
    from gradcalc.render.verdicts import plain

    out.write(plain(verdict) + "\n")


def _rich_solution(solution: Any, verdict: Any, out: Any) -> None:
    from gradcalc.render.terminal import draw
    from gradcalc.render.worked_steps import show

    draw(lambda console: show(solution, console, verdict), out)


def _json_solution(solution: Any, verdict: Any, out: Any) -> None:
    from gradcalc.render.worked_steps import solution_json

    out.write(json.dumps(solution_json(solution, verdict)) + "\n")


def _plain_solution(solution: Any, verdict: Any, out: Any) -> None:
    from gradcalc.render.worked_steps import plain_text

    out.write(plain_text(solution, verdict) + "\n")


def _latex_solution(solution: Any, verdict: Any, out: Any) -> None:
    from gradcalc.render.latex_document import document

    out.write(document(solution))


def _json_error(category: str, message: str, out: Any) -> None:
    from gradcalc.render.as_json import error_json

    out.write(json.dumps(error_json(category, message)) + "\n")


def _no_error(category: str, message: str, out: Any) -> None:
    """The error goes to standard error only (the command line's `error:` line)."""


def _json_answer(answer: Any) -> str:
    from gradcalc.render.as_json import answer_json

    return json.dumps(answer_json(answer)) + "\n"


def _rich_plot(data: Any, size: tuple[int, int], out: Any) -> None:
    from gradcalc.render import drawing

    out.write(drawing.terminal(data, *size, drawing.want_color(out)) + "\n")
    out.write("\n".join(drawing.notes(data)) + "\n")


def _json_plot(data: Any, size: tuple[int, int], out: Any) -> None:
    from gradcalc.render import drawing

    out.write(json.dumps(drawing.to_json(data)) + "\n")


def _table_class(sink: Any) -> Any:
    from gradcalc.render.class_views import ClassTable

    return ClassTable(sink)


def _json_class(sink: Any) -> Any:
    from gradcalc.render.class_views import ClassLines

    return ClassLines(sink, _json_class_end)


def _plain_class(sink: Any) -> Any:
    from gradcalc.render.class_views import ClassLines

    return ClassLines(sink, _plain_class_end)


def _json_sheets_written(count: int, folder: str, names: list[str], out: Any) -> None:
    out.write(json.dumps({"sheets": count, "folder": folder, "files": names}) + "\n")


def _text_sheets_written(count: int, folder: str, names: list[str], out: Any) -> None:
    from gradcalc.render.sheets import written_line

    out.write(written_line(count, folder, names) + "\n")


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

    err.write(summary_line(summary, students) + "\n")


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

    draw(lambda console: show_sheet(sheet, answers, console), out)


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

#: what each writer of a Format writes, as an error names it
WRITES = {"result": "a derivative at a point", "graph": "a computation graph",
          "verdict": "a verdict", "solution": "a worked solution", "answer": "batch answers",
          "class_view": "a class's rows", "replayed": "replayed verdicts",
          "chunk": "a --points table's rows", "sheet": "sheets",
          "sheets_written": "sheets", "plot": "a plot"}


@dataclass(frozen=True)
class Format:
    """One output format: its name, what it is, and its writer of each thing a command
    writes (None where it does not write that). Every writer is given its stream."""

    name: str
    binary: bool = False  # rows as Arrow tables, not text (parquet)
    rows: str = ""  # the format a --points table's rows are written in, in this view
    #: rows that carry their own check (JSON lines): the check runs inline, not beside
    #: the stream, and the rows are read as text
    inline: bool = False
    fast: bool = False  # a columnar writer gives the same text faster (the fast extra)
    result: Callable[[Any, Any, Any], None] | None = None  # grad/jacobian/hessian at a point
    #: --graph: the graph in its notation (a structured view: the result, graph inside)
    graph: Callable[[Any, Any, Any], None] | None = None
    verdict: Callable[[Any, Any], None] | None = None  # one check's verdict
    error: Callable[[str, str, Any], None] = _no_error  # an error, beside the `error:` line
    answer: Callable[[Any], str] | None = None  # one batch job's answer as its line
    row: Callable[[Any, bool], str] | None = None  # a class's row as its line
    class_view: Callable[[Any], Any] | None = None  # a class's rows as they are judged
    class_end: Callable[[Any, int, Any, Any], None] | None = None  # a class's summary
    replayed: Callable[[Any, str, Any], None] | None = None  # a verdict judged again
    replay_end: Callable[[int, int, str, Any, Any], None] | None = None
    chunk: Callable[[Any, bool, bool], Any] | None = None  # a chunk of a table's rows
    sheet: Callable[[Any, bool, Any], None] | None = None  # one student's handed-out sheet
    #: sheets --out: what was written (how many sheets, the folder, the pages)
    sheets_written: Callable[[int, str, list[str], Any], None] | None = None
    plot: Callable[[Any, tuple[int, int], Any], None] | None = None  # a plot, drawn
    #: a worked solution, with the verdict beside it (check --steps) or alone (derive)
    solution: Callable[[Any, Any, Any], None] | None = None

    @property
    def table_rows(self) -> Format:
        """The format this view writes a --points table's rows in."""
        return FORMATS[self.rows or self.name]

    @property
    def rows_writer(self) -> TextRows:
        """This row format's writer, which tells a run how its rows are produced (Arrow
        tables or text, checked inline or not, through the columnar writer or not)."""
        kind = ArrowRows if self.binary else TextRows
        return kind(self.name, self.writer("chunk"), self.inline, self.fast)

    def writer(self, what: str) -> Callable[..., Any]:
        """The writer of `what` (a field's name); a usage error when this format has none."""
        found = getattr(self, what)
        if found is None:
            raise GradcalcError(f"--format {self.name} does not write {WRITES[what]}",
                                kind="usage")
        return found


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("rich", rows="csv", result=_rich_result, graph=_graph_text, verdict=_rich_verdict,
           row=_drawn_row, class_view=_table_class, replayed=_text_replayed,
           replay_end=_text_replay_end, sheet=_rich_sheet, sheets_written=_text_sheets_written,
           plot=_rich_plot, solution=_rich_solution),
    Format("json", rows="json", inline=True, result=_json_result, graph=_json_result,
           verdict=_json_verdict, error=_json_error, answer=_json_answer, row=_json_row,
           class_view=_json_class, class_end=_json_class_end, replayed=_json_replayed,
           replay_end=_json_replay_end, chunk=_json_chunk, sheet=_json_sheet,
           sheets_written=_json_sheets_written, plot=_json_plot, solution=_json_solution),
    Format("plain", rows="plain", result=_plain_result, graph=_graph_text,
           verdict=_plain_verdict, row=_plain_row, class_view=_plain_class,
           class_end=_plain_class_end, replayed=_text_replayed, replay_end=_text_replay_end,
           chunk=_plain_chunk, sheet=_plain_sheet, sheets_written=_text_sheets_written,
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


def taking(writers: tuple[str, ...]) -> list[str]:
    """The formats that have any of `writers` (a command's: what it writes), in order."""
    return [n for n, f in FORMATS.items() if any(getattr(f, w) is not None for w in writers)]


def chosen(name: str | None, flags: dict[str, bool], writers: tuple[str, ...]) -> Format:
    """The format of a command's --format NAME and its aliases (`flags`: json, plain,
    latex, each on or off); when none is given, rich, or the first format the command
    takes if it does not take rich (batch: json). A format that has none of the
    command's `writers` is a usage error that lists those it takes."""
    on = [n for n, given in flags.items() if given]
    if len(on) > 1:
        raise GradcalcError(f"{' and '.join('--' + n for n in on)} cannot be used together",
                            kind="usage")
    if name is not None and on and on[0] != name:
        raise GradcalcError(f"--format {name} and --{on[0]} cannot be used together",
                            kind="usage")
    takes = taking(writers)
    pick = name or (on[0] if on else "rich" if "rich" in takes else takes[0])
    if pick not in takes:
        raise GradcalcError(f"--format takes {', '.join(takes)}, not {pick!r}", kind="usage")
    return FORMATS[pick]


def rows_for(view: Format, output: str | None) -> TextRows:
    """The writer of a --points table's rows: Parquet's for --output FILE.parquet, else
    the view's row format's (a binary one only to a file)."""
    if output is not None and output.lower().endswith(PARQUET_ENDINGS):
        return PARQUET.rows_writer
    rows = view.table_rows
    if rows.binary and output is None:
        raise GradcalcError(f"--format {rows.name} is written to a file: give --output FILE",
                            kind="usage")
    return rows.rows_writer

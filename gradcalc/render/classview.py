"""A class's rows for people and scripts: JSON lines (each verdict with its row's columns,
score and receipt, then one `{"summary": ...}` line), plain tab-separated lines, and a
rich table of student, problem, answer, verdict, score and feedback."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gradcalc.render.classlines import row_head, solution_fields
from gradcalc.render.verdicts import _MARK, _STYLE, plain, verdict_json

if TYPE_CHECKING:
    from gradcalc.grading.classfile import Result, Summary


def points_text(x: float) -> str:
    """A score as a person writes it: 2, 1.5, 0.333."""
    return f"{x:.3g}" if x != int(x) else str(int(x))


def row_json(r: Result, keyed: bool) -> dict[str, Any]:
    """{"id", "line", ["problem"], "answer", "columns", "score", "max_score", ...verdict,
    "receipt"} or, for an unreadable row, the same with "error" for the verdict."""
    head = row_head(r, keyed)
    if r.error is not None:
        category, message = r.error
        return {**head, "error": {"kind": category, "message": message}, "receipt": r.receipt}
    assert r.verdict is not None
    # the row's score is the points earned, not the verdict's own share of right entries
    return {**head, **verdict_json(r.verdict), "score": r.earned, **solution_fields(r),
            "receipt": r.receipt}


def steps_note(r: Result, sep: str = " ") -> str:
    """A row's worked solution as text ('' when its key does not ask for it)."""
    if getattr(r, "solution", None) is None:
        return ""
    from gradcalc.render.worked_steps import inline_text, step_lines

    return inline_text(r.solution) if sep == " " else sep.join(step_lines(r.solution))


def summary_json(summary: Summary, students: int) -> dict[str, Any]:
    return {"summary": {"rows": summary.rows, **summary.counts, "students": students,
                        "score": summary.earned, "max_score": summary.possible}}


def shown(text: str) -> str:
    """A cell from a file as it may reach a terminal: one line, every other non-printable
    character (ESC, bidi and zero-width marks) as a \\uXXXX escape."""
    text = " ".join(text.split())
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" if ord(c) < 0x10000
                   else f"\\U{ord(c):08x}" for c in text)


def note(r: Result) -> str:
    """What explains a row's verdict: the error, the feedback and the expected derivative,
    or the reason it is undetermined."""
    if r.error is not None:
        return r.error[1]
    v = r.verdict
    assert v is not None
    if v.verdict == "incorrect":
        return (hinted(r) + (v.feedback + "; " if v.feedback else "")
                + f"expected {v.expected}")
    if v.verdict == "undetermined":
        return v.reason or ""
    return ""


def hinted(r: Result) -> str:
    """The teacher's hint that fired on the row, before gradcalc's own feedback."""
    fired = r.fired
    return f"{fired[1].message}; " if fired is not None else ""


def verdict_line(r: Result) -> str:
    """The row's verdict in one line (plain's), the teacher's hint first."""
    if r.verdict is None:
        return f"unreadable: {r.error[1]}"  # type: ignore[index]
    line = plain(r.verdict)
    if r.fired is None:
        return line
    return f"incorrect: {hinted(r)}" + line[len("incorrect") + 2:]  # after ": " or "; "


def answer_read(r: Result) -> str:
    """The answer as it was read (in the student's notation), else as typed."""
    read = getattr(r.verdict, "read", None)
    if isinstance(read, dict) and isinstance(read.get("answer"), str):
        named, sep, value = read["answer"].partition(" = ")  # f'(x) = ...: the table
        return value if sep else named                      # names the problem already
    return r.task.answer


def row_plain(r: Result, keyed: bool) -> str:
    """student, problem (the function in a one-file class), the other columns, answer,
    score/points and the verdict's line, separated by tabs."""
    verdict = verdict_line(r)
    if steps_note(r):
        verdict += f"; {steps_note(r)}"
    if r.task.late_note:
        verdict += f"; {r.task.late_note}"
    cells = [r.task.student, r.task.problem if keyed else r.task.function,
             *(v for _, v in r.task.extras), r.task.answer,
             f"{points_text(r.earned)}/{points_text(r.task.points)}", verdict]
    return "\t".join(shown(c) for c in cells) + "\n"


def show_rows(results: list[Result], extra_names: list[str], keyed: bool, console: Any,
              header: bool = True) -> None:
    """The class as one table: who, which problem, the answer, the verdict, the score and
    what explains it (a long class as one table per chunk of rows, the header once)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True,
                  header_style="bold", expand=True, show_header=header)
    names = ["student", "problem" if keyed else "function", *extra_names, "answer",
             "verdict", "score", "feedback"]
    for name in names:
        header = Text(shown(name), style="bold")  # a file's column name: never markup
        if name in ("answer", "feedback"):
            table.add_column(header, overflow="fold", ratio=2 if name == "feedback" else 1)
        else:
            table.add_column(header, no_wrap=name in ("verdict", "score"), overflow="fold")
    for r in results:
        status = r.status
        table.add_row(Text(shown(r.task.student)),
                      Text(shown(r.task.problem if keyed else r.task.function)),
                      *(Text(shown(v)) for _, v in r.task.extras), Text(shown(answer_read(r))),
                      Text(f"{_MARK[status]} {status}", style=_STYLE[status]),
                      Text(f"{points_text(r.earned)}/{points_text(r.task.points)}"),
                      Text(shown("; ".join(t for t in (note(r), steps_note(r)) if t))))
    console.print(table)


def summary_line(summary: Summary, students: int) -> str:
    """The class in one line: its students (a student's several rows counted once), its
    rows by verdict and the points of them all."""
    c = summary.counts
    return (f"{students} student{'s' * (students != 1)}, "
            f"{summary.rows} row{'s' * (summary.rows != 1)}: {c['correct']} correct, "
            f"{c['incorrect']} incorrect, {c['undetermined']} undetermined, "
            f"{c['unreadable']} unreadable; score {points_text(summary.earned)} of "
            f"{points_text(summary.possible)}")

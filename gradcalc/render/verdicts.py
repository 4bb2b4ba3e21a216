"""Homework verdicts for people and scripts: JSON (SPEC §3), a plain line, rich panels,
and the progress bar of a class (whose rows are `gradcalc.render.classview`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gradcalc.render.numbers import jsonable

if TYPE_CHECKING:
    from gradcalc.homework.judge import Verdict

#: a class file with at least this many rows gets a progress bar (on a terminal)
PROGRESS_MIN_ROWS = 20
_STYLE = {"correct": "bold green", "incorrect": "bold red", "undetermined": "bold yellow",
          "unreadable": "bold magenta"}
_MARK = {"correct": "✓", "incorrect": "✗", "undetermined": "?", "unreadable": "!"}


def verdict_json(v: Verdict) -> dict[str, Any]:
    """The verdict as SPEC §3's object, plus what the check was of and the points used."""
    counter = None
    if v.counterexample is not None:
        counter = {k: jsonable(x) if k != "at" else {n: jsonable(y) for n, y in x.items()}
                   for k, x in v.counterexample.items()}
    return {"command": "check", "verdict": v.verdict, "method": v.method,
            "expected": v.expected, "counterexample": counter, "feedback": v.feedback,
            "reason": v.reason, "kind": v.kind, "wrt": list(v.wrt),
            "points": [{n: jsonable(x) for n, x in p.items()} for p in v.points],
            "expected_latex": v.expected_latex, "read": v.read, "note": v.note,
            "score": v.score, "entries": v.entries, "misconception": v.misconception,
            **({"branch": v.branch} if v.branch is not None else {}),
            **({"receipt": v.receipt} if v.receipt is not None else {})}


def read_text(v: Verdict) -> str:
    """How both sides were read, in one line (and the domain judged on, when given)."""
    if not v.read:
        return ""
    domain = f", for {v.read['domain']}" if v.read.get("domain") else ""
    return f"read as {v.read['function']} and {v.read['answer']}{domain}"


def plain(v: Verdict) -> str:
    """One line: the verdict, then what explains it, then how both sides were read."""
    read = f"; {read_text(v)}" if v.read else ""
    if v.verdict == "correct":
        return f"correct ({v.method})" + (f": {v.feedback}" if v.feedback else "") + read
    if v.verdict == "undetermined":
        return f"undetermined: {v.reason}" + read
    return ("incorrect" + (f": {v.feedback}" if v.feedback else "")
            + f"; expected {v.expected}" + read)


def _where(at: dict[str, Any]) -> str:
    return ", ".join(f"{n} = {_value(x)}" for n, x in at.items())


def _value(x: Any, digits: int = 6) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(_value(i, digits) for i in x) + "]"
    if isinstance(x, float) and x != x:
        return "undefined (not a real number)"
    return f"{x:.{digits}g}"


def _values(answer: Any, expected: Any) -> tuple[str, str]:
    """Both values, with every digit when six do not tell them apart."""
    a, e = _value(answer), _value(expected)
    return (a, e) if a != e or answer == expected else (_value(answer, 17),
                                                        _value(expected, 17))


def show(v: Verdict, console: Any) -> None:
    """The rich rendering of one verdict."""
    from rich.table import Table
    from rich.text import Text

    from gradcalc.homework.kinds.registry import report_of

    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    table.add_row("verdict", Text(f"{_MARK[v.verdict]} {v.verdict}", style=_STYLE[v.verdict]))
    if v.read:
        domain = f"\nfor {v.read['domain']}" if v.read.get("domain") else ""
        table.add_row("read as", Text(f"{v.read['function']}\n{v.read['answer']}{domain}"))
    rows = report_of(v.kind)
    if v.counterexample is not None:
        method = rows.exact if v.method == "symbolic" else "numeric: a counterexample"
    elif v.method == "symbolic":
        method = "symbolic proof" if v.verdict == "correct" else rows.refuted
    else:
        method = f"numeric, at {len(v.points)} point{'s' * (len(v.points) != 1)}"
    table.add_row("method", method)
    if v.counterexample is not None:
        c = v.counterexample
        table.add_row("at", _where(c["at"]))
        answer, expected = _values(c["answer"], c["expected"])
        table.add_row(rows.answer, answer)
        table.add_row(rows.expected, expected)
        if c.get("difference") is not None:
            table.add_row("difference", f"{rows.difference} = {c['difference']}, exactly")
    if v.entries and v.verdict == "incorrect":
        table.add_row("entries", entries_text(v))
    if v.branch:
        table.add_row("branch", v.branch)
    if v.feedback:
        table.add_row("feedback", Text(v.feedback, style="yellow"))
    if v.reason:
        table.add_row("reason", v.reason)
    if v.verdict != "correct":
        table.add_row("expected", Text(v.expected))
    console.print(table)


def entries_text(v: Verdict) -> str:
    """Each entry marked right or wrong, and the score: `✓ d/dx  ✗ d/dy  (1 of 2 right)`."""
    assert v.entries is not None
    marks = "  ".join(f"{_MARK[e['verdict']]} {e['of'] or e['index']}" for e in v.entries)
    right = sum(e["verdict"] == "correct" for e in v.entries)
    return f"{marks}  ({right} of {len(v.entries)} right)"

"""A class's JSON lines, fast: in a class most rows share a verdict (identical answers
are judged once), so the verdict's part of the line (its fields and its receipt) is
encoded once per verdict and joined to each row's own fields. The text is exactly
`json.dumps(classview.row_json(r, keyed))`: the same keys in the same order, the same
separators."""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from gradcalc.render.verdicts import verdict_json

if TYPE_CHECKING:
    from gradcalc.grading.classfile import Result

#: verdicts whose encoded part is kept
KEPT = 4096
#: the row's own fields: they come first, and a verdict's field of the same name
#: (its own share of the score) gives way to the row's
_OWN = ("id", "line", "problem", "answer", "columns", "score", "max_score", "params", "hint",
        "late")

_ENCODED: OrderedDict[int, tuple[Any, str, str | None]] = OrderedDict()


def _verdict_part(verdict: Any) -> tuple[str, str | None]:
    """(the verdict's fields as JSON without braces, its receipt as JSON or None)."""
    kept = _ENCODED.get(id(verdict))
    if kept is not None and kept[0] is verdict:
        _ENCODED.move_to_end(id(verdict))
        return kept[1], kept[2]
    fields = verdict_json(verdict)
    fields.pop("receipt", None)
    part = json.dumps({k: v for k, v in fields.items() if k not in _OWN})[1:-1]
    receipt = json.dumps(verdict.receipt) if verdict.receipt is not None else None
    _ENCODED[id(verdict)] = (verdict, part, receipt)
    if len(_ENCODED) > KEPT:
        _ENCODED.popitem(last=False)
    return part, receipt


def row_head(r: Result, keyed: bool) -> dict[str, Any]:
    """The keys a row's JSON object starts with, before its verdict (or error)."""
    head: dict[str, Any] = {"id": r.task.student, "line": r.task.line}
    if keyed:
        head["problem"] = r.task.problem
    head["answer"] = r.task.answer
    head["columns"] = dict(r.task.extras)
    head["score"] = r.earned
    head["max_score"] = r.task.points
    if r.task.variant is not None:
        head["params"] = r.task.variant.as_json()["params"]
    fired = r.fired
    if fired is not None:
        head["hint"] = {"on": fired[1].on, "message": fired[1].message}
    if r.task.late_note:
        head["late"] = r.task.late_note
    return head


def solution_fields(r: Result) -> dict[str, Any]:
    """A row's worked solution when its key asks for it: `steps` and `departs_at`
    (nothing for every other row)."""
    if getattr(r, "solution", None) is None:
        return {}
    out = r.solution.as_json()
    return {"steps": out["steps"], "departs_at": out["departs_at"]}


def json_line(r: Result, keyed: bool) -> str:
    """One row's JSON line (with its line break): classview.row_json's object."""
    head = row_head(r, keyed)
    if r.verdict is None:  # an unreadable row: its error, no verdict to share
        category, message = r.error  # type: ignore[misc]
        return json.dumps({**head, "error": {"kind": category, "message": message},
                           "receipt": r.receipt}) + "\n"
    part, receipt = _verdict_part(r.verdict)
    if receipt is None:
        receipt = json.dumps(r.receipt)
    elif r.task.variant is not None or r.task.hints or r.task.deadline is not None:
        receipt = json.dumps(r.receipt)  # the verdict's, with the row's own variant
    worked = solution_fields(r)
    if worked:  # the key asks for the worked solution: it comes before the receipt
        part += ", " + json.dumps(worked)[1:-1]
    return f'{json.dumps(head)[:-1]}, {part}, "receipt": {receipt}}}\n'

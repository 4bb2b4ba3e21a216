"""Saved verdicts judged again from their receipts (`check --replay verdicts.jsonl`).

Each JSON line of `check --json` (one answer or a class's rows) carries a receipt: the
texts, the inputs, the seed, samples and tolerances, the problem's kind, the method, and
both sides' values at every sampled point. Replaying judges the texts again with those
settings and reports every difference: in the verdict, the method, the score, the points
or the values there (compared to 1e-12 relative, so a hand-edited number is found). The
derivative's printed form is not compared: it is simplified within a time bound, so it
may read differently on a busier machine while being the same derivative. A row
saved as unreadable must still be unreadable, with the same kind of error (a row refused
before judging, such as a problem not in the key, has nothing to judge again).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from gradcalc.errors import GradcalcError, failure
from gradcalc.grading.classfile import open_binary, share, text_lines
from gradcalc.grading.hints import Hint, fire
from gradcalc.grading.variants import redrawn
from gradcalc.homework import answer as judging
from gradcalc.homework.answer import split_wrt
from gradcalc.homework.receipt import kind_of, receipt, settings_of
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: values agree when within this relative (or absolute, near 0) distance: float64's
#: last digits may differ between NumPy builds, a hand-edited number does not pass
RTOL, ATOL = 1e-12, 1e-15
#: the longest verdict line read (a receipt holds every sampled point's values)
MAX_LINE_BYTES = 1 << 24


@dataclass
class Replayed:
    line: int
    ident: str
    differences: list[str] = field(default_factory=list)
    version: str | None = None  # the receipt's version when it is not this one

    @property
    def same(self) -> bool:
        return not self.differences


def records(file: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every verdict line, read one line at a time (a file of
    any length); the summary line and blank lines are skipped; GradcalcError (exit 2) for
    a line that is not a JSON object."""
    fh, source = open_binary(file, "verdicts file")
    try:
        for number, line in enumerate(text_lines(fh, source, MAX_LINE_BYTES), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise GradcalcError(f"{source}, line {number}: not JSON ({exc.msg})",
                                    kind="usage") from None
            if not isinstance(obj, dict):
                raise GradcalcError(f"{source}, line {number}: not a JSON object",
                                    kind="usage")
            if "summary" in obj and len(obj) == 1:
                continue
            yield number, obj
    finally:
        if fh is not sys.stdin.buffer:
            fh.close()


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
            not isinstance(a, bool) and not isinstance(b, bool):
        return a == b or (math.isfinite(a) and math.isfinite(b) and
                          abs(a - b) <= ATOL + RTOL * max(abs(a), abs(b)))
    return a == b


def _differ(what: str, recorded: Any, now: Any, out: list[str]) -> None:
    if not _close(recorded, now):
        out.append(f"{what}: recorded {json.dumps(recorded)}, now {json.dumps(now)}")


def replay(number: int, obj: dict[str, Any], limits: Limits = DEFAULT_LIMITS) -> Replayed:
    """One saved verdict judged again; its differences from what was recorded."""
    from gradcalc import __version__

    out = Replayed(number, " ".join(str(obj[k]) for k in ("id", "problem") if obj.get(k)))
    rec = obj.get("receipt")
    if isinstance(rec, dict) and rec.get("function") == "" and isinstance(obj.get("error"),
                                                                          dict):
        return out  # the row's own error (a problem not in the key): no texts to judge
    if not isinstance(rec, dict) or not isinstance(rec.get("function"), str) or \
            not isinstance(rec.get("answer"), str):
        out.differences.append("no receipt to judge it again from")
        return out
    if rec.get("version") != __version__:
        out.version = str(rec.get("version"))
    try:
        settings = settings_of(rec)
        wrt = split_wrt(",".join(rec["wrt"])) if rec.get("wrt") else None
        kind = kind_of(rec)
        out.differences += row_against_receipt(obj, rec)
        if isinstance(rec.get("variant"), dict):
            out.differences += redrawn(rec["variant"], rec["function"], kind)
        late = _late(rec)
        verdict = judging.run(judging.AnswerJob(rec["function"], rec["answer"], wrt,
                                                 settings, limits, kind=kind))
    except Exception as exc:  # noqa: BLE001 - an error is a result to compare, too
        kind, message = failure(exc)
        was = obj.get("error")
        if not isinstance(was, dict):
            out.differences.append(f"verdict: recorded {json.dumps(obj.get('verdict'))}, "
                                   f"now unreadable ({kind}: {message})")
        elif was.get("kind") != kind:
            _differ("error kind", was.get("kind"), kind, out.differences)
        return out
    if "error" in obj:
        out.differences.append(f"verdict: recorded unreadable, now {verdict.verdict}")
        return out
    now = verdict.receipt or receipt(rec["function"], rec["answer"], wrt, settings, verdict,
                                     kind=kind)
    _differ("verdict", obj.get("verdict"), verdict.verdict, out.differences)
    _differ("method", obj.get("method"), verdict.method, out.differences)
    if rec.get("method") != obj.get("method"):
        _differ("receipt's method", rec.get("method"), verdict.method, out.differences)
    if "score" in obj and "max_score" in obj:
        try:
            _differ("score", obj["score"], share(verdict) * float(obj["max_score"]) * late,
                    out.differences)
        except (TypeError, ValueError):
            out.differences.append("score: max_score is not a number")
    if isinstance(rec.get("hints"), list):
        _differ("hint", obj.get("hint"), _hint_now(rec, verdict, kind, settings, limits),
                out.differences)
    recorded, fresh = rec.get("points") or [], now["points"]
    if len(recorded) != len(fresh):
        out.differences.append(f"points: recorded {len(recorded)}, now {len(fresh)}")
    else:
        for k, (a, b) in enumerate(zip(recorded, fresh, strict=True)):
            for part in ("at", "expected", "answer"):
                _differ(f"point {k + 1} {part}", a.get(part) if isinstance(a, dict) else a,
                        b[part], out.differences)
    return out


def row_against_receipt(obj: dict[str, Any], rec: dict[str, Any]) -> list[str]:
    """Each field of the row that its verdict depends on and that says otherwise than its
    receipt: the answer, and for a variant the student, the problem and the values (a
    field the row does not have, as a lone check's answer, is not compared)."""
    out = []
    pairs = [("answer", obj.get("answer"), rec.get("answer"))]
    variant = rec.get("variant")
    if isinstance(variant, dict):
        pairs += [("student", obj.get("id"), variant.get("student")),
                  ("problem", obj.get("problem"), variant.get("problem")),
                  ("params", obj.get("params"), variant.get("params"))]
    for name, row, saved in pairs:
        if name == "params" or name in obj or (name == "student" and "id" in obj):
            if not _close(row, saved):
                out.append(f"{name}: the row says {json.dumps(row)}, its receipt "
                           f"{json.dumps(saved)}")
    return out


def _late(rec: dict[str, Any]) -> float:
    """The share of its points the row kept by the receipt's deadline (1 without one)."""
    if "deadline" not in rec:
        return 1.0
    from gradcalc.grading.course import deadline_from

    deadline, submitted = deadline_from(rec["deadline"])
    return deadline.factor(submitted)[0]


def _hint_now(rec: dict[str, Any], verdict: Any, kind: Any, settings: Any,
              limits: Limits) -> dict[str, str] | None:
    """The teacher's hint (of those the receipt carries) that fires now, as a row
    records it."""
    try:
        hints = tuple(Hint(str(h["on"]), str(h["message"]), bool(h.get("rule")))
                      for h in rec["hints"])
    except (KeyError, TypeError):
        return {"on": "?", "message": "the receipt's hints cannot be read"}
    k = fire(hints, rec["answer"], verdict, kind, settings, limits)
    return None if k is None else {"on": hints[k].on, "message": hints[k].message}


def replay_file(file: str, limits: Limits = DEFAULT_LIMITS) -> Iterator[Replayed]:
    for number, obj in records(file):
        yield replay(number, obj, limits)

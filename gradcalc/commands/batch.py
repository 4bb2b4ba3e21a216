"""`gradcalc batch`: one job per JSON line in, one JSON result per line out, in order.

Each line is an object such as `{"command": "grad", "program": "y = 2*x**2", "at": "x=1"}`;
its answer is that command's result, or the error of a bad line (invalid JSON, an unknown
command or field, any error of the job), and the batch goes on. Blank lines are skipped.
Exit code: 2 if any line was answered with an error, else 1 if any check (or `expect`)
failed, else 0. Nothing here prints: `render.as_json.answer_json` writes an answer as
`{"line": N, ...the command's JSON object}` or `{"line": N, "error": {...}}`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from gradcalc.commands.jobs import COMMANDS, Job
from gradcalc.errors import GradcalcError, failure
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: the fields a job line may have
FIELDS = ("command", "program", "at", "weights", "wrt", "of", "check", "expect", "answer",
          "id", "check_seconds", "max_iterations")
#: longest line read as one job
MAX_LINE_BYTES = 2_000_000


@dataclass
class Answer:
    """A line's answer: the command's result, or the error (kind, message) that ended it."""

    line: int
    ident: dict[str, Any]  # {"id": ...} when the job has one
    result: Any = None  # a commands.derivatives.Result
    error: tuple[str, str] | None = None
    #: a check job's worked solution, when it asks for one ("steps": true)
    solution: Any = None


@dataclass
class Tally:
    """What the batch has answered so far, for the exit code."""

    jobs: int = 0
    errors: int = 0
    failures: int = 0

    @property
    def exit_code(self) -> int:
        return 2 if self.errors else 1 if self.failures else 0


AT_FORMS = ('"at" is a text ("x=1, y=[1,2]"), a list of such texts or an object '
            '({"x": 1, "y": [1, 2]})')


def job_from(obj: Any, *, check: bool = True, limits: Limits = DEFAULT_LIMITS) -> Job:
    """A Job from one decoded line; GradcalcError names what is wrong with it."""
    if not isinstance(obj, dict):
        raise GradcalcError(f"a job is a JSON object, not {_json_type(obj)}", kind="usage")
    unknown = [k for k in obj if k not in FIELDS]
    if unknown:
        raise GradcalcError(f"unknown field {', '.join(map(repr, unknown))} (a job may have "
                            f"{', '.join(FIELDS)})", kind="usage")
    command = obj.get("command")
    if not isinstance(command, str):
        raise GradcalcError('the job has no "command" (one of ' + ", ".join(COMMANDS) + ")",
                            kind="usage")
    if command not in COMMANDS:
        raise GradcalcError(f"unknown command {command!r} (batch runs "
                            f"{', '.join(COMMANDS)} and check jobs)", kind="usage")
    if "answer" in obj:
        raise GradcalcError('"answer" goes with check jobs: {"command": "check", '
                            '"program": FUNCTION, "answer": ANSWER}', kind="usage")
    program = obj.get("program")
    if not isinstance(program, str):
        raise GradcalcError('the job has no "program" text', kind="usage")
    of = obj.get("of")
    if of is not None and not isinstance(of, str):
        raise GradcalcError('"of" is a name', kind="usage")
    checked = obj.get("check", check)
    if not isinstance(checked, bool):
        raise GradcalcError('"check" is true or false', kind="usage")
    return Job(command=command, program=program, at=_at(obj.get("at", [])),
               weights=obj.get("weights"), wrt=_wrt(obj.get("wrt")) or None, of=of,
               check=checked, expect=obj.get("expect"), limits=_limits(obj, limits))


def check_job(obj: dict[str, Any], limits: Limits) -> tuple[Any, Any]:
    """A homework check line: {"command": "check", "program": FUNCTION, "answer": ANSWER,
    "wrt": ...}, with a key's kind columns as fields ("order": 2, "partial": "x,y",
    "at": "x=2", "kind": "antiderivative", "constant": "required", "shape": "W=3x2, x=2",
    "integers": true, ...); its verdict (`gradcalc.homework.answer`) and, with
    "steps": true, its worked solution (as `check --steps` gives it), else None."""
    from gradcalc.homework import answer as judging
    from gradcalc.homework.kinds.columns import kind_of
    from gradcalc.homework.kinds.registry import COLUMNS

    allowed = ("command", "program", "answer", "wrt", "id", "check_seconds", "steps",
               *COLUMNS)
    unknown = [k for k in obj if k not in allowed]
    if unknown:
        raise GradcalcError(f"unknown field {', '.join(map(repr, unknown))} (a check job may "
                            f"have {', '.join(allowed)})", kind="usage")
    program, answer = obj.get("program"), obj.get("answer")
    if not isinstance(program, str) or not isinstance(answer, str):
        raise GradcalcError('a check job has "program" (the function) and "answer" texts',
                            kind="usage")
    steps = obj.get("steps", False)
    if not isinstance(steps, bool):
        raise GradcalcError('"steps" is true or false', kind="usage")
    kind = kind_of({c: _cell(c, obj[c]) for c in COLUMNS if c in obj}, "the check job",
                   part="field")
    job = judging.AnswerJob(program, answer, _wrt(obj.get("wrt")) or None,
                             limits=_limits(obj, limits), kind=kind)
    verdict = judging.run(job)
    return verdict, judging.worked(job, verdict) if steps else None


def _cell(field: str, v: Any) -> str:
    """A kind field's JSON value as a key's cell: 2, "x,y" or ["x", "y"], "x=2" or
    {"x": 2}, "W=3x2" or {"W": [3, 2]}, true (each setting's `from_json`)."""
    from gradcalc.homework.kinds.registry import KINDS, SETTING, json_text

    text = json_text(field, v)
    if text is not None:
        return text
    forms = (SETTING[field].json if field in SETTING else
             ", ".join(k.name for k in KINDS))  # the kind field
    raise GradcalcError(f'"{field}" is {forms}, not {_json_type(v)}', kind="usage")


def _at(at: Any) -> list[str] | dict[str, Any]:
    if isinstance(at, str):
        return [at]
    if isinstance(at, list) and all(isinstance(a, str) for a in at) or isinstance(at, dict):
        return at
    raise GradcalcError(AT_FORMS, kind="usage")


def _wrt(wrt: Any) -> list[str] | None:
    if isinstance(wrt, str):
        return [w.strip() for w in wrt.split(",") if w.strip()]
    if wrt is not None and not (isinstance(wrt, list) and all(isinstance(w, str) for w in wrt)):
        raise GradcalcError('"wrt" is a text ("a,b") or a list of names', kind="usage")
    return wrt


def _limits(obj: dict, limits: Limits) -> Limits:
    changes = {}
    for key, low, high, kind in (("check_seconds", 0.01, 3600, float),
                                 ("max_iterations", 1, 100_000_000, int)):
        if key in obj:
            v = obj[key]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not low <= v <= high \
                    or (kind is int and v != int(v)):
                raise GradcalcError(f'"{key}" is a number from {low} to {high:,}', kind="usage")
            changes[key] = kind(v)
    return replace(limits, **changes) if changes else limits


def _json_type(obj: Any) -> str:
    return {list: "an array", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(obj), "a number")


def answer(raw: bytes | str, n: int, tally: Tally, *, check: bool = True,
           limits: Limits = DEFAULT_LIMITS, explain: bool = False) -> Answer | None:
    """The answer to line `n` (None for a blank line); counts it in `tally`; `explain`:
    a grad, jacobian or hessian job's answer also carries its tape and sweep."""
    from gradcalc.commands import one_point

    ident: dict[str, Any] = {}
    solution = None
    try:
        text = _text(raw)
        if not text.strip():
            return None
        tally.jobs += 1
        obj = _json(text)
        if isinstance(obj, dict) and "id" in obj:
            ident = {"id": obj["id"]}
        if isinstance(obj, dict) and obj.get("command") == "check":
            result, solution = check_job(obj, limits)
        else:
            result = one_point.run(replace(job_from(obj, check=check, limits=limits),
                                             explain=explain))
    except Exception as exc:  # noqa: BLE001 - one bad job must not end the batch
        tally.errors += 1
        return Answer(n, ident, error=failure(exc))
    if result.failed:
        tally.failures += 1
    return Answer(n, ident, result=result, solution=solution)


def _text(raw: bytes | str) -> str:
    if len(raw) > MAX_LINE_BYTES:
        raise GradcalcError(f"the line is over {MAX_LINE_BYTES:,} bytes", kind="limit")
    if isinstance(raw, bytes):
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise GradcalcError(f"the line is not UTF-8 text (byte {exc.start})",
                                kind="usage") from None
    return raw


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise GradcalcError(f"invalid JSON: {exc.msg} (column {exc.colno})",
                            kind="usage") from None


def run(lines: Iterable[bytes | str], tally: Tally, *, check: bool = True,
        limits: Limits = DEFAULT_LIMITS, explain_line: int | None = None) -> Iterator[Answer]:
    """Answers to the lines, in order, one at a time (so a pipe gets each as it is ready);
    line `explain_line`'s answer with its explanation (--explain-row)."""
    for n, raw in enumerate(lines, start=1):
        out = answer(raw, n, tally, check=check, limits=limits, explain=n == explain_line)
        if out is not None:
            yield out

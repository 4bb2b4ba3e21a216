"""`gradcalc batch`: one job per JSON line in, one JSON result per line out, in order.

Each line is an object such as `{"command": "grad", "program": "y = 2*x**2", "at": "x=1"}`;
its answer is that command's JSON object (render.to_json) plus `"line": N`. A bad line
(invalid JSON, an unknown command or field, any error of the job) is answered with
`{"line": N, "error": {"kind": ..., "message": ...}}` and the batch goes on. Blank lines
are skipped. Exit code: 2 if any line was answered with an error, else 1 if any check
(or `expect`) failed, else 0.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: the fields a job line may have
FIELDS = ("command", "program", "at", "weights", "wrt", "of", "check", "expect", "answer",
          "id", "check_seconds", "max_iterations")
#: longest line read as one job
MAX_LINE_BYTES = 2_000_000


@dataclass
class Tally:
    """What the batch has answered so far, for the exit code."""

    jobs: int = 0
    errors: int = 0
    failures: int = 0

    @property
    def exit_code(self) -> int:
        return 2 if self.errors else 1 if self.failures else 0


def job_from(obj: Any, *, check: bool = True, limits: Limits = DEFAULT_LIMITS) -> Any:
    """A commands.Job from one decoded line; GradcalcError names what is wrong with it."""
    from gradcalc.commands.derivatives import COMMANDS, Job

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
                            f"{', '.join(COMMANDS)} jobs)", kind="usage")
    if "answer" in obj:
        raise GradcalcError('"answer" goes with check jobs (homework answers), which batch '
                            'does not run yet', kind="usage")
    program = obj.get("program")
    if not isinstance(program, str):
        raise GradcalcError('the job has no "program" text', kind="usage")
    at = obj.get("at", [])
    if isinstance(at, str):
        at = [at]
    elif isinstance(at, list):
        if not all(isinstance(a, str) for a in at):
            raise GradcalcError('"at" is a text ("x=1, y=[1,2]"), a list of such texts or an '
                                'object ({"x": 1, "y": [1, 2]})', kind="usage")
    elif not isinstance(at, dict):
        raise GradcalcError('"at" is a text ("x=1, y=[1,2]"), a list of such texts or an '
                            'object ({"x": 1, "y": [1, 2]})', kind="usage")
    wrt = obj.get("wrt")
    if isinstance(wrt, str):
        wrt = [w.strip() for w in wrt.split(",") if w.strip()]
    elif wrt is not None and not (isinstance(wrt, list) and all(isinstance(w, str) for w in wrt)):
        raise GradcalcError('"wrt" is a text ("a,b") or a list of names', kind="usage")
    of = obj.get("of")
    if of is not None and not isinstance(of, str):
        raise GradcalcError('"of" is a name', kind="usage")
    checked = obj.get("check", check)
    if not isinstance(checked, bool):
        raise GradcalcError('"check" is true or false', kind="usage")
    return Job(command=command, program=program, at=at, weights=obj.get("weights"),
               wrt=wrt or None, of=of, check=checked, expect=obj.get("expect"),
               limits=_limits(obj, limits))


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
           limits: Limits = DEFAULT_LIMITS) -> dict[str, Any] | None:
    """The answer to line `n` (None for a blank line); counts it in `tally`."""
    from gradcalc.commands import derivatives as commands
    from gradcalc.render import text as render

    ident: dict[str, Any] = {}
    try:
        if len(raw) > MAX_LINE_BYTES:
            raise GradcalcError(f"the line is over {MAX_LINE_BYTES:,} bytes", kind="limit")
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise GradcalcError(f"the line is not UTF-8 text (byte {exc.start})",
                                    kind="usage") from None
        if not raw.strip():
            return None
        tally.jobs += 1
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise GradcalcError(f"invalid JSON: {exc.msg} (column {exc.colno})",
                                kind="usage") from None
        if isinstance(obj, dict) and "id" in obj:
            ident = {"id": obj["id"]}
        job = job_from(obj, check=check, limits=limits)
        result = commands.run(job)
    except GradcalcError as exc:
        return _error(n, ident, tally, exc.kind, exc.message)
    except RecursionError:
        return _error(n, ident, tally, "limit", "the program is nested too deeply to evaluate")
    except MemoryError:
        return _error(n, ident, tally, "limit", "out of memory: the program's arrays are too "
                      "large")
    except Exception as exc:  # noqa: BLE001 - one bad job must not end the batch
        return _error(n, ident, tally, "internal", f"internal error ({type(exc).__name__}): "
                      f"{exc}; please report it")
    if result.failed:
        tally.failures += 1
    return {"line": n, **ident, **render.to_json(result)}


def _error(n: int, ident: dict, tally: Tally, kind: str, message: str) -> dict[str, Any]:
    tally.errors += 1
    return {"line": n, **ident, "error": {"kind": kind, "message": message}}


def run(lines: Iterable[bytes | str], tally: Tally, *, check: bool = True,
        limits: Limits = DEFAULT_LIMITS) -> Iterator[dict[str, Any]]:
    """Answers to the lines, in order, one at a time (so a pipe gets each as it is ready)."""
    for n, raw in enumerate(lines, start=1):
        out = answer(raw, n, tally, check=check, limits=limits)
        if out is not None:
            yield out

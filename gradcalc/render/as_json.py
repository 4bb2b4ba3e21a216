"""JSON for scripts: a result, a check, an error, a batch answer (docs/scripting.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gradcalc.render.numbers import jsonable

if TYPE_CHECKING:
    from gradcalc.commands.batch import Answer
    from gradcalc.commands.one_point import Result
    from gradcalc.verify.check import CheckResult


def check_json(check: CheckResult) -> dict[str, Any]:
    """A check's status, method, largest error (nan and inf as words) and detail."""
    return {"status": check.status, "method": check.method,
            "max_abs_error": jsonable(check.max_abs_error), "detail": check.detail}


def to_json(result: Result) -> dict[str, Any]:
    """The result as one JSON object: output, weights, derivative, check (and expect)."""
    out: dict[str, Any] = {
        "command": result.command,
        "output": {"name": result.output_name, "shape": list(result.output.shape),
                   "value": jsonable(result.output)},
        "weights": None if result.weights is None else jsonable(result.weights),
        result.derivative_key: {k: jsonable(v) for k, v in result.derivative.items()},
        "check": check_json(result.check),
    }
    if result.expectation is not None:
        out["expect"] = "match" if result.expectation.ok else "mismatch"
        if not result.expectation.ok:
            out["expect_mismatch"] = [m.to_json() for m in result.expectation.mismatches]
    if result.warnings:
        out["warnings"] = list(result.warnings)
    if result.formulas is not None or result.explain is not None or result.view:
        from gradcalc.render.explanations import extras_json

        out.update(extras_json(result))
    return out


def error_json(category: str, message: str) -> dict[str, Any]:
    """An error as JSON: its category (parse, limit, usage, ...), under the key "kind",
    and its message."""
    return {"error": {"kind": category, "message": message}}


def answer_json(answer: Answer) -> dict[str, Any]:
    """A batch line's answer: its line number and id, then the result or the error."""
    head: dict[str, Any] = {"line": answer.line, **answer.ident}
    if answer.error is not None:
        return {**head, **error_json(*answer.error)}
    if getattr(answer.result, "command", None) is None:  # a homework verdict
        from gradcalc.render.verdicts import verdict_json

        out = {**head, **verdict_json(answer.result)}
        if answer.solution is not None:  # "steps": true, as check --steps --json
            worked = answer.solution.as_json()
            out.update(steps=worked["steps"], departs_at=worked["departs_at"])
        return out
    return {**head, **to_json(answer.result)}

"""--plain: numbers only, one row per line on stdout (for awk and friends); the notes a
person would want (warnings, a failed check) go to stderr."""

from __future__ import annotations

from gradcalc.commands.derivatives import Result
from gradcalc.render.numbers import rows


def plain(result: Result) -> str:
    """Each input's derivative in turn, one row per line."""
    lines: list[str] = []
    for value in result.derivative.values():
        lines.extend(rows(value))
    if result.formulas is not None or result.explain is not None:
        from gradcalc.render.explain import extras_plain

        lines.extend(extras_plain(result))
    return "\n".join(lines)


def notes(result: Result) -> list[str]:
    """The stderr lines that go with --plain: warnings, a failed check, a mismatch."""
    out = [f"warning: {warning}" for warning in result.warnings]
    if result.check.status == "fail":
        out.append(f"check: fail: {result.check.detail or 'the derivatives differ'}")
    if result.expect_ok is False:
        out.append("expect: mismatch")
    return out

"""--plain: numbers only, one row per line on stdout (for awk and friends); the notes a
person would want (warnings, a failed check) go to stderr."""

from __future__ import annotations

from gradcalc.commands.one_point import Result
from gradcalc.render.digits import Numbers
from gradcalc.render.matrix_rows import plain_rows


def plain(result: Result, numbers: Numbers | None = None) -> str:
    """One input: its derivative's rows (of its last axis); several: the assembled matrix
    (for grad, its one row), so a script splits it the same way whatever the shapes."""
    numbers = numbers or Numbers()
    matrix = result.matrix()
    if matrix is not None:
        lines = plain_rows(matrix, numbers)
    else:
        lines = [line for value in result.derivative.values() for line in numbers.rows(value)]
    if result.formulas is not None or result.explain is not None:
        from gradcalc.render.explanations import extras_plain

        lines.extend(extras_plain(result))
    return "\n".join(lines)


def notes(result: Result, numbers: Numbers | None = None) -> list[str]:
    """The stderr lines that go with --plain: notes, warnings, a failed check, a mismatch."""
    out = [f"note: {note}" for note in result.notes]
    if numbers is not None and numbers.note():
        out.append(f"note: {numbers.note()}")
    out += [f"warning: {warning}" for warning in result.warnings]
    if result.check.status == "fail":
        out.append(f"check: fail: {result.check.detail or 'the derivatives differ'}")
    if result.expectation is not None and not result.expectation.ok:
        out.append(f"expect: {result.expectation.text()}")
    return out

"""The roll call of a class graded against a roster: the students who are not on it (not
graded) and those on it who submitted nothing, as lines for standard error."""

from __future__ import annotations

from gradcalc.grading.gradebook import Gradebook

#: students named in one line before "..."
SHOWN = 10


def listed(names: list[str]) -> str:
    """Names joined, at most SHOWN of them."""
    return ", ".join(names[:SHOWN]) + (", ..." if len(names) > SHOWN else "")


def roll_notes(book: Gradebook) -> str:
    """One line per student not on the roster, then one line of the missing."""
    out = []
    for student, lines in book.unknown.items():
        where = ", ".join(str(n) for n in lines[:SHOWN]) + (", ..." if len(lines) > SHOWN
                                                              else "")
        out.append(f"warning: {student!r} is not on the roster: not graded (line"
                   f"{'s' * (len(lines) > 1)} {where})\n")
    missing = book.missing if book.known else []
    if missing:
        out.append(f"{len(missing)} student{'s' * (len(missing) > 1)} on the roster "
                   f"submitted nothing: {listed(missing)}\n")
    return "".join(out)

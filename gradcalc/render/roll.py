"""The roll call of a class graded against a roster: the students who are not on it (not
graded) and those on it who submitted nothing, as lines for standard error."""

from __future__ import annotations

from collections import Counter
from typing import Any

from gradcalc.grading.gradebook import Gradebook

#: students named in one line before "..."
SHOWN = 10


def listed(names: list[str]) -> str:
    """Names joined, at most SHOWN of them."""
    return ", ".join(names[:SHOWN]) + (", ..." if len(names) > SHOWN else "")


def counted(book: Gradebook, policy: str) -> str:
    """The grades as the policy counts them, per student: how many, their points."""
    from gradcalc.render.classview import points_text

    n = len(book.students)
    earned = round(sum(book.total(s) for s in book.students), 6)
    return (f"{n} student{'s' * (n != 1)}: {points_text(earned)} of "
            f"{points_text(round(n * book.max_total, 6))} points, the {policy} submission "
            "to each problem counted\n")


def roll_notes(book: Gradebook, policy: str = "latest") -> str:
    """One line per student not on the roster, one line of the missing, then the
    grades as counted per student."""
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
    if book.problems:
        out.append(counted(book, policy))
    return "".join(out)


#: the share of a class that may share a problem's variant with a classmate unwarned
SHARED = 0.1


def sharing_notes(sheets: list, key: Any) -> str:
    """A warning per parametrised problem whose variants too many classmates share: how
    many students have a classmate's variant, of how many variants the parameters make."""
    out = []
    for k, problem in enumerate(key.problems.values()):
        if problem.template is None or len(sheets) < 2:
            continue
        held = Counter(sheet.items[k].function for sheet in sheets)
        sharing = sum(n for n in held.values() if n > 1)
        if sharing > SHARED * len(sheets):
            out.append(f"warning: problem {problem.name}: {sharing} of {len(sheets)} "
                       f"students share their variant with a classmate ({len(held)} "
                       f"handed out, of {problem.variants:,} the parameters make): widen "
                       "the ranges for fewer shared\n")
    return "".join(out)

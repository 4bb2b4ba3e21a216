"""A class's results gathered: per student and problem the points earned (the gradebook),
per problem how many got it and which mistakes were common (the class picture).

A student's score on a problem is the last submission's score × the problem's points (a
resubmission replaces the earlier one, as a gradebook does); a problem of the key with no
submission scores 0. A mistake is the verdict's misconception (rule and step) where it
names one, else its feedback; an incorrect answer without either is "(not recognised)".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from gradcalc.commands.classfile import STATUSES, Result
from gradcalc.commands.key import Key

#: example answers kept per mistake, slowest rows listed
EXAMPLES, SLOWEST = 3, 10
#: the label of an incorrect answer whose mistake has no name
UNNAMED = "(not recognised)"


@dataclass
class Gradebook:
    problems: list[str]
    points: dict[str, float]  # the most each problem gives
    students: dict[str, dict[str, float]] = field(default_factory=dict)  # earned
    section: dict[str, str] = field(default_factory=dict)

    def total(self, student: str) -> float:
        return sum(self.students[student].get(p, 0.0) for p in self.problems)

    @property
    def max_total(self) -> float:
        return sum(self.points[p] for p in self.problems)


def gradebook(results: list[Result], key: Key | None) -> Gradebook:
    """Scores per student and problem, in the key's order of problems (else the order in
    which the file first names them) and the file's order of students."""
    if key is not None:
        book = Gradebook(key.names, {n: p.points for n, p in key.problems.items()})
    else:
        book = Gradebook([], {})
    for r in results:
        name = problem_name(r)
        if key is not None and name not in book.points:  # not in the key: no column
            book.students.setdefault(r.task.student, {})
            continue
        if name not in book.points:
            book.problems.append(name)
            book.points[name] = r.task.points
        book.students.setdefault(r.task.student, {})[name] = r.earned
        section = next((v for k, v in r.task.extras if k.strip().lower() == "section"), "")
        if section:
            book.section[r.task.student] = section
    return book


def problem_name(r: Result) -> str:
    """The problem a row answers: the key's name, else the function as given."""
    return r.task.problem or r.task.function.strip()


def mistake(r: Result) -> str | None:
    """What went wrong in an incorrect row, as a label that groups a class's rows."""
    if r.verdict is None or r.verdict.verdict != "incorrect":
        return None
    named = getattr(r.verdict, "misconception", None)
    if isinstance(named, dict) and named.get("rule"):
        from gradcalc.verify.homework.misconceptions import CATALOGUE

        words = {rule.id: rule.name for rule in CATALOGUE}.get(named["rule"], named["rule"])
        return words + (f" at {named['at']}" if named.get("at") else "")
    return r.verdict.feedback or UNNAMED


@dataclass
class Mistake:
    label: str
    count: int
    examples: list[str]


@dataclass
class ProblemPicture:
    name: str
    function: str
    counts: dict[str, int]
    mistakes: list[Mistake]

    @property
    def rows(self) -> int:
        return sum(self.counts.values())


@dataclass
class Picture:
    problems: list[ProblemPicture]
    slowest: list[Result]
    book: Gradebook
    counts: dict[str, int]


def picture(results: list[Result], key: Key | None) -> Picture:
    """The class picture: per problem the verdicts' counts and the commonest mistakes
    (with example answers), the slowest rows and the gradebook."""
    book = gradebook(results, key)
    counts: dict[str, Counter] = {p: Counter() for p in book.problems}
    labels: dict[str, Counter] = {p: Counter() for p in book.problems}
    examples: dict[tuple[str, str], list[str]] = {}
    functions: dict[str, str] = {}
    for r in results:
        name = problem_name(r)
        if name not in counts:  # a problem the key does not have
            continue
        functions.setdefault(name, r.task.function.strip())
        counts[name][r.status] += 1
        label = mistake(r)
        if label is not None:
            labels[name][label] += 1
            shown = examples.setdefault((name, label), [])
            if len(shown) < EXAMPLES and r.task.answer.strip() not in shown:
                shown.append(r.task.answer.strip())
    if key is not None:
        for name, p in key.problems.items():
            functions.setdefault(name, p.function)
    problems = [ProblemPicture(p, functions.get(p, ""),
                               {s: counts[p][s] for s in STATUSES},
                               [Mistake(label, n, examples[(p, label)])
                                for label, n in labels[p].most_common()])
                for p in book.problems]
    slowest = sorted(results, key=lambda r: -r.seconds)[:SLOWEST]
    total = Counter(r.status for r in results)
    return Picture(problems, slowest, book, {s: total[s] for s in STATUSES})

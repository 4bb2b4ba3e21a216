"""A class's results gathered: per student and problem the points earned (the gradebook),
per problem how many got it and which mistakes were common (the class picture).

A student's score on a problem is the last submission's score × the problem's points (a
resubmission replaces the earlier one, as a gradebook does); a problem of the key with no
submission scores 0. A mistake is the teacher's hint that fired, else the verdict's
misconception (rule and step) where it names one, else its feedback; an incorrect answer
without any is "(not recognised)". A mistake counts the students who made it (once
each, however often they resubmitted). A parametrised problem is one problem over all
its variants: a misconception's step is named in the template (`sin(b·x)`, whatever
each student's b), a hint by the key's words, and an example variant is kept.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from gradcalc.grading.classfile import STATUSES, Result
from gradcalc.grading.course import better
from gradcalc.grading.key import Key
from gradcalc.grading.variants import Variant, equation, template_steps
from gradcalc.homework.kinds.registry import PLAIN, Kind

#: example answers kept per mistake, slowest rows listed
EXAMPLES, SLOWEST = 3, 10
#: a hint's placeholder of a parameter's value ({b})
PLACEHOLDER = re.compile(r"[{]([A-Za-z_]\w*)[}]")
#: the label of an incorrect answer whose mistake has no name
UNNAMED = "(not recognised)"


@dataclass
class Gradebook:
    problems: list[str]
    points: dict[str, float]  # the most each problem gives
    students: dict[str, dict[str, float]] = field(default_factory=dict)  # earned
    section: dict[str, str] = field(default_factory=dict)
    #: a roster's students: each one's name and identifiers (gradcalc.grading.roster)
    known: dict[str, Any] = field(default_factory=dict)
    #: students not on the roster, each with the lines of their rows (not graded)
    unknown: dict[str, list[int]] = field(default_factory=dict)
    blank: bool = False  # a problem with no submission is an empty cell, not 0

    @property
    def missing(self) -> list[str]:
        """The roster's students who submitted nothing."""
        return [s for s, scores in self.students.items() if not scores]

    def total(self, student: str) -> float:
        return sum(self.students[student].get(p, 0.0) for p in self.problems)

    @property
    def max_total(self) -> float:
        return sum(self.points[p] for p in self.problems)


def gradebook(results: Iterable[Result], key: Key | None) -> Gradebook:
    """Scores per student and problem, in the key's order of problems (else the order in
    which the file first names them) and the file's order of students."""
    gather = Gather(key)
    for r in results:
        gather.add(r)
    return gather.book


def problem_name(r: Result) -> str:
    """The problem a row answers: the key's name, else the function as given."""
    return r.task.problem or r.task.function.strip()


def mistake(r: Result) -> str | None:
    """What went wrong in an incorrect row, as a label that groups a class's rows (the
    same for every variant of a parametrised problem)."""
    if r.verdict is None or r.verdict.verdict != "incorrect":
        return None
    fired = r.fired
    if fired is not None:
        # the key's words, its placeholders as the parameters' names ({b}x: bx)
        return f"hint {fired[0].on}: " + PLACEHOLDER.sub(r"\1", fired[0].message)
    named = getattr(r.verdict, "misconception", None)
    if isinstance(named, dict) and named.get("rule"):
        from gradcalc.homework.feedback.catalogue import CATALOGUE

        words = {rule.id: rule.name for rule in CATALOGUE}.get(named["rule"], named["rule"])
        return words + (f" at {template_step(r, named['at'])}" if named.get("at") else "")
    return r.verdict.feedback or UNNAMED


def template_step(r: Result, at: str) -> str:
    """A step of the row's function as the template names it (`sin(2x)` -> `sin(b·x)`)."""
    v = r.task.variant
    if v is None:
        return at
    return template_steps(v.template, v.function, equation(v.kind)).get(at, at)


@dataclass
class Mistake:
    label: str
    count: int  # students
    examples: list[str]
    #: the variant's function each example answered (a parametrised problem's)
    variants: list[str] = field(default_factory=list)


@dataclass
class ProblemPicture:
    name: str
    function: str
    counts: dict[str, int]
    mistakes: list[Mistake]
    params: str = ""  # a parametrised problem's spec
    variants: int = 1  # how many combinations of values its conditions keep
    example: Variant | None = None  # one student's variant
    kind: Kind = PLAIN  # what the problem asks for (how its texts read as formulas)

    @property
    def rows(self) -> int:
        return sum(self.counts.values())


@dataclass
class Picture:
    problems: list[ProblemPicture]
    slowest: list[Result]
    book: Gradebook
    counts: dict[str, int]


def picture(results: Iterable[Result], key: Key | None) -> Picture:
    """The class picture: per problem the verdicts' counts and the commonest mistakes
    (with example answers), the slowest rows and the gradebook."""
    gather = Gather(key)
    for r in results:
        gather.add(r)
    return gather.picture()


class Gather:
    """The gradebook and the class picture built a row at a time, so a class of any
    length is never held whole: memory is per student and problem (scores, counts, the
    mistakes' labels and a few examples), the slowest rows, and the last row of each
    problem (one student's results.json)."""

    def __init__(self, key: Key | None) -> None:
        self.key = key
        if key is not None:
            self.book = Gradebook(list(key.names), {n: p.points for n, p in key.problems.items()})
        else:
            self.book = Gradebook([], {})
        self.counts: dict[str, Counter] = {p: Counter() for p in self.book.problems}
        self.labels: dict[str, Counter] = {p: Counter() for p in self.book.problems}
        self.examples: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self.who: dict[tuple[str, str], set[str]] = {}  # the students of each mistake
        self.functions: dict[str, str] = {}
        self.example: dict[str, Variant] = {}
        self.slowest: list[Result] = []
        self.total: Counter = Counter()
        self.last: dict[str, Result] = {}  # each problem's last row
        self.first: dict[str, Result] = {}  # each problem's first row (its worked solution)
        course = getattr(key, "course", None)
        self.policy = course.policy if course is not None else "latest"
        self.kept: dict[tuple[str, str], tuple] = {}  # (time, order, points) counted
        if course is not None:
            self.book.blank = course.blank
            for s in (course.roster.students if course.roster is not None else ()):
                self.book.students[s.ident] = {}
                self.book.known[s.ident] = s
                if s.section:
                    self.book.section[s.ident] = s.section

    def add(self, r: Result) -> None:
        book, name = self.book, problem_name(r)
        if r.task.unknown:
            book.unknown.setdefault(r.task.student, []).append(r.task.line)
            return
        self.total[r.status] += 1
        self.last[name] = r
        if len(self.slowest) < SLOWEST or r.seconds > self.slowest[-1].seconds:
            # a stable sort of the rows kept: on a tie the earlier row stays first
            self.slowest = sorted([*self.slowest, r], key=lambda x: -x.seconds)[:SLOWEST]
        if self.key is not None and name not in book.points:  # not in the key: no column
            book.students.setdefault(r.task.student, {})
            return
        if name not in book.points:
            book.problems.append(name)
            book.points[name] = r.task.points
            self.counts[name], self.labels[name] = Counter(), Counter()
        self._count(r, name)
        section = next((v for k, v in r.task.extras if k.strip().lower() == "section"), "")
        if section:
            book.section[r.task.student] = section
        variant = r.task.variant
        self.functions.setdefault(name, (variant.template if variant else
                                         r.task.function).strip())
        if variant is not None:
            self.example.setdefault(name, variant)
        self.first.setdefault(name, r)
        self.counts[name][r.status] += 1
        label = mistake(r)
        if label is not None:
            who = self.who.setdefault((name, label), set())
            if r.task.student not in who:
                who.add(r.task.student)
                self.labels[name][label] += 1
            shown = self.examples.setdefault((name, label), [])
            answer = r.task.answer.strip()
            if len(shown) < EXAMPLES and answer not in (a for a, _ in shown):
                shown.append((answer, variant.function if variant else ""))

    def _count(self, r: Result, name: str) -> None:
        """The row's points in the gradebook, if the policy counts it over the student's
        earlier rows for the problem."""
        new = (r.task.submitted, r.task.line, r.earned)
        old = self.kept.get((r.task.student, name))
        scores = self.book.students.setdefault(r.task.student, {})
        if old is None or better(self.policy, new, old):
            self.kept[(r.task.student, name)] = new
            scores[name] = r.earned

    def picture(self) -> Picture:
        book, functions = self.book, dict(self.functions)
        if self.key is not None:
            for name, p in self.key.problems.items():
                functions.setdefault(name, p.function)
        problems = [ProblemPicture(p, functions.get(p, ""),
                                   {s: self.counts[p][s] for s in STATUSES},
                                   [self._mistake(p, label, n)
                                    for label, n in self.labels[p].most_common()],
                                   *self._params(p), self.example.get(p), self._kind(p))
                    for p in book.problems]
        return Picture(problems, list(self.slowest), book,
                       {s: self.total[s] for s in STATUSES})

    def _mistake(self, problem: str, label: str, count: int) -> Mistake:
        shown = self.examples[(problem, label)]
        return Mistake(label, count, [a for a, _ in shown],
                       [v for _, v in shown] if any(v for _, v in shown) else [])

    def _kind(self, problem: str) -> Kind:
        """The problem's kind: the key's, else its first row's."""
        p = self.key.problems.get(problem) if self.key is not None else None
        if p is not None:
            return p.kind
        first = self.first.get(problem)
        return first.task.kind if first is not None else PLAIN

    def _params(self, problem: str) -> tuple[str, int]:
        """A parametrised problem's spec and its count of variants ('', 1 otherwise)."""
        p = self.key.problems.get(problem) if self.key is not None else None
        if p is None or p.template is None:
            return "", 1
        return p.template.params.text, p.variants

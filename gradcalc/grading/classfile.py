"""A class: an answer key and the students' submissions (or one file with the function on
every row), judged row by row.

`tasks` turns the file(s) into Tasks, each carrying everything its judgement needs (the
texts, the settings, the points), so that `judge_task` is a pure function of one task:
one row in, one Result out, in input order. A row that cannot be judged (unreadable text,
a problem not in the key) is answered with its error in its place and the rest go on.
Identical (function, answer, settings) within a run share one judgement: a class answers
the same way often, and the judgement is deterministic (seeded). Nothing here prints.
"""

from __future__ import annotations

import codecs
import csv
import sys
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from gradcalc.errors import GradcalcError, failure
from gradcalc.grading.course import Course, read_time, time_column
from gradcalc.grading.hints import Hint, fire
from gradcalc.grading.key import Key
from gradcalc.grading.roster import normal_id
from gradcalc.grading.variants import Variant, variant_of
from gradcalc.homework import answer as judging
from gradcalc.homework.answer import split_wrt
from gradcalc.homework.judge import Settings, Verdict
from gradcalc.homework.kinds.registry import PLAIN, Kind
from gradcalc.homework.receipt import receipt, with_variant
from gradcalc.ingest.headers import (
    MAX_CELL_CHARS,
    SYNONYMS,
    Sheet,
    SheetRow,
    header_of,
    normal,
    rows_of,
)
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: the columns of a one-file class (id,function,answer[,wrt]) and of submissions to a key
ONE_FILE = ("student", "function", "answer")
SUBMISSIONS = ("student", "problem", "answer")
STATUSES = ("correct", "incorrect", "undetermined", "unreadable")
#: judgements kept for answers seen again in the same run
MEMO_SIZE = 4096
#: the longest line of a class file (a cell is at most MAX_CELL_CHARS characters)
MAX_LINE_BYTES = 1 << 20


@dataclass(frozen=True)
class Task:
    """One row to judge, self-contained (it can be sent to another process)."""

    line: int
    student: str
    problem: str  # the key's problem name; '' in the one-file form
    function: str
    answer: str
    wrt: str = ""
    settings: Settings = field(default_factory=Settings)
    points: float = 1.0
    extras: tuple[tuple[str, str], ...] = ()
    error: tuple[str, str] | None = None  # known before judging (a problem not in the key)
    kind: Kind = PLAIN  # what the key's problem asks for
    variant: Variant | None = None  # the student's own variant of a parametrised problem
    hints: tuple[tuple[Hint, Hint], ...] = ()  # the teacher's hints: (key's, variant's)
    steps: bool = False  # the key asks for the worked solution in the feedback
    #: the course's rules (gradcalc.grading.course): when it was submitted, the deadline,
    #: the share of its points a late submission keeps and why
    submitted: Any = None
    deadline: Any = None
    late: float = 1.0
    late_note: str = ""
    unknown: bool = False  # the student is not on the course's roster: not graded


@dataclass
class Result:
    task: Task
    verdict: Verdict | None = None
    error: tuple[str, str] | None = None
    seconds: float = 0.0
    hint: int | None = None  # the index of the teacher's hint that fired (task.hints)
    #: the problem's worked solution, when the key asks for it (`steps`)
    solution: Any = None

    @property
    def fired(self) -> tuple[Hint, Hint] | None:
        """The teacher's hint that fired: as the key writes it, and on the variant."""
        return self.task.hints[self.hint] if self.hint is not None else None

    @property
    def status(self) -> str:
        return self.verdict.verdict if self.verdict is not None else "unreadable"

    @property
    def score(self) -> float:
        """The share of the problem's points earned, 0 to 1 (a verdict's own partial
        score where it has one)."""
        return share(self.verdict)

    @property
    def earned(self) -> float:
        """The points earned: the share times the problem's points, less a late penalty."""
        return self.score * self.task.points * self.task.late

    @property
    def receipt(self) -> dict:
        if self.verdict is not None and self.verdict.receipt is not None:
            rec = self.verdict.receipt
        else:
            rec = receipt(self.task.function, self.task.answer, split_wrt(self.task.wrt),
                          self.task.settings, kind=self.task.kind)
        rec = with_variant(rec, *variant_parts(self.task))
        if self.task.deadline is not None:
            rec = {**rec, "deadline": self.task.deadline.as_json(self.task.submitted)}
        return rec


def variant_parts(task: Task) -> tuple[dict | None, list | None]:
    """What a row's receipt adds to its verdict's: the variant drawn and the variant's
    hints (None when the problem has none)."""
    return (task.variant.as_json() if task.variant is not None else None,
            [{"on": h.on, "message": h.message, "rule": h.rule} for _, h in task.hints]
            if task.hints else None)


def share(verdict: Verdict | None) -> float:
    """The share of the points a verdict earns: 1 for correct, 0 for undetermined or
    unreadable, and for incorrect the verdict's partial score (right entries of a list
    answer) where it has one, else 0."""
    if verdict is None or verdict.verdict == "undetermined":
        return 0.0
    partial = getattr(verdict, "score", None)
    if verdict.verdict == "correct":
        return 1.0
    return float(partial) if isinstance(partial, (int, float)) else 0.0


@dataclass
class Summary:
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATUSES, 0))
    earned: float = 0.0
    possible: float = 0.0

    def add(self, result: Result) -> None:
        self.counts[result.status] += 1
        self.earned += result.earned
        self.possible += result.task.points

    def merge(self, counts: dict[str, int], earned: list[float], possible: list[float]
              ) -> None:
        """Rows counted elsewhere: their statuses' counts and each row's points, added
        in order (the same floats as counting the rows one by one)."""
        for status, n in counts.items():
            self.counts[status] += n
        for value in earned:
            self.earned += value
        for value in possible:
            self.possible += value

    @property
    def rows(self) -> int:
        return sum(self.counts.values())

    @property
    def all_correct(self) -> bool:
        return self.rows > 0 and self.counts["correct"] == self.rows


# --------------------------------------------------------------------------- reading


def _columns(key: Key | None) -> tuple[str, tuple[str, ...], tuple[str, ...], str]:
    if key is not None:
        return ("submissions file", SUBMISSIONS, (),
                "the submissions (one row per answer)")
    return "class file", ONE_FILE, ("wrt",), "a class file"


def text_lines(fh: Any, source: str, longest: int = MAX_LINE_BYTES, offset: int = 0,
               number: int = 0) -> Iterator[str]:
    """The file's lines decoded as UTF-8 (a byte-order mark dropped), one at a time;
    `offset` and `number`: the bytes and lines of the file before `fh`'s first."""
    start = number
    while raw := fh.readline(longest + 1):
        number += 1
        if len(raw) > longest:
            raise GradcalcError(f"{source}, line {number}: the line is over "
                                f"{longest:,} bytes", kind="limit")
        if number == start + 1 and offset == 0 and raw.startswith(codecs.BOM_UTF8):
            raw, offset = raw[len(codecs.BOM_UTF8):], len(codecs.BOM_UTF8)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise GradcalcError(f"{source} is not UTF-8 text (byte {offset + exc.start})",
                                kind="usage") from None
        offset += len(raw)
        yield text


def open_binary(file: str, what: str) -> tuple[Any, str]:
    """FILE opened for reading bytes (standard input for '-') and how to name it."""
    if file == "-":
        return sys.stdin.buffer, "standard input"
    try:
        return open(file, "rb"), repr(file)  # noqa: SIM115 - the caller closes it
    except OSError as exc:
        raise GradcalcError(f"cannot read {what} {file!r}: {exc.strerror}",
                            kind="usage") from None


def open_class(file: str, key: Key | None) -> tuple[Sheet, Iterator[SheetRow]]:
    """The class file's header, and its rows read one at a time as they are asked for
    (a file of any length: memory is the rows held, not the file's)."""
    what, required, optional, label = _columns(key)
    fh, source = open_binary(file, what)
    reader = csv.reader(text_lines(fh, source))
    try:
        table = header_of(reader, source, required, optional, label)
    except GradcalcError as exc:
        if fh is not sys.stdin.buffer:
            fh.close()
        raise _suggest_key(exc, key) from None
    except BaseException:
        if fh is not sys.stdin.buffer:
            fh.close()
        raise

    def rows() -> Iterator[SheetRow]:
        try:
            yield from rows_of(reader, table)
        finally:
            if fh is not sys.stdin.buffer:
                fh.close()

    return table, rows()


def _suggest_key(exc: GradcalcError, key: Key | None) -> GradcalcError:
    """A header error; for submissions (a problem column, no function) read without a
    key, the same with the option they need."""
    found = exc.message.partition("; found: ")[2].partition("; needed")[0]
    names = {normal(n) for n in found.split(", ")}
    if key is not None or not names & set(SYNONYMS["problem"]) or \
            names & set(SYNONYMS["function"]):
        return exc
    return GradcalcError(exc.message + "; these are submissions to an answer key (a "
                         "problem column): add --key KEY.csv", kind=exc.kind)


@dataclass(frozen=True)
class Span:
    """A run of whole records of a class file, by bytes: what a --jobs worker reads."""

    start: int
    end: int
    line: int  # the file line of its first byte


def spans(file: str, rows: int) -> Iterator[Span]:
    """The class file's data (after its header) in spans of about `rows` lines, cut only
    between records (a quoted cell may hold line breaks: a cut needs an even number of
    quotes before it). One pass over the file's lines as bytes."""
    with open(file, "rb") as fh:
        header = fh.readline()
        quotes = header.count(b'"')
        while quotes % 2 and (more := fh.readline()):  # a header cell over several lines
            header += more
            quotes += more.count(b'"')
        start, line, count, at = fh.tell(), header.count(b"\n") + 1, 0, fh.tell()
        first = line
        for raw in iter(fh.readline, b""):
            at += len(raw)
            count += 1
            quotes += raw.count(b'"')
            if count >= rows and not quotes % 2:
                yield Span(start, at, first)
                start, first, count = at, line + 1, 0
            line += 1
        if at > start:
            yield Span(start, at, first)


def span_rows(file: str, span: Span, table: Sheet) -> Iterator[SheetRow]:
    """The rows of one span, numbered by their lines in the whole file."""
    import io

    with open(file, "rb") as fh:
        fh.seek(span.start)
        data = io.BytesIO(fh.read(span.end - span.start))
    lines = text_lines(data, table.source, offset=span.start, number=span.line - 1)
    yield from rows_of(csv.reader(lines), table, before=span.line - 1)


def load(file: str, key: Key | None) -> Sheet:
    """The class file's table, every row read (for small files; `open_class` streams)."""
    table, rows = open_class(file, key)
    table.rows = list(rows)
    return table


def survey(file: str, key: Key | None, students: bool = False) -> tuple[int, list[str]]:
    """A first pass over the class file: its rows, and (if asked) its students in order
    of appearance (memory: the students, not the rows)."""
    table, rows = open_class(file, key)
    count, seen = 0, {}
    for row in rows:
        count += 1
        if students:
            seen.setdefault(normal_id(row.get("student")), None)
    return count, list(seen)


def check_variants(file: str, key: Key) -> int:
    """Every variant the class's rows draw, checked before any answer is judged: its
    function defined somewhere (GradcalcError naming the key's line and the student).
    How many (problem, student) variants were checked."""
    from gradcalc.grading.variants import require_defined

    seen: set[tuple[str, str]] = set()
    for row in open_class(file, key)[1]:
        problem = key.problems.get(row.get("problem").strip()) or \
            key.lower.get(row.get("problem").strip().lower())
        student = ident_of(row.get("student"), getattr(key, "course", None))
        if problem is None or problem.template is None or student is None or \
                (problem.name, student) in seen:
            continue
        seen.add((problem.name, student))
        require_defined(variant_of(problem.template, student),
                        f"{problem.template.where} (the variant of {student!r})")
    return len(seen)


def ident_of(text: str, course: Course | None) -> str | None:
    """The student a row names: the roster's identifier (None when not on it), else the
    text normalised."""
    if course is None or course.roster is None:
        return normal_id(text)
    known = course.roster.find(text)
    return known.ident if known is not None else None


def tasks(table: Sheet, key: Key | None, settings: Settings) -> list[Task]:
    """One Task per row of a table read whole, in order."""
    return list(iter_tasks(table, table.rows, key, settings))


def iter_tasks(table: Sheet, rows: Iterable[SheetRow], key: Key | None,
               settings: Settings) -> Iterator[Task]:
    """One Task per row, in order, as the rows come; a row's problems (too many cells,
    not in the key) become its error."""
    course = getattr(key, "course", None)
    clock = time_column(table.extra_names) if course is not None else None
    for row in rows:
        student, answer = normal_id(row.get("student")), row.get("answer")
        base = Task(row.line, student, row.get("problem").strip(), row.get("function"),
                    answer, row.get("wrt"), settings, extras=row.extras)
        if course is not None:
            base = _in_course(base, course, clock, table.source)
        if base.error is not None:
            yield base
            continue
        if row.overflow:
            yield replace(base, error=("usage", "the row has more cells than the header "
                                       f"has columns ({len(table.header)})"))
            continue
        if key is None:
            yield base
            continue
        try:
            problem = key.find(base.problem)
        except GradcalcError as exc:
            yield replace(base, error=(exc.kind, exc.message))
            continue
        own = replace(settings, rtol=settings.rtol if problem.rtol is None else problem.rtol,
                      atol=settings.atol if problem.atol is None else problem.atol)
        function, kind, variant = problem.function, problem.kind, None
        try:
            if problem.template is not None:
                variant = variant_of(problem.template, student)
                function, kind = variant.function, variant.kind
            hints = tuple((h, _put(h, variant.values if variant else (),
                                   problem.template.where if problem.template else ""))
                          for h in problem.hints)
        except GradcalcError as exc:
            yield replace(base, problem=problem.name, error=(exc.kind, exc.message))
            continue
        yield replace(base, problem=problem.name, function=function,
                      wrt=variant.wrt if variant else problem.wrt, settings=own,
                      points=problem.points, kind=kind, variant=variant, hints=hints,
                      steps=problem.steps)


def _in_course(task: Task, course: Course, clock: str | None, source: str) -> Task:
    """The row under the course's rules: the student as the roster knows them (else the
    row's error), its time and what a late submission keeps."""
    if course.roster is not None:
        known = ident_of(task.student, course)
        if known is None:
            return replace(task, unknown=True, error=(
                "input", f"student {task.student!r} is not on the roster "
                         f"({course.roster.source}): not graded"))
        task = replace(task, student=known)
    when = None
    if clock is not None:
        text = dict(task.extras).get(clock, "").strip()
        try:
            when = read_time(text, f"the time ({clock})") if text else None
        except GradcalcError as exc:
            return replace(task, error=(exc.kind, exc.message))
    due = course.deadline
    if due.due is None and when is None:
        return task
    late, why = due.factor(when)
    return replace(task, submitted=when, deadline=due, late=late, late_note=why)


@lru_cache(maxsize=65536)
def _put(hint: Hint, values: tuple, where: str) -> Hint:
    return hint.put(values, where)


# --------------------------------------------------------------------------- judging

_MEMO: OrderedDict[tuple, Verdict] = OrderedDict()


def _judged(task: Task, limits: Limits) -> Verdict:
    for what, text in (("function", task.function), ("answer", task.answer)):
        if not text.strip():
            raise GradcalcError(f"the {what} is empty", kind="parse")
        if len(text) > MAX_CELL_CHARS:
            raise GradcalcError(f"the {what} is over {MAX_CELL_CHARS:,} characters",
                                kind="limit")
    wrt = split_wrt(task.wrt)
    memo = (task.function, task.answer, tuple(wrt or ()), task.settings, limits, task.kind)
    if memo in _MEMO:
        _MEMO.move_to_end(memo)
        return _MEMO[memo]
    verdict = judging.run(judging.AnswerJob(task.function, task.answer, wrt, task.settings,
                                             limits, wrt_from="the row's wrt",
                                             kind=task.kind))
    _MEMO[memo] = verdict
    if len(_MEMO) > MEMO_SIZE:
        _MEMO.popitem(last=False)
    return verdict


def judge_task(task: Task, limits: Limits = DEFAULT_LIMITS) -> Result:
    """One row judged: its verdict, or the error that made it unreadable (never raised)."""
    started = time.perf_counter()
    out = Result(task, error=task.error)
    if task.error is None:
        try:
            out.verdict = _judged(task, limits)
            if task.hints:
                out.hint = fire(tuple(h for _, h in task.hints), task.answer, out.verdict,
                                task.kind, task.settings, limits)
            if task.steps:
                out.solution = _worked(task, out.verdict, limits)
        except Exception as exc:  # noqa: BLE001 - one bad row must not end the class
            out.error = failure(exc)
    out.seconds = time.perf_counter() - started
    return out


def _worked(task: Task, verdict: Verdict, limits: Limits) -> Any:
    """The problem's worked solution (once per problem), the row's departure marked."""
    job = judging.AnswerJob(task.function, task.answer, split_wrt(task.wrt), task.settings,
                             limits, wrt_from="the row's wrt", kind=task.kind)
    return judging.worked(job, verdict, read_answer=False)


def judge_chunk(chunk: list[Task], limits: Limits = DEFAULT_LIMITS) -> list[Result]:
    """A chunk of rows judged, in order: the unit a pool of processes can share out."""
    return [judge_task(task, limits) for task in chunk]


def run(all_tasks: Iterable[Task], limits: Limits = DEFAULT_LIMITS) -> Iterator[Result]:
    """The rows judged in order, one at a time (a pipe gets each as it is ready)."""
    for task in all_tasks:
        yield judge_task(task, limits)


def forget() -> None:
    """Empty the memo of judgements (a benchmark's cold start)."""
    _MEMO.clear()

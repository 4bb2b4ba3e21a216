"""`grade` end to end: read the key and the class, judge row by row, write each row as it
is judged (JSON or plain lines) or a table at the end, then the summary and the files
asked for (grades, Gradescope results, the HTML report), each written whole.

Every output path is checked before any row is judged, and so is every student's
variant of a parametrised problem (a first pass over the class file); the files are
written only after the last row, all or none (`gradcalc.render.files`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.homework.judge import Settings
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.render.formats import Format, named

#: rows per chunk handed to a process with --jobs (judging a row takes about a
#: millisecond: a few hundred keep the processes busy and the output flowing)
CHUNK_ROWS = 500
#: spans per --jobs worker when the class is short: enough that the workers finish close
#: together, few enough that a span's own cost (a read, a message) stays small
SPANS_PER_JOB = 8


@dataclass
class ClassJob:
    file: str
    fmt: Format  # the view (or its name) (render.formats): its writers write each row and the end
    settings: Settings
    limits: Limits = DEFAULT_LIMITS
    key: str | None = None
    grades: str | None = None
    gradescope: str | None = None
    report: str | None = None
    summary: bool = False
    jobs: int = 1  # processes judging the rows (the output is the same for any number)
    chunk_rows: int | None = None  # rows per chunk handed to a process
    course: Any = None  # the course's rules (gradcalc.grading.course.Course)
    show_answers: str | None = None  # when results.json shows the expected answers

    def __post_init__(self) -> None:
        self.fmt = named(self.fmt)


def _check_outputs(job: ClassJob) -> None:
    from gradcalc.render.files import writable

    paths = [(p, o) for p, o in ((job.grades, "--grades"), (job.gradescope, "--gradescope"),
                                 (job.report, "--report")) if p]
    seen: dict[str, str] = {}
    for path, option in paths:
        writable(path, option)
        if path in seen:
            raise GradcalcError(f"{option} and {seen[path]} name the same file {path}",
                                kind="usage")
        seen[path] = option


@contextmanager
def _readable_twice(file: str, needed: bool) -> Iterator[str]:
    """The class file as a path that can be read twice (a first pass counts the rows or
    the students): standard input is copied to a temporary file when a pass needs it."""
    if file != "-" or not needed:
        yield file
        return
    import shutil
    import sys
    import tempfile

    with tempfile.NamedTemporaryFile(prefix="gradcalc-", suffix=".csv") as spooled:
        shutil.copyfileobj(sys.stdin.buffer, spooled, 1 << 20)
        spooled.flush()
        yield spooled.name


def write_class(job: ClassJob, out: Any, err: Any) -> int:
    """The class judged (on `job.jobs` processes, the rows in chunks: the same output in
    the same order) and written as it is judged by the format's class view; the exit
    code: 0 only when every row is correct. The file is read a chunk at a time: memory is
    a chunk's rows and, for the summary and the files, a student's and a problem's
    totals, never the whole class."""
    from gradcalc.grading.key import load_key

    _check_outputs(job)
    key = load_key(job.key) if job.key else None
    if job.course is not None:
        if key is None:
            raise GradcalcError("--roster, --policy, --due, --late-until, --late-penalty "
                                "and --blank-missing go with --key", kind="usage")
        key.course = job.course
    if job.gradescope:
        _shown(job, key)  # a policy that is not one is refused before any row is judged
    view = _view(job, key, out, err)
    drawn = key is not None and any(p.template for p in key.problems.values())
    count = view.counts_rows  # a progress bar needs the rows counted
    with _readable_twice(job.file, bool(job.gradescope) or count or job.jobs > 1 or drawn
                         ) as path:
        if drawn:  # every student's variant checked before any answer is judged
            from gradcalc.grading.classfile import check_variants

            check_variants(path, key)
        total, students = (classfile_survey(path, key, bool(job.gradescope))
                           if job.gradescope or count else (0, []))
        if job.gradescope and len(students) > 1:
            shown = ", ".join(students[:5]) + (", ..." if len(students) > 5 else "")
            raise GradcalcError(f"--gradescope writes one student's results.json; the "
                                f"submissions have {len(students)} students ({shown})",
                                kind="usage")
        return _judge_and_write(job, path, key, total, view)


def _view(job: ClassJob, key: Any, out: Any, err: Any) -> Any:
    """The format's writer of the class's rows (`render.class_views`)."""
    from gradcalc.render.class_views import ClassSink

    make = job.fmt.writer("class_view")
    return make(ClassSink(out, err, key is not None, [], job.chunk_rows or CHUNK_ROWS))


def classfile_survey(path: str, key: Any, students: bool) -> tuple[int, list[str]]:
    from gradcalc.grading import classfile

    return classfile.survey(path, key, students)


@dataclass(frozen=True)
class Judging:
    """What judging a class's rows takes, the same for every chunk and every worker."""

    path: str
    table: Any  # the class file's columns (grading.classfile)
    key: Any
    settings: Settings
    limits: Limits
    fmt: Format
    keep: bool  # each row's whole Result is needed, not only its line

    @property
    def keyed(self) -> bool:
        return self.key is not None


def _judge_and_write(job: ClassJob, path: str, key: Any, total: int, view: Any) -> int:
    from gradcalc.grading import classfile
    from gradcalc.grading.gradebook import Gather

    table, rows = classfile.open_class(path, key)
    view.sink.extra_names = table.extra_names
    gather = Gather(key) if job.summary or job.grades or job.gradescope or job.report \
        or job.course is not None else None
    how = Judging(path, table, key, job.settings, job.limits, job.fmt,
                  keep=gather is not None or view.keeps_rows)
    if job.jobs > 1:  # each worker reads its own span of the file: no rows sent to it
        rows.close()
        work: Any = classfile.spans(path, job.chunk_rows or span_rows(path, job.jobs))
        judged: Any = _warm_then_fork(partial(judge_span, how=how), work, job.jobs,
                                      partial(warm_span, path=path, table=table, key=key,
                                              settings=job.settings, limits=job.limits))
    else:  # rows written as they are judged, in batches at least every 50 ms
        judged = judged_in_time(classfile.iter_tasks(table, rows, key, job.settings),
                                job.chunk_rows or CHUNK_ROWS, job.limits, job.fmt,
                                how.keyed, how.keep)
    summary, students = classfile.Summary(), set()
    view.start(total)
    try:
        for chunk in judged:
            _take(chunk, view, summary, students, gather)
    finally:
        view.close()
    _write_files(job, gather)
    if job.course is not None and gather is not None:
        from gradcalc.render.roll import roll_notes

        view.sink.err.write(roll_notes(gather.book, job.course.policy))
    picture = (lambda console: _show_picture(gather, console)) \
        if job.summary and gather is not None else None
    view.end(summary, len(students), picture)
    return 0 if summary.all_correct else 1


def _take(chunk: Any, view: Any, summary: Any, students: set, gather: Any) -> None:
    """A judged chunk counted (and gathered) and handed to the view."""
    if isinstance(chunk, Written):  # nothing needs the rows' whole Results
        summary.merge(chunk.counts, chunk.earned, chunk.possible)
        students.update(chunk.students)
        view.text(chunk.text, len(chunk.earned))
    else:
        for text, result in chunk:
            summary.add(result)
            students.add(result.task.student)
            if gather is not None:
                gather.add(result)
            view.row(text, result)
    view.flush()


def span_rows(path: str, jobs: int) -> int:
    """Rows per --jobs span: about 8 spans a worker (so the workers finish together), 20
    to CHUNK_ROWS rows each (lines counted, quoted line breaks too: an estimate)."""
    lines = 0
    with open(path, "rb") as fh:
        while block := fh.read(1 << 22):
            lines += block.count(b"\n")
    return max(20, min(CHUNK_ROWS, lines // (SPANS_PER_JOB * jobs)))


def _warm_then_fork(judge: Any, spans: Iterator[Any], jobs: int, warm: Any
                    ) -> Iterator[Any]:
    """The spans judged in order on `jobs` workers, forked once `warm` has judged here
    the first span's first row of each function: they start with what that built (its
    formulas, sympy's caches, those rows' verdicts) instead of each building it again."""
    from itertools import chain

    from gradcalc.run.workers import ordered_map

    spans = iter(spans)
    for first in spans:
        warm(first)
        yield from ordered_map(judge, chain([first], spans), jobs)


def warm_span(span: Any, path: str, table: Any, key: Any, settings: Settings,
              limits: Limits) -> int:
    """The span's first row of each function judged (the verdicts are remembered); how
    many."""
    from gradcalc.grading import classfile

    seen: set = set()
    for task in classfile.iter_tasks(table, classfile.span_rows(path, span, table), key,
                                     settings):
        if task.error is None and (task.function, task.wrt, task.kind) not in seen:
            seen.add((task.function, task.wrt, task.kind))
            classfile.judge_task(task, limits)
    return len(seen)


@dataclass
class Written:
    """A chunk judged when nothing needs each row's whole Result (no summary picture, no
    files, no table): its lines joined, and what the summary adds up, each row's in
    order (so the totals are the same floats whatever the chunks). Light to send back
    from a --jobs worker, and written at once."""

    text: str
    counts: dict[str, int]
    earned: list[float]
    possible: list[float]
    students: list[str]


def judge_rows(chunk: list, limits: Limits, fmt: Format, keyed: bool, keep: bool) -> Any:
    """A chunk of rows judged and written as lines (in a --jobs worker: the parent only
    copies the text out): each row's (line, its Result), or, when nothing needs the
    whole Results (`keep` false), the chunk as Written."""
    from gradcalc.grading import classfile

    return _lines(classfile.judge_chunk(chunk, limits), fmt, keyed, keep)


def judged_in_time(tasks: Iterable, most: int, limits: Limits, fmt: Format, keyed: bool,
                   keep: bool, seconds: float = 0.05) -> Iterator[Any]:
    """The rows judged here one by one, handed on as judge_rows' chunks once `seconds`
    have passed since the last (or `most` rows are waiting): a pipe gets each row soon
    after it is judged, without a write for every row."""
    import time

    from gradcalc.grading import classfile

    waiting: list = []
    since = time.monotonic()
    for task in tasks:
        waiting.append(classfile.judge_task(task, limits))
        if len(waiting) >= most or time.monotonic() - since >= seconds:
            yield _lines(waiting, fmt, keyed, keep)
            waiting, since = [], time.monotonic()
    if waiting:
        yield _lines(waiting, fmt, keyed, keep)


def _lines(results: list, fmt: Format, keyed: bool, keep: bool) -> Any:
    """Judged rows as judge_rows gives them."""
    fmt = named(fmt)
    assert fmt.row is not None
    if keep:
        return [(fmt.row(r, keyed), r) for r in results]
    counts: dict[str, int] = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
    return Written("".join(fmt.row(r, keyed) for r in results), counts,
                   [r.earned for r in results], [r.task.points for r in results],
                   [r.task.student for r in results])


def judge_span(span: Any, how: Judging) -> list:
    """A span of the class file read, judged and written as lines, in a --jobs worker."""
    from gradcalc.grading import classfile

    rows = classfile.span_rows(how.path, span, how.table)
    tasks = list(classfile.iter_tasks(how.table, rows, how.key, how.settings))
    return judge_rows(tasks, how.limits, how.fmt, how.keyed, how.keep)


def _show_picture(gather: Any, console: Any) -> None:
    from gradcalc.render.summary import show_picture

    show_picture(gather.picture(), console)


def _write_files(job: ClassJob, gather: Any) -> None:
    if not (job.grades or job.gradescope or job.report) or gather is None:
        return
    from gradcalc.render import lms
    from gradcalc.render.files import write_all

    files: dict[str, str] = {}
    book = gather.book
    if job.grades:
        files[job.grades] = lms.gradebook_csv(book)
    if job.gradescope:
        files[job.gradescope] = lms.gradescope_json(list(gather.last.values()), book,
                                                    _shown(job, gather.key))
    if job.report:
        from gradcalc.render.report import report_html

        picture = gather.picture()
        files[job.report] = report_html(picture, solutions=_solutions(job, gather, picture))
    write_all(files)


def _shown(job: ClassJob, key: Any) -> str:
    """When a student's results.json shows the expected answers: the option, else the
    key's answers column, else never."""
    from gradcalc.grading.key import ANSWERS

    value = job.show_answers or (key.answers if key is not None else "") or "never"
    if value not in ANSWERS:
        raise GradcalcError(f"--show-answers {value}: give {', '.join(ANSWERS)}",
                            kind="usage")
    return value


def _solutions(job: ClassJob, gather: Any, picture: Any) -> dict[str, Any]:
    """Each problem's worked solution, for the report (a problem whose function cannot
    be solved step by step has none)."""
    from gradcalc.errors import GradcalcError
    from gradcalc.homework.answer import split_wrt
    from gradcalc.homework.dispatch import solve

    out: dict[str, Any] = {}
    for p in picture.problems:
        try:
            source = _solved(gather, p.name, job.limits)
            if source is None:
                continue
            function, wrt, kind = source
            out[p.name] = solve(function, split_wrt(wrt), kind, job.settings, job.limits,
                                "the key's wrt")
        except GradcalcError:
            continue
    return out


def _solved(gather: Any, name: str, limits: Any) -> tuple[str, str, Any] | None:
    """What a problem's worked solution solves: its function, wrt and kind. A
    parametrised problem's is a variant's, its parameters as numbers: its first row's,
    or, when no row answered it, the variant of the class's first student."""
    from gradcalc.grading.variants import variant_of

    found = gather.key.problems.get(name) if gather.key is not None else None
    task = gather.first[name].task if name in gather.first else None
    if task is not None and (found is None or found.template is not None):
        return task.function, task.wrt, task.kind
    if found is None:
        return None
    if found.template is None:
        return found.function, found.wrt, found.kind
    student = next((r.task.student for r in gather.first.values()), found.template.term)
    variant = variant_of(found.template, student, limits)
    return variant.function, found.wrt, variant.kind

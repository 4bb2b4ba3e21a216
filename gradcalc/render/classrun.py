"""`check --file` end to end: read the key and the class, judge row by row, write each row
as it is judged (JSON or plain lines) or a table at the end, then the summary and the
files asked for (grades, Gradescope results, the HTML report), each written whole.

Every output path is checked before any row is judged, and the files are written only
after the last row, all or none (`gradcalc.render.files`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.homework.judge import Settings

#: rows per chunk handed to a process with --jobs (judging a row takes about a
#: millisecond: a few hundred keep the processes busy and the output flowing)
CHUNK_ROWS = 500


@dataclass
class ClassJob:
    file: str
    fmt: str  # 'rich' | 'plain' | 'json'
    settings: Settings
    limits: Limits = DEFAULT_LIMITS
    key: str | None = None
    grades: str | None = None
    gradescope: str | None = None
    report: str | None = None
    summary: bool = False
    jobs: int = 1  # processes judging the rows (the output is the same for any number)
    chunk_rows: int | None = None  # rows per chunk handed to a process


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


def chunks(tasks: list, size: int) -> Iterator[list]:
    """The rows in lists of `size` (a process's share of work at a time)."""
    for start in range(0, len(tasks), size):
        yield tasks[start:start + size]


def write_class(job: ClassJob, out: Any, err: Any) -> int:
    """The class judged (on `job.jobs` processes, the rows in chunks: the same output in
    the same order) and written; the exit code: 0 only when every row is correct."""
    from functools import partial

    from gradcalc.commands import classfile
    from gradcalc.commands.key import load_key
    from gradcalc.commands.parallel import ordered_map
    from gradcalc.render import classview
    from gradcalc.render.homework import Progress

    _check_outputs(job)
    key = load_key(job.key) if job.key else None
    table = classfile.load(job.file, key)
    tasks = classfile.tasks(table, key, job.settings)
    students = list(dict.fromkeys(t.student for t in tasks))
    if job.gradescope and len(students) > 1:
        shown = ", ".join(students[:5]) + (", ..." if len(students) > 5 else "")
        raise GradcalcError(f"--gradescope writes one student's results.json; the "
                            f"submissions have {len(students)} students ({shown})",
                            kind="usage")
    summary, done = classfile.Summary(), []
    keyed = key is not None
    keep = job.fmt == "rich" or job.summary or job.grades or job.gradescope or job.report
    progress = Progress(len(tasks) if job.fmt == "rich" else 0)
    size = (job.chunk_rows or CHUNK_ROWS) if job.jobs > 1 else 1
    try:
        for chunk in ordered_map(partial(classfile.judge_chunk, limits=job.limits),
                                 chunks(tasks, size), job.jobs):
            for result in chunk:
                summary.add(result)
                progress.advance()
                if keep:
                    done.append(result)
                if job.fmt != "rich":
                    out.write(classview.row_text(result, job.fmt, keyed))
            out.flush()
    finally:
        progress.close()
    _write_files(job, done, key)
    if job.fmt == "rich":
        from gradcalc.render.terminal import draw

        def show(console: Any) -> None:
            classview.show_rows(done, table.extra_names, keyed, console)
            console.print(classview.summary_line(summary))
            if job.summary:
                _show_picture(done, key, console)

        draw(show)
    else:
        if job.fmt == "json":
            import json

            out.write(json.dumps(classview.summary_json(summary, len(students))) + "\n")
        else:
            err.write(classview.summary_line(summary) + "\n")
        if job.summary:
            from gradcalc.render.summary import draw_to

            draw_to(err, lambda console: _show_picture(done, key, console))
    return 0 if summary.all_correct else 1


def _show_picture(done: list, key: Any, console: Any) -> None:
    from gradcalc.commands.grades import picture
    from gradcalc.render.summary import show_picture

    show_picture(picture(done, key), console)


def _write_files(job: ClassJob, done: list, key: Any) -> None:
    if not (job.grades or job.gradescope or job.report):
        return
    from gradcalc.commands.grades import gradebook, picture
    from gradcalc.render import grades
    from gradcalc.render.files import write_all

    files: dict[str, str] = {}
    book = gradebook(done, key)
    if job.grades:
        files[job.grades] = grades.gradebook_csv(book)
    if job.gradescope:
        files[job.gradescope] = grades.gradescope_json(done, book)
    if job.report:
        from gradcalc.render.report import report_html

        files[job.report] = report_html(picture(done, key))
    write_all(files)

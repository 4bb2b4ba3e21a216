"""`check --file` end to end: read the key and the class, judge row by row, write each row
as it is judged (JSON or plain lines) or a table at the end, then the summary and the
files asked for (grades, Gradescope results, the HTML report), each written whole.

Every output path is checked before any row is judged, and the files are written only
after the last row, all or none (`gradcalc.render.files`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.homework.judge import Settings


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


def write_class(job: ClassJob, out: Any, err: Any) -> int:
    """The class judged and written; the exit code: 0 only when every row is correct."""
    from gradcalc.commands import classfile
    from gradcalc.commands.key import load_key
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
    progress = Progress(len(tasks) if job.fmt == "rich" else 0)
    try:
        for result in classfile.run(tasks, job.limits):
            summary.add(result)
            done.append(result)
            progress.advance()
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

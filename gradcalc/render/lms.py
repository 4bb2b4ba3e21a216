"""Grades out to the tools schools use.

`gradebook_csv`: one row per student, the columns Canvas's gradebook import reads
(`Student`, `ID`, `SIS User ID`, `SIS Login ID`, `Section`), then one column per problem
(points earned) and `Total`. The student's identifier from the submissions is written to
`Student` and `SIS User ID`; Canvas matches rows by them, and Moodle's CSV grade import
maps `SIS User ID` to the user's ID number (or email/username) when told to. `ID` and
`SIS Login ID` are left empty (Canvas's own numbers, which gradcalc does not know).

`gradescope_json`: Gradescope's autograder `results.json` for one student's submission:
`score`, `max_score`, `output`, and one test per problem with `name`, `score`,
`max_score`, `status` (passed/failed) and `output` (the feedback, and the problem's
worked solution when the key's `steps` column asks for it).
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from gradcalc.grading.classfile import Result
from gradcalc.grading.gradebook import Gradebook, problem_name
from gradcalc.render.classview import hinted, note, points_text, steps_note

#: the identifying columns of a Canvas gradebook CSV, in its order
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")


def gradebook_csv(book: Gradebook) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*CANVAS_COLUMNS, *book.problems, "Total"])
    writer.writerow(["Points Possible", "", "", "", "",
                     *(points_text(book.points[p]) for p in book.problems),
                     points_text(book.max_total)])
    for student, scores in book.students.items():
        writer.writerow([*_identity(book, student), book.section.get(student, ""),
                         *(_cell(scores, p, book.blank) for p in book.problems),
                         points_text(round(book.total(student), 6))])
    return out.getvalue()


def _identity(book: Gradebook, student: str) -> list[str]:
    """A student's Student, ID, SIS User ID and SIS Login ID: from the roster when it
    knows them (the name, Canvas's ID, the SID, the login), else the identifier twice."""
    known = book.known.get(student)
    if known is None:
        return [student, "", student, ""]
    ids = known.ids
    return [known.name or student, ids.get("canvas id", ""),
            ids.get("sid") or ids.get("student") or student,
            ids.get("sis login id") or ids.get("email", "")]


def _cell(scores: dict[str, float], problem: str, blank: bool) -> str:
    """A problem's points earned; no submission: 0, or empty when asked."""
    if problem not in scores:
        return "" if blank else "0"
    return points_text(round(scores[problem], 6))


def student_note(r: Result) -> str:
    """What a student is told of a row: the error, the teacher's hint and the mistake
    gradcalc names, or why it is undetermined; never the expected answer."""
    if r.error is not None:
        return r.error[1]
    v = r.verdict
    assert v is not None
    if v.verdict == "incorrect":
        return (hinted(r) + (v.feedback or "")).strip().rstrip(";")
    return v.reason or "" if v.verdict == "undetermined" else ""


def expected_note(r: Result) -> str:
    """The expected answer of an incorrect row."""
    v = r.verdict
    return f"expected `{v.expected}`" if v is not None and v.verdict == "incorrect" else ""


def _test(p: str, r: Result | None, book: Gradebook, answers: str) -> dict[str, Any]:
    """One problem's test: the verdict and what the student may see of it."""
    if r is None:
        return {"name": p, "score": 0.0, "max_score": book.points[p], "status": "failed",
                "output": "no answer submitted", "visibility": "visible"}
    said = note(r) if answers == "always" else student_note(r)
    output = r.status + (f": {said}" if said else "")
    if steps_note(r):  # the key's steps column asks for it, whatever the policy
        output += "\n\nworked solution:\n" + steps_note(r, "\n")
    if r.task.late_note and (r.earned > 0 or r.task.late == 0):
        output += f" ({r.task.late_note})"
    return {"name": p, "score": r.earned, "max_score": r.task.points,
            "status": "passed" if r.status == "correct" else "failed",
            "output": output, "visibility": "visible"}


def gradescope(results: list[Result], book: Gradebook, answers: str = "always",
               header: str = "") -> dict[str, Any]:
    """results.json for the one student in `results` (the last row per problem counts):
    a test per problem, visible; the expected answers in the tests' output when ANSWERS
    is `always`, in one more test shown after the due date when `after-due`, nowhere
    when `never` (a worked solution the key's steps column asks for is shown, and with
    it the answer: the teacher asked)."""
    last = {problem_name(r): r for r in results}
    tests = [_test(p, last.get(p), book, answers) for p in book.problems]
    score = sum(t["score"] for t in tests)
    passed = sum(t["status"] == "passed" for t in tests)
    out: dict[str, Any] = {
        "score": score, "max_score": book.max_total,
        "output": header + f"{passed} of {len(tests)} problems correct",
        "output_format": "md", "test_output_format": "md", "visibility": "visible",
        "stdout_visibility": "hidden", "tests": tests}
    if answers == "after-due":
        shown = [f"{p}: {expected_note(last[p])}" for p in book.problems
                 if p in last and expected_note(last[p])]
        if shown:
            tests.append({"name": "Expected answers", "score": 0.0, "max_score": 0.0,
                          "status": "passed", "output": "\n\n".join(shown),
                          "visibility": "after_due_date"})
    return out


def gradescope_json(results: list[Result], book: Gradebook, answers: str = "always",
                    header: str = "") -> str:
    return json.dumps(gradescope(results, book, answers, header), indent=2,
                      ensure_ascii=False) + "\n"

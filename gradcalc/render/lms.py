"""Grades out to the tools schools use.

`gradebook_csv`: one row per student, the columns Canvas's gradebook import reads
(`Student`, `ID`, `SIS User ID`, `SIS Login ID`, `Section`), then one column per problem
(points earned) and `Total`. The student's identifier from the submissions is written to
`Student` and `SIS User ID`; Canvas matches rows by them, and Moodle's CSV grade import
maps `SIS User ID` to the user's ID number (or email/username) when told to. `ID` and
`SIS Login ID` are left empty (Canvas's own numbers, which gradcalc does not know).

`gradescope_json`: Gradescope's autograder `results.json` for one student's submission,
every field its specification names but `execution_time` and `leaderboard`
(`results_head`): `score`, `max_score`, `output`, the formats, the visibilities,
`extra_data`, and one test per problem with `name`, `name_format`, `number`, `score`,
`max_score`, `status` (passed/failed), `output` (the feedback, and the problem's worked
solution when the key's `steps` column asks for it), `output_format`, `tags` (the kind,
the mistake's id), `visibility` and `extra_data`.
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


#: how results.json's texts are written: the outputs in Markdown, the names as they are
OUTPUT_FORMAT, NAME_FORMAT = "md", "text"


def results_head(score: float, max_score: float, output: str, extra: dict[str, Any]
                 ) -> dict[str, Any]:
    """The fields of results.json above its tests, every one Gradescope's specification
    names but `execution_time` (gradcalc writes the same bytes for the same submission,
    on any machine: Gradescope times the run itself) and `leaderboard` (homework ranks no
    one)."""
    return {"score": score, "max_score": max_score, "output": output,
            "output_format": OUTPUT_FORMAT, "test_output_format": OUTPUT_FORMAT,
            "test_name_format": NAME_FORMAT, "visibility": "visible",
            "stdout_visibility": "hidden", "extra_data": extra}


def _test_fields(number: int, name: str, score: float, max_score: float, passed: bool,
                 output: str, tags: list[str], extra: dict[str, Any],
                 visibility: str = "visible") -> dict[str, Any]:
    """One test as Gradescope's specification lists its fields."""
    return {"name": name, "name_format": NAME_FORMAT, "number": str(number),
            "score": score, "max_score": max_score, "status": "passed" if passed else "failed",
            "output": output, "output_format": OUTPUT_FORMAT, "tags": tags,
            "visibility": visibility, "extra_data": extra}


def _tags(r: Result) -> list[str]:
    """A test's tags: the kind of problem, and the mistake gradcalc named, by its id."""
    v = r.verdict
    if v is None:
        return []
    return [v.kind, *([v.misconception["rule"]] if v.misconception else [])]


def _test(k: int, p: str, r: Result | None, book: Gradebook, answers: str
          ) -> dict[str, Any]:
    """One problem's test: the verdict and what the student may see of it."""
    if r is None:
        return _test_fields(k, p, 0.0, book.points[p], False, "no answer submitted", [],
                            {"verdict": "missing"})
    said = note(r) if answers == "always" else student_note(r)
    output = r.status + (f": {said}" if said else "")
    if steps_note(r):  # the key's steps column asks for it, whatever the policy
        output += "\n\nworked solution:\n" + steps_note(r, "\n")
    if r.task.late_note and (r.earned > 0 or r.task.late == 0):
        output += f" ({r.task.late_note})"
    return _test_fields(k, p, r.earned, r.task.points, r.status == "correct", output,
                        _tags(r), {"verdict": r.status, "line": r.task.line,
                                   "share_kept": r.task.late})


def gradescope(results: list[Result], book: Gradebook, answers: str = "always",
               header: str = "", extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """results.json for the one student in `results` (the last row per problem counts):
    a test per problem, visible; the expected answers in the tests' output when ANSWERS
    is `always`, in one more test shown after the due date when `after-due`, nowhere
    when `never` (a worked solution the key's steps column asks for is shown, and with
    it the answer: the teacher asked)."""
    from gradcalc import __version__

    last = {problem_name(r): r for r in results}
    tests = [_test(k, p, last.get(p), book, answers)
             for k, p in enumerate(book.problems, 1)]
    score = sum(t["score"] for t in tests)
    passed = sum(t["status"] == "passed" for t in tests)
    student = next((r.task.student for r in results), "")
    out = results_head(score, book.max_total,
                       header + f"{passed} of {len(tests)} problems correct",
                       {"gradcalc": __version__, "student": student, "answers": answers,
                        **(extra or {})})
    out["tests"] = tests
    if answers == "after-due":
        shown = [f"{p}: {expected_note(last[p])}" for p in book.problems
                 if p in last and expected_note(last[p])]
        if shown:
            tests.append(_test_fields(len(tests) + 1, "Expected answers", 0.0, 0.0, True,
                                      "\n\n".join(shown), [], {"verdict": "answers"},
                                      "after_due_date"))
    return out


def gradescope_json(results: list[Result], book: Gradebook, answers: str = "always",
                    header: str = "") -> str:
    return json.dumps(gradescope(results, book, answers, header), indent=2,
                      ensure_ascii=False) + "\n"

"""A course: the roster (Gradescope's, Canvas's and Moodle's exports), identifiers
normalised, students not on the roster and students without a submission, the
timestamp column, which submission counts and the late penalty, all in the receipt and
replayed; replay names every row field that disagrees with its receipt."""

from __future__ import annotations

import csv
import io
import json

import pytest

from gradcalc.errors import GradcalcError
from gradcalc.grading.course import Deadline, deadline_of, read_time
from gradcalc.grading.roster import normal_id, read_roster

KEY = "problem,function,points\n1,x^2,1\n2,sin(x),2\n"
GRADESCOPE = ("First Name,Last Name,SID,Email,Role,Sections\n"
              "Ana,Lopez,1001,ana@uni.edu,Student,A\nDee,Ng,1002,Dee@Uni.edu,Student,B\n"
              "Ed,Li,1003,ed@uni.edu,Student,A\n")
CANVAS = ("Student,ID,SIS User ID,SIS Login ID,Section\n"
          "    Points Possible,,,,\n\"Lopez, Ana\",501,1001,ana@uni.edu,A\n")
MOODLE = ("First name,Surname,ID number,Institution,Department,Email address\n"
          "Ana,Lopez,1001,Uni,Maths,ana@uni.edu\n")


def write(tmp_path, **files: str):
    for name, text in files.items():
        (tmp_path / f"{name}.csv").write_text(text)
    return tmp_path


def grades(path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text())))


@pytest.mark.parametrize(("text", "ident", "name", "ids"), [
    (GRADESCOPE, "ana@uni.edu", "Ana Lopez", {"email": "ana@uni.edu", "sid": "1001"}),
    (CANVAS, "ana@uni.edu", "Lopez, Ana", {"sis login id": "ana@uni.edu", "sid": "1001",
                                          "canvas id": "501"}),
    (MOODLE, "ana@uni.edu", "Ana Lopez", {"email": "ana@uni.edu", "sid": "1001"}),
])
def test_each_platforms_roster_is_read_by_its_own_column_names(tmp_path, text, ident, name,
                                                               ids):
    roster = read_roster(str(write(tmp_path, r=text) / "r.csv"))
    first = roster.students[0]
    assert (first.ident, first.name, first.ids) == (ident, name, ids)
    assert len(roster.students) == 1 + 2 * (text is GRADESCOPE)  # Points Possible skipped
    assert roster.find(" 1001 ") is first and roster.find("ANA@uni.edu") is first


def test_an_identifier_is_compared_without_spaces_and_an_emails_case():
    assert normal_id(" Dee@Uni.EDU ") == "dee@uni.edu"
    assert normal_id(" AB12 ") == "AB12"  # an SID keeps its case


def test_a_roster_naming_a_student_twice_or_no_student_column_is_refused(tmp_path):
    write(tmp_path, twice="Email\nana@uni.edu\n ANA@uni.edu\n", none="Colour\nred\n")
    with pytest.raises(GradcalcError, match="line 3: student 'ana@uni.edu' is in the "
                                            "roster twice"):
        read_roster(str(tmp_path / "twice.csv"))
    with pytest.raises(GradcalcError, match="no column names the students"):
        read_roster(str(tmp_path / "none.csv"))


def test_a_capital_and_a_space_are_the_same_student_with_or_without_a_roster(invoke,
                                                                             tmp_path):
    write(tmp_path, key="problem,function,params\n1,a x^2,a = 2..9\n",
          subs="student,problem,answer\ndee@uni.edu,1,0\nDee@uni.edu ,1,0\n")
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--json", "--grades", str(tmp_path / "g.csv"))
    rows = [json.loads(line) for line in r.out.splitlines()[:2]]
    assert rows[0]["id"] == rows[1]["id"] == "dee@uni.edu"
    assert rows[0]["params"] == rows[1]["params"]
    assert [row[0] for row in grades(tmp_path / "g.csv")][1:] == ["Points Possible",
                                                                   "dee@uni.edu"]
    assert len(grades(tmp_path / "g.csv")) == 3  # the header, Points Possible, one student


def test_grade_with_a_roster_names_the_unknown_and_the_missing(invoke, tmp_path):
    write(tmp_path, key=KEY, roster=GRADESCOPE,
          subs="Email,Question,Response\nana@uni.edu,1,2x\n1002,1,2x\nzed@uni.edu,1,2x\n")
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--roster", str(tmp_path / "roster.csv"), "--plain",
               "--grades", str(tmp_path / "g.csv"), "--report", str(tmp_path / "r.html"))
    assert "zed@uni.edu\t1\t2x\t0/1\tunreadable: student 'zed@uni.edu' is not on the " \
           "roster" in r.out
    assert "warning: 'zed@uni.edu' is not on the roster: not graded (line 4)" in r.err
    assert "1 student on the roster submitted nothing: ed@uni.edu" in r.err
    rows = grades(tmp_path / "g.csv")
    assert rows[2:] == [["Ana Lopez", "", "1001", "ana@uni.edu", "A", "1", "0", "1"],
                        ["Dee Ng", "", "1002", "Dee@Uni.edu", "B", "1", "0", "1"],
                        ["Ed Li", "", "1003", "ed@uni.edu", "A", "0", "0", "0"]]
    page = (tmp_path / "r.html").read_text()
    assert "zed@uni.edu" in page and "ed@uni.edu" in page and "Not on the roster" in page


def test_blank_missing_leaves_a_problem_without_submission_empty(invoke, tmp_path):
    write(tmp_path, key=KEY, roster=GRADESCOPE, subs="Email,Question,Response\n"
          "ana@uni.edu,1,2x\n")
    invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
           "--roster", str(tmp_path / "roster.csv"), "--blank-missing", "--plain",
           "--grades", str(tmp_path / "g.csv"))
    rows = grades(tmp_path / "g.csv")
    assert rows[2][5:] == ["1", "", "1"] and rows[4][5:] == ["", "", "0"]


def test_times_as_the_platforms_write_them():
    utc = read_time("2027-09-14T23:59:00Z", "t")
    assert read_time("2027-09-14 16:59:00 -0700", "t") == utc  # Gradescope's export
    assert read_time("2027-09-14T23:59", "t") == utc.replace(second=0)  # no zone: UTC
    assert read_time("14 September 2027, 11:59 PM", "t") == utc  # Moodle
    assert read_time("9/14/2027 23:59:00", "t") == utc  # Google Forms
    with pytest.raises(GradcalcError, match="is not a time"):
        read_time("yesterday", "t")


def test_a_late_submission_keeps_its_share_until_the_late_due_date():
    d = deadline_of("2027-09-14T23:59Z", "2027-09-16T23:59Z", 0.25)
    assert d.factor(read_time("2027-09-14T12:00Z", "t")) == (1.0, "")
    assert d.factor(read_time("2027-09-15T12:00Z", "t"))[0] == 0.75
    assert d.factor(read_time("2027-09-17T12:00Z", "t")) == (
        0.0, "submitted after the late due date")
    assert Deadline(d.due).factor(read_time("2027-09-15T12:00Z", "t"))[0] == 0.0
    with pytest.raises(GradcalcError, match="from 0 to 1"):
        deadline_of("2027-09-14T23:59Z", None, 1.5)


SUBMITTED = ("Email,Question,Response,Submission Time\n"
             "ana@uni.edu,2,cos(x),2027-09-15T10:00Z\n"   # late, right
             "ana@uni.edu,2,sin(x),2027-09-14T10:00Z\n"   # on time, wrong (a newest-first
             "ana@uni.edu,1,2x,2027-09-13T10:00Z\n")      # export: the times decide)


@pytest.mark.parametrize(("policy", "two"), [("latest", "1.6"), ("first", "0"),
                                             ("best", "1.6")])
def test_the_policy_picks_by_time_and_the_late_penalty_applies(invoke, tmp_path, policy,
                                                               two):
    write(tmp_path, key=KEY, subs=SUBMITTED)
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--policy", policy, "--due", "2027-09-14T23:59Z", "--late-penalty", "0.2",
               "--grades", str(tmp_path / "g.csv"), "--json")
    assert grades(tmp_path / "g.csv")[2][5:7] == ["1", two]
    first = json.loads(r.out.splitlines()[0])
    assert first["score"] == pytest.approx(1.6) and first["late"].startswith("late")
    assert first["receipt"]["deadline"] == {"submitted": "2027-09-15T10:00:00+00:00",
                                            "due": "2027-09-14T23:59:00+00:00",
                                            "late_until": None, "penalty": 0.2}
    assert json.loads(r.out.splitlines()[-1])["summary"]["students"] == 1
    assert f"1 student: {float(two) + 1:g} of 3 points, the {policy} submission to each " \
           "problem counted" in r.err  # 3 rows, one student


def test_an_unknown_policy_and_course_options_without_a_key_are_refused(invoke, tmp_path):
    write(tmp_path, key=KEY, subs=SUBMITTED)
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--policy", "newest")
    assert r.code == 2 and "give one of latest, best, first" in r.err
    r = invoke("grade", str(tmp_path / "subs.csv"), "--due", "2027-09-14")
    assert r.code == 2


def test_replay_scores_a_late_row_by_its_receipts_deadline(invoke, tmp_path):
    write(tmp_path, key=KEY, subs=SUBMITTED)
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--due", "2027-09-14T23:59Z", "--late-penalty", "0.2", "--json")
    (tmp_path / "v.jsonl").write_text(r.out)
    assert invoke("replay", str(tmp_path / "v.jsonl")).code == 0
    (tmp_path / "e.jsonl").write_text(r.out.replace('"penalty": 0.2', '"penalty": 0.0'))
    r = invoke("replay", str(tmp_path / "e.jsonl"))
    assert r.code == 1 and "line 1 (ana@uni.edu 2): score: recorded 1.6, now 2.0" in r.out


def test_replay_names_each_row_field_edited_apart_from_its_receipt(invoke, tmp_path):
    write(tmp_path, key="problem,function,params,term\n1,a x^2,a = 2..9,t\n",
          subs="student,problem,answer\nana,1,0\n")
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--json")
    row = json.loads(r.out.splitlines()[0])
    row.update(id="ben", problem="2", answer="1", params={"a": 99})
    (tmp_path / "e.jsonl").write_text(json.dumps(row) + "\n")
    r = invoke("replay", str(tmp_path / "e.jsonl"))
    said = r.out
    assert r.code == 1
    for field in ("answer: the row says \"1\"", "student: the row says \"ben\", its "
                  "receipt \"ana\"", "problem: the row says \"2\"", "params: the row says "
                  "{\"a\": 99}"):
        assert field in said


@pytest.mark.parametrize(("args", "said"), [
    (("check", "--replay", "v.jsonl"), "No such option: --replay: saved verdicts are "
     "judged again by `gradcalc replay FILE.jsonl`"),
    (("check", "--file", "subs.csv"), "No such option: --file: a class file is graded by "
     "`gradcalc grade FILE --key KEY.csv`"),
    (("grade", "--key", "key.csv", "--file", "subs.csv"), "a class file is graded by "
     "`gradcalc grade FILE --key KEY.csv`"),
])
def test_a_removed_option_names_its_new_home(invoke, args, said):
    r = invoke(*args)
    assert r.code == 2 and said in r.err


def test_grade_on_submissions_without_a_key_suggests_it(invoke, tmp_path):
    write(tmp_path, subs=SUBMITTED)
    r = invoke("grade", str(tmp_path / "subs.csv"))
    assert r.code == 2 and r.err.strip().endswith("these are submissions to an answer key "
                                                  "(a problem column): add --key KEY.csv")


@pytest.mark.parametrize("function", ["x^2 y", "a x^2"])
def test_a_parameter_named_like_the_functions_variable_is_refused(invoke, tmp_path,
                                                                  function):
    write(tmp_path, key=f"problem,function,params\n1,{function},x = 1..3; a = 1..2\n")
    r = invoke("sheets", "--key", str(tmp_path / "key.csv"), "--student", "ana")
    assert r.code == 2 and f"key.csv', line 2, column params: 'x' is a variable of the " \
        f"function '{function}', not a parameter" in r.err


def test_each_sheet_says_what_to_submit_and_in_what_form(invoke, tmp_path):
    write(tmp_path, key=KEY, roster=GRADESCOPE)
    r = invoke("sheets", "--key", str(tmp_path / "key.csv"), "--roster",
               str(tmp_path / "roster.csv"), "--out", str(tmp_path / "out"))
    assert r.code == 0, r.err
    page = (tmp_path / "out" / "sheet-ana@uni.edu.html").read_text()
    assert "What to submit" in page and "<code>answers.txt</code>" in page
    assert "<code>1: 3x^2 cos(x)</code>" in page and "Ana Lopez, A" in page


def test_sheets_warn_when_classmates_would_often_share_a_variant(invoke, tmp_path):
    write(tmp_path, key="problem,function,params\n1,a x^2,a = 2..3\n2,b x^3,b = 1..90\n",
          roster="Email\n" + "".join(f"s{k}@uni.edu\n" for k in range(6)))
    r = invoke("sheets", "--key", str(tmp_path / "key.csv"), "--roster",
               str(tmp_path / "roster.csv"), "--plain")
    assert r.code == 0
    assert "warning: problem 1: 6 of 6 students share their variant with a classmate (2 " \
           "handed out, of 2 the parameters make)" in r.err
    assert "problem 2" not in r.err


def test_the_reports_worked_solution_is_a_variants_and_hints_name_parameters(invoke,
                                                                            tmp_path):
    write(tmp_path, key="problem,function,params,term,hints\n"
          "1,a sin(b x),a = 2..9; b = 2..5,t,chain-inner-factor -> {b}x has a derivative\n",
          subs="student,problem,answer\nana,1,6cos(4x)\n")
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--report", str(tmp_path / "r.html"), "--summary", "--plain")
    page = (tmp_path / "r.html").read_text()
    solutions = page[page.index('id="solutions"'):]
    assert "6sin(4x)" in solutions and "<mn>24</mn>" in solutions  # 24cos(4x), as MathML
    assert "∂f/∂a" not in solutions and "∇f" not in solutions  # a, b are not variables
    assert "hint chain-inner-factor: bx has a derivative" in page and r.code == 1


def test_a_power_of_a_sum_with_parameters_is_solved_by_the_chain_and_power_rules(invoke,
                                                                                 tmp_path):
    # (x^2 + a)^n on a variant: n is a number, so the outer function is a power, not an
    # exponential (the report once named the exponential rule for it)
    write(tmp_path, key="problem,function,params,term\n1,(x^2 + a)^n,a = 1..4; n = 3..5,t\n",
          subs="student,problem,answer\nana,1,0\n")
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--report", str(tmp_path / "r.html"), "--plain")
    solution = (tmp_path / "r.html").read_text().split('id="solution-1"')[1]
    assert r.code == 1 and "<b>chain rule</b>" in solution and "<b>power rule</b>" in solution
    assert "exponential" not in solution and "∂f/∂a" not in solution


def test_grade_json_help_says_one_object_per_answer(invoke):
    help_text = " ".join(invoke("grade", "--help").out.split())
    assert "--json One JSON object per answer, a line each" in help_text

"""An answer key and a class's submissions: headers matched with synonyms, other columns
carried through every output, scores from the key's points, and clear errors."""

from __future__ import annotations

import json

import pytest

from gradcalc.errors import GradcalcError
from gradcalc.grading import classfile
from gradcalc.grading.key import key_from, load_key
from gradcalc.homework.judge import Settings
from gradcalc.tables.headers import match, parse_table

KEY = """Problem,Function,Points
p1,x^2 sin(x),2
p2,sin(3x),1
p3,x^2 y,1
"""
SUBMISSIONS = """E-mail,Email,Question,Response,Section
Ana,ana@x.edu,p1,2x sin(x) + x^2 cos(x),A
Ana,ana@x.edu,P2,cos(3x),A
Ana,ana@x.edu,p3,"[2x y, x^2]",A
Ben,ben@x.edu,p1,2x cos(x),B
Ben,ben@x.edu,p2,3cos(3x),B
Ben,ben@x.edu,p3,"[2xy, x^2",B
Cy,cy@x.edu,p9,1,B
"""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "key.csv").write_text(KEY)
    (tmp_path / "subs.csv").write_text(SUBMISSIONS)
    return tmp_path


@pytest.mark.parametrize("header,roles", [
    (["id", "function", "answer"], {"student": 0, "function": 1, "answer": 2}),
    (["Student", "Q", "RESPONSE"], {"student": 0, "problem": 1, "answer": 2}),
    (["name", "email", "question", "answer"], {"student": 1, "problem": 2, "answer": 3}),
    (["Student_ID", "Problem ID", "Student Answer"],
     {"student": 0, "problem": 1, "answer": 2}),
])
def test_headers_match_synonyms_in_any_case(header, roles):
    assert match(header, ("student", "problem", "function", "answer")) == roles


def test_a_header_without_a_needed_column_says_found_and_needed():
    with pytest.raises(GradcalcError) as e:
        parse_table(b"who,question,text\n", "'s.csv'", classfile.SUBMISSIONS, (), "x")
    message = e.value.message
    assert "no column for the student and the answer" in message
    assert "found: who, question, text" in message
    assert "needed: student (id/student/student id/sis user id), problem" in message
    assert "answer (answer/response/student answer)" in message


def test_the_key_is_read_with_points_and_tolerances():
    table = parse_table(b"q,function,points,rtol,wrt\nA,x^2 y,3,1e-3,x\nB,x^3,,,\n", "k",
                        ("problem", "function"), ("wrt", "rtol", "points"), "key")
    key = key_from(table)
    assert key.names == ["A", "B"] and key.max_points == 4
    assert key.find("a").rtol == 1e-3 and key.find("A").wrt == "x"
    assert key.find("B").points == 1 and key.find("B").rtol is None


@pytest.mark.parametrize("text,fragment", [
    (b"problem,function\np1,x\np1,x^2\n", "in the key twice (first on line 2)"),
    (b"problem,function,points\np1,x,-1\n", "points must be a finite number above 0"),
    (b"problem,function,points\np1,x,two\n", "points 'two' is not a number"),
    (b"problem,function\n", "has no problems"),
    (b"problem,function\np1,\n", "the function is empty"),
    (b"problem,function,order\np1,x^3,two\n", "line 2, column order: 'two'"),
    (b"problem,answer\np1,x\n", "no column for the function"),
])
def test_a_bad_key_is_refused(text, fragment):
    with pytest.raises(GradcalcError) as e:
        key_from(parse_table(text, "k", ("problem", "function"),
                             ("wrt", "order", "rtol", "atol", "points"), "key"))
    assert fragment in e.value.message and e.value.kind in ("usage", "limit")


def test_tasks_take_the_function_settings_and_points_from_the_key(files):
    key = load_key(str(files / "key.csv"))
    tasks = classfile.tasks(classfile.load(str(files / "subs.csv"), key), key, Settings())
    assert [t.problem for t in tasks] == ["p1", "p2", "p3", "p1", "p2", "p3", "p9"]
    assert tasks[1].function == "sin(3x)" and tasks[0].points == 2
    assert tasks[0].student == "ana@x.edu"  # email is preferred to a name
    assert tasks[0].extras == (("E-mail", "Ana"), ("Section", "A"))
    assert tasks[6].error is not None and "not in the key" in tasks[6].error[1]


def test_judge_task_is_a_pure_function_of_its_row(files):
    """The same task judged twice (and from a fresh memo) gives the same verdict."""
    key = load_key(str(files / "key.csv"))
    tasks = classfile.tasks(classfile.load(str(files / "subs.csv"), key), key, Settings())
    first = [classfile.judge_task(t) for t in tasks]
    classfile.forget()
    again = [classfile.judge_task(t) for t in tasks]
    assert [r.status for r in first] == ["correct", "incorrect", "correct", "incorrect",
                                         "correct", "unreadable", "unreadable"]
    assert [(r.status, r.earned, r.receipt) for r in first] == \
        [(r.status, r.earned, r.receipt) for r in again]


def test_json_lines_carry_the_columns_score_and_a_summary(invoke, files):
    r = invoke("grade", "--key", str(files / "key.csv"), str(files / "subs.csv"),
               "--json")
    *rows, summary = [json.loads(line) for line in r.out.splitlines()]
    assert r.code == 1
    assert [(x["id"], x["problem"], x["score"], x["max_score"]) for x in rows[:3]] == [
        ("ana@x.edu", "p1", 2.0, 2.0), ("ana@x.edu", "p2", 0.0, 1.0),
        ("ana@x.edu", "p3", 1.0, 1.0)]
    assert rows[0]["columns"] == {"E-mail": "Ana", "Section": "A"}
    assert rows[1]["answer"] == "cos(3x)" and rows[1]["verdict"] == "incorrect"
    assert rows[5]["error"]["kind"] == "parse" and rows[5]["columns"]["Section"] == "B"
    assert summary == {"summary": {"rows": 7, "correct": 3, "incorrect": 2,
                                   "undetermined": 0, "unreadable": 2, "students": 3,
                                   "score": 4.0, "max_score": 9.0}}


def test_plain_and_table_show_student_problem_columns_answer_score(invoke, files):
    args = ("grade", "--key", str(files / "key.csv"), str(files / "subs.csv"))
    plain = invoke(*args, "--plain")
    assert plain.out.splitlines()[1].split("\t") == [
        "ana@x.edu", "p2", "Ana", "A", "cos(3x)", "0/1",
        "incorrect: at sin(3x): the chain rule's inner factor 3 is missing; expected "
        "3cos(3x); read as f(x) = sin(3x) and f'(x) = cos(3x)"]
    assert "7 rows: 3 correct, 2 incorrect, 0 undetermined, 2 unreadable; score 4 of 9" \
        in plain.err
    table = invoke(*args)
    head = table.out.splitlines()[0].split()
    assert head == ["student", "problem", "E-mail", "Section", "answer", "verdict", "score",
                    "feedback"]
    assert "✗ incorrect" in table.out and "2/2" in table.out


def test_submissions_without_a_key_need_the_function(invoke, tmp_path):
    path = tmp_path / "subs.csv"
    path.write_text(SUBMISSIONS)
    r = invoke("grade", str(path))
    assert r.code == 2 and "no column for the function" in r.err
    assert "found: E-mail, Email, Question, Response, Section" in r.err


@pytest.mark.parametrize("option", ["--key", "--grades", "--gradescope", "--report"])
def test_class_options_need_a_file(invoke, option):
    r = invoke("check", "x^2", "--answer", "2x", option, "k.csv")
    assert r.code == 2 and f"{option} is an option of gradcalc grade" in r.err


def test_answer_from_standard_input(cli):
    r = cli("check", "x^3", "--answer", "-", "--plain", stdin="3x^2\n")
    assert r.code == 0 and r.out == "correct (symbolic); read as f(x) = x^3 and f'(x) = 3x^2\n"
    both = cli("check", "-", "--answer", "-", stdin="x\n")
    assert both.code == 2 and "only one of FUNCTION and --answer" in both.err


def test_an_identical_answer_is_judged_once(files, monkeypatch):
    """A class answers the same way often: the memo judges each (function, answer) once."""
    from gradcalc.grading import classfile as module
    from gradcalc.homework import answer as checking

    calls = []
    real = checking.run
    monkeypatch.setattr(checking, "run", lambda *a, **k: calls.append(1) or real(*a, **k))
    module.forget()
    task = classfile.Task(2, "s", "p", "x^2", "2x")
    results = [module.judge_task(task) for _ in range(5)]
    assert len(calls) == 1 and all(r.status == "correct" for r in results)


def test_tasks_and_results_cross_processes(files):
    """A chunk of tasks judged elsewhere gives the same results: both sides pickle."""
    import pickle

    key = load_key(str(files / "key.csv"))
    tasks = classfile.tasks(classfile.load(str(files / "subs.csv"), key), key, Settings())
    results = classfile.judge_chunk(pickle.loads(pickle.dumps(tasks)))
    back = pickle.loads(pickle.dumps(results))
    assert [(r.task.line, r.status, r.earned) for r in back] == \
        [(r.task.line, r.status, r.earned) for r in map(classfile.judge_task, tasks)]


def test_hostile_cells_cannot_drive_the_terminal(invoke, tmp_path):
    """Escape sequences and markup in a file's cells reach the terminal as plain text."""
    path = tmp_path / "c.csv"
    path.write_text('id,function,answer,[bold]note[/]\n"\x1b[31mana",x^2,2x,'
                    '"[/]\x1b]0;t\x07"\n', encoding="utf-8")
    for fmt in ((), ("--plain",), ("--summary",)):
        r = invoke("grade", str(path), *fmt)
        assert r.code == 0, r.err
        assert "\x1b" not in r.out + r.err and "\x07" not in r.out + r.err
        assert "\\u001b[31mana" in r.out
    assert "[bold]note[/]" in invoke("grade", str(path)).out


@pytest.mark.parametrize("verdict,partial,expected", [
    ("correct", None, 1.0), ("correct", 1.0, 1.0), ("incorrect", None, 0.0),
    ("incorrect", 0.5, 0.5), ("undetermined", 1.0, 0.0), ("undetermined", None, 0.0),
])
def test_the_share_of_points_a_verdict_earns(verdict, partial, expected):
    from gradcalc.homework.judge import Verdict

    v = Verdict(verdict, "numeric", "2*x", "derivative", ("x",))
    if partial is not None:
        v.score = partial  # a list answer's share of right entries
    assert classfile.share(v) == expected
    assert classfile.share(None) == 0.0


def test_jobs_2_gives_the_same_bytes_as_jobs_1(cli, files):
    """Rows shared out between processes come back in order: the same output, files too."""
    outputs = []
    for jobs in ("1", "2"):
        grades = files / f"grades{jobs}.csv"
        r = cli("grade", "--key", str(files / "key.csv"), str(files / "subs.csv"),
                "--json", "--jobs", jobs, "--chunk-rows", "2", "--grades", str(grades))
        assert r.code == 1, r.err
        outputs.append((r.out, grades.read_bytes()))
    assert outputs[0] == outputs[1]
    assert len(outputs[0][0].splitlines()) == 8

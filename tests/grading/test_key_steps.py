"""A key's `steps` column: the problem's worked solution in each answer's feedback (a JSON
row's `steps` and `departs_at`, a plain verdict line, a Gradescope result); the class
report links every problem's worked solution; a class without it costs what it did:
nothing of the solutions is imported."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

KEY = "problem,function,points,steps\np1,x^2 sin(3x),2,yes\np2,sin(3x),1,\n"
SUBS = ("student,problem,answer\nann,p1,2x sin(3x) + x^2 cos(3x)\nann,p2,cos(3x)\n"
        "bob,p1,3x^2 cos(3x) + 2x sin(3x)\n")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "key.csv").write_text(KEY, encoding="utf-8")
    (tmp_path / "subs.csv").write_text(SUBS, encoding="utf-8")
    return tmp_path


def test_json_rows_carry_the_solution_where_the_key_asks(invoke, files):
    run = invoke("grade", str(files / "subs.csv"), "--key", str(files / "key.csv"), "--json")
    rows = [json.loads(line) for line in run.out.splitlines()[:-1]]
    assert [("steps" in r, r["problem"]) for r in rows] == [(True, "p1"), (False, "p2"),
                                                            (True, "p1")]
    assert rows[0]["departs_at"]["said"] == ("you wrote cos(3x) here; the chain rule gives "
                                             "3cos(3x)")
    assert rows[2]["departs_at"] is None and [s["rule"] for s in rows[2]["steps"]] == [
        "product", "power", "chain", "constant-multiple"]
    assert list(rows[0])[-1] == "receipt"


def test_plain_lines_and_gradescope_carry_it(invoke, files):
    run = invoke("grade", str(files / "subs.csv"), "--key", str(files / "key.csv"), "--plain")
    first, second = run.out.splitlines()[:2]
    assert "; worked solution: (1) product rule:" in first
    assert "[you wrote cos(3x) here; the chain rule gives 3cos(3x)]" in first
    assert "worked solution" not in second
    one = files / "one.csv"
    one.write_text("\n".join(SUBS.splitlines()[:3]) + "\n", encoding="utf-8")
    out = files / "results.json"
    invoke("grade", str(one), "--key", str(files / "key.csv"), "--gradescope", str(out),
           "--plain")
    tests = json.loads(out.read_text(encoding="utf-8"))["tests"]
    assert "\n\nworked solution:\n" in tests[0]["output"]
    assert "3. chain rule" in tests[0]["output"]
    assert "worked solution" not in tests[1]["output"]


def test_a_bad_steps_cell_names_its_line(invoke, files):
    (files / "key.csv").write_text("problem,function,steps\np1,x^2,perhaps\n",
                                   encoding="utf-8")
    run = invoke("grade", str(files / "subs.csv"), "--key", str(files / "key.csv"))
    assert run.code == 2 and "line 2: steps 'perhaps': give yes or no" in run.err


def test_the_report_links_each_problems_worked_solution(invoke, files):
    report = files / "r.html"
    invoke("grade", str(files / "subs.csv"), "--key", str(files / "key.csv"), "--report",
           str(report), "--plain")
    page = report.read_text(encoding="utf-8")
    assert page.count('">worked solution</a>') == 2
    assert '<section id="solution-1">' in page and '<section id="solution-2">' in page
    assert "<b>chain rule</b>" in page and "http" not in page.split("<body>")[1]


def test_a_class_without_steps_imports_nothing_of_the_solutions():
    code = (
        "import sys\n"
        "from gradcalc.grading import classfile\n"
        "from gradcalc.grading.key import OPTIONAL, REQUIRED, key_from\n"
        "from gradcalc.homework.judge import Settings\n"
        "from gradcalc.ingest.headers import parse_table\n"
        f"key = key_from(parse_table({KEY.replace('yes', '')!r}.encode(), 'k', REQUIRED,"
        " OPTIONAL, 'k'))\n"
        f"table = parse_table({SUBS!r}.encode(), 's', classfile.SUBMISSIONS, (), 's')\n"
        "results = [classfile.judge_task(t) for t in classfile.tasks(table, key, Settings())]\n"
        "assert [r.status for r in results] == ['incorrect', 'incorrect', 'correct']\n"
        "assert all(r.solution is None for r in results)\n"
        "print(sorted(m for m in sys.modules if 'solutions' in m or 'manualintegrate' in m))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"

"""`gradcalc sheets`: each student's variants handed out as a printable page (MathML, no
network: no http in any src or href, and the math drawn by headless Chromium), a CSV
for a mail merge, the teacher's copy with every variant's answer; one student's sheet
printed; errors before anything is written."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from html_pages import BROWSER, drawn_math
from html_pages import read_file as parsed

from gradcalc.grading import draws, params

KEY = """problem,function,params,term,points,kind
1,a*sin(b*x),a = 2..9; b = 2..5 except 3,spring,2,
2,x^2 + y^2 = r^2,r = 2..5,,1,implicit
3,(x^2 + a)/(x - c),a = 1..3; c = 1..2,,1,
4,x^3,,,1,
"""
ROSTER = "Email,Name,Section\nana@uni.edu,Ana López,A\nben@uni.edu,Ben Okafor,B\n" \
         "cy@uni.edu,Cy <b>Wu</b>,A\n"
@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    from conftest import run_main

    here = tmp_path_factory.mktemp("sheets")
    (here / "key.csv").write_text(KEY, encoding="utf-8")
    (here / "roster.csv").write_text(ROSTER, encoding="utf-8")
    run = run_main("sheets", "--key", "key.csv", "--roster", "roster.csv", "--out", "out",
                   "--title", "Week 3", cwd=here)
    assert run.code == 0, run.err
    assert run.out == ("3 sheets written to out: sheet-ana@uni.edu.html ... "
                       "sheet-cy@uni.edu.html, sheets.csv, teacher.html\n")
    return here / "out"


def values(problem: str, student: str, spec: str, term: str = "spring") -> dict[str, int]:
    return {n: int(v) for n, v in draws.draw(params.read(spec, "t"), term, student,
                                             problem)}


def test_one_page_per_student_with_their_own_variants(folder):
    assert sorted(p.name for p in folder.iterdir()) == [
        "sheet-ana@uni.edu.html", "sheet-ben@uni.edu.html", "sheet-cy@uni.edu.html",
        "sheets.csv", "teacher.html"]
    for student in ("ana@uni.edu", "ben@uni.edu", "cy@uni.edu"):
        page = (folder / f"sheet-{student}.html").read_text(encoding="utf-8")
        v = values("1", student, "a = 2..9; b = 2..5 except 3")
        assert f"<mn>{v['a']}</mn>" in page and f"<mn>{v['b']}</mn>" in page
        assert page.count('<section class="problem">') == 4
        assert "Problem 1 (2 points)" in page and "Find f&#x27;(x)." in page
        assert "by implicit differentiation" in page
    cy = parsed(folder / "sheet-cy@uni.edu.html")
    assert "cy@uni.edu, Cy <b>Wu</b>, A" in cy.text  # the roster's text, escaped
    assert ("b", {}) not in cy.tags


def test_the_pages_fetch_nothing_and_run_nothing(folder):
    for path in folder.glob("*.html"):
        page = parsed(path)
        for tag, attrs in page.tags:
            assert tag not in ("script", "link", "iframe", "img", "object", "embed"), path
            for name in ("src", "href"):
                assert name not in attrs or "http" not in attrs[name], (path, tag, attrs)
            assert "http" not in " ".join(str(v) for v in attrs.values())
        assert "url(" not in path.read_text(encoding="utf-8")


def test_the_csv_for_a_mail_merge(folder):
    rows = list(csv.DictReader(io.StringIO((folder / "sheets.csv").read_text())))
    assert [r["student"] for r in rows[:5]] == ["ana@uni.edu"] * 4 + ["ben@uni.edu"]
    assert list(rows[0]) == ["student", "problem", "params", "prompt", "function", "latex"]
    v = values("1", "ben@uni.edu", "a = 2..9; b = 2..5 except 3")
    ben = rows[4]
    assert ben["params"] == f"a = {v['a']}, b = {v['b']}"
    assert ben["function"] == f"{v['a']}sin({v['b']}x)"  # as read, not the text judged
    assert ben["latex"] == rf"f(x) = {v['a']} \sin{{\left({v['b']} x \right)}}"
    assert rows[3]["params"] == "" and rows[3]["latex"] == "f(x) = x^{3}"


def test_the_teachers_copy_lists_every_variant_with_its_answer(folder):
    page = (folder / "teacher.html").read_text(encoding="utf-8")
    assert "Week 3: the teacher&#x27;s copy" in page
    assert "Parameters <code>a = 2..9; b = 2..5 except 3</code>" in page
    for student in ("ana@uni.edu", "ben@uni.edu", "cy@uni.edu"):
        v = values("1", student, "a = 2..9; b = 2..5 except 3")
        assert f"a = {v['a']}, b = {v['b']}" in page
        assert f"<mn>{v['a'] * v['b']}</mn>" in page  # the answer a·b·cos(b·x)
    assert page.count("<tr>") == 4 + sum(
        len({tuple(values(p, s, spec).items()) for s in ("ana@uni.edu", "ben@uni.edu",
                                                          "cy@uni.edu")})
        for p, spec in (("1", "a = 2..9; b = 2..5 except 3"), ("2", "r = 2..5"),
                        ("3", "a = 1..3; c = 1..2"))) + 1


def test_one_students_sheet_on_the_command_line(invoke, tmp_path):
    (tmp_path / "key.csv").write_text(KEY, encoding="utf-8")
    key = str(tmp_path / "key.csv")
    v = values("1", "dee", "a = 2..9; b = 2..5 except 3")
    plain = invoke("sheets", "--key", key, "--student", "dee", "--plain")
    assert plain.code == 0
    first = plain.out.splitlines()[0].split("\t")
    assert first == ["dee", "1", f"a = {v['a']}, b = {v['b']}", "Find f'(x).",
                     f"f(x) = {v['a']}sin({v['b']}x)"]
    answers = invoke("sheets", "--key", key, "--student", "dee", "--json", "--answers")
    lines = [json.loads(line) for line in answers.out.splitlines()]
    assert len(lines) == 4 and lines[0]["params"] == v
    assert lines[0]["answer"] == f"{v['a'] * v['b']}cos({v['b']}x)"
    assert lines[3] == {"student": "dee", "problem": "4", "params": {}, "prompt":
                        "Find f'(x).", "function": "x^3", "read": "f(x) = x^3",
                        "latex": "f(x) = x^{3}", "answer": "3x^2"}
    shown = invoke("sheets", "--key", key, "--student", "dee")
    assert "dee" in shown.out and f"f(x) = {v['a']}sin({v['b']}x)" in shown.out


def test_a_sheet_asks_for_the_order_and_the_domain_of_the_students_variant(invoke,
                                                                           tmp_path):
    (tmp_path / "key.csv").write_text("problem,function,params,order,kind,domain\n"
                                      "1,x^5,n = 2..3,n,,\n"
                                      "2,a/x,a = 2..5,,antiderivative,x in [a; 2a]\n"
                                      "3,1/x,,,antiderivative,x > 0\n", encoding="utf-8")
    n = values("1", "ana", "n = 2..3", term="")["n"]
    a = values("2", "ana", "a = 2..5", term="")["a"]
    plain = invoke("sheets", "--key", str(tmp_path / "key.csv"), "--student", "ana",
                   "--plain")
    prompts = [line.split("\t")[3] for line in plain.out.splitlines()]
    assert prompts == [f"Find f{chr(39) * n}(x).",
                       f"Find an antiderivative F(x), for {a} ≤ x ≤ {2 * a}.",
                       "Find an antiderivative F(x), for x > 0."], plain.out


def test_the_same_variant_in_sheets_and_in_grading(invoke, tmp_path):
    (tmp_path / "key.csv").write_text(KEY, encoding="utf-8")
    sheet = invoke("sheets", "--key", str(tmp_path / "key.csv"), "--student", "ana",
                   "--json", "--answers")
    answers = {o["problem"]: o["answer"] for o in map(json.loads, sheet.out.splitlines())}
    subs = "student,problem,answer\n" + "".join(
        f'ana,{p},"{a.removesuffix(" + C")}"\n' for p, a in answers.items())
    (tmp_path / "subs.csv").write_text(subs, encoding="utf-8")
    graded = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
                    "--plain")
    assert graded.code == 0, graded.out


EXP_KEY = "problem,function,params\n1,e^c x,c = -7..-2\n2,a*exp(c)*x^2,a = 2..5; c = -7..-2\n"


def test_e_to_a_drawn_number_stays_exact_on_every_page(invoke, tmp_path):
    (tmp_path / "key.csv").write_text(EXP_KEY, encoding="utf-8")
    (tmp_path / "roster.csv").write_text("Email\nana@uni.edu\nben@uni.edu\n",
                                         encoding="utf-8")
    run = invoke("sheets", "--key", str(tmp_path / "key.csv"), "--roster",
                 str(tmp_path / "roster.csv"), "--out", str(tmp_path / "out"))
    assert run.code == 0, run.err
    pages = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "out").iterdir()}
    for name, text in pages.items():
        assert not re.search(r"\d\.\d{4}", text), name  # no float like 0.00673794699908547
    rows = list(csv.DictReader(io.StringIO(pages["sheets.csv"])))
    for row in rows:
        assert "e^{" in row["latex"], row
        # e^c as a book prints it, where the key has it: e^{-3} x, not x/e^3 or exp((-3))
        assert "frac" not in row["latex"] and "exp" not in row["function"], row
        assert re.fullmatch(r"\d?e\^\(-\d\)·x(\^2)?", row["function"]), row
    heads = re.findall(r"<h2>(.*?)</h2>", pages["teacher.html"])
    assert heads and all("<math>" in h and "<code>" not in h for h in heads)  # MathML
    sheet = invoke("sheets", "--key", str(tmp_path / "key.csv"), "--student", "ana@uni.edu",
                   "--json", "--answers")
    for line in sheet.out.splitlines():
        assert not re.search(r"\d\.\d{4}", json.loads(line)["answer"]), line


@pytest.mark.parametrize("args, message", [
    ((), "sheets needs the students: --roster ROSTER.csv, or --student ID"),
    (("--student", "a", "--out", "key.csv"), "--out key.csv: is a file, not a folder"),
    (("--student", "a", "--out", "no/such/out"), "the folder"),
    (("--roster", "absent.csv"), "cannot read roster 'absent.csv'"),
])
def test_errors_before_anything_is_written(invoke, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "key.csv").write_text(KEY, encoding="utf-8")
    r = invoke("sheets", "--key", "key.csv", *args)
    assert r.code == 2 and message in r.err and r.out == ""


def test_the_files_named_in_json_and_none_left_when_one_cannot_be_written(invoke, tmp_path,
                                                                          monkeypatch):
    from gradcalc.errors import GradcalcError
    from gradcalc.render import files

    monkeypatch.chdir(tmp_path)
    (tmp_path / "key.csv").write_text(KEY, encoding="utf-8")
    r = invoke("sheets", "--key", "key.csv", "--student", "ana", "--out", "out", "--json")
    assert r.code == 0 and json.loads(r.out) == {"sheets": 1, "folder": "out", "files": [
        "sheet-ana.html"]}

    def refused(texts):
        raise GradcalcError("cannot write out2/sheets.csv: No space left on device",
                            kind="usage")

    monkeypatch.setattr(files, "write_all", refused)
    r = invoke("sheets", "--key", "key.csv", "--student", "ana", "--out", "out2")
    assert r.code == 2 and "No space left" in r.err and not (tmp_path / "out2").exists()


def test_a_bad_key_writes_no_folder(invoke, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "key.csv").write_text("problem,function,params\n1,a x,a = 3..1\n")
    r = invoke("sheets", "--key", "key.csv", "--student", "ana", "--out", "out")
    assert r.code == 2 and "key.csv', line 2, column params" in r.err
    assert not (tmp_path / "out").exists()


def test_page_names_are_safe_and_distinct():
    from gradcalc.run.sheetrun import page_names

    assert page_names(["ana@uni.edu", "a b", "a_b", "../x", ""]) == [
        "sheet-ana@uni.edu.html", "sheet-a_b.html", "sheet-a_b-2.html", "sheet-x.html",
        "sheet-student.html"]


#: put into a copy of a page: on the root element, each <math>'s box, and for each
#: fraction whether its numerator is drawn above its denominator (laid out as MathML)
@pytest.mark.skipif(BROWSER is None, reason="no headless Chromium here")
def test_the_math_renders_offline_in_chromium(folder, tmp_path):
    for page in (folder / "sheet-ana@uni.edu.html", folder / "teacher.html"):
        found = drawn_math(page, tmp_path)
        assert found["maths"] and all(x["mathml"] and x["width"] > 10 and x["height"] > 5
                                      for x in found["maths"]), found
        assert found["fractions"] and all(found["fractions"]), found

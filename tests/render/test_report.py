"""The class picture: one static HTML page (parsed here), every problem and every mistake
in it, nothing fetched from anywhere; and the same tables in the terminal."""

from __future__ import annotations

import re

import pytest
from html_pages import BROWSER, drawn_math, read_file

KEY = """problem,function
chain,sin(3x)
product,x^2 sin(x)
gradient,x^2 y
"""
SUBMISSIONS = """student,problem,answer
ana,chain,cos(3x)
ben,chain,cos(3x)
cy,chain,3cos(3x)
ana,product,2x cos(x)
ben,product,2x sin(x) + x^2 cos(x)
cy,product,"<script>alert(1)</script>"
ana,gradient,"[x^2, 2x y]"
ben,gradient,"[2x y, x^2]"
cy,gradient,"[2x y, x^2]"
"""


def _graded_report(invoke, folder, key: str, submissions: str, output: str):
    """The report's path, after grading SUBMISSIONS against KEY (one answer wrong)."""
    (folder / "key.csv").write_text(key)
    (folder / "subs.csv").write_text(submissions)
    out = folder / "report.html"
    r = invoke("grade", "--key", str(folder / "key.csv"), str(folder / "subs.csv"),
               "--report", str(out), output)
    assert r.code == 1
    return out


@pytest.fixture
def page(invoke, tmp_path):
    return read_file(_graded_report(invoke, tmp_path, KEY, SUBMISSIONS, "--json"))


def test_every_problem_and_mistake_is_in_the_report(page):
    text = " ".join(page.text)
    for problem in ("chain", "product", "gradient"):
        assert problem in text
    assert "the chain rule's inner factor dropped at sin(3x)" in text
    assert "the product rule as f′g′ at x^2·sin(x)" in text
    assert "entries 1 and 2 are swapped" in text
    ids = {a["id"] for _, a in page.tags if "id" in a}
    assert {"problem-1", "problem-2", "problem-3", "students"} <= ids
    assert "slowest" not in ids and "ms" not in page.text  # no timing on the teacher's page


def test_mistakes_have_counts_and_example_answers(page):
    rows = [t for t, _ in page.tags if t == "tr"]
    assert rows
    text = "|".join(s.strip() for s in page.text if s.strip())
    assert "the chain rule's inner factor dropped at sin(3x)|2|cos|(|3|\u2062|x|)" in text


def test_bars_per_problem_and_no_external_resource(page):
    bars = [a for t, a in page.tags if t == "div" and a.get("class") == "bar"]
    assert len(bars) == 4  # the class, then one per problem
    for tag, attrs in page.tags:
        assert tag not in ("script", "link", "iframe", "img", "object", "embed")
        for name in ("src", "href"):
            if name in attrs:
                assert attrs[name].startswith("#"), (tag, attrs)
        assert "http" not in " ".join(str(v) for v in attrs.values())
        assert "url(" not in attrs.get("style", "")


def test_student_text_is_escaped(invoke, tmp_path):
    (tmp_path / "key.csv").write_text(KEY)
    (tmp_path / "subs.csv").write_text('student,problem,answer\n'
                                       '"<script>alert(1)</script>",chain,cos(3x)\n')
    out = tmp_path / "report.html"
    invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
           "--report", str(out), "--json")
    page = read_file(out)
    assert ("script", {}) not in page.tags
    assert "<script>alert(1)</script>" in " ".join(page.text)  # shown, as text


def test_summary_prints_the_same_tables_in_the_terminal(invoke, tmp_path):
    (tmp_path / "key.csv").write_text(KEY)
    (tmp_path / "subs.csv").write_text(SUBMISSIONS)
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--summary", "--plain")
    assert r.code == 1
    for title in ("Problems", "Most common mistakes", "Students"):
        assert title in r.err
    assert "cos(3x)" in r.err and "total (of 3)" in r.err


E_KEY = "problem,function,params,term\n1,exp(c)*x,c = -6..-2,t\n2,x^2 sin(x),,\n"
E_SUBS = ("student,problem,answer\nana,1,e^(-2)\nben,1,0.05\ncy,1,e^(-2\n"
          "ana,2,2x cos(x)\nben,2,2x cos(x)\n")


@pytest.fixture
def e_page(invoke, tmp_path):
    out = _graded_report(invoke, tmp_path, E_KEY, E_SUBS, "--plain")
    return out.read_text(encoding="utf-8")


def _sections(page: str, prefix: str) -> list[str]:
    return [part.split("</section>")[0] for part in page.split(f'<section id="{prefix}')[1:]]


def test_the_reports_math_is_mathml_by_the_sheets_renderer(e_page):
    problems = _sections(e_page, "problem-")
    for section in problems:
        head = section.split("</h3>")[0]
        assert "<math>" in head and "<code>" not in head, head  # the key's function
    # the template: e^c x, its power of e in place; the example variant: e^(-k) x
    assert "<msup><mi>e</mi><mi>c</mi></msup><mo>&#x2062;</mo><mi>x</mi>" in problems[0]
    params = problems[0].split('<p class="params">')[1].split("</p>")[0]
    assert re.search(r"<msup><mi>e</mi><mn>-[2-6]</mn></msup><mo>&#x2062;</mo><mi>x</mi>",
                     params), params
    assert "exp(" not in e_page and "2.718" not in e_page


def test_student_answers_as_mathml_where_they_read_as_written_where_not(e_page):
    product = _sections(e_page, "problem-")[1]
    assert ("<math><mrow><mn>2</mn><mo>&#x2062;</mo><mi>x</mi><mo>&#x2062;</mo><mrow>"
            "<mi>cos</mi>") in product  # 2x cos(x)
    first = _sections(e_page, "problem-")[0]
    assert "<code>0.05</code>" in first  # a decimal as typed, not the 1/20 it reads as
    assert "<code>e^(-2</code>" not in first  # unreadable: not a mistake's example


def test_worked_solutions_titles_and_answers_are_mathml(e_page):
    for section in _sections(e_page, "solution-"):
        title = section.split("</h3>")[0]
        assert "<math><mi>f</mi><mrow><mo>(</mo><mi>x</mi><mo>)</mo></mrow><mo>=</mo>" in title
        answer = section.split("<p>Answer: ")[1]
        assert answer.startswith("<math><mi>f</mi><mo>&#x2032;</mo>"), answer


@pytest.mark.skipif(BROWSER is None, reason="no headless Chromium here")
def test_the_reports_math_renders_offline_in_chromium(e_page, tmp_path):
    page = tmp_path / "page.html"
    page.write_text(e_page, encoding="utf-8")
    found = drawn_math(page, tmp_path)
    assert len(found["maths"]) >= 8 and all(
        x["mathml"] and x["width"] > 5 and x["height"] > 5 for x in found["maths"]), found

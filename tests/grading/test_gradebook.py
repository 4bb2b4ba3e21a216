"""The class picture across variants: a mistake at the same step of the template counts
once per student whatever the numbers, a teacher's hint counts like a mistake, and a
parametrised problem shows its parameters and an example variant (report, summary)."""

from __future__ import annotations

import pytest

from gradcalc.grading import classfile, gradebook
from gradcalc.grading.key import OPTIONAL, REQUIRED, key_from
from gradcalc.homework.judge import Settings
from gradcalc.ingest.headers import parse_table

KEY = ('problem,function,params,hints\n'
       '1,a*sin(b*x),a = 2..9; b = 2..5 except 3; a != b,"-a*b*cos(b*x) -> mind the sign"\n'
       "2,x^2 sin(x),,\n")


def graded(rows: list[tuple[str, str, str]]) -> gradebook.Picture:
    key = key_from(parse_table(KEY.encode(), "key.csv", REQUIRED, OPTIONAL, "key"))
    text = "student,problem,answer\n" + "".join(f'{s},{p},"{a}"\n' for s, p, a in rows)
    table = parse_table(text.encode(), "subs.csv", classfile.SUBMISSIONS, (), "subs")
    results = classfile.run(classfile.tasks(table, key, Settings()))
    return gradebook.picture(results, key)


def ab(student: str) -> tuple[int, int]:
    from gradcalc.grading import draws, params

    v = dict(draws.draw(params.read("a = 2..9; b = 2..5 except 3; a != b", "k"), "",
                        student, "1"))
    return int(v["a"]), int(v["b"])


STUDENTS = ("ana", "ben", "cy", "dee")


@pytest.fixture(scope="module")
def picture():
    rows = []
    for s in STUDENTS:
        a, b = ab(s)
        rows.append((s, "1", f"{a}cos({b}x)"))  # the chain rule's inner factor dropped
    a, b = ab("ana")
    rows.append(("ana", "1", f"cos({b}x)*{a}"))  # resubmitted, the same mistake
    a, b = ab("eve")
    rows.append(("eve", "1", f"-{a * b}cos({b}x)"))  # the teacher's hint
    rows += [("ana", "2", "2x cos(x)"), ("ben", "2", "2x cos(x)")]
    return graded(rows)


def test_the_same_step_of_the_template_counts_once_per_student(picture):
    first = picture.problems[0]
    assert {ab(s)[1] for s in STUDENTS} != {ab("ana")[1]}  # the numbers differ
    chain = [m for m in first.mistakes if m.label.startswith("the chain rule's")]
    assert len(chain) == 1
    assert chain[0].label == "the chain rule's inner factor dropped at sin(b·x)"
    assert chain[0].count == len(STUDENTS)  # ana twice: once
    assert len(chain[0].examples) == 3 and len(chain[0].variants) == 3
    a, b = ab("ana")
    assert chain[0].examples[0] == f"{a}cos({b}x)" and chain[0].variants[0] == \
        f"{a}*sin({b}*x)"
    assert first.counts["incorrect"] == 6  # the rows are all still counted


def test_a_teachers_hint_counts_like_a_mistake(picture):
    hint = [m for m in picture.problems[0].mistakes if m.label.startswith("hint")]
    assert [(m.label, m.count) for m in hint] == [("hint -a*b*cos(b*x): mind the sign", 1)]


def test_a_parametrised_problem_shows_its_parameters_and_an_example_variant(picture):
    first, second = picture.problems
    assert first.function == "a*sin(b*x)"
    assert first.params == "a = 2..9; b = 2..5 except 3; a != b" and first.variants == 21
    a, b = ab("ana")
    assert first.example is not None and first.example.student == "ana"
    assert first.example.function == f"{a}*sin({b}*x)"
    assert second.params == "" and second.example is None and second.variants == 1
    assert [(m.label, m.count) for m in second.mistakes] == [
        ("the product rule as f′g′ at x^2·sin(x)", 2)]


def test_the_report_and_the_summary_show_it(picture):
    from gradcalc.render.report import report_html
    from gradcalc.render.summary import draw_to, show_picture

    page = report_html(picture)
    a, b = ab("ana")
    variant = (f"<math><mrow><mn>{a}</mn><mo>&#x2062;</mo><mrow><mi>sin</mi><mrow><mo>(</mo>"
               f"<mrow><mn>{b}</mn><mo>&#x2062;</mo><mi>x</mi></mrow><mo>)</mo></mrow></mrow>"
               "</mrow></math>")  # the sheets' MathML, not the text judged
    assert ("Parameters <code>a = 2..9; b = 2..5 except 3; a != b</code> (21 variants); "
            f"e.g. ana: a = {a}, b = {b}, {variant}.") in page
    assert '<th class="n">students</th>' in page
    assert "<mi>cos</mi>" in page and f"</math> on {variant}" in page
    assert f"<code>{a}*sin" not in page
    import io

    out = io.StringIO()
    draw_to(out, lambda console: show_picture(picture, console))
    text = out.getvalue()
    assert "Parameters" in text and f"ana: {a}sin({b}x)" in text  # as read
    assert f"{a}cos({b}x) on {a}sin({b}x)" in text

"""A parametrised class end to end: 30 students × 6 problems with parameters (every kind of
problem: a derivative, the second derivative at a point, a mixed partial, dy/dx of an
equation, an antiderivative, a tensor gradient), each student graded against their own
variant (a right answer copied from another variant is wrong), the teacher's hints fired,
receipts that replay, the same output with --jobs; and a bad parameter spec refused
before anything is judged or written."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction

import pytest
import sympy as sp

from gradcalc.grading import draws, params

KEY = ("problem,function,params,term,kind,at,order,partial,shape,wrt,points,hints\n"
       '1,a*sin(b*x),a = 2..9; b = 2..5 except 3; a != b,fall-2027,,,,,,,2,"'
       "chain-inner-factor -> the inner function {b}x has a derivative too\n"
       '-a*b*cos(b*x) -> the derivative of sin is cos, not -cos"\n'
       '2,x^n + a*x^2,"n = choice(3, 4); a = 1..5; c = 1..3",,,x=c,2,,,,1,\n'
       "3,a*x^2*y^m,a = 2..6; m = 2..4,,,,,x;y,,,1,\n"
       "4,x^2 + a*y^2 = r^2,a = 2..4; r = 2..5,,implicit,,,,,,1,"
       "-x/y -> the y^2 term has a factor {a}\n"
       "5,a*cos(b*x),a = 2..6; b = 2..4; a != b,,antiderivative,,,,,,1,"
       "a*b*sin(b*x) -> that is the derivative's way round\n"
       "6,sum((W@x - a)^2),a = 1..5,,tensor,,,,W=2x2; x=2,W,1,\n")
STUDENTS = [f"s{k:02d}@uni.edu" for k in range(30)]
SPECS = {"1": "a = 2..9; b = 2..5 except 3; a != b", "2": "n = choice(3, 4); a = 1..5; c = 1..3",
         "3": "a = 2..6; m = 2..4", "4": "a = 2..4; r = 2..5",
         "5": "a = 2..6; b = 2..4; a != b", "6": "a = 1..5"}
x, y = sp.symbols("x y")


def drawn(problem: str, student: str) -> dict[str, int]:
    spec = params.read(SPECS[problem], "test")
    values = dict(draws.draw(spec, "fall-2027", student, problem))
    assert all(isinstance(v, Fraction) and v.denominator == 1 for v in values.values())
    return {n: int(v) for n, v in values.items()}


def right(problem: str, v: dict[str, int]) -> tuple[str, sp.Expr | tuple]:
    """The right answer on a variant, as a student types it, and its value (sympy),
    worked out here, without gradcalc."""
    a = v.get("a")
    if problem == "1":
        return f"{a * v['b']}cos({v['b']}x)", a * v["b"] * sp.cos(v["b"] * x)
    if problem == "2":
        n, c = v["n"], v["c"]
        value = n * (n - 1) * c ** (n - 2) + 2 * a
        return str(value), sp.Integer(value)
    if problem == "3":
        m = v["m"]
        return f"{2 * a * m} x y^{m - 1}", 2 * a * m * x * y ** (m - 1)
    if problem == "4":
        return f"-x/({a} y)", -x / (a * y)
    if problem == "5":
        b = v["b"]
        return f"{a}/{b} sin({b}x) + C", sp.Rational(a, b) * sp.sin(b * x)
    return f"outer(2*(W@x - {a}), x)", (a,)


def wrong(problem: str, v: dict[str, int], k: int) -> str:
    """A typical mistake on a variant."""
    a = v.get("a")
    if problem == "1":
        return f"{a}cos({v['b']}x)" if k % 2 else f"cos({v['b']}x)*(-{a * v['b']})"
    if problem == "2":
        n, c = v["n"], v["c"]
        return str(n * c ** (n - 1) + 2 * a * c)  # the first derivative there
    if problem == "3":
        return f"{2 * a} x y^{v['m']}"  # f_x only
    if problem == "4":
        return "-x/y"
    if problem == "5":
        return f"{a * v['b']} sin({v['b']}x)"
    return f"outer(x, 2*(W@x - {a}))"


def same(problem: str, one: sp.Expr | tuple, other: sp.Expr | tuple) -> bool:
    if problem == "6":
        return one == other
    return sp.simplify(one - other) == 0


def submissions() -> tuple[str, dict[tuple[str, str], tuple[str, bool]]]:
    """The class: students 0-9 right, 10-19 a typical mistake, 20-29 the right answer of
    the next student's variant (right only where it is the same function); and what each
    row's verdict must be."""
    out, expected = io.StringIO(), {}
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", "problem", "answer"])
    for k, student in enumerate(STUDENTS):
        for problem in SPECS:
            own = drawn(problem, student)
            text, value = right(problem, own)
            if 10 <= k < 20:
                text, ok = wrong(problem, own, k), False
            elif k >= 20:
                other = drawn(problem, STUDENTS[(k + 1) % 30])
                text, copied = right(problem, other)
                ok = same(problem, value, copied)
            else:
                ok = True
            writer.writerow([student, problem, text])
            expected[(student, problem)] = (text, ok)
    return out.getvalue(), expected


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from conftest import run_main

    folder = tmp_path_factory.mktemp("class")
    (folder / "key.csv").write_text(KEY, encoding="utf-8")
    subs, expected = submissions()
    (folder / "subs.csv").write_text(subs, encoding="utf-8")
    run = run_main("grade", "--key", "key.csv", "subs.csv", "--json", "--grades",
                   "grades.csv", "--report", "report.html", cwd=folder)
    rows = [json.loads(line) for line in run.out.splitlines()]
    return folder, run, rows[:-1], rows[-1]["summary"], expected


def test_every_student_is_graded_on_their_own_variant(graded):
    _, run, rows, summary, expected = graded
    assert run.code == 1 and len(rows) == 180 and summary["rows"] == 180
    wrong = [(r["id"], r["problem"], r["answer"], r["verdict"], r.get("reason"))
             for r in rows if (r["verdict"] == "correct") != expected[(r["id"],
                                                                       r["problem"])][1]]
    assert not wrong
    copied = [expected[(s, p)][1] for s in STUDENTS[20:] for p in SPECS]
    assert copied.count(False) >= 40  # of 60: a copied answer is mostly another function


def test_each_row_names_its_variant_and_the_receipt_carries_it(graded):
    _, _, rows, _, _ = graded
    for r in rows:
        values = drawn(r["problem"], r["id"])
        assert r["params"] == values
        variant = r["receipt"]["variant"]
        assert variant["params"] == values and variant["student"] == r["id"]
        assert variant["term"] == "fall-2027" and variant["spec"] == SPECS[r["problem"]]
        for name, value in values.items():
            if r["problem"] != "2" or name != "c":  # c is the at cell's
                assert str(value) in r["receipt"]["function"]
    at = [r["receipt"]["kind"]["at"] for r in rows if r["problem"] == "2"]
    assert at[0] == {"x": float(drawn("2", STUDENTS[0])["c"])}


def test_the_teachers_hints_fire_on_the_students_variant(graded):
    _, _, rows, _, _ = graded
    fired = {(r["id"], r["problem"]): r.get("hint") for r in rows}
    for k in range(10, 20):
        student = STUDENTS[k]
        b = drawn("1", student)["b"]
        message = (f"the inner function {b}x has a derivative too" if k % 2 else
                   "the derivative of sin is cos, not -cos")
        assert fired[(student, "1")]["message"] == message
        assert fired[(student, "4")]["message"] == \
            f"the y^2 term has a factor {drawn('4', student)['a']}"
        assert fired[(student, "5")]["message"] == "that is the derivative's way round"
        assert fired[(student, "2")] is None and fired[(student, "3")] is None
    assert all(fired[(s, p)] is None for s in STUDENTS[:10] for p in SPECS)


def test_the_receipts_replay(graded):
    from conftest import run_main

    folder, run, _, _, _ = graded
    (folder / "verdicts.jsonl").write_text(run.out, encoding="utf-8")
    again = run_main("replay", "verdicts.jsonl", cwd=folder)
    assert again.code == 0, again.out[-2000:]
    assert "180 verdicts judged again: 180 the same, 0 differ" in again.err


def test_an_edited_variant_is_found_by_replay(graded):
    from conftest import run_main

    folder, run, _, _, _ = graded
    first = json.loads(run.out.splitlines()[0])
    a = first["params"]["a"]
    first["receipt"]["variant"]["params"]["a"] = a + 1
    first["receipt"]["function"] = first["receipt"]["function"].replace(str(a), str(a + 1),
                                                                        1)
    (folder / "edited.jsonl").write_text(json.dumps(first) + "\n", encoding="utf-8")
    again = run_main("replay", "edited.jsonl", cwd=folder)
    assert again.code == 1
    assert f"variant: recorded a = {a + 1}" in again.out


def test_a_hint_edited_or_dropped_is_found_by_replay(graded):
    from conftest import run_main

    folder, run, rows, _, _ = graded
    lines = run.out.splitlines()
    k = next(i for i, r in enumerate(rows) if r.get("hint"))
    edited = json.loads(lines[k])
    edited["hint"]["message"] = "another message"
    dropped = json.loads(lines[k])
    del dropped["hint"]
    (folder / "hints.jsonl").write_text(f"{json.dumps(edited)}\n{json.dumps(dropped)}\n",
                                        encoding="utf-8")
    again = run_main("replay", "hints.jsonl", cwd=folder)
    assert again.code == 1
    assert again.out.count("hint: recorded") == 2 and "recorded null, now {" in again.out


def test_grades_and_the_class_picture_across_variants(graded):
    folder, _, rows, _, expected = graded
    grades = list(csv.reader(io.StringIO((folder / "grades.csv").read_text())))
    total = {line[0]: float(line[-1]) for line in grades[2:]}
    for student in STUDENTS:
        earned = [r["score"] for r in rows if r["id"] == student]
        assert total[student] == pytest.approx(sum(earned))
        full = sum((2 if p == "1" else 1) * expected[(student, p)][1] for p in SPECS)
        assert full <= total[student] < full + 1  # a transposed 2×2 gradient: half a point
    page = (folder / "report.html").read_text(encoding="utf-8")
    assert "Parameters <code>a = 2..9; b = 2..5 except 3; a != b</code> (21 variants)" in page
    assert "hint chain-inner-factor: the inner function bx has a derivative too" in page


def test_jobs_write_the_same_verdicts(graded):
    from conftest import run_cli

    folder, run, _, _, _ = graded
    two = run_cli("grade", "--key", "key.csv", "subs.csv", "--json", "--jobs", "2",
                  cwd=folder, timeout=600)
    assert two.code == 1 and two.out == run.out


BAD = [
    ("a = 5..2", "a*x", "line 2, column params: 'a = 5..2': a has no value"),
    ("a = 1..4; b = 1..4; a > b + 5", "a*x + b",
     "line 2, column params: no values satisfy the conditions (a > b + 5): none of the "
     "16 combinations"),
    ("a = 2..9", "log(5 - a) + x", "line 2: with a = 5 the function 'log(5 - 5) + x' is "
     "undefined everywhere"),
    ("a = 2..3", "ax", "line 2, column function: 'ax' is a and x written together"),
    ("a = 2..9; sqrt(a) > 2", "a*x", "line 2, column params, 'sqrt(a) > 2': 'sqrt' at line "
     "1, column 1 is not a function gradcalc knows; functions: abs, floor, gcd, int, mod"),
    ("g = formula()", "g", "line 2, column params, 'g = formula()': formula() needs at least "
     "one formula"),
    ("v = variable()", "v", "line 2, column params, 'v = variable()': variable() needs at "
     "least one variable"),
    ("a = 2..9; redraw a until a > 9", "a*x", "line 2, column params: 'redraw a until a > 9' "
     "can never succeed: none of the 8 values of a satisfies it"),
    ("a = 1..2000; redraw a until a == 7", "a*x", "line 2, column params: 'redraw a until "
     "a == 7' keeps 1 of the 2,000 values of a, under 5%: a redraw draws at most 1,000 "
     "times"),
]


@pytest.mark.parametrize("spec, function, message", BAD)
def test_a_bad_spec_is_an_error_naming_the_keys_line_and_nothing_is_written(
        invoke, tmp_path, spec, function, message):
    (tmp_path / "key.csv").write_text(f'problem,function,params\n1,{function},"{spec}"\n')
    (tmp_path / "subs.csv").write_text("student,problem,answer\nana,1,1\n")
    grades = tmp_path / "grades.csv"
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--json", "--grades", str(grades))
    assert r.code == 2 and message in r.err and "Traceback" not in r.err
    assert json.loads(r.out)["error"]["kind"] == "usage"
    assert not grades.exists()


def test_a_students_variant_undefined_is_refused_before_any_row_is_judged(invoke, tmp_path):
    # of a = 1..48, the key's check tries every other value (1, 3, ..., 47): all defined;
    # a = 2 makes log(0) of the function, and a student who draws it stops the class
    spec = params.read("a = 1..48", "k")
    unlucky = next(f"s{k}" for k in range(10_000)
                   if dict(draws.draw(spec, "", f"s{k}", "1"))["a"] == 2)
    (tmp_path / "key.csv").write_text("problem,function,params\n1,log((a - 2)^2) + x,"
                                      "a = 1..48\n")
    (tmp_path / "subs.csv").write_text(f"student,problem,answer\nana,1,1\n{unlucky},1,1\n")
    grades = tmp_path / "grades.csv"
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--plain", "--grades", str(grades))
    assert r.code == 2 and r.out == "" and not grades.exists()
    assert (f"key.csv', line 2 (the variant of {unlucky!r}): with a = 2 the function "
            "'log((2 - 2)^2) + x' is undefined everywhere") in r.err


def test_order_and_domain_cells_with_parameters_are_judged_and_replayed(invoke, tmp_path):
    """The order and the domain of a student's own variant (n = 2..4 in the order cell, a
    in the domain's), judged on it, recorded in the receipt, and replayed from it alone."""
    (tmp_path / "key.csv").write_text(
        "problem,function,params,kind,order,domain\n1,x^5,n = 2..4,,n,\n"
        "2,a/x,a = 2..5,antiderivative,,x > a\n")
    spec_n, spec_a = params.read("n = 2..4", "k"), params.read("a = 2..5", "k")
    rows = ["student,problem,answer"]
    for s in ("ana", "ben", "cy"):
        n = int(dict(draws.draw(spec_n, "", s, "1"))["n"])
        a = int(dict(draws.draw(spec_a, "", s, "2"))["a"])
        rows += [f"{s},1,{sp.factorial(5) // sp.factorial(5 - n)}x^{5 - n}",
                 f"{s},2,{a} ln(x) + C"]  # ln(x): right on x > a only
    (tmp_path / "subs.csv").write_text("\n".join(rows) + "\n")
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--json")
    lines = [o for o in map(json.loads, r.out.splitlines()) if "summary" not in o]
    assert r.code == 0 and [o["verdict"] for o in lines] == ["correct"] * 6, r.out
    for o in lines:
        if o["problem"] == "1":
            assert o["receipt"]["kind"]["order"] == o["params"]["n"]
        else:
            assert o["read"]["domain"] == f"x > {o['params']['a']}"
    (tmp_path / "verdicts.jsonl").write_text(r.out, encoding="utf-8")
    again = invoke("replay", str(tmp_path / "verdicts.jsonl"))
    assert again.code == 0 and "6 verdicts judged again: 6 the same, 0 differ" in again.err


WEBWORK_KEY = ('problem,function,wrt,params,term\n'
               '1,a g,,"a = 2..5; g = formula(sin(x)^2, cos(x)^2)",fall-2027\n'
               '2,e^(a v) + v^3,v,"v = variable(t, x, u); a = 2..4",\n')


def webwork_right(problem: str, values: dict) -> tuple[str, str]:
    """The right answer on a variant of WEBWORK_KEY, worked out with sympy, in the
    variant's variable; and that variable."""
    a = int(values["a"])
    if problem == "1":
        g = sp.sin(x) ** 2 if values["g"].text.startswith("sin") else sp.cos(x) ** 2
        return str(sp.diff(a * g, x)).replace("**", "^"), "x"
    v = sp.Symbol(values["v"].text)
    return str(sp.diff(sp.exp(a * v) + v ** 3, v)).replace("**", "^"), v.name


def test_a_formula_and_a_variables_name_drawn_are_judged_on_each_variant(invoke, tmp_path):
    """Every student's right answer, in their own variable, is correct; a classmate's
    right answer in another variable is not; the receipts replay."""
    specs = {"1": "a = 2..5; g = formula(sin(x)^2, cos(x)^2)",
             "2": "v = variable(t, x, u); a = 2..4"}
    rows, by_variable = [], {}
    for student in STUDENTS[:12]:
        for problem, spec in specs.items():
            values = dict(draws.draw(params.read(spec, "test", frozenset({"v"})),
                                     "fall-2027", student, problem))
            answer, variable = webwork_right(problem, values)
            rows.append(f"{student},{problem},{answer}")
            by_variable.setdefault((problem, variable), (student, answer))
    ana, ben = (by_variable[("2", v)] for v in ("t", "u"))
    rows.append(f"{ana[0]},2,{ben[1]}")
    (tmp_path / "key.csv").write_text(WEBWORK_KEY)
    (tmp_path / "subs.csv").write_text("student,problem,answer\n" + "\n".join(rows) + "\n")
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--json")
    verdicts = [json.loads(line) for line in r.out.splitlines()][:-1]
    assert [v["verdict"] for v in verdicts[:-1]] == ["correct"] * 24
    assert "the answer uses 'u', which the function does not have (its inputs: t)" in \
        verdicts[-1]["error"]["message"]
    assert {v["params"]["v"] for v in verdicts if v["problem"] == "2"} == {"t", "x", "u"}
    (tmp_path / "out.jsonl").write_text(r.out)
    again = invoke("replay", str(tmp_path / "out.jsonl"))
    assert again.code == 0 and "25 the same, 0 differ" in again.err

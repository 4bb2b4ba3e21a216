"""gradcalc.homework.domain: the `domain` setting read from its text, drawn inside, and
reaching every surface of the registry (option, key column, batch field, receipt)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradcalc.errors import GradcalcError
from gradcalc.homework.answer import AnswerJob, run
from gradcalc.homework.dispatch import check
from gradcalc.homework.domain import draw, inside, probes, read_domain, shown
from gradcalc.homework.kinds.registry import KIND, SETTING, Kind, read_setting


@pytest.mark.parametrize("text,canonical", [
    ("x>0", "x > 0"),
    ("0 < x", "x > 0"),
    ("-1<x<1", "-1 < x < 1"),
    ("x in [1, 10]", "1 <= x <= 10"),
    ("x ∈ (0, pi]", "0 < x <= pi"),
    ("x in (-inf, 2]", "x <= 2"),
    ("x ≥ 1; y ≤ 2", "x >= 1, y <= 2"),
    ("1 > x >= -1", "-1 <= x < 1"),
    ("x > 0 and x < 5, x >= 1", "1 <= x < 5"),  # conditions on one variable intersect
    ("t > sqrt(2)", "t > sqrt(2)"),
])
def test_a_domain_reads_into_its_canonical_text_which_reads_back(text, canonical):
    assert read_setting("domain", text) == canonical
    assert read_domain(canonical) == read_domain(text)


def test_the_bounds_are_values_of_gradcalcs_own_reader():
    (b,) = read_domain("-pi/2 < x <= sqrt(2)")
    assert (b.low, b.high, b.low_closed, b.high_closed) == (-math.pi / 2, math.sqrt(2),
                                                            False, True)
    assert shown(read_domain("x in [1, 10], y > 0")) == "1 ≤ x ≤ 10, y > 0"


@pytest.mark.parametrize("text,message", [
    ("x", "write conditions such as x > 0"),
    ("x >> 0", "write conditions such as"),
    ("x > y", "write conditions such as"),
    ("2 < x < 1", "no value of x satisfies it"),
    ("x in [1, 2, 3]", "an interval has two ends"),
    ("1 <= x <= 1", "a single value: hold it there with --at x=1"),
    ("x > __import__('os')", "is not a number"),
])
def test_a_text_that_is_no_domain_is_a_usage_error(text, message):
    with pytest.raises(GradcalcError) as e:
        read_setting("domain", text)
    assert message in e.value.message and e.value.kind == "usage"


def test_the_registry_gives_the_derivative_and_the_antiderivative_the_domain():
    assert "domain" in KIND["derivative"].takes and "domain" in KIND["antiderivative"].takes
    assert "domain" not in KIND["implicit"].takes and "domain" not in KIND["tensor"].takes
    assert SETTING["domain"].column
    with pytest.raises(GradcalcError, match="--domain does not go with --implicit"):
        Kind.read(implicit="y", domain="x > 0")


@given(st.floats(-1e6, 1e6), st.floats(1e-6, 1e6), st.booleans(), st.booleans(),
       st.sampled_from(["both", "low", "high"]))
def test_draws_and_probes_lie_inside_the_interval(low, width, low_closed, high_closed,
                                                  ends):
    text = {"both": f"{low!r} {'<=' if low_closed else '<'} x {'<=' if high_closed else '<'}"
                    f" {low + width!r}", "low": f"x > {low!r}", "high": f"x < {low!r}"}[ends]
    bounds = read_domain(text)
    rng = np.random.default_rng(0)
    xs = draw(rng, bounds[0], rng.uniform(-1e4, 1e4, 200))
    assert inside({"x": xs}, bounds).all()
    assert inside({"x": probes(bounds[0])}, bounds).all()


# --------------------------------------------------------------------------- judged there


def test_answers_are_judged_only_in_the_domain_and_the_reading_names_it():
    free = check("1/x", "ln(x) + C", None, Kind(antiderivative=True))
    assert free.verdict == "incorrect"
    there = check("1/x", "ln(x) + C", None, Kind(antiderivative=True, domain="x > 0"))
    assert there.verdict == "correct", there
    assert there.read["domain"] == "x > 0"
    assert all(p["x"] > 0 for p in there.points)


def test_a_domain_restricts_a_derivatives_points_too():
    v = check("abs(x)", "1", None, Kind(domain="x > 0"))
    assert v.verdict == "correct" and all(p["x"] > 0 for p in v.points)
    assert check("abs(x)", "1", None, Kind()).verdict == "incorrect"
    w = check("x^2 y", "2x y", ["x"], Kind(domain="1 <= x <= 2, -3 < y < -2"))
    assert w.verdict == "correct"
    assert all(1 <= p["x"] <= 2 and -3 < p["y"] < -2 for p in w.points)


def test_a_domain_on_a_variable_the_function_lacks_or_outside_at_is_refused():
    with pytest.raises(GradcalcError, match="the function does not use 'z'"):
        check("x^2", "2x", None, Kind(domain="z > 0"))
    with pytest.raises(GradcalcError, match="--at x=5 is outside --domain"):
        check("x^2 y", "10y", None, Kind(at=(("x", 5.0),), domain="0 < x < 1"))


def test_the_receipt_keeps_the_domain_and_a_replay_reads_it_back():
    from gradcalc.homework.receipt import kind_of

    v = run(AnswerJob("1/x", "ln(x) + C", kind=Kind(antiderivative=True,
                                                    domain="x in [1, 10]")))
    assert v.receipt["kind"] == {"antiderivative": True, "domain": "1 <= x <= 10"}
    assert kind_of(v.receipt) == Kind(antiderivative=True, domain="1 <= x <= 10")


# --------------------------------------------------------------------------- every surface


def test_the_option_judges_there_and_the_views_name_the_domain(invoke):
    r = invoke("check", "1/x", "--antiderivative", "--answer", "ln(x) + C",
               "--domain", "x > 0", "--plain")
    assert r.code == 0 and r.out.strip().endswith(", for x > 0"), r.out
    rich = invoke("check", "1/x", "--antiderivative", "--answer", "ln(x) + C",
                  "--domain", "x > 0")
    assert "for x > 0" in rich.out
    j = json.loads(invoke("check", "1/x", "--antiderivative", "--answer", "ln(x)",
                          "--domain", "x>0", "--json").out)
    assert j["read"]["domain"] == "x > 0" and j["receipt"]["kind"]["domain"] == "x > 0"
    bad = invoke("check", "x^2 + y^2 = 1", "--implicit", "y", "--answer", "-x/y",
                 "--domain", "x > 0")
    assert bad.code == 2 and "--domain does not go with --implicit" in bad.err


def test_a_keys_domain_column_judges_each_problem_on_its_own(invoke, tmp_path):
    key = tmp_path / "key.csv"
    key.write_text('problem,function,kind,domain\np1,1/x,antiderivative,x > 0\n'
                   'p2,1/x,antiderivative,\np3,2x/(x^2 - 9),antiderivative,"x in [4, 10]"\n'
                   'p4,1/x,derivative,x > 1; x < 2\n')
    subs = tmp_path / "subs.csv"
    subs.write_text("student,problem,answer\nana,p1,ln(x) + C\nana,p2,ln(x) + C\n"
                    "ana,p3,ln(x - 3) + ln(x + 3)\nana,p4,-1/x^2\n")
    r = invoke("grade", "--key", str(key), str(subs), "--json")
    rows = [json.loads(line) for line in r.out.splitlines() if '"problem"' in line]
    verdicts = {row["problem"]: row["verdict"] for row in rows}
    assert verdicts == {"p1": "correct", "p2": "incorrect", "p3": "correct",
                        "p4": "correct"}, r.out
    assert {row["problem"]: row["read"].get("domain") for row in rows}["p4"] == "1 < x < 2"
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("problem,function,kind,implicit,domain\np1,x^2 + y^2 = 1,implicit,y,"
                     "x > 0\n")
    r = invoke("grade", "--key", str(wrong), str(subs))
    assert r.code == 2 and "column domain" in r.err and "implicit" in r.err, r.err


def test_a_batch_lines_domain_field(invoke, tmp_path):
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text(json.dumps({"command": "check", "program": "1/x", "answer": "ln(x)",
                                "kind": "antiderivative", "domain": "x > 0"}) + "\n"
                    + json.dumps({"command": "check", "program": "x^2", "answer": "2x",
                                  "domain": "x >> 0"}) + "\n")
    out = [json.loads(line) for line in invoke("batch", str(jobs)).out.splitlines()]
    assert out[0]["verdict"] == "correct" and out[0]["read"]["domain"] == "x > 0"
    assert "field domain" in out[1]["error"]["message"]


def test_every_derivative_kind_is_judged_on_the_whole_domain_on_the_command_line(invoke):
    run = invoke("check", "ln(abs(x))", "--order", "2", "--answer", "-(1/sqrt(x))^4")
    assert run.code == 1 and "✗ incorrect" in run.out and "expected    -1/x^2" in run.out
    assert "but the second derivative is defined" in run.out
    run = invoke("check", "x^2 ln(y^2)", "--partial", "x,y", "--answer",
                 "4x (1/sqrt(y))^2", "--plain")
    assert run.code == 1 and run.out.startswith(
        "incorrect: √y is defined only for y ≥ 0, but f_xy is defined for y < 0 too;")
    there = invoke("check", "x^2 ln(y^2)", "--partial", "x,y", "--answer",
                   "4x (1/sqrt(y))^2", "--domain", "y > 0", "--plain")
    assert there.code == 0 and there.out.startswith("correct (symbolic)")

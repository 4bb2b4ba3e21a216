"""Receipts in every verdict, and `check --replay` judging saved verdicts again: the same
verdicts pass, a verdict or a value edited by hand is found (exit 1)."""

from __future__ import annotations

import json

import pytest

from gradcalc import __version__

CLASS = """id,function,answer
ana,x^2 sin(x),2x sin(x) + x^2 cos(x)
ben,sin(3x),cos(3x)
cy,sqrt(-1 - x^2),0
dee,e^(2x),2e^(2x
"""


@pytest.fixture
def saved(invoke, tmp_path):
    (tmp_path / "class.csv").write_text(CLASS)
    r = invoke("grade", str(tmp_path / "class.csv"), "--json")
    path = tmp_path / "verdicts.jsonl"
    path.write_text(r.out)
    return path


def lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_every_verdict_carries_its_receipt(saved):
    ana, ben, cy, dee, summary = lines(saved)
    rec = ana["receipt"]
    assert rec["version"] == __version__ and rec["function"] == "x^2 sin(x)"
    assert (rec["seed"], rec["samples"], rec["rtol"], rec["atol"]) == (0, 8, 1e-6, 1e-9)
    assert rec["method"] == "symbolic" and len(rec["points"]) == 8
    point = rec["points"][0]
    assert set(point) == {"at", "expected", "answer"} and set(point["at"]) == {"x"}
    assert point["expected"][0] == pytest.approx(point["answer"][0])
    assert ben["receipt"]["method"] == "numeric"
    assert cy["verdict"] == "undetermined" and cy["receipt"]["points"] == []
    assert dee["receipt"]["answer"] == "2e^(2x" and "method" not in dee["receipt"]
    assert "summary" in summary


def test_a_single_check_has_a_receipt_too(invoke):
    r = invoke("check", "sin(3x)", "--answer", "cos(3x)", "--json", "--seed", "7",
               "--rtol", "1e-3")
    rec = r.json()["receipt"]
    assert (rec["seed"], rec["rtol"], rec["answer"]) == (7, 1e-3, "cos(3x)")


def test_replaying_unchanged_verdicts_finds_no_difference(invoke, saved):
    r = invoke("replay", str(saved))
    assert r.code == 0 and r.out == ""
    assert "4 verdicts judged again: 4 the same, 0 differ" in r.err


def test_replay_finds_a_verdict_edited_by_hand(invoke, saved):
    edited = saved.read_text().replace('"verdict": "incorrect"', '"verdict": "correct"')
    saved.write_text(edited)
    r = invoke("replay", str(saved))
    assert r.code == 1
    assert r.out == 'line 2 (ben): verdict: recorded "correct", now "incorrect"\n'
    assert "1 differs" in r.err


def test_replay_finds_a_value_edited_by_hand(invoke, saved):
    rows = lines(saved)
    rows[0]["receipt"]["points"][3]["answer"][0] *= 1 + 1e-9
    saved.write_text("".join(json.dumps(x) + "\n" for x in rows))
    r = invoke("replay", str(saved), "--json")
    out = [json.loads(x) for x in r.out.splitlines()]
    assert r.code == 1
    assert [o["same"] for o in out[:-1]] == [False, True, True, True]
    assert out[0]["differences"][0].startswith("point 4 answer: recorded")
    assert out[-1] == {"summary": {"verdicts": 4, "same": 3, "differ": 1}}


def test_replay_finds_changed_settings_and_an_unreadable_row_made_readable(invoke, saved):
    rows = lines(saved)
    rows[1]["receipt"]["seed"] = 3  # other points: the saved points no longer match
    rows[3]["receipt"]["answer"] = "2e^(2x)"  # now readable, and correct
    saved.write_text("".join(json.dumps(x) + "\n" for x in rows))
    r = invoke("replay", str(saved))
    assert r.code == 1
    assert "line 2 (ben): point 1 at: recorded" in r.out
    assert 'line 4 (dee): verdict: recorded unreadable, now correct' in r.out


@pytest.mark.parametrize("text,fragment", [
    ("not json\n", "line 1: not JSON"),
    ("[1, 2]\n", "line 1: not a JSON object"),
])
def test_a_bad_verdicts_file_is_exit_2(invoke, tmp_path, text, fragment):
    path = tmp_path / "v.jsonl"
    path.write_text(text)
    r = invoke("replay", str(path))
    assert r.code == 2 and fragment in r.err


def test_a_line_without_a_receipt_cannot_be_defended(invoke, tmp_path):
    path = tmp_path / "v.jsonl"
    path.write_text('{"id": "x", "verdict": "correct"}\n')
    r = invoke("replay", str(path))
    assert r.code == 1 and "no receipt to judge it again from" in r.out


def test_replay_goes_alone(invoke, saved):
    r = invoke("replay", "x^2", "--answer", "2x", str(saved))
    assert r.code == 2 and "--answer is an option of gradcalc check" in r.err

"""Notation traps judged both ways in every kind of problem (traps.judged, through the
dispatch): the other reading is said when it would change the verdict, at most
MAX_TRAPS other readings per side; and an answer in words is words in every kind."""

from __future__ import annotations

import importlib
import json

import pytest

from gradcalc.homework import traps as trapping
from gradcalc.homework.traps import MAX_TRAPS, Trap, traps

SPACED = "if you meant -(y/(2x)), that would be correct — write -(y/(2x))"
LOG10 = "if you meant log10(x), the answer would be correct — write log10(x)"


@pytest.mark.parametrize("args,code,note", [
    # implicit: the answer (with and without its prefix) and the equation
    (["x y^2 = 4", "--implicit", "y", "--answer", "-y / 2 x"], 1,
     f"-y / 2 x is read as (-y/2)·x; {SPACED}"),
    (["x y^2 = 4", "--implicit", "y", "--answer", "dy/dx = -y / 2 x"], 1,
     f"dy/dx = -y / 2 x is read as (-y/2)·x; {SPACED}"),
    (["y = log x", "--implicit", "y", "--answer", "1/(x ln(10))"], 1,
     "the function y = log x is read as y = ln(x); if you meant y = log10(x), the answer "
     "would be correct — write y = log10(x)"),
    (["y^2 = 1/2x", "--implicit", "y", "--answer", "-1/(4 x^2 y)"], 1,
     "the function y^2 = 1/2x is read as y^2 = (1/2)·x; if you meant y^2 = 1/(2x), the "
     "answer would be correct — write y^2 = 1/(2x)"),
    (["y^2 = 1/2x", "--implicit", "y", "--answer", "1/(4y)"], 0,
     "the function y^2 = 1/2x is read as y^2 = (1/2)·x; if you meant y^2 = 1/(2x), the "
     "answer would be incorrect"),
    (["y = log x", "--implicit", "y", "--order", "2", "--answer", "-1/(x^2 ln(10))"], 1,
     "the function y = log x is read as y = ln(x); if you meant y = log10(x)"),
    # implicit at a point
    (["x y^2 = 4", "--implicit", "y", "--at", "x=4, y=-1", "--answer", "-y / 2 x"], 1,
     f"-y / 2 x is read as (-y/2)·x; {SPACED}"),
    (["y = log x", "--implicit", "y", "--at", "x=1, y=0", "--answer", "1/ln(10)"], 1,
     "the function y = log x is read as y = ln(x); if you meant y = log10(x), the answer "
     "would be correct"),
    # antiderivative: the answer (on the domain given) and the function
    (["1/(x ln(10))", "--antiderivative", "--domain", "x > 0", "--answer", "log x + C"], 1,
     "log x + C is read as ln(x) + C; if you meant log10(x) + C, that would be correct — "
     "write log10(x) + C"),
    (["-1/(3x ln(x)^2)", "--antiderivative", "--answer", "1/3ln|x| + C"], 1,
     "1/3ln|x| + C is read as (1/3)·ln(|x|) + C; if you meant 1/(3ln(|x|)) + C, that "
     "would be correct — write 1/(3ln(|x|)) + C"),
    (["1/(3x)", "--antiderivative", "--constant", "required", "--answer", "1/3ln|x| + C"],
     0, "1/3ln|x| + C is read as (1/3)·ln(|x|) + C; if you meant 1/(3ln(|x|)) + C, that "
     "would be incorrect"),
    (["log x", "--antiderivative", "--answer", "x log10(x) - x/ln(10)"], 1,
     f"the function log x is read as ln(x); {LOG10}"),
    # tensor
    (["sum(log(x))/2", "--shape", "x=3", "--wrt", "x", "--answer", "1/2x"], 1,
     "1/2x is read as (1/2)·x; if you meant 1/(2x), that would be correct — write 1/(2x)"),
    (["h = log(x); L = sum(h)/2", "--shape", "x=3", "--wrt", "x", "--answer", "1/2x"], 1,
     "if you meant 1/(2x), that would be correct"),
    (["sum(x^2) / 2 s", "--shape", "x=3", "--wrt", "x", "--answer", "x/s"], 1,
     "the function sum(x^2) / 2 s is read as (sum(x^2)/2)·s; if you meant sum(x^2)/(2s), "
     "the answer would be correct — write sum(x^2)/(2s)"),
    # the derivative's --order, --partial and --at
    (["log x", "--order", "2", "--answer", "-1/(x^2 ln(10))"], 1,
     f"the function log x is read as ln(x); {LOG10}"),
    (["x^2 ln(y)", "--partial", "x,y", "--answer", "4 x / 2 y"], 1,
     "4 x / 2 y is read as (4x/2)·y; if you meant 4x/(2y), that would be correct — write "
     "4x/(2y)"),
    (["x^2 y^2", "--partial", "x,y", "--answer", "8 x / 2 y"], 0,
     "8 x / 2 y is read as (8x/2)·y; if you meant 8x/(2y), that would be incorrect"),
    (["log x", "--at", "x=2", "--answer", "1/(2 ln(10))"], 1,
     f"the function log x is read as ln(x); {LOG10}"),
    (["x^2 y", "--wrt", "x", "--at", "x=3, y=3", "--answer", "4 x / 2 y"], 0,
     "4 x / 2 y is read as (4x/2)·y; if you meant 4x/(2y), that would be incorrect"),
])
def test_every_kind_says_a_reading_that_changes_the_verdict(invoke, args, code, note):
    r = invoke("check", *args, "--plain")
    assert r.code == code and note in r.out, r.out + r.err


@pytest.mark.parametrize("args", [
    ["x^2 + y^2 = 25", "--implicit", "y", "--answer", "-x / 2 y"],  # both readings wrong
    ["x^2 + y^2 = 25", "--implicit", "y", "--answer", "-x/y"],
    ["1/x", "--antiderivative", "--answer", "1/2 ln|x|"],
    ["sum(x^2)", "--shape", "x=3", "--wrt", "x", "--answer", "2x"],
    # a tensor program's log is PyTorch's, the natural log: no other base
    ["sum(log x)", "--shape", "x=3", "--wrt", "x", "--answer", "1/(x ln(10))"],
    ["L = -sum(y*log(softmax(W@x)))", "--wrt", "W", "--shape", "W=3x2, x=2, y=3",
     "--answer", "outer(softmax(W@x)*sum(y) - y, x)"],
    ["x^2 y", "--at", "x=2, y=3", "--wrt", "x", "--answer", "y / 2 x"],
])
def test_no_note_when_the_other_reading_changes_nothing(invoke, args):
    r = invoke("check", *args, "--plain")
    assert r.code in (0, 1) and "if you meant" not in r.out, r.out + r.err


@pytest.mark.parametrize("args", [
    ["x^2", "--antiderivative"],
    ["x^2", "--antiderivative", "--constant", "required"],
    ["x^2 + y^2 = 25", "--implicit", "y"],
    ["x y^2 = 4", "--implicit", "y", "--at", "x=4, y=-1"],
    ["sum(x^2)", "--shape", "x=3", "--wrt", "x"],
    ["x^2 y", "--partial", "x,y"],
])
@pytest.mark.parametrize("answer", ["no idea", "I don't know", "idk lol", "?"])
def test_an_answer_in_words_is_words_in_every_kind(invoke, args, answer):
    r = invoke("check", *args, "--answer", answer)
    assert r.code == 2 and r.err.startswith(
        f'error: the answer is words, not a formula: "{answer}"'), r.err


#: (kind's module, check arguments) with an answer of four traps `1/2x`-like
FOUR_TRAPS = [
    ("derivative", ["ln(x)", "--answer", "1/2x + 1/3x + 1/4x + 1/5x"]),
    ("derivative", ["ln(x)", "--order", "2", "--answer", "1/2x + 1/3x + 1/4x + 1/5x"]),
    ("antiderivative", ["x", "--antiderivative", "--answer", "1/2x + 1/3x + 1/4x + 1/5x"]),
    ("implicit", ["x y = 1", "--implicit", "y", "--answer", "1/2x + 1/3y + 1/4x + 1/5y"]),
    ("implicit", ["x y = 1", "--implicit", "y", "--at", "x=1, y=1", "--answer",
                  "1/2x + 1/3y + 1/4x + 1/5y"]),
    ("tensor_loss", ["sum(x^2)", "--shape", "x=3", "--wrt", "x", "--answer",
                     "1/2x + 1/3x + 1/4x + 1/5x"]),
]


@pytest.mark.parametrize("module,args", FOUR_TRAPS)
def test_the_other_readings_are_judged_by_the_kinds_judge_and_bounded(
        invoke, monkeypatch, module, args):
    kind = importlib.import_module(f"gradcalc.homework.kinds.{module}")
    calls = []
    own = kind.judge

    def counted(function, answer, *rest, **given):
        calls.append(answer)
        return own(function, answer, *rest, **given)

    monkeypatch.setattr(kind, "judge", counted)
    r = invoke("check", *args, "--plain")
    assert r.code in (0, 1), r.err
    # the answer as read, then at most MAX_TRAPS other readings of its four traps
    assert len(calls) == 1 + MAX_TRAPS, calls
    assert calls[1] == args[-1].replace("1/2x", "1/(2x)", 1)


def test_a_reading_with_a_name_the_text_lacks_is_no_reading(invoke, monkeypatch):
    # an antiderivative takes any new name as a constant: a reading that makes one out of
    # a piece of the text (1/(3ln)·|x|, ln a constant) would be judged and said
    monkeypatch.setattr(trapping, "traps", lambda text: iter(
        [Trap(text, text.replace("1/3", "1/(3a)"))] if "1/3" in text else []))
    r = invoke("check", "-1/(3x)", "--antiderivative", "--answer", "-1/3 ln|x|", "--plain")
    assert r.code == 0 and "if you meant" not in r.out, r.out


@pytest.mark.parametrize("text,second", [
    ("1/3ln|x|", "1/(3ln|x|)"),
    ("1/2sin x", "1/(2sin x)"),
    ("1/2ln x + 1", "1/(2ln x) + 1"),
    ("1/2sin(x)", "1/(2sin(x))"),
])
def test_a_function_without_parentheses_goes_with_its_argument(text, second):
    assert [t.second for t in traps(text)] == [second]


def test_a_key_of_several_kinds_says_every_other_reading(invoke, tmp_path):
    (tmp_path / "key.csv").write_text(
        "problem,function,wrt,order,partial,kind,implicit,shape,at,domain\n"
        "anti,1/(x ln(10)),,,,antiderivative,,,,x > 0\n"
        "curve,x y^2 = 4,,,,implicit,y,,,\n"
        "point,x y^2 = 4,,,,implicit,y,,x=4; y=-1,\n"
        "second,log x,,2,,,,,,\n"
        "mixed,x^2 ln(y),,,x;y,,,,,\n"
        "loss,sum(log(x))/2,x,,,,,x=3,,\n", encoding="utf-8")
    (tmp_path / "subs.csv").write_text(
        "student,problem,answer\n"
        "ana,anti,log x + C\n"
        "ana,curve,-y / 2 x\n"
        "ana,point,-y / 2 x\n"
        "ana,second,-1/(x^2 ln(10))\n"
        "ana,mixed,4 x / 2 y\n"
        "ana,loss,1/2x\n"
        "ben,anti,no idea\n"
        "ben,curve,-y/(2x)\n", encoding="utf-8")
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--json")
    rows = {(row["id"], row["problem"]): row for row in map(json.loads, r.out.splitlines())
            if "problem" in row}
    notes = {p: rows["ana", p]["note"] for p in
             ("anti", "curve", "point", "second", "mixed", "loss")}
    assert notes == {
        "anti": "log x + C is read as ln(x) + C; if you meant log10(x) + C, that would be "
                "correct — write log10(x) + C",
        "curve": f"-y / 2 x is read as (-y/2)·x; {SPACED}",
        "point": f"-y / 2 x is read as (-y/2)·x; {SPACED}",
        "second": f"the function log x is read as ln(x); {LOG10}",
        "mixed": "4 x / 2 y is read as (4x/2)·y; if you meant 4x/(2y), that would be "
                 "correct — write 4x/(2y)",
        "loss": "1/2x is read as (1/2)·x; if you meant 1/(2x), that would be correct — "
                "write 1/(2x)",
    }
    assert all(rows["ana", p]["verdict"] == "incorrect" for p in notes)
    assert rows["ben", "anti"]["error"]["message"].startswith(
        "the answer is words, not a formula")
    assert rows["ben", "curve"]["verdict"] == "correct" and rows["ben", "curve"]["note"] is None

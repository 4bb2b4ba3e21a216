"""Implicit differentiation answers as students type them, judged as `--implicit y` would.

tests/implicit_corpus.csv holds 50 answers to 17 textbook exercises (a curve F(x, y) = G,
the answer dy/dx), in the forms students write when they type into a homework page:
function names glued to their argument (`cosx`, `2sinxcosx`, `ycos(xy)`, `ylny`), the
variables side by side (`xy`), a variable before a bracket (`-y(2x+y)`), the prefix
written in brackets or after the formula (`(dy)/(dx) = ...`, `... = (dy)/(dx)`,
`dy/dx=`, `y' =`), `^.5`, `√`, superscripts and what math editors paste (`ˆ`, `•`,
`（ ）`), with right answers and wrong ones (a sign, a lost product-rule term, a lost
chain factor, and `-x/4y` read as (-x/4)·y). Each row's truth (`verdict`) was checked
with sympy when the file was made, on points of the curve; `meant` is the same answer
in the plain language, and must get the same verdict.

Before this reading was taught, 24 of the 50 could not be read (and 26 were judged
right); every row must now be read and judged as the `verdict` column says.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from gradcalc.homework.answer import AnswerJob, run
from gradcalc.homework.kinds.registry import Kind

CORPUS = Path(__file__).resolve().parents[2] / "implicit_corpus.csv"


def rows() -> list[dict[str, str]]:
    with CORPUS.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _verdict(equation: str, answer: str) -> str:
    try:
        return run(AnswerJob(equation, answer, kind=Kind(implicit="y"))).verdict
    except Exception as exc:  # noqa: BLE001 - an unreadable row is a wrong row
        return f"unreadable: {getattr(exc, 'message', exc)}"


def test_the_corpus_is_forty_answers_or_more_right_and_wrong():
    found = rows()
    assert len(found) >= 40
    counts = Counter(r["verdict"] for r in found)
    assert counts["correct"] >= 20 and counts["incorrect"] >= 10, counts
    assert len({r["equation"] for r in found}) >= 15
    assert all(r["written"] for r in found)


@pytest.mark.parametrize("row", rows(), ids=lambda r: f"{r['equation']} | {r['answer']}")
def test_every_answer_is_read_and_judged_as_its_truth(row):
    assert _verdict(row["equation"], row["answer"]) == row["verdict"], row["written"]


@pytest.mark.parametrize("row", rows()[::5], ids=lambda r: f"{r['equation']} | {r['meant']}")
def test_the_plain_language_answer_gets_the_same_verdict(row):
    assert _verdict(row["equation"], row["meant"]) == row["verdict"]

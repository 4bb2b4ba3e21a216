"""Textbook-style exercises in LaTeX, judged as a student's check would judge them.

tests/latex_corpus.csv holds over 200 exercises of first-year calculus typed in LaTeX as
books and answer keys write it (derivatives, derivatives of order 2 to 4, partial and
mixed partial derivatives, implicit differentiation, antiderivatives written
`\\int f\\,dx`), each with the book's form of the right answer (`written` = `book`;
prefixes such as `f^{(4)}(x) =`, `\\frac{dy}{dx} =`, `f_{xy} =`, `\\int ... dx =` kept) and
one typical slip (`slip`), plus errata: wrong answers as a book might misprint them
(`erratum`); the `slip` column says what each slip or erratum is. The exercises and
answers are the project's own typing of textbook-style problems. The first 71 exercises
were typed into the file; tools/latex_corpus.py keeps them and writes the rest from its
exercises, each side typed beside a plain sympy form from which sympy labels the row's
verdict, independently of gradcalc's reading of the LaTeX. The `kind` column is the
problem's kind: `derivative`, `order=N`, `partial=x,y`, `wrt=y`, `implicit=y` or
`antiderivative`.

Every row must be read and judged as the `verdict` column says.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

from gradcalc.homework.answer import AnswerJob, run
from gradcalc.homework.kinds.registry import Kind
from tools.latex_corpus import corpus_text

CORPUS = Path(__file__).resolve().parents[1] / "latex_corpus.csv"


def rows() -> list[dict[str, str]]:
    with CORPUS.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def job(row: dict[str, str]) -> AnswerJob:
    """The check the row's kind asks for."""
    name, _, value = row["kind"].partition("=")
    if name == "wrt":
        return AnswerJob(row["function"], row["answer"], [value])
    settings = {"antiderivative": True} if name == "antiderivative" else (
        {name: value} if value else {})
    return AnswerJob(row["function"], row["answer"], kind=Kind.read(**settings))


def test_the_corpus_is_over_four_hundred_rows_of_every_kind():
    found = rows()
    assert len(found) >= 400
    kinds = Counter(r["kind"].partition("=")[0] for r in found)
    assert set(kinds) == {"derivative", "order", "partial", "wrt", "implicit",
                          "antiderivative"}
    written = Counter(r["written"] for r in found)
    assert set(written) == {"book", "slip", "erratum"}
    assert written["book"] == written["slip"] and written["erratum"] >= 15
    for r in found:
        assert r["verdict"] == ("correct" if r["written"] == "book" else "incorrect"), r
        assert bool(r["slip"]) == (r["written"] != "book"), r


def test_the_corpus_is_what_its_generator_writes():
    assert CORPUS.read_text(encoding="utf-8") == corpus_text(), (
        "tests/latex_corpus.csv differs from `python -m tools.latex_corpus`'s output")


def test_every_row_is_read_and_every_verdict_is_right():
    wrong = []
    for r in rows():
        try:
            got, why = run(job(r)).verdict, ""
        except Exception as exc:  # noqa: BLE001 - an unreadable row is a wrong row
            got, why = "unreadable", str(getattr(exc, "message", exc))
        if got != r["verdict"]:
            wrong.append(f"{r['exercise']}: {r['function']} | {r['answer']} -> {got} {why}")
    assert wrong == [], "\n".join(wrong)

"""Derivative problems written by others, judged as a class file would be.

tests/homework_corpus.csv holds 103 problems from two open textbooks, each with the
source of the problem: OpenStax *Calculus Volume 1* (chapter 3, the section exercises
that have published answers) and APEX Calculus (sections 2.1–2.7 and 6.5). Per problem
four rows: the published answer as the book prints it (linearised: `\\frac{a}{b}` as
`(a)/(b)`, `\\sin x` as `sin x`, the book's `f'(x) =` or `dy/dx =` kept), one equal
rewrite, and two textbook mistakes (a dropped chain-rule factor, the product of the
derivatives, the quotient rule's sign, the power rule's exponent, a sign error, ...),
each named in the `mistake` column. Every published answer was checked against sympy
when the file was made; the few the books print wrong (APEX 2.7 #16 has √(4t²+1) for
√(4t²−1); APEX 6.5 #12 has sec² for sech²) and second derivatives are left out.

Every row must be read and judged as the `verdict` column says: none is unreadable, none
is misjudged.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

from gradcalc.homework.answer import AnswerJob, run

CORPUS = Path(__file__).resolve().parents[1] / "homework_corpus.csv"


def rows() -> list[dict[str, str]]:
    with CORPUS.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_the_corpus_is_a_hundred_problems_from_published_sources():
    found = rows()
    problems = {(r["source"], r["function"]) for r in found}
    assert len(problems) >= 100 and len(found) == 4 * len(problems)
    for r in found:
        assert r["source"].startswith(("OpenStax Calculus Volume 1", "APEX Calculus")), r
        assert r["verdict"] == ("incorrect" if r["form"] == "mistake" else "correct"), r
    forms = Counter(r["form"] for r in found)
    assert forms["published"] == forms["rewrite"] == forms["mistake"] // 2


def test_every_row_is_read_and_every_verdict_is_right():
    wrong, unread = [], 0
    for r in rows():
        try:
            got = run(AnswerJob(r["function"], r["answer"])).verdict
            why = ""
        except Exception as exc:  # noqa: BLE001 - an unreadable row is a wrong row
            got, why = "unreadable", str(getattr(exc, "message", exc))
            unread += 1
        if got != r["verdict"]:
            wrong.append(f"{r['source']}: {r['function']} | {r['answer']} -> {got} {why}")
    assert (unread, wrong) == (0, []), "\n".join(wrong)

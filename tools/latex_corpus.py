"""Write tests/latex_corpus.csv: textbook-style exercises typed in LaTeX, labelled by sympy.

The first 71 exercises (142 rows) of the file were typed by hand and are kept as they
are; the exercises below are appended after them. Each exercise carries the book's
answer in LaTeX and one typical slip, each beside a plain sympy form typed by hand, and
`ERRATA` holds wrong answers as a book might misprint them. The verdict of every row is
computed here by sympy from those sympy forms (never from the LaTeX), and the script
stops if it disagrees with the row's intention (book: correct; slip, erratum: incorrect).

Run `python -m tools.latex_corpus` from the repository root; the output is deterministic,
and tests/homework/test_answer_latex_corpus.py checks that the file is what it writes.
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import sympy as sp

from tools.latex_corpus_data import ERRATA, EXERCISES, r, t, u, x, y, z

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "latex_corpus.csv"
HEADER = ["exercise", "kind", "function", "answer", "written", "verdict", "slip"]
KEPT_EXERCISES = 71
POINTS = ({x: 0.7, y: 0.45, t: 0.6, r: 1.3, u: 0.35, z: 0.8},
          {x: 1.35, y: 0.9, t: 1.2, r: 0.55, u: 0.6, z: 1.9},
          {x: 0.4, y: 1.6, t: 2.1, r: 2.2, u: 0.15, z: 0.3})

def variable(kind: str) -> sp.Symbol:
    """The variable of a one-variable problem: the one its function is written in."""
    return {"t": t, "r": r, "u": u, "z": z}.get(kind.partition(":")[2], x)


def expected(kind: str, function: sp.Expr) -> sp.Expr:
    """What the right answer to the exercise equals, by sympy."""
    name, _, value = kind.partition("=")
    var = variable(kind)
    if name.startswith("derivative"):
        return sp.diff(function, var)
    if name == "order":
        return sp.diff(function, x, int(value))
    if name == "partial":
        names = {"x": x, "y": y, "z": z}
        return sp.diff(function, *[names[v] for v in value.split(",")])
    if name == "wrt":
        return sp.diff(function, {"x": x, "y": y, "z": z}[value])
    if name == "implicit":
        return -sp.diff(function, x) / sp.diff(function, y)
    raise ValueError(kind)


def same(a: sp.Expr, b: sp.Expr) -> bool:
    """Whether two expressions are equal: symbolically, or else at three sample points."""
    if sp.simplify(a - b) == 0:
        return True
    values = [complex(sp.N((a - b).subs(p))) for p in POINTS]
    return all(abs(v) < 1e-9 for v in values)


def is_right(kind: str, function: sp.Expr, answer: sp.Expr) -> bool:
    """Sympy's verdict on an answer to an exercise."""
    if kind.startswith("antiderivative"):
        return same(sp.diff(answer, variable(kind)), function)
    return same(answer, expected(kind, function))


def row(number: int, kind: str, function: str, answer: str, written: str,
        right: bool, note: str) -> list[str]:
    """One CSV row, its verdict from sympy checked against the row's intention."""
    if right != (written == "book"):
        sys.exit(f"exercise {number} ({written}): sympy says {'correct' if right else 'incorrect'}")
    return [str(number), kind.partition(":")[0], function, answer, written,
            "correct" if right else "incorrect", note]


def new_rows() -> list[list[str]]:
    """The rows of the exercises typed here, numbered after the kept ones."""
    out = []
    number = KEPT_EXERCISES
    for kind, ftex, f, atex, a, stex, s, note in EXERCISES:
        number += 1
        out.append(row(number, kind, ftex, atex, "book", is_right(kind, f, a), ""))
        out.append(row(number, kind, ftex, stex, "slip", is_right(kind, f, s), note))
    for kind, ftex, f, wtex, w, note in ERRATA:
        number += 1
        out.append(row(number, kind, ftex, wtex, "erratum", is_right(kind, f, w), note))
    return out


def kept_rows() -> list[list[str]]:
    """The hand-typed rows of the first exercises, as the file holds them."""
    with CORPUS.open(encoding="utf-8", newline="") as fh:
        found = list(csv.reader(fh))[1:]
    return [r for r in found if int(r[0]) <= KEPT_EXERCISES]


def corpus_text() -> str:
    """The whole CSV: the kept rows, then the rows of the exercises typed here."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    writer.writerows(kept_rows() + new_rows())
    return buffer.getvalue()


def main() -> None:
    text = corpus_text()
    CORPUS.write_text(text, encoding="utf-8")
    print(f"{CORPUS}: {text.count(chr(10)) - 1} rows")


if __name__ == "__main__":
    main()

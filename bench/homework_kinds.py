"""The cost of a backprop row and of an implicit-differentiation row, in one process.

    python bench/homework_kinds.py            # 3 rounds over the problems below
    python bench/homework_kinds.py --rounds 1
    python bench/homework_kinds.py --afresh   # every row's equation read anew (no memo)

Each row is one `gradcalc.homework.dispatch.check` call, as a class file's row
with kind columns is judged: a right answer, a rewritten one and a wrong one per problem.
Backprop rows: linear, batched linear, softmax cross-entropy (one-hot targets), two-layer
ReLU, a sum along an axis, where, and an index. Implicit rows: a circle, an ellipse, the
folium, a product, a trigonometric curve, a branch-only answer and d²y/dx². Reported per
kind: rows, the mean and median milliseconds of wall-clock time a row, and the mean CPU
milliseconds (time.process_time: the figure to compare on a shared machine). Rows on the
same equation share its points and sympy's slope (implicit.py's memo), as a class's rows
do; `--afresh` forgets them before every row.
"""

from __future__ import annotations

import argparse
import statistics
import time

from gradcalc.homework.dispatch import check, forget
from gradcalc.homework.kinds.registry import Kind

ONE_HOT = "Y=[[1, 0], [0, 1], [0, 1], [1, 0]]"
#: (function, wrt, kind settings, answers)
BACKPROP = [
    ("L = sum((W@x - y)^2)", "W", {"shape": "W=3x2, x=2, y=3"},
     ["2*outer(W@x - y, x)", "outer(2*(W@x - y), x)", "2*outer(x, W@x - y)"]),
    ("L = sum((X@W + b - Y)^2)", "W", {"shape": "X=4x3, W=3x2, b=2, Y=4x2"},
     ["2*X.T@(X@W + b - Y)", "2*((X@W + b - Y).T@X).T", "2*(X@W + b - Y).T@X"]),
    ("L = -sum(Y*log(softmax(X@W + b, axis=1)))", "W",
     {"shape": "X=4x3, W=3x2, b=2, Y=4x2", "at": ONE_HOT},
     ["X.T@(softmax(X@W + b, axis=1) - Y)", "X.T@softmax(X@W + b, axis=1) - X.T@Y",
      "(softmax(X@W + b, axis=1) - Y).T@X"]),
    ("h = relu(W1@x); L = sum((W2@h - y)^2)", "W1", {"shape": "W1=4x3, x=3, W2=2x4, y=2"},
     ["outer(where(W1@x > 0, 2*W2.T@(W2@h - y), 0), x)",
      "2*outer(where(W1@x > 0, W2.T@(W2@h - y), 0), x)", "outer(2*W2.T@(W2@h - y), x)"]),
    ("L = sum(sum(X, axis=1)^2)", "X", {"shape": "X=4x3"},
     ["outer(2*sum(X, axis=1), ones(3))", "2*X@ones(3, 3)", "2*sum(X, axis=1)"]),
    ("L = sum(where(X@W > 0, (X@W)^2, 0))", "W", {"shape": "X=4x3, W=3x2"},
     ["X.T@where(X@W > 0, 2*X@W, 0)", "2*X.T@relu(X@W)", "X.T@(2*X@W)"]),
    ("L = sum(W[0]^2)", "W", {"shape": "W=3x2"},
     ["outer([1, 0, 0], 2*W[0])", "2*W*[[1, 1], [0, 0], [0, 0]]", "2*W[0]"]),
]
#: (equation, kind settings, answers)
IMPLICIT = [
    ("x^2 + y^2 = 25", {}, ["-x/y", "x/(-y)", "x/y"]),
    ("x^2/4 + y^2/9 = 1", {}, ["-9x/(4y)", "-(9/4) x/y", "-4x/(9y)"]),
    ("x^3 + y^3 = 3x y", {}, ["(y - x^2)/(y^2 - x)", "(x^2 - y)/(x - y^2)", "(y - x^2)/(y^2 + x)"]),
    ("x y = 1", {}, ["-y/x", "-1/x^2", "y/x"]),
    ("sin(x) + cos(y) = 0.5", {}, ["cos(x)/sin(y)", "-cos(x)/(-sin(y))", "-cos(x)/sin(y)"]),
    ("x^2 + y^2 = 25", {}, ["-x/sqrt(25 - x^2)"]),
    ("x^2 + y^2 = 25", {"order": "2"}, ["-25/y^3", "-(x^2 + y^2)/y^3", "-1/y"]),
]


def rows() -> dict[str, list[tuple[str, str, list[str] | None, Kind]]]:
    out: dict[str, list[tuple[str, str, list[str] | None, Kind]]] = {"backprop": [],
                                                                      "implicit": []}
    for function, w, settings, answers in BACKPROP:
        for a in answers:
            out["backprop"].append((function, a, [w], Kind.read(**settings)))
    for equation, settings, answers in IMPLICIT:
        for a in answers:
            out["implicit"].append((equation, a, None, Kind.read(implicit="y", **settings)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--afresh", action="store_true",
                        help="forget what is kept per equation before every row")
    args = parser.parse_args()
    table = rows()
    for items in table.values():  # warm-up: imports, sympy's caches
        for function, answer, wrt, settings in items[:2]:
            check(function, answer, wrt, settings)
    for kind, items in table.items():
        walls, cpus, verdicts = [], [], {}
        for _ in range(args.rounds):
            for function, answer, wrt, settings in items:
                if args.afresh:
                    forget()
                t, c = time.perf_counter(), time.process_time()
                v = check(function, answer, wrt, settings)
                walls.append(1000 * (time.perf_counter() - t))
                cpus.append(1000 * (time.process_time() - c))
                key = f"{v.verdict} ({v.method})"
                verdicts[key] = verdicts.get(key, 0) + 1
        print(f"{kind}: {len(walls)} rows, mean {statistics.mean(walls):.1f} ms, median "
              f"{statistics.median(walls):.1f} ms, slowest {max(walls):.0f} ms a row; "
              f"{statistics.mean(cpus):.1f} CPU ms a row; "
              + ", ".join(f"{k} {n}" for k, n in sorted(verdicts.items())))


if __name__ == "__main__":
    main()

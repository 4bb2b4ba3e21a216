"""Homework checking at class scale: a 1,000-row answers file in one process.

    python bench/homework.py            # writes the file, checks it, prints the numbers
    python bench/homework.py --rows 200 # a smaller class

The class: 25 problems (polynomials, trig, exp/log, product, quotient and chain rules,
domains far from zero, x^x, a gradient and a Jacobian) answered by 40 students, one row
each; every third answer is wrong in a typical way (chain factor, product rule, sign,
constant factor, antiderivative). Reported: rows per second, the slowest row, and the
same with the per-function cache cleared before every row (each row a new function), and
the installed command on the same file (start-up included).
"""

from __future__ import annotations

import argparse
import csv
import io
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gradcalc.commands import check as checking
from gradcalc.verify.homework import judge as judging

#: (function, right answers, wrong answers)
PROBLEMS = [
    ("x^3 - 2x", ["3x^2 - 2"], ["3x^2", "x^4/4 - x^2"]),
    ("x^2 sin(x)", ["2x sin(x) + x^2 cos(x)"], ["2x cos(x)", "2x sin(x)"]),
    ("sin(3x)", ["3cos(3x)"], ["cos(3x)", "-3cos(3x)"]),
    ("cos(x^2)", ["-2x sin(x^2)"], ["-sin(x^2)", "2x sin(x^2)"]),
    ("e^(2x)", ["2e^(2x)"], ["e^(2x)", "2x e^(2x-1)"]),
    ("ln(x^2 + 1)", ["2x/(x^2 + 1)"], ["1/(x^2 + 1)", "2x/(x^2+1)^2"]),
    ("x/(x + 1)", ["1/(x + 1)^2"], ["1", "-1/(x+1)^2"]),
    ("sqrt(6x)", ["3/sqrt(6x)", "√6/(2√x)", "sqrt(3/(2x))"], ["1/(2sqrt(6x))"]),
    ("sqrt(x - 5)", ["1/(2sqrt(x - 5))"], ["1/sqrt(x-5)"]),
    ("log(x - 10)", ["1/(x - 10)"], ["1/x"]),
    ("acos(x/10)", ["-1/sqrt(100 - x^2)"], ["-1/sqrt(1 - x^2)"]),
    ("x^x", ["x^x (ln(x) + 1)"], ["x x^(x-1)"]),
    ("tan(x)", ["1/cos(x)^2", "1 + tan(x)^2"], ["-1/sin(x)^2"]),
    ("sin(x)^2", ["2sin(x)cos(x)", "sin(2x)"], ["2sin(x)", "cos(x)^2"]),
    ("e^x sin(x)", ["e^x (sin(x) + cos(x))"], ["e^x cos(x)"]),
    ("(x^2 + 1)^5", ["10x (x^2 + 1)^4"], ["5(x^2 + 1)^4"]),
    ("atan(2x)", ["2/(1 + 4x^2)"], ["1/(1 + 4x^2)"]),
    ("x^2 e^(-x)", ["x e^(-x) (2 - x)"], ["-2x e^(-x)"]),
    ("sinh(x) cosh(x)", ["cosh(2x)", "sinh(x)^2 + cosh(x)^2"], ["1"]),
    ("sigmoid(x)", ["sigmoid(x) (1 - sigmoid(x))"], ["sigmoid(x)"]),
    ("abs(x) x", ["2abs(x)"], ["abs(x)"]),
    ("f(θ) = θ^2 cos(θ)", ["2θ cos(θ) - θ^2 sin(θ)"], ["-2θ sin(θ)"]),
    ("x^2 y + y^3", ["[2x y, x^2 + 3y^2]"], ["[2x y, 3y^2]", "[x^2 + 3y^2, 2x y]"]),
    ("[x y, x + y^2]", ["[[y, x], [1, 2y]]"], ["[[y, 1], [x, 2y]]"]),
    ("3x^4 - 2/x", ["12x^3 + 2/x^2"], ["12x^3 - 2/x^2", "12x^4"]),
]


def class_file(rows: int) -> str:
    """`rows` rows over the problems, round robin; every third answer wrong."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "function", "answer"])
    for k in range(rows):
        function, right, wrong = PROBLEMS[k % len(PROBLEMS)]
        student = k // len(PROBLEMS)
        pool = wrong if k % 3 == 2 else right
        writer.writerow([f"s{student:03d}-p{k % len(PROBLEMS):02d}", function,
                         pool[student % len(pool)]])
    return out.getvalue()


def measure(data: bytes, clear_cache: bool) -> dict[str, float]:
    rows, width = checking.read_class(data, "bench")
    settings = judging.Settings()
    times: list[float] = []
    statuses: dict[str, int] = {}
    started = time.perf_counter()
    for row in rows:
        if clear_cache:
            judging.forget_formulas()
        t = time.perf_counter()
        result = checking.judge_row(row, width, settings, checking.DEFAULT_LIMITS)
        times.append(time.perf_counter() - t)
        statuses[result.status] = statuses.get(result.status, 0) + 1
    total = time.perf_counter() - started
    return {"rows": len(rows), "seconds": total, "rows_per_s": len(rows) / total,
            "slowest_ms": 1000 * max(times), "median_ms": 1000 * statistics.median(times),
            **{f"n_{k}": v for k, v in sorted(statuses.items())}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1000)
    args = parser.parse_args()
    text = class_file(args.rows)
    data = text.encode()
    measure(class_file(len(PROBLEMS)).encode(), clear_cache=True)  # imports, sympy warm-up
    for label, clear in (("class (function formulas cached)", False),
                         ("every row a new function (cache cleared)", True)):
        judging.forget_formulas()
        r = measure(data, clear)
        print(f"{label}: {r['rows']} rows in {r['seconds']:.2f} s = {r['rows_per_s']:.0f} "
              f"rows/s; median {r['median_ms']:.1f} ms, slowest {r['slowest_ms']:.0f} ms; "
              + ", ".join(f"{k[2:]} {v}" for k, v in r.items() if k.startswith("n_")))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "answers.csv"
        path.write_text(text)
        gradcalc = Path(sys.executable).parent / "gradcalc"
        t = time.perf_counter()
        subprocess.run([str(gradcalc), "check", "--file", str(path), "--json"],
                       capture_output=True, check=False)
        took = time.perf_counter() - t
        print(f"installed command, --json: {args.rows} rows in {took:.2f} s = "
              f"{args.rows / took:.0f} rows/s (start-up included)")


if __name__ == "__main__":
    main()

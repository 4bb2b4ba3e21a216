"""Worked solutions over a first-year course's problem set, in one process.

    python bench/solutions.py              # every problem; the numbers, then the refusals
    python bench/solutions.py --only anti  # the problems whose kind starts with "anti"
    python bench/solutions.py --list       # one line per problem: kind, time, outcome

The set: derivatives (rules, chains, logarithmic differentiation, higher orders),
antiderivatives (substitution, parts, repeated parts, trig powers and products,
completing the square, partial fractions, tan and sec), implicit equations (with a
point, a second derivative, named constants), partials and values at a point. Each is
solved as `gradcalc derive` solves it (`gradcalc.homework.dispatch.solve`). Reported: the
share solved with steps (an answer and every step verified), the refusals with their
reasons, any other failure (there should be none), the median and slowest time per
problem in CPU seconds of this process (time.process_time: the figure to compare on a
shared machine) and the slowest problem.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.homework.dispatch import solve
from gradcalc.homework.judge import Settings
from gradcalc.homework.kinds.registry import Kind

DERIVATIVES = [
    "x^3 - 2x + 5", "x^2 sin(3x)", "x/(x + 1)", "sin(x^2)", "e^(2x) cos(x)", "ln(x^2 + 1)",
    "sqrt(1 + x^2)", "tan(x)", "sec(x) tan(x)", "ln(sec(x) + tan(x))", "atan(2x)",
    "asin(x/2)", "x^x", "x^(sin(x))", "(x^2 + 1)^10", "[(2x+1)^{10} + 1]^{10}",
    "e^x/(1 + e^x)", "x ln(x) - x", "cos(x)^3", "sinh(x) cosh(x)", "|x^2 - 4|",
    "2^x", "log10(x)", "t e^(1 - 2t)", "(3x - 1)/(x^2 + 4)", "x^2 e^(-x)", "cot(4x)",
    "csc(x)^2", "sqrt(x) + 1/sqrt(x)", "acos(x^2)",
]
HIGHER = [("x^3 e^(2x)", 2), ("sin(x^2)", 2), ("x^5", 3), ("ln(x)", 2), ("e^x sin(x)", 2),
          ("1/(1 + x)", 3)]
ANTIDERIVATIVES = [
    "x^2 e^x", "2x cos(x^2)", "1/((x - 1)(x + 2))", "x cos(x)", "e^x sin(x)", "ln(x)",
    "x/(x^2 + 1)", "1/(x^2 + 4)", "1/(x^2 + 4x + 29)", "sin(2x)^5", "sin(2x)^3 cos(2x)^2",
    "sin(x)^2", "cos(x)^4", "tan(x)", "tan(x)^4", "sec(x)^2", "sec(4 - x)^2",
    "sin(3x) sin(7x)", "sin(x) cos(5x)", "cos(2x) cos(3x)", "cos(2x)/(1 + sin(2x)^2)",
    "sec(3/x)^2/x^2", "x e^(x^2)", "1/(x ln(x))", "x^3 - 4x + 1/x", "sqrt(1 - x^2)",
    "1/sqrt(1 - x^2)", "x sqrt(x + 1)", "(2x + 3)/(x^2 + 3x + 2)", "x^2/(x^2 + 1)",
    "e^(3x)", "3^x", "atan(x)", "x sin(3x)", "cos(x)^3", "4s + 3/sin(s)^2",
    "1/(x^2 - 1)", "x^2 ln(x)", "sin(x) cos(x)", "e^x/(1 + e^(2x))", "x cosh(x)",
    "2sec(x)^3", "sec(3x)^4", "x^2 sinh(2x)", "x e^x/(x + 1)^2", "sec(x)^2 tan(x)^3",
]
IMPLICIT = [
    ("x^2 + y^2 = 25", 1, ""), ("x^3 + y^3 = 6x y", 1, ""), ("x y^2 = 1", 1, "x=1, y=-1"),
    ("x^2 + x y + y^2 = 7", 1, "x=1, y=2"), ("9x^2 + y^2 = 9", 2, "x=0, y=3"),
    ("a x^2 - b y^3 = c^2", 1, ""), ("sin(x y) = x", 1, ""), ("e^y = x + y", 1, ""),
    ("x^2 - y^2 = 1", 2, ""), ("y^2 = x^3 + 1", 1, "x=2, y=3"),
]
PARTIALS = [("x^2 y + y^3", ""), ("e^(x y) sin(x)", ""), ("x^2 y + 3x y^2", "x=1, y=2"),
            ("ln(x^2 + y^2)", ""), ("x sin(y) + y cos(x)", "")]
AT_A_POINT = [("x^2 sin(x)", "x=2"), ("sqrt(x)", "x=4"), ("x^3 - x", "x=1/2"),
              ("e^x ln(x)", "x=1")]


def problems() -> list[tuple[str, str, dict[str, Any]]]:
    """(kind, function, Kind.read's texts) for every problem."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    out += [("derivative", f, {}) for f in DERIVATIVES]
    out += [("higher", f, {"order": n}) for f, n in HIGHER]
    out += [("antiderivative", f, {"antiderivative": True}) for f in ANTIDERIVATIVES]
    out += [("implicit", f, {"implicit": "y", "order": n, "at": at or None})
            for f, n, at in IMPLICIT]
    out += [("partial", f, {"at": at or None}) for f, at in PARTIALS]
    out += [("at a point", f, {"at": at}) for f, at in AT_A_POINT]
    return out


def run_one(function: str, texts: dict[str, Any]) -> tuple[str, str, float]:
    """(outcome: solved | refused | failed, what was said, CPU seconds)."""
    start = time.process_time()
    try:
        solution = solve(function, None, Kind.read(**texts), Settings(samples=8, seed=0))
        outcome = ("solved" if solution.answer and solution.steps and not solution.note
                   else "refused")
        said = solution.note or solution.answer
    except GradcalcError as exc:
        outcome, said = "refused", exc.message
    except Exception as exc:  # noqa: BLE001 - a benchmark reports every failure
        outcome, said = "failed", f"{type(exc).__name__}: {exc}"
    return outcome, said, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="kinds starting with this")
    parser.add_argument("--list", action="store_true", help="one line per problem")
    args = parser.parse_args()
    rows = []
    for kind, function, texts in problems():
        if not kind.startswith(args.only):
            continue
        outcome, said, seconds = run_one(function, texts)
        rows.append((kind, function, outcome, said, seconds))
        if args.list:
            print(f"{kind:15} {seconds:6.2f} s  {outcome:8} {function}  ->  {said}")
    times = [r[4] for r in rows]
    solved = sum(r[2] == "solved" for r in rows)
    slowest = max(rows, key=lambda r: r[4])
    print(f"problems      {len(rows)}")
    print(f"with steps    {solved} ({100 * solved / len(rows):.1f}%)")
    print(f"refused       {sum(r[2] == 'refused' for r in rows)}")
    print(f"failed        {sum(r[2] == 'failed' for r in rows)}")
    print(f"median        {statistics.median(times):.2f} s CPU")
    print(f"slowest       {slowest[4]:.2f} s CPU ({slowest[0]}: {slowest[1]})")
    print(f"total         {sum(times):.1f} s CPU")
    for kind, function, outcome, said, _ in rows:
        if outcome != "solved":
            print(f"  {outcome}: {kind} {function}: {said}")


if __name__ == "__main__":
    main()

"""Worked solutions over a first-year course's problem set, in one process.

    python bench/solutions.py              # every problem; the numbers, then the refusals
    python bench/solutions.py --only anti  # the problems whose kind starts with "anti"
    python bench/solutions.py --list       # one line per problem: kind, time, outcome
    python bench/solutions.py --file opl_derivatives  # one file of bench/problems/

The set, every CSV file of bench/problems/ (kind, function, order, at, source): derivatives (rules,
chains, logarithmic differentiation, higher orders), antiderivatives (substitution,
parts, tabular parts, repeated parts, trig powers and products, completing the square,
partial fractions, tan and sec, trigonometric substitution), implicit equations (with a
point, a second derivative, named constants), partials and values at a point; each
row says where it comes from (our own, or a WeBWorK Open Problem Library file with its
random parameters fixed). Each is solved as `gradcalc derive` solves it
(`gradcalc.homework.dispatch.solve`), and a solved problem's answer is then judged by
`check` (the judge's tape and sympy, independent of the steps' own checks). Reported:
the share solved with steps (an answer and every step verified), the refusals with their
reasons, any other failure and any answer judged wrong (there should be none), the
median and slowest time per problem in CPU seconds of this process and the processes it
starts (sympy's own antiderivative runs in one: `gradcalc.verify.counted`), the figure to
compare on a shared machine, and the slowest problem.
"""

from __future__ import annotations

import argparse
import csv
import re
import resource
import statistics
import time
from pathlib import Path
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.homework.dispatch import check, solve
from gradcalc.homework.judge import Settings
from gradcalc.homework.kinds.registry import Kind

#: the problem set, one CSV file per source: kind, function, order, at, and where each
#: problem comes from (our own, or a WeBWorK Open Problem Library file with its random
#: parameters fixed)
PROBLEMS = Path(__file__).with_name("problems")


def problems(folder: Path = PROBLEMS, name: str = "*"
             ) -> list[tuple[str, str, dict[str, Any], str]]:
    """(kind, function, Kind.read's texts, source) for every problem of the data files
    (those named `name`, e.g. opl_derivatives), file by file in name order."""
    return [p for path in sorted(folder.glob(f"{name}.csv")) for p in _problems_of(path)]


def _problems_of(path: Path) -> list[tuple[str, str, dict[str, Any], str]]:
    out = []
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            texts = _texts(row["kind"], row["order"])
            if row["at"]:
                texts["at"] = row["at"]
            out.append((row["kind"], row["function"], texts, row["source"]))
    return out


def _texts(kind: str, order: str) -> dict[str, Any]:
    """Kind.read's texts of a row's kind and `order` cell (a partial's cell names the
    variables it differentiates by in turn, e.g. `x` or `x;y`; none: the gradient)."""
    if kind == "antiderivative":
        return {"antiderivative": True}
    if kind == "implicit":
        return {"implicit": "y", "order": int(order or 1)}
    if kind == "higher":
        return {"order": int(order or 1)}
    return {"partial": order} if kind == "partial" and order else {}


def independently(function: str, answer: str, texts: dict[str, Any]) -> str:
    """derive's answer judged by check (the judge's own tape and sympy, not the steps'):
    right | wrong | unread (a form check does not take, such as a gradient's list)."""
    sides = re.split(" = | ≈ ", answer.split(": ", 1)[-1])  # "at (x, y) = (1, 2): …"
    said = sides[1] if len(sides) > 1 else sides[0]  # "f'(1) = 8/25 = 0.32": 8/25
    try:
        verdict = check(function, said, None, Kind.read(**texts), Settings(samples=8, seed=0))
    except GradcalcError:
        return "unread"
    return "right" if verdict.verdict == "correct" else "wrong"


def cpu_seconds() -> float:
    """The CPU time of this process and of the child processes it has waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def run_one(function: str, texts: dict[str, Any]) -> tuple[str, str, float, str]:
    """(outcome: solved | refused | failed | wrong, what was said, CPU seconds of the
    solution, the independent judgement of a solved answer: right | wrong | unread | '')."""
    start = cpu_seconds()
    try:
        solution = solve(function, None, Kind.read(**texts), Settings(samples=8, seed=0))
        outcome = ("solved" if solution.answer and solution.steps and not solution.note
                   else "refused")
        said = solution.note or solution.answer
        seconds = cpu_seconds() - start
        judged = independently(function, said, texts) if outcome == "solved" else ""
        return ("wrong" if judged == "wrong" else outcome), said, seconds, judged
    except GradcalcError as exc:
        outcome, said = "refused", exc.message
    except Exception as exc:  # noqa: BLE001 - a benchmark reports every failure
        outcome, said = "failed", f"{type(exc).__name__}: {exc}"
    return outcome, said, cpu_seconds() - start, ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="kinds starting with this")
    parser.add_argument("--list", action="store_true", help="one line per problem")
    parser.add_argument("--file", default="*", help="one file of problems/ (its name "
                        "without .csv, e.g. opl_derivatives)")
    args = parser.parse_args()
    rows = []
    for kind, function, texts, _ in problems(name=args.file):
        if not kind.startswith(args.only):
            continue
        outcome, said, seconds, judged = run_one(function, texts)
        rows.append((kind, function, outcome, said, seconds, judged))
        if args.list:
            print(f"{kind:15} {seconds:6.2f} s  {outcome:8} {function}  ->  {said}")
    times = [r[4] for r in rows]
    solved = sum(r[2] == "solved" for r in rows)
    slowest = max(rows, key=lambda r: r[4])
    print(f"problems      {len(rows)}")
    print(f"with steps    {solved} ({100 * solved / len(rows):.1f}%)")
    print(f"refused       {sum(r[2] == 'refused' for r in rows)}")
    print(f"failed        {sum(r[2] == 'failed' for r in rows)}")
    print(f"wrong         {sum(r[2] == 'wrong' for r in rows)} (answers check judges "
          f"incorrect; {sum(r[5] == 'right' for r in rows)} judged right, "
          f"{sum(r[5] == 'unread' for r in rows)} in a form check does not take)")
    print(f"median        {statistics.median(times):.2f} s CPU")
    print(f"slowest       {slowest[4]:.2f} s CPU ({slowest[0]}: {slowest[1]})")
    print(f"total         {sum(times):.1f} s CPU")
    for kind, function, outcome, said, *_ in rows:
        if outcome != "solved":
            print(f"  {outcome}: {kind} {function}: {said}")


if __name__ == "__main__":
    main()

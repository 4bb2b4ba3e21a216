"""Worked solutions over a first-year course's problem set, in one process.

    python bench/solutions.py              # every problem; the numbers, then the refusals
    python bench/solutions.py --only anti  # the problems whose kind starts with "anti"
    python bench/solutions.py --list       # one line per problem: kind, time, outcome
    python bench/solutions.py --file opl_derivatives  # one file of bench/problems/
    python bench/solutions.py --readback   # every printed line, plain and LaTeX, read back

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

With --readback, every line `derive --plain` and `derive --latex` print for each solved
problem is read back and checked true (tests/readback.py: the same reading the suite's
tests/render/test_printed_lines.py uses); reported per file and format: the lines with
an equation, how many are true, the false ones and the unread ones (each listed with its
problem, its line and why), and the CPU time of the reading.
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
    parser.add_argument("--readback", action="store_true", help="read every printed "
                        "line back (plain and LaTeX) and check it true")
    args = parser.parse_args()
    if args.readback:
        readback_report(args.file, args.only)
        return
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


def readback_report(name: str = "*", only: str = "") -> None:
    """Every printed line of every problem's solution read back, file by file."""
    for path in sorted(PROBLEMS.glob(f"{name}.csv")):
        tallies = {"plain": Tally(), "latex": Tally()}
        for kind, function, texts, _ in _problems_of(path):
            if kind.startswith(only):
                read_back(function, texts, tallies)
        for fmt, tally in tallies.items():
            tally.report(f"{path.stem} {fmt}")


class Tally:
    """One file's read-back in one format: the counts and the lines to list."""

    def __init__(self) -> None:
        self.counts = {"true": 0, "false": 0, "unread": 0}
        self.listed: list[str] = []
        self.general = self.problems = 0
        self.seconds = 0.0

    def add(self, problem: str, lines: Any, seconds: float) -> None:
        self.problems += 1
        self.general += lines.general
        self.seconds += seconds
        for finding in lines.findings:
            self.counts[finding.status] += 1
            if finding.status != "true":
                self.listed.append(f"  {finding.status}: {problem}\n    line: "
                                   f"{finding.line}\n    why: {finding.why}")

    def report(self, title: str) -> None:
        lines = sum(self.counts.values())
        print(f"{title}: {self.problems} problems, {lines} lines with equations: "
              f"{self.counts['true']} true, {self.counts['false']} false, "
              f"{self.counts['unread']} unread; {self.general} rules stated in general "
              f"(sin' = cos) not checked; {self.seconds:.1f} s CPU")
        for listed in self.listed:
            print(listed)


def read_back(function: str, texts: dict[str, Any], tallies: dict[str, Tally]) -> None:
    """One problem solved as derive solves it, its plain lines and its LaTeX document
    read back (an unsolved problem prints no steps to read)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import readback

    from gradcalc.render.latex_document import document
    from gradcalc.render.worked_steps import plain_text

    try:
        solution = solve(function, None, Kind.read(**texts), Settings(samples=8, seed=0))
    except GradcalcError:
        return
    if not solution.steps:
        return
    problem = f"{function} {' '.join(f'--{k} {v}' for k, v in texts.items())}"
    for fmt, text, reading in (("plain", plain_text(solution), readback.check_plain),
                               ("latex", document(solution), readback.check_latex)):
        start = cpu_seconds()
        try:
            lines = reading(text)
        except Exception as exc:  # noqa: BLE001 - a benchmark reports every failure
            lines = readback.Lines([readback.Finding(text.splitlines()[0], "unread",
                                                     f"{type(exc).__name__}: {exc}")])
        tallies[fmt].add(problem, lines, cpu_seconds() - start)


if __name__ == "__main__":
    main()

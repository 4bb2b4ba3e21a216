"""Homework checking at class scale: a 1,000-row answers file in one process.

    python bench/homework.py            # writes the file, checks it, prints the numbers
    python bench/homework.py --rows 200 # a smaller class
    python bench/homework.py --class-students 300  # key + 300 students x 33 problems,
                                                   # grades and report in one command, the
                                                   # installed one with --roster and --policy
    python bench/homework.py --variants 10000      # a parametrised key: every student
                                                   # judged on their own variant

The class: 33 problems (polynomials, trig, exp/log, product, quotient and chain rules,
domains far from zero, x^x, a gradient and a Jacobian) answered by 40 students, one row
each; every third answer is wrong in a typical way (chain factor, product rule, sign,
constant factor, antiderivative). Reported: rows per second of wall-clock time and per
CPU second (time.process_time: the figure to compare on a shared machine), the median and
slowest row, and the same with everything kept per function forgotten before every row
(each row a new function), and the installed command on the same file (start-up
included, its CPU time from os.times).
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gradcalc.grading import classfile
from gradcalc.homework import judge as judging
from gradcalc.ingest.headers import parse_table

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
    ("cos(x) sin(x)", ["cos(x)^2 - sin(x)^2", "cos(2x)"], ["-sin(x) cos(x)"]),
    ("ln(sin(x))", ["cos(x)/sin(x)", "1/tan(x)"], ["1/sin(x)"]),
    ("e^(x^2)", ["2x e^(x^2)"], ["e^(x^2)", "x^2 e^(x^2 - 1)"]),
    ("x^3 ln(x)", ["3x^2 ln(x) + x^2"], ["3x^2/x"]),
    ("1/(1 + x^2)", ["-2x/(1 + x^2)^2"], ["2x/(1 + x^2)^2", "-1/(1 + x^2)^2"]),
    ("sqrt(1 + x^2)", ["x/sqrt(1 + x^2)"], ["1/(2sqrt(1 + x^2))"]),
    ("x e^x", ["e^x (x + 1)"], ["e^x"]),
    ("tanh(2x)", ["2(1 - tanh(2x)^2)"], ["1 - tanh(2x)^2"]),
]


def class_file(rows: int, distinct: int = 0) -> str:
    """`rows` rows over the problems, round robin; every third answer wrong. With
    `distinct`, every distinct-th row's answer is a mistake no other row makes (the
    right answer plus k x: judged afresh, the search for the rule misapplied included),
    as in a large class, where the long tail of wrong answers is what costs."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "function", "answer"])
    for k in range(rows):
        function, right, wrong = PROBLEMS[k % len(PROBLEMS)]
        student = k // len(PROBLEMS)
        pool = wrong if k % 3 == 2 else right
        answer = pool[student % len(pool)]
        if distinct and k % distinct == 0 and not answer.startswith("["):
            answer = f"{right[0]} + {k}x" if "y" not in function else answer
        writer.writerow([f"s{student:03d}-p{k % len(PROBLEMS):02d}", function, answer])
    return out.getvalue()


def spelled(answer: str, variant: int) -> str:
    """The same answer as different students type it (the text differs, the maths not)."""
    if answer.startswith("[") or variant == 0:
        return answer
    if variant == 1:
        return answer.replace(" + ", "+")
    if variant == 2:
        return f"({answer})"
    return f"{answer} + 0"


def teacher_class(students: int) -> tuple[str, str]:
    """(key, submissions): every problem once in the key (2 points each), every student
    answering every problem; a third of the answers wrong, spelled four ways."""
    key, subs = io.StringIO(), io.StringIO()
    kw, sw = csv.writer(key, lineterminator="\n"), csv.writer(subs, lineterminator="\n")
    kw.writerow(["problem", "function", "points"])
    for p, (function, _, _) in enumerate(PROBLEMS):
        kw.writerow([f"p{p + 1:02d}", function, 2])
    sw.writerow(["email", "question", "response", "section"])
    for st in range(students):
        for p, (_, right, wrong) in enumerate(PROBLEMS):
            pool = wrong if (st + p) % 3 == 2 else right
            answer = spelled(pool[st % len(pool)], (st // len(pool)) % 4)
            sw.writerow([f"s{st:03d}@uni.edu", f"p{p + 1:02d}", answer, "AB"[st % 2]])
    return key.getvalue(), subs.getvalue()


def class_roster(students: int) -> str:
    """The course's roster, Gradescope's export: every student of `teacher_class`, and one
    more who submitted nothing (the report and the grades name them)."""
    rows = ["First Name,Last Name,SID,Email,Sections"]
    rows += [f"S{st},Student,{1000 + st},s{st:03d}@uni.edu,{'AB'[st % 2]}"
             for st in range(students + 1)]
    return "\n".join(rows) + "\n"


def measure_class(key_text: str, subs_text: str, memo: bool) -> dict[str, float]:
    """Key, submissions, every row judged, grades and the report built, in this process."""
    from gradcalc.grading import classfile
    from gradcalc.grading import gradebook as grades
    from gradcalc.grading.key import OPTIONAL, REQUIRED, key_from
    from gradcalc.ingest.headers import parse_table
    from gradcalc.render.lms import gradebook_csv
    from gradcalc.render.report import report_html

    classfile.forget()
    judging.forget_formulas()
    started, cpu = time.perf_counter(), time.process_time()
    key = key_from(parse_table(key_text.encode(), "key", REQUIRED, OPTIONAL, "key"))
    table = parse_table(subs_text.encode(), "subs", classfile.SUBMISSIONS, (), "subs")
    tasks = classfile.tasks(table, key, judging.Settings())
    results = []
    for task in tasks:
        if not memo:
            classfile.forget()
        results.append(classfile.judge_task(task))
    book = grades.gradebook(results, key)
    gradebook_csv(book)
    report_html(grades.picture(results, key))
    total, cpu = time.perf_counter() - started, time.process_time() - cpu
    statuses: dict[str, int] = {}
    for r in results:
        statuses[r.status] = statuses.get(r.status, 0) + 1
    distinct = len({(t.function, t.answer) for t in tasks})
    return {"rows": len(tasks), "seconds": total, "rows_per_s": len(tasks) / total,
            "rows_per_cpu_s": len(tasks) / cpu, "distinct": distinct,
            **{f"n_{k}": v for k, v in sorted(statuses.items())}}


def run_class(students: int, afresh: bool) -> None:
    """The teacher's whole run on a class of `students` × the problems, in one command."""
    key_text, subs_text = teacher_class(students)
    measure_class(*teacher_class(2), memo=True)  # imports, sympy warm-up
    runs = [("each distinct answer judged once", True)]
    if afresh:
        runs.append(("every row judged afresh (no memo)", False))
    for label, memo in runs:
        r = measure_class(key_text, subs_text, memo)
        print(f"class with key, grades and report ({label}): {r['rows']} rows "
              f"({r['distinct']} distinct answers) in {r['seconds']:.2f} s = "
              f"{r['rows_per_s']:.0f} rows/s ({r['rows_per_cpu_s']:.0f} per CPU second); "
              + ", ".join(f"{k[2:]} {v}" for k, v in r.items() if k.startswith("n_")))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "key.csv").write_text(key_text)
        (folder / "subs.csv").write_text(subs_text)
        (folder / "roster.csv").write_text(class_roster(students))
        gradcalc = Path(sys.executable).parent / "gradcalc"
        outputs = []
        for jobs in ("1", "2"):
            command = [str(gradcalc), "grade", "--key", "key.csv", "subs.csv",
                       "--roster", "roster.csv", "--policy", "best",
                       "--grades", "grades.csv", "--report", "report.html", "--json",
                       "--jobs", jobs]
            t, before = time.perf_counter(), os.times()
            with open(folder / "verdicts.jsonl", "w") as out:
                subprocess.run(command, stdout=out, cwd=folder, check=False)
            took, after = time.perf_counter() - t, os.times()
            cpu = (after.children_user + after.children_system) - (before.children_user +
                                                                   before.children_system)
            rows = len(subs_text.splitlines()) - 1
            outputs.append(((folder / "verdicts.jsonl").read_bytes(),
                            (folder / "grades.csv").read_bytes()))
            print(f"installed command ({' '.join(['gradcalc', *command[1:]])}): {rows} rows "
                  f"in {took:.2f} s = {rows / took:.0f} rows/s, {cpu:.2f} CPU s = "
                  f"{rows / cpu:.0f} rows per CPU second (start-up included); grades "
                  f"{(folder / 'grades.csv').stat().st_size:,} B, report "
                  f"{(folder / 'report.html').stat().st_size:,} B, verdicts "
                  f"{(folder / 'verdicts.jsonl').stat().st_size:,} B")
        print("--jobs 2 wrote the same verdicts and grades as --jobs 1:",
              outputs[0] == outputs[1])


#: a parametrised key: every kind of problem, the parameters drawn per student
VARIANT_KEY = (
    "problem,function,params,term,kind,at,order,partial,shape,wrt,hints\n"
    '1,a*sin(b*x),a = 2..9; b = 2..5 except 3; a != b,bench,,,,,,,"'
    "chain-inner-factor -> the inner function {b}x has a derivative too\n"
    '-a*b*cos(b*x) -> the derivative of sin is cos"\n'
    '2,x^n + a*x^2,"n = choice(3, 4); a = 1..5; c = 1..3",,,x=c,2,,,,\n'
    "3,a*x^2*y^m,a = 2..6; m = 2..4,,,,,x;y,,,\n"
    "4,x^2 + a*y^2 = r^2,a = 2..4; r = 2..5,,implicit,,,,,,-x/y -> the y^2 term's {a}\n"
    "5,a*cos(b*x),a = 2..6; b = 2..4; a != b,,antiderivative,,,,,,\n"
    "6,sum((W@x - a)^2),a = 1..5,,tensor,,,,W=2x2; x=2,W,\n")


def variant_answers(problem: str, v: dict[str, int], k: int) -> str:
    """Student k's answer on their variant: two in three right (spelled two ways), else
    the typical mistake."""
    right, wrong = _answers(problem, v)
    return wrong if k % 3 == 2 else right[(k // 3) % len(right)]


def _answers(problem: str, v: dict[str, int]) -> tuple[list[str], str]:
    a, b = v.get("a", 0), v.get("b", 0)
    if problem == "1":
        return [f"{a * b}cos({b}x)", f"{a * b} cos({b} x)"], f"{a}cos({b}x)"
    if problem == "2":
        n, c = v["n"], v["c"]
        return [str(n * (n - 1) * c ** (n - 2) + 2 * a)], str(n * c ** (n - 1) + 2 * a * c)
    if problem == "3":
        m = v["m"]
        return [f"{2 * a * m} x y^{m - 1}"], f"{2 * a} x y^{m}"
    if problem == "4":
        return [f"-x/({a} y)", f"-x/({a}y)"], "-x/y"
    if problem == "5":
        return [f"{a}/{b} sin({b}x) + C", f"{a} sin({b}x)/{b}"], f"{a * b} sin({b}x)"
    return [f"outer(2*(W@x - {a}), x)"], f"outer(x, 2*(W@x - {a}))"


def variant_class(rows: int) -> str:
    """`rows` submissions to VARIANT_KEY: students answering every problem in turn."""
    from gradcalc.grading import draws
    from gradcalc.grading.key import OPTIONAL, REQUIRED, key_from

    key = key_from(parse_table(VARIANT_KEY.encode(), "key", REQUIRED, OPTIONAL, "key"))
    specs = {n: p.template.params for n, p in key.problems.items() if p.template}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", "problem", "answer"])
    for k in range(rows):
        student, problem = f"s{k // len(specs):05d}@uni.edu", str(k % len(specs) + 1)
        v = {n: int(x) for n, x in draws.draw(specs[problem], "bench", student, problem)}
        writer.writerow([student, problem, variant_answers(problem, v, k // len(specs))])
    return out.getvalue()


def variant_run(rows: int) -> dict[str, float]:
    """One process: warmed up on the fixed class, then the parametrised key read (every
    problem checked), every variant checked, every row judged (hints fired), the grades
    and the report built."""
    from gradcalc.grading import gradebook as grades
    from gradcalc.grading.key import OPTIONAL, REQUIRED, key_from
    from gradcalc.render.lms import gradebook_csv
    from gradcalc.render.report import report_html

    measure_class(*teacher_class(2), memo=True)  # imports, sympy warm-up
    subs = variant_class(rows)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "subs.csv"
        path.write_text(subs)
        started, cpu = time.perf_counter(), time.process_time()
        key = key_from(parse_table(VARIANT_KEY.encode(), "key", REQUIRED, OPTIONAL, "key"))
        drawn = classfile.check_variants(str(path), key)
        table = parse_table(subs.encode(), "subs", classfile.SUBMISSIONS, (), "subs")
        results = list(classfile.run(classfile.tasks(table, key, judging.Settings())))
        gradebook_csv(grades.gradebook(results, key))
        report_html(grades.picture(results, key))
        total, cpu = time.perf_counter() - started, time.process_time() - cpu
    statuses: dict[str, int] = {}
    for r in results:
        statuses[r.status] = statuses.get(r.status, 0) + 1
    return {"rows": len(results), "variants": drawn, "seconds": total,
            "functions": len({r.task.function for r in results}),
            "rows_per_s": len(results) / total, "rows_per_cpu_s": len(results) / cpu,
            "hints": sum(r.hint is not None for r in results),
            "distinct": len({(r.task.function, r.task.answer) for r in results}),
            **{f"n_{k}": v for k, v in sorted(statuses.items())}}


def run_variants(rows: int, repeats: int) -> None:
    """`repeats` fresh processes of `variant_run`, each printed, then the medians; and the
    installed command on the same files."""
    import json

    runs = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, __file__, "--variant-run", str(rows)],
                             capture_output=True, text=True, check=True).stdout
        runs.append(json.loads(out.splitlines()[-1]))
        r = runs[-1]
        print(f"parametrised class: {r['rows']} rows ({r['variants']} students' variants "
              f"checked, {r['functions']} distinct functions, {r['distinct']} distinct "
              f"answers, {r['hints']} hints fired) in "
              f"{r['seconds']:.2f} s = {r['rows_per_s']:.0f} rows/s "
              f"({r['rows_per_cpu_s']:.0f} per CPU second); "
              + ", ".join(f"{k[2:]} {v}" for k, v in r.items() if k.startswith("n_")))
    print(f"median of {repeats}: {statistics.median(r['rows_per_s'] for r in runs):.0f} "
          f"rows/s, {statistics.median(r['rows_per_cpu_s'] for r in runs):.0f} rows per "
          "CPU second, one process each")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "key.csv").write_text(VARIANT_KEY)
        (folder / "subs.csv").write_text(variant_class(rows))
        gradcalc = Path(sys.executable).parent / "gradcalc"
        took = []
        for _ in range(repeats):
            t = time.perf_counter()
            subprocess.run([str(gradcalc), "grade", "--key", "key.csv", "subs.csv", "--json",
                            "--grades", "grades.csv"], cwd=folder, capture_output=True,
                           check=False)
            took.append(time.perf_counter() - t)
        print(f"installed command (gradcalc grade --key key.csv subs.csv --json --grades "
              f"grades.csv), start-up included: median {statistics.median(took):.2f} s = "
              f"{rows / statistics.median(took):.0f} rows/s")


def measure(data: bytes, clear_cache: bool) -> dict[str, float]:
    table = parse_table(data, "bench", classfile.ONE_FILE, ("wrt",), "bench")
    rows = classfile.tasks(table, None, judging.Settings())
    times: list[float] = []
    statuses: dict[str, int] = {}
    started, cpu = time.perf_counter(), time.process_time()
    for row in rows:
        if clear_cache:
            judging.forget_formulas()
        classfile.forget()  # every row judged (as before the memo of identical answers)
        t = time.perf_counter()
        result = classfile.judge_task(row)
        times.append(time.perf_counter() - t)
        statuses[result.status] = statuses.get(result.status, 0) + 1
    total, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {"rows": len(rows), "seconds": total, "rows_per_s": len(rows) / total,
            "cpu_seconds": cpu, "rows_per_cpu_s": len(rows) / cpu,
            "slowest_ms": 1000 * max(times), "median_ms": 1000 * statistics.median(times),
            **{f"n_{k}": v for k, v in sorted(statuses.items())}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--class-students", type=int, default=0, metavar="N",
                        help="instead: a key and N students answering every problem, with "
                        "grades and the report (300: 9,900 rows)")
    parser.add_argument("--afresh", action="store_true",
                        help="with --class-students: also judge every row afresh (slow)")
    parser.add_argument("--variants", type=int, default=0, metavar="ROWS",
                        help="instead: a parametrised key of every kind and ROWS "
                        "submissions, each on the student's own variant")
    parser.add_argument("--repeats", type=int, default=3,
                        help="with --variants: fresh processes measured (the median)")
    parser.add_argument("--variant-run", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.variant_run:
        import json

        print(json.dumps(variant_run(args.variant_run)))
        return
    if args.variants:
        run_variants(args.variants, args.repeats)
        return
    if args.class_students:
        run_class(args.class_students, args.afresh)
        return
    text = class_file(args.rows)
    data = text.encode()
    measure(class_file(len(PROBLEMS)).encode(), clear_cache=True)  # imports, sympy warm-up
    for label, clear in (("class (function formulas cached)", False),
                         ("every row a new function (cache cleared)", True)):
        judging.forget_formulas()
        r = measure(data, clear)
        print(f"{label}: {r['rows']} rows in {r['seconds']:.2f} s = {r['rows_per_s']:.0f} "
              f"rows/s, {r['cpu_seconds']:.2f} CPU s = {r['rows_per_cpu_s']:.0f} rows per CPU "
              f"second; median {r['median_ms']:.1f} ms, slowest {r['slowest_ms']:.0f} ms; "
              + ", ".join(f"{k[2:]} {v}" for k, v in r.items() if k.startswith("n_")))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "answers.csv"
        path.write_text(text)
        gradcalc = Path(sys.executable).parent / "gradcalc"
        t, before = time.perf_counter(), os.times()
        subprocess.run([str(gradcalc), "grade", str(path), "--json"],
                       capture_output=True, check=False)
        took, after = time.perf_counter() - t, os.times()
        cpu = (after.children_user + after.children_system) - (before.children_user +
                                                               before.children_system)
        print(f"installed command, --json: {args.rows} rows in {took:.2f} s = "
              f"{args.rows / took:.0f} rows/s, {cpu:.2f} CPU s = {args.rows / cpu:.0f} rows "
              "per CPU second (start-up included)")


if __name__ == "__main__":
    main()

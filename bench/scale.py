"""gradcalc at scale, side by side in one run: 10^6 points x 3 inputs, CSV in, gradient CSV
out, against hand-written scripts (polars + NumPy; NumPy loadtxt/savetxt; PyTorch + polars
where torch is installed), each a separate process timed by wall clock with its peak
memory (the process's maximum resident set, from /usr/bin/time); then 10^7 rows (peak memory, and
the same bytes as ten 10^6-row runs concatenated, with --jobs 1 and --jobs 2: the
fixed start-up weighs less on the longer table) and --jobs 2 against --jobs 1 on the
points and on two class files: one whose 10^5 answers are 42 texts (judged once each:
the start-up and the formulas weigh most), one where every 50th answer is a mistake no
other row makes (judged afresh, as a large class's long tail).

    pip install ".[fast]"          # polars and pyarrow: the fast extra
    python bench/scale.py          # about fifteen minutes on a quiet 2-core machine
    python bench/scale.py --rows 100000 --big 0 --class-rows 1000 --repeat 1  # a smoke run

Each contender runs --repeat times, round-robin with the others (so background load hits
everyone alike); every line gives the medians of wall and CPU time (user + system, worker
processes included) and the range of the 1-minute load average over its runs. On a shared
machine the wall times move with the load; CPU times and ratios move less.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

PROGRAM = "y = a*b*sin(c) + exp(a*c)/(1+b**2)"

POLARS = '''
import sys
import numpy as np, polars as pl
df = pl.read_csv(sys.argv[1])
a, b, c = (df[k].to_numpy() for k in ("a", "b", "c"))
s, e, d = np.sin(c), np.exp(a * c), 1 + b**2
g = 1 / d * e  # the derivative in the order a reverse sweep takes it: the same bits
df.with_columns(y=a * b * s + e / d, **{"dy/da": g * c + s * b,
                "dy/db": -e / (d * d) * (2 * b) + s * a, "dy/dc": g * a + a * b * np.cos(c)}
                ).write_csv(sys.argv[2])
'''
NUMPY = '''
import sys
import numpy as np
a, b, c = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1, unpack=True)
s, e, d = np.sin(c), np.exp(a * c), 1 + b**2
g = 1 / d * e
out = np.column_stack([a, b, c, a * b * s + e / d, g * c + s * b,
                       -e / (d * d) * (2 * b) + s * a, g * a + a * b * np.cos(c)])
np.savetxt(sys.argv[2], out, delimiter=",", fmt="%.17g", header="a,b,c,y,dy/da,dy/db,dy/dc",
           comments="")
'''
TORCH = '''
import sys
import numpy as np, polars as pl, torch
df = pl.read_csv(sys.argv[1])
a, b, c = (torch.from_numpy(df[k].to_numpy()).requires_grad_() for k in ("a", "b", "c"))
y = a * b * torch.sin(c) + torch.exp(a * c) / (1 + b**2)
y.sum().backward()
df.with_columns(y=y.detach().numpy(), **{"dy/da": a.grad.numpy(), "dy/db": b.grad.numpy(),
                "dy/dc": c.grad.numpy()}).write_csv(sys.argv[2])
'''


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def timed(cmd: list[str], out: Path | None = None) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds (user + system, its children's included), peak
    resident MiB, exit code) of one process; its standard output to `out` or nowhere."""
    start = time.perf_counter()
    # /usr/bin/time measures the process alone (a child forked from this one would
    # inherit its high-water mark in wait4)
    with (out.open("wb") if out else open(os.devnull, "wb")) as sink:
        proc = subprocess.Popen(["/usr/bin/time", "-f", "%U %S %M", *cmd], stdout=sink,
                                stderr=subprocess.PIPE)
        _, err = proc.communicate()
    seconds = time.perf_counter() - start
    text = err.decode().strip().splitlines()
    if proc.returncode not in (0, 1):
        sys.stderr.write(err.decode())
    user, system, peak = text[-1].split()
    return seconds, float(user) + float(system), int(peak) / 1024, proc.returncode


class Runs:
    """A contender's runs: medians of wall and CPU time, the largest peak, the loads."""

    def __init__(self) -> None:
        self.walls: list[float] = []
        self.cpus: list[float] = []
        self.peaks: list[float] = []
        self.loads: list[float] = []

    def add(self, wall: float, cpu: float, peak: float) -> None:
        self.walls.append(wall)
        self.cpus.append(cpu)
        self.peaks.append(peak)
        self.loads.append(os.getloadavg()[0])

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpus)


def compile_bytecode() -> None:
    """gradcalc's .pyc files, as `pip install .` writes them (PYTHONDONTWRITEBYTECODE
    would otherwise make every run compile gradcalc's modules again)."""
    import gradcalc

    subprocess.run([sys.executable, "-m", "compileall", "-q",
                    str(Path(gradcalc.__file__).parent)], check=False,
                   env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})


def gradcalc(*args: str) -> list[str]:
    return [sys.executable, "-m", "gradcalc", *args]


def points_file(path: Path, rows: int) -> None:
    rng = np.random.default_rng(21)
    with path.open("w") as fh:
        fh.write("a,b,c\n")
        for start in range(0, rows, 100_000):
            block = rng.normal(size=(min(100_000, rows - start), 3))
            fh.write("".join(f"{u!r},{v!r},{w!r}\n" for u, v, w in block.tolist()))


def same_numbers(a: Path, b: Path) -> bool:
    import polars as pl

    x, y = pl.read_csv(a), pl.read_csv(b)
    return x.columns == y.columns and np.array_equal(x.to_numpy(), y.to_numpy())


def max_relative(a: Path, b: Path) -> float:
    import polars as pl

    x, y = pl.read_csv(a).to_numpy(), pl.read_csv(b).to_numpy()
    return float(np.max(np.abs(x - y) / np.maximum(np.abs(y), 1e-300)))


def row(name: str, runs: Runs, base: Runs | None, note: str = "") -> dict:
    ratio = f"{runs.wall / base.wall:.2f} x" if base else ""
    cpu_ratio = f"{runs.cpu / base.cpu:.2f} x" if base else ""
    loads = f"{min(runs.loads):.1f}-{max(runs.loads):.1f}"
    line = {"contender": name, "runs": len(runs.walls), "wall": round(runs.wall, 3),
            "cpu": round(runs.cpu, 3), "walls": [round(w, 3) for w in runs.walls],
            "cpus": [round(c, 3) for c in runs.cpus], "peak_mib": round(max(runs.peaks), 1),
            "ratio_wall": ratio, "ratio_cpu": cpu_ratio, "load": loads, "note": note}
    print(f"| {name} | {len(runs.walls)} | {runs.wall:.2f} s | {runs.cpu:.2f} s | "
          f"{max(runs.peaks):.0f} MiB | {ratio} | {cpu_ratio} | {loads} | {note} |",
          flush=True)
    return line


def class_rows(work: Path, title: str, text: str, repeat: int) -> list[dict]:
    """grade --json on a class file, --jobs 1 against --jobs 2, interleaved."""
    answers = work / "class.csv"
    answers.write_text(text)
    judged = {jobs: Runs() for jobs in ("1", "2")}
    outs = {jobs: work / f"class-{jobs}.jsonl" for jobs in judged}
    for _ in range(max(1, repeat // 2)):
        for jobs, r in judged.items():
            r.add(*timed(gradcalc("grade", str(answers), "--json", "--jobs", jobs),
                         outs[jobs])[:3])
    same = outs["1"].read_bytes() == outs["2"].read_bytes()
    lines = []
    for jobs, r in judged.items():
        note = "" if jobs == "1" else (f"{judged['1'].wall / r.wall:.2f} x --jobs 1 (wall); "
                                       + ("same bytes" if same else "BYTES DIFFER"))
        lines.append(row(f"grade --json, {title}, --jobs {jobs}", r, None, note))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5, help="runs of each contender, "
                        "interleaved round-robin; medians reported")
    parser.add_argument("--big", type=int, default=10, help="the big run: this many times "
                        "--rows (0: skip)")
    parser.add_argument("--class-rows", type=int, default=100_000)
    parser.add_argument("--class-distinct", type=int, default=50, help="a second class "
                        "file of --class-rows where every n-th answer is a mistake no "
                        "other row makes (0: skip)")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()
    compile_bytecode()
    work = Path(tempfile.mkdtemp(prefix="gradcalc-scale-"))
    lines = []
    try:
        data = work / "points.csv"
        points_file(data, args.rows)
        print(f"{args.rows:,} points x 3 inputs, {data.stat().st_size / 2**20:.0f} MiB; "
              f"{os.cpu_count()} cores; load average at start {load()}; {args.repeat} runs "
              "of each contender, interleaved; medians of wall and CPU (user + system, "
              "workers included) time\n")
        print("| contender | runs | wall | CPU | peak RSS | wall vs polars + NumPy | "
              "CPU vs polars + NumPy | load (1 min) | note |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        scripts = {"polars + NumPy script": POLARS, "NumPy loadtxt/savetxt script": NUMPY}
        try:
            import torch  # noqa: F401

            scripts["PyTorch + polars script"] = TORCH
        except Exception:  # noqa: BLE001 - not installed, or installed broken
            print("| PyTorch + polars script | skipped: torch is not installed | | | | | | | |")
        contenders: dict[str, tuple[list[str], Path]] = {}
        for name, code in scripts.items():
            script = work / ("by_hand_" + name.split()[0].lower() + ".py")  # not polars.py
            script.write_text(code)
            out = work / f"{script.stem}.csv"
            contenders[name] = ([sys.executable, str(script), str(data), str(out)], out)
        for name, extra in (("gradcalc --no-check", ["--no-check"]), ("gradcalc, checked", []),
                            ("gradcalc --no-check --jobs 2", ["--no-check", "--jobs", "2"]),
                            ("gradcalc, checked, --jobs 2", ["--jobs", "2"])):
            out = work / ("gc-" + "-".join(extra).replace("--", "") + ".csv")
            contenders[name] = (gradcalc("grad", PROGRAM, "--points", str(data), "--output",
                                         str(out), *extra), out)
        runs = {name: Runs() for name in contenders}
        for round_ in range(args.repeat):
            for name, (cmd, _) in contenders.items():
                if round_ and name != "polars + NumPy script" and "script" in name:
                    continue  # the slow hand scripts once
                wall, cpu, peak, _ = timed(cmd)
                runs[name].add(wall, cpu, peak)
        base = runs["polars + NumPy script"]
        hand = contenders["polars + NumPy script"][1]
        one = contenders["gradcalc --no-check"][1]
        for name, (_, out) in contenders.items():
            note = ""
            if "--jobs 2" in name:
                ones = runs[name.replace(", --jobs 2", "").replace(" --jobs 2", "")]
                note = (f"{ones.wall / runs[name].wall:.2f} x --jobs 1 (wall); "
                        + ("same bytes" if out.read_bytes() == one.read_bytes()
                           else "BYTES DIFFER"))
            elif name != "polars + NumPy script":
                note = "the same numbers as the polars script" if same_numbers(out, hand) \
                    else f"largest relative difference {max_relative(out, hand):.1e}"
            lines.append(row(name, runs[name], base, note))
        if args.big:
            big = work / "big.csv"
            with big.open("wb") as out, data.open("rb") as src:
                head = src.readline()
                body = src.read()
                out.write(head + body * args.big)
            del body
            ten = one.read_bytes()
            cut = ten.index(b"\n") + 1
            expected = ten[:cut] + ten[cut:] * args.big
            del ten
            big_runs = {jobs: Runs() for jobs in ("1", "2")}
            same = {jobs: True for jobs in big_runs}
            for _ in range(max(1, args.repeat // 2)):  # interleaved, as the others
                for jobs, r in big_runs.items():  # the start-up weighs less on 10^7 rows
                    os.sync()  # the last run's 600 MB written out before this one starts
                    r.add(*timed(gradcalc("grad", PROGRAM, "--points", str(big),
                                          "--no-check", "--jobs", jobs, "--output",
                                          str(work / f"big-out-{jobs}.csv")))[:3])
                    out = work / f"big-out-{jobs}.csv"
                    same[jobs] = same[jobs] and out.read_bytes() == expected
                    out.unlink()
            for jobs, r in big_runs.items():
                note = ("same bytes as the 10^6 run's rows repeated" if same[jobs]
                        else "BYTES DIFFER")
                if jobs != "1":
                    note = f"{big_runs['1'].wall / r.wall:.2f} x --jobs 1 (wall); {note}"
                lines.append(row(f"gradcalc --no-check --jobs {jobs}, "
                                 f"{args.big * args.rows:,} rows", r, None, note))
            del expected
            big.unlink()
        if args.class_rows:
            sys.path.insert(0, str(Path(__file__).parent))
            from homework import class_file

            classes = {f"{args.class_rows:,} rows": 0}
            if args.class_distinct:
                classes[f"{args.class_rows:,} rows, every {args.class_distinct}th answer "
                        "distinct"] = args.class_distinct
            for title, distinct in classes.items():
                lines += class_rows(work, title, class_file(args.class_rows, distinct),
                                    args.repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\nload average at the end {load()}")
    if args.json:
        Path(args.json).write_text(json.dumps(lines, indent=1))


if __name__ == "__main__":
    main()

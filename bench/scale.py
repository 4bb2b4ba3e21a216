"""gradcalc at scale, side by side in one run: 10^6 points x 3 inputs, CSV in, gradient CSV
out, against hand-written scripts (polars + NumPy; NumPy loadtxt/savetxt; PyTorch + polars
where torch is installed), each a separate process timed by wall clock with its peak
memory (the process's maximum resident set, from /usr/bin/time); then 10^7 rows (peak memory, and
the same bytes as ten 10^6-row runs concatenated) and --jobs 2 against --jobs 1 on the
points and on a class file.

    pip install ".[fast]"          # polars and pyarrow: the fast extra
    python bench/scale.py          # about ten minutes on a quiet 2-core machine
    python bench/scale.py --rows 100000 --big 0 --class-rows 1000   # a smoke run

Every line carries the load average when it ran: on a shared machine the times move with
it; the ratios of a row's contenders, run back to back, move less.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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


def timed(cmd: list[str]) -> tuple[float, float, int]:
    """(seconds, peak resident MiB, exit code) of one process."""
    start = time.perf_counter()
    # /usr/bin/time measures the process alone (a child forked from this one would
    # inherit its high-water mark in wait4)
    proc = subprocess.Popen(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, err = proc.communicate()
    seconds = time.perf_counter() - start
    text = err.decode().strip().splitlines()
    if proc.returncode not in (0, 1):
        sys.stderr.write(err.decode())
    return seconds, int(text[-1]) / 1024, proc.returncode


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


def row(name: str, seconds: float, mib: float, base: float | None, note: str = "") -> dict:
    ratio = f"{seconds / base:.2f} x" if base else ""
    line = {"contender": name, "seconds": round(seconds, 3), "peak_mib": round(mib, 1),
            "ratio": ratio, "load": load(), "note": note}
    print(f"| {name} | {seconds:.2f} s | {mib:.0f} MiB | {ratio} | {line['load']} | {note} |",
          flush=True)
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--big", type=int, default=10, help="the big run: this many times "
                        "--rows (0: skip)")
    parser.add_argument("--class-rows", type=int, default=100_000)
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gradcalc-scale-"))
    lines = []
    try:
        data = work / "points.csv"
        points_file(data, args.rows)
        print(f"{args.rows:,} points x 3 inputs, {data.stat().st_size / 2**20:.0f} MiB; "
              f"{os.cpu_count()} cores; load average (1, 5, 15 min) on every line\n")
        print("| contender | wall | peak RSS | vs polars + NumPy | load | note |")
        print("| --- | --- | --- | --- | --- | --- |")
        scripts = {"polars + NumPy script": POLARS, "NumPy loadtxt/savetxt script": NUMPY}
        try:
            import torch  # noqa: F401

            scripts["PyTorch + polars script"] = TORCH
        except Exception:  # noqa: BLE001 - not installed, or installed broken
            print("| PyTorch + polars script | skipped: torch is not installed | | | | |")
        runs: dict[str, tuple[float, float, Path]] = {}
        for name, code in scripts.items():
            script = work / ("by_hand_" + name.split()[0].lower() + ".py")  # not polars.py
            script.write_text(code)
            out = work / f"{script.stem}.csv"
            seconds, mib, _ = timed([sys.executable, str(script), str(data), str(out)])
            runs[name] = (seconds, mib, out)
        for name, extra in (("gradcalc --no-check", ["--no-check"]), ("gradcalc, checked", [])):
            out = work / ("gc" + str(len(extra)) + ".csv")
            seconds, mib, _ = timed(gradcalc("grad", PROGRAM, "--points", str(data),
                                             "--output", str(out), *extra))
            runs[name] = (seconds, mib, out)
        base = runs["polars + NumPy script"][0]
        for name, (seconds, mib, out) in runs.items():
            note = ""
            if name != "polars + NumPy script":
                hand = runs["polars + NumPy script"][2]
                note = "the same numbers as the polars script" if same_numbers(out, hand) \
                    else f"largest relative difference {max_relative(out, hand):.1e}"
            lines.append(row(name, seconds, mib, base, note))
        one = runs["gradcalc --no-check"]
        seconds, mib, _ = timed(gradcalc("grad", PROGRAM, "--points", str(data), "--no-check",
                                         "--output", str(work / "j2.csv"), "--jobs", "2"))
        same = (work / "j2.csv").read_bytes() == one[2].read_bytes()
        lines.append(row("gradcalc --no-check --jobs 2", seconds, mib, None,
                         f"{one[0] / seconds:.2f} x --jobs 1; "
                         + ("same bytes" if same else "BYTES DIFFER")))
        if args.big:
            big = work / "big.csv"
            with big.open("wb") as out, data.open("rb") as src:
                head = src.readline()
                body = src.read()
                out.write(head + body * args.big)
            del body
            seconds, mib, _ = timed(gradcalc("grad", PROGRAM, "--points", str(big),
                                             "--no-check", "--output", str(work / "big-out.csv")))
            ten = one[2].read_bytes()
            cut = ten.index(b"\n") + 1
            same = (work / "big-out.csv").read_bytes() == ten[:cut] + ten[cut:] * args.big
            lines.append(row(f"gradcalc --no-check, {args.big * args.rows:,} rows", seconds,
                             mib, None, "same bytes as the 10^6 run's rows repeated"
                             if same else "BYTES DIFFER"))
            big.unlink()
        if args.class_rows:
            sys.path.insert(0, str(Path(__file__).parent))
            from homework import class_file

            answers = work / "class.csv"
            answers.write_text(class_file(args.class_rows))
            times = {}
            for jobs in ("1", "2"):
                seconds, mib, _ = timed(gradcalc("check", "--file", str(answers), "--json",
                                                 "--jobs", jobs))
                times[jobs] = seconds
                lines.append(row(f"check --file, {args.class_rows:,} rows, --jobs {jobs}",
                                 seconds, mib, None,
                                 "" if jobs == "1" else f"{times['1'] / seconds:.2f} x"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(lines, indent=1))


if __name__ == "__main__":
    main()

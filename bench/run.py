"""gradcalc's benchmark: every performance target of the project, side by side, in one run.

    pip install .            # as the README says
    python bench/run.py      # about two minutes on 2 cores; --quick for a smoke run

Each row times gradcalc and its peers on the same machine in the same run, interleaved
(round-robin, so background load hits everyone alike), and reports the minimum of the
repeats (the run least disturbed by other work on a shared machine). The NumPy
forward pass is the floor that array rows are measured against. PyTorch, JAX and HIPS
autograd are measured where installed and skipped with a note where not (they are never
gradcalc dependencies: `pip install torch jax autograd` to compare).

If OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are set on this machine (see the environment
notes), they slow NumPy down; unset both for this command alone:
`env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/run.py`.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import gradcalc
from gradcalc.backends import batched
from gradcalc.backends.numeric import as_function
from gradcalc.commands import batch
from gradcalc.engine import functional, fused
from gradcalc.language.parse import parse
from gradcalc.limits import Limits
from gradcalc.render.as_json import answer_json

# --------------------------------------------------------------------------- timing


#: the scalar rows run 10^5 and 10^6 steps, past the CLI's default bounds on one run
UNBOUNDED = Limits(max_iterations=10**7, max_operations=10**8, max_work=10**9)

def interleaved(contenders: dict[str, Callable[[], Any]], reps: int) -> dict[str, float]:
    """Least seconds of each contender; one warm-up call each, then `reps` rounds in turn."""
    return interleaved_clocks(contenders, reps)[0]


def interleaved_clocks(contenders: dict[str, Callable[[], Any]], reps: int
                       ) -> tuple[dict[str, float], dict[str, float]]:
    """`interleaved`'s least wall seconds, and each contender's least CPU seconds of the
    process (`time.process_time`: every thread's; for a single-threaded contender its own
    work, which other processes' load changes least)."""
    for fn in contenders.values():
        fn()
    wall: dict[str, list[float]] = {name: [] for name in contenders}
    cpu: dict[str, list[float]] = {name: [] for name in contenders}
    names = list(contenders)
    for r in range(reps):
        for name in names[r % len(names):] + names[: r % len(names)]:
            start, start_cpu = time.perf_counter(), time.process_time()
            contenders[name]()
            cpu[name].append(time.process_time() - start_cpu)
            wall[name].append(time.perf_counter() - start)
    return ({name: min(ts) for name, ts in wall.items()},
            {name: min(ts) for name, ts in cpu.items()})


@dataclass
class Row:
    title: str
    target: str
    lines: list[tuple[str, str, str]] = field(default_factory=list)  # contender, time, ratio
    verdict: str = ""
    notes: list[str] = field(default_factory=list)


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds < 10 else f"{seconds:.1f} s"


def peer(name: str) -> Any:
    """The peer module, or None (noted) when it is not installed."""
    try:
        if name == "torch":
            import torch

            return torch
        if name == "jax":
            import jax

            jax.config.update("jax_enable_x64", True)
            jax.config.update("jax_platforms", "cpu")
            return jax
        if name == "autograd":
            import autograd

            return autograd
    except Exception:  # noqa: BLE001 - any failure to import means "not measured"
        return None
    return None


PEER_NAMES = {"torch": "PyTorch", "jax": "JAX", "autograd": "HIPS autograd"}


def missing(peers: dict[str, Any]) -> list[str]:
    return [f"{PEER_NAMES[k]} not installed: skipped" for k, v in peers.items() if v is None]


def ratio_rows(row: Row, times: dict[str, float], floor: str) -> None:
    base = times[floor]
    for name, t in times.items():
        row.lines.append((name, ms(t), f"{t / base:.2f} ×"))


# --------------------------------------------------------------------------- rows

TAPE = "gradcalc on the tape (program recorded + reverse sweep)"
FUSED = "gradcalc fused (one blocked pass, every core)"
POINTS_TAPE = "gradcalc --points on the tape (one vectorised pass)"


def unfused(run: Callable[[], Any]) -> Any:
    """`run()` with fused kernels off: the eager tape."""
    with fused.fusion(False):
        return run()



def w1_torch(torch: Any, x: np.ndarray) -> Callable[[], Any]:
    """W1's gradient in PyTorch eager (its value and gradient, as the others give)."""
    def torch_grad():
        xt = torch.from_numpy(x).requires_grad_()
        torch.sum(torch.sin(xt) * torch.exp(-xt**2) + torch.log(1 + xt**2)).backward()
        return xt.grad

    return torch_grad


def row_gradient(n: int, reps: int, peers: dict[str, Any]) -> Row:
    row = Row(f"W1: gradient of sum(sin(x)*exp(-x**2) + log(1+x**2)), x of {n:,} float64",
              "≤ 2.3 × the NumPy forward on the tape; fused ≤ PyTorch's ratio")
    x = np.random.default_rng(0).standard_normal(n)
    f, _ = as_function(parse("y = sum(sin(x)*exp(-x**2) + log(1+x**2))"), ["x"], {}, of="y")

    def numpy_grad():  # the value and the gradient, as an autograd tool gives both
        s, c, e, q = np.sin(x), np.cos(x), np.exp(-x * x), 1.0 + x * x
        return np.sum(s * e + np.log(q)), c * e - 2.0 * x * s * e + 2.0 * x / q

    contenders = {
        "NumPy forward (floor)": lambda: np.sum(np.sin(x) * np.exp(-x**2) + np.log(1 + x**2)),
        TAPE: lambda: unfused(lambda: functional.vjp(f, x, 1.0)),
        "hand-written NumPy value and gradient": numpy_grad,
    }
    contenders[FUSED] = lambda: functional.vjp(f, x, 1.0)
    if peers["autograd"]:
        import autograd.numpy as anp

        g = peers["autograd"].grad(lambda x: anp.sum(anp.sin(x) * anp.exp(-x**2)
                                                     + anp.log(1 + x**2)))
        contenders["HIPS autograd"] = lambda: g(x)
    if peers["torch"]:
        contenders["PyTorch eager"] = w1_torch(peers["torch"], x)
    if peers["jax"]:
        jax, jnp = peers["jax"], peers["jax"].numpy
        jg = jax.jit(jax.grad(lambda x: jnp.sum(jnp.sin(x) * jnp.exp(-x**2)
                                                + jnp.log(1 + x**2))))
        xj = jnp.asarray(x)
        contenders["JAX grad (jit)"] = lambda: jg(xj).block_until_ready()
    times, cpu = interleaved_clocks(contenders, reps)
    ratio_rows(row, times, "NumPy forward (floor)")
    floor = times["NumPy forward (floor)"]
    r, by_cpu = times[TAPE] / floor, cpu[TAPE] / cpu["NumPy forward (floor)"]
    hand = cpu["hand-written NumPy value and gradient"] / cpu["NumPy forward (floor)"]
    # the tape and its floor run on one thread: CPU time is their own work, which other
    # processes' load changes least (wall time shown beside it)
    row.verdict = (f"tape {by_cpu:.2f} × by CPU time (hand-written NumPy {hand:.2f} ×), "
                   f"{r:.2f} × by wall time — {'met' if by_cpu <= 2.3 else 'NOT met'}")
    fr = times[FUSED] / floor
    torch_r = times.get("PyTorch eager", float("nan")) / floor
    row.verdict += (f"; fused {fr:.2f} × vs PyTorch {torch_r:.2f} × — "
                    f"{'met' if fr <= torch_r else 'NOT met'}")
    row.notes.append("CPU time, least of the repeats: " + ", ".join(
        f"{name.split(' (')[0]} {ms(cpu[name])}" for name in
        ("NumPy forward (floor)", TAPE, "hand-written NumPy value and gradient")))
    row.notes += missing(peers)
    return row


LIBRARY_TAPE = "gradcalc.grad(f, x) on the tape"
LIBRARY_FUSED = "gradcalc.grad(f, x) traced and fused"


def w1_library(x: Any) -> Any:
    """W1 as a user writes it for the library: a Python function of gradcalc tensors."""
    return gradcalc.sum(gradcalc.sin(x) * gradcalc.exp(-x**2) + gradcalc.log(1 + x**2))


def row_library_gradient(n: int, reps: int, peers: dict[str, Any]) -> Row:
    row = Row(f"W1 through the library: gradcalc.grad(f, x) over a Python function, x of "
              f"{n:,} float64", "traced and fused ≤ PyTorch's ratio")
    x = np.random.default_rng(0).standard_normal(n)
    contenders = {
        "NumPy forward (floor)": lambda: np.sum(np.sin(x) * np.exp(-x**2) + np.log(1 + x**2)),
        LIBRARY_TAPE: lambda: unfused(lambda: gradcalc.grad(w1_library, x)),
        LIBRARY_FUSED: lambda: gradcalc.grad(w1_library, x),
    }
    if peers["torch"]:
        contenders["PyTorch eager"] = w1_torch(peers["torch"], x)
    times = interleaved(contenders, reps)
    ratio_rows(row, times, "NumPy forward (floor)")
    floor = times["NumPy forward (floor)"]
    fr, tr = times[LIBRARY_FUSED] / floor, times[LIBRARY_TAPE] / floor
    torch_r = times.get("PyTorch eager", float("nan")) / floor
    row.verdict = (f"fused {fr:.2f} × (tape {tr:.2f} ×) vs PyTorch {torch_r:.2f} × — "
                   f"{'met' if fr <= torch_r else 'NOT met'}")
    row.notes += missing({"torch": peers["torch"]})
    return row


def row_jacobian(n: int, reps: int, peers: dict[str, Any]) -> Row:
    row = Row(f"W2: dense Jacobian of x**2*sum(x) + sin(x), n = {n:,}",
              "faster than torch.func.jacrev and jax.jacrev (jit)")
    x = np.random.default_rng(1).standard_normal(n)
    f, _ = as_function(parse("y = x**2*sum(x) + sin(x)"), ["x"], {}, of="y")
    contenders: dict[str, Callable[[], Any]] = {
        "gradcalc (one batched reverse sweep)": lambda: functional.jacobian(f, x),
        "NumPy by hand: diag(2x·sum + cos) + outer(x², 1)": lambda: (
            np.diag(2 * x * np.sum(x) + np.cos(x)) + np.outer(x**2, np.ones(n))),
    }
    if peers["torch"]:
        torch = peers["torch"]
        xt = torch.from_numpy(x)

        def ft(v):
            return v**2 * torch.sum(v) + torch.sin(v)

        contenders["torch.func.jacrev"] = lambda: torch.func.jacrev(ft)(xt)
        contenders["torch.autograd.functional.jacobian"] = (
            lambda: torch.autograd.functional.jacobian(ft, xt))
    if peers["jax"]:
        jax, jnp = peers["jax"], peers["jax"].numpy
        jj = jax.jit(jax.jacrev(lambda v: v**2 * jnp.sum(v) + jnp.sin(v)))
        xj = jnp.asarray(x)
        contenders["jax.jacrev (jit)"] = lambda: jj(xj).block_until_ready()
    if peers["autograd"]:
        import autograd.numpy as anp

        ja = peers["autograd"].jacobian(lambda v: v**2 * anp.sum(v) + anp.sin(v))
        contenders["HIPS autograd"] = lambda: ja(x)
    times = interleaved(contenders, reps)
    for name, t in times.items():
        row.lines.append((name, ms(t), ""))
    ours = times["gradcalc (one batched reverse sweep)"]
    rivals = {k: v for k, v in times.items() if k in ("torch.func.jacrev", "jax.jacrev (jit)")}
    if rivals:
        best = min(rivals, key=rivals.get)
        met = all(ours < v for v in rivals.values())
        row.verdict = (f"{ms(ours)} vs {best} {ms(rivals[best])} — "
                       f"{'met' if met else 'NOT met'}")
    else:
        row.verdict = f"{ms(ours)} — no rival installed to compare"
    row.notes += missing(peers)
    return row


def row_points(n: int, reps: int, peers: dict[str, Any]) -> Row:
    row = Row(f"gradient at {n:,} points of a*b*sin(c) + exp(a*c)/(1+b**2)",
              "≤ 2.5 × the NumPy forward alone (the tape)")
    rng = np.random.default_rng(2)
    a, b, c = (rng.uniform(-1, 1, n) for _ in range(3))
    program = parse("y = a*b*sin(c) + exp(a*c)/(1+b**2)")
    values = {"a": a, "b": b, "c": c}

    def numpy_grad():  # the values and the gradients, as --points gives both
        s, e, d = np.sin(c), np.exp(a * c), 1.0 + b * b
        return (a * b * s + e / d, b * s + c * e / d, a * s - 2.0 * b * e / (d * d),
                a * b * np.cos(c) + a * e / d)

    contenders: dict[str, Callable[[], Any]] = {
        "NumPy forward (floor)": lambda: a * b * np.sin(c) + np.exp(a * c) / (1 + b**2),
        POINTS_TAPE: lambda: unfused(lambda: batched.evaluate(
            program, values, ["a", "b", "c"], "y", Limits(), seed=np.ones)),
        "hand-written NumPy values and gradients": numpy_grad,
    }
    contenders["gradcalc --points, fused"] = lambda: batched.evaluate(
        program, values, ["a", "b", "c"], "y", Limits(), seed=np.ones)
    import sympy as sp

    sa, sb, sc = sp.symbols("a b c")
    expr = sa * sb * sp.sin(sc) + sp.exp(sa * sc) / (1 + sb**2)
    lam = sp.lambdify((sa, sb, sc), [sp.diff(expr, v) for v in (sa, sb, sc)], "numpy")
    contenders["sympy diff + lambdify (evaluation)"] = lambda: lam(a, b, c)
    if peers["autograd"]:
        import autograd.numpy as anp

        ga = peers["autograd"].grad(
            lambda abc: anp.sum(abc[0] * abc[1] * anp.sin(abc[2])
                                + anp.exp(abc[0] * abc[2]) / (1 + abc[1]**2)))
        stacked = np.stack([a, b, c])
        contenders["HIPS autograd"] = lambda: ga(stacked)
    if peers["torch"]:
        torch = peers["torch"]

        def torch_grad():
            ta, tb, tc = (torch.from_numpy(v).requires_grad_() for v in (a, b, c))
            y = ta * tb * torch.sin(tc) + torch.exp(ta * tc) / (1 + tb**2)
            y.backward(torch.ones_like(y))
            return ta.grad, tb.grad, tc.grad

        contenders["PyTorch eager"] = torch_grad
    if peers["jax"]:
        jax, jnp = peers["jax"], peers["jax"].numpy
        jg = jax.jit(jax.grad(lambda a, b, c: jnp.sum(a * b * jnp.sin(c)
                                                      + jnp.exp(a * c) / (1 + b**2)),
                              argnums=(0, 1, 2)))
        aj, bj, cj = (jnp.asarray(v) for v in (a, b, c))
        contenders["JAX grad (jit)"] = lambda: [g.block_until_ready() for g in jg(aj, bj, cj)]
    times, cpu = interleaved_clocks(contenders, reps)
    ratio_rows(row, times, "NumPy forward (floor)")
    floor, hand = "NumPy forward (floor)", "hand-written NumPy values and gradients"
    r, by_cpu = times[POINTS_TAPE] / times[floor], cpu[POINTS_TAPE] / cpu[floor]
    # judged by CPU time, as W1: the tape and its floor run on one thread
    row.verdict = (f"tape {by_cpu:.2f} × by CPU time (hand-written NumPy "
                   f"{cpu[hand] / cpu[floor]:.2f} ×), {r:.2f} × by wall time — "
                   f"{'met' if by_cpu <= 2.5 else 'NOT met'}")
    row.notes.append("CPU time, least of the repeats: " + ", ".join(
        f"{name.split(' (')[0]} {ms(cpu[name])}" for name in (floor, POINTS_TAPE, hand)))
    row.notes += missing(peers)
    row.notes.append("sympy: diff and lambdify are done once, outside the timing")
    return row


SCALAR_STEP = "y = y*1.0001 + sin(y)*0.001"
OPS_PER_STEP = 4  # mul, sin, mul, add


def row_scalar(steps: int, big_steps: int, reps: int, peers: dict[str, Any]) -> Row:
    row = Row(f"W4: scalar program of {steps:,} steps `{SCALAR_STEP}`, then backward",
              "≤ 3 µs per recorded operation, ahead of PyTorch; 10^6 steps work")
    ops = steps * OPS_PER_STEP
    program = parse(f"y = x\nfor i in range({steps}):\n    {SCALAR_STEP}")
    f, _ = as_function(program, ["x"], {}, of="y", limits=UNBOUNDED)

    def eager():
        x = gradcalc.tensor(0.5, requires_grad=True)
        y = x
        for _ in range(steps):
            y = y * 1.0001 + gradcalc.sin(y) * 0.001
        y.backward()
        return x.grad

    contenders: dict[str, Callable[[], Any]] = {
        "gradcalc program (interpreter on the tape)": lambda: functional.vjp(f, 0.5, 1.0),
        "gradcalc library, eager (PyTorch-style loop)": eager,
    }
    if peers["torch"]:
        torch = peers["torch"]

        def torch_eager():
            x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
            y = x
            for _ in range(steps):
                y = y * 1.0001 + torch.sin(y) * 0.001
            y.backward()
            return x.grad

        contenders["PyTorch eager"] = torch_eager
    if peers["autograd"]:
        import autograd.numpy as anp

        def fa(y):
            for _ in range(steps):
                y = y * 1.0001 + anp.sin(y) * 0.001
            return y

        ga = peers["autograd"].grad(fa)
        contenders["HIPS autograd"] = lambda: ga(0.5)
    times = interleaved(contenders, reps)
    for name, t in times.items():
        row.lines.append((name, ms(t), f"{t / ops * 1e6:.2f} µs/op"))
    per_op = times["gradcalc program (interpreter on the tape)"] / ops * 1e6
    big = parse(f"y = x\nfor i in range({big_steps}):\n    {SCALAR_STEP}")
    fb, _ = as_function(big, ["x"], {}, of="y", limits=UNBOUNDED)
    start = time.perf_counter()
    _, grad = functional.vjp(fb, 0.5, 1.0)
    took = time.perf_counter() - start
    row.lines.append((f"gradcalc program, {big_steps:,} steps (one run)", ms(took),
                      f"{took / (big_steps * OPS_PER_STEP) * 1e6:.2f} µs/op"))
    works = bool(np.isfinite(grad))
    row.verdict = (f"{per_op:.2f} µs/op — {'met' if per_op <= 3 else 'NOT met'}; "
                   f"{big_steps:,} steps {'work' if works else 'FAIL'}")
    row.notes += missing({k: peers[k] for k in ("torch", "autograd")})
    return row


def compile_gradcalc() -> None:
    """gradcalc's .pyc files, every module's, as `pip install .` writes them at install
    time (where PYTHONDONTWRITEBYTECODE is set, a run would compile what it imports)."""
    package = os.path.dirname(os.path.abspath(gradcalc.__file__))
    subprocess.run([sys.executable, "-m", "compileall", "-q", package], capture_output=True,
                   check=False)


def gradcalc_command() -> list[str]:
    script = shutil.which("gradcalc")
    return [script] if script else [sys.executable, "-m", "gradcalc"]


def timed_process(args: list[str], stdin: bytes | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(args, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    return time.perf_counter() - start


def process_cpu(args: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, its children's included) of one process run."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = timed_process(args)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def interleaved_processes(contenders: dict[str, list[str]], reps: int
                          ) -> tuple[dict[str, float], dict[str, float]]:
    """Least wall and least CPU seconds of each command line, run round-robin (one warm-up
    each). CPU time holds on a loaded machine, where wall time waits for the cores."""
    for args in contenders.values():
        process_cpu(args)
    walls: dict[str, list[float]] = {name: [] for name in contenders}
    cpus: dict[str, list[float]] = {name: [] for name in contenders}
    names = list(contenders)
    for r in range(reps):
        for name in names[r % len(names):] + names[: r % len(names)]:
            wall, cpu = process_cpu(contenders[name])
            walls[name].append(wall)
            cpus[name].append(cpu)
    return ({n: min(t) for n, t in walls.items()}, {n: min(t) for n, t in cpus.items()})


def wall_and_cpu_rows(row: Row, walls: dict[str, float], cpus: dict[str, float],
                      floor: str) -> None:
    for name in walls:
        row.lines.append((name, f"{ms(walls[name])}, CPU {ms(cpus[name])}",
                          f"{walls[name] / walls[floor]:.2f} ×, CPU "
                          f"{cpus[name] / cpus[floor]:.2f} ×"))


#: each command's smallest job (files from `startup_files`), as docs/performance.md lists them
SMALLEST_JOBS = {
    "grad 'y = 2*x**2' --at x=1 (with the check)": ["grad", "y = 2*x**2", "--at", "x=1"],
    "same with --no-check": ["grad", "y = 2*x**2", "--at", "x=1", "--no-check"],
    "jacobian 'y = [x, x**2]' --at x=1": ["jacobian", "y = [x, x**2]", "--at", "x=1"],
    "hessian 'y = x**3' --at x=1": ["hessian", "y = x**3", "--at", "x=1"],
    "grad --points (3 rows) --no-check": ["grad", "y = x**2", "--points", "points.csv",
                                          "--no-check"],
    "batch (one job)": ["batch", "job.jsonl"],
    "plot 'y = x**2' --over x=-1:1": ["plot", "y = x**2", "--over", "x=-1:1"],
    "check x^2 --answer 2x": ["check", "x^2", "--answer", "2x"],
    "derive x^2": ["derive", "x^2"],
    "grade (one row) --plain": ["grade", "class.csv", "--plain"],
    "replay (one verdict)": ["replay", "verdicts.jsonl"],
    "sheets (one student) --plain": ["sheets", "--key", "key.csv", "--roster", "roster.csv",
                                     "--plain"],
    "autograder (a one-problem key)": ["autograder", "--key", "key.csv", "--out", "ag.zip"],
    "autograde (one submission)": ["autograde", "--root", "ag"],
}


def startup_files(folder: str) -> None:
    """The smallest inputs of the commands that read files."""
    texts = {"points.csv": "x\n1\n2\n3\n", "class.csv": "id,function,answer\n1,x^2,2x\n",
             "key.csv": "problem,function,points,wrt\n1,x^2,1,\n",
             "roster.csv": "Email,Name\nana@uni.edu,Ana\n",
             "job.jsonl": '{"command": "grad", "program": "y = x**2", "at": "x=1"}\n'}
    for name, text in texts.items():
        with open(os.path.join(folder, name), "w") as fh:
            fh.write(text)
    verdict = subprocess.run([*gradcalc_command(), "check", "x^2", "--answer", "2x", "--json"],
                             capture_output=True, text=True, check=False)
    with open(os.path.join(folder, "verdicts.jsonl"), "w") as fh:
        fh.write(verdict.stdout)
    autograder_root(os.path.join(folder, "ag"), texts["key.csv"])


def autograder_root(root: str, key: str) -> None:
    """The smallest tree `gradcalc autograde` judges (docs/teaching-with-gradcalc.md): the
    key and settings of the autograder's zip, one user's metadata, one answer."""
    texts = {"source/key.csv": key, "source/settings.json": '{"answers": "never"}\n',
             "submission_metadata.json": '{"users": [{"email": "ana@uni.edu"}]}\n',
             "submission/answers.txt": "1: 2x\n"}
    for name, text in texts.items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)


def startup_verdict(walls: dict[str, float], cpus: dict[str, float], floor: str) -> str:
    """W5's verdict over every command's smallest job, by wall and by CPU time: how many
    are within 1.2 × the floor, and the slowest by each."""
    commands = sorted({args[0] for args in SMALLEST_JOBS.values()})
    said = []
    for measure, times in (("wall", walls), ("CPU", cpus)):
        ratios = {name: times[name] / times[floor] for name in SMALLEST_JOBS}
        worst = max(ratios, key=ratios.__getitem__)
        within = sum(r <= 1.2 for r in ratios.values())
        met = "met" if within == len(ratios) else "NOT met"
        said.append(f"{measure}: {within} of {len(ratios)} jobs within 1.2 ×, the slowest "
                    f"{worst} {ratios[worst]:.2f} × — {met}")
    return f"every command ({len(commands)}): " + "; ".join(said)


def row_startup(reps: int, peers: dict[str, Any]) -> list[Row]:
    cmd = gradcalc_command()
    floor_name = "python -c 'import sympy, numpy, typer, rich'"
    imports = [sys.executable, "-c", "import sympy, numpy, typer, rich"]
    compile_gradcalc()
    folder = tempfile.mkdtemp(prefix="gradcalc-startup-")
    startup_files(folder)

    def job(args: list[str]) -> list[str]:
        return [*cmd, *(os.path.join(folder, a) if a.endswith((".csv", ".jsonl", ".zip"))
                        or a == "ag" else a for a in args)]

    contenders = {floor_name: imports, **{name: job(args) for name, args in SMALLEST_JOBS.items()}}
    if peers["torch"]:
        script = ("import torch; x = torch.tensor(1.0, requires_grad=True); y = 2*x**2; "
                  "y.backward(); print(x.grad)")
        contenders["PyTorch's smallest backward script"] = [sys.executable, "-c", script]
    walls, cpus = interleaved_processes(contenders, reps)
    shutil.rmtree(folder, ignore_errors=True)
    first = Row("W5: every command's smallest job, whole process (the first: gradcalc grad "
                "\"y = 2*x**2\" --at x=1, with the check)",
                "≤ 1.2 × python -c \"import sympy, numpy, typer, rich\", every command")
    wall_and_cpu_rows(first, walls, cpus, floor_name)
    first.verdict = startup_verdict(walls, cpus, floor_name)
    probe = subprocess.run([sys.executable, "-X", "importtime", "-m", "gradcalc", "grad",
                            "y = 2*x**2", "--at", "x=1", "--no-check"],
                           capture_output=True, text=True, check=False)
    imported = any(line.rstrip().endswith(" sympy") for line in probe.stderr.splitlines())
    second = Row("same with --no-check", "sympy never imported")
    name = "same with --no-check"
    second.lines.append(("gradcalc … --no-check", ms(walls[name]),
                         f"{walls[name] / walls[floor_name]:.2f} ×"))
    second.verdict = ("sympy imported — NOT met" if imported else
                      "sympy not imported (python -X importtime) — met")
    return [first, second]


TABLE_PROGRAM = "y = a*b*sin(c) + exp(a*c)/(1+b**2)"


def _points_table(row: Row, rows: int) -> tuple[Any, str | None, str]:
    """bench/scale.py, and a new folder holding its CSV of `rows` points (W3's table); no
    folder, and `row`'s verdict said, when polars (the fast extra) is not installed."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import scale

    if importlib.util.find_spec("polars") is None:
        row.verdict = "not measured: polars (the fast extra) is not installed"
        return scale, None, ""
    folder = tempfile.mkdtemp(prefix="gradcalc-table-")
    data = os.path.join(folder, "points.csv")
    scale.points_file(Path(data), rows)
    return scale, folder, data


def row_table(rows: int, reps: int) -> Row:
    """W3: a CSV of `rows` points in, the gradient CSV out, against a polars + NumPy script
    doing the same (bench/scale.py's, which also measures memory and --jobs)."""
    row = Row(f"W3: {rows:,}-row CSV → gradient CSV of {TABLE_PROGRAM}, whole process",
              "≤ 1.5 × a polars + NumPy script, with and without the check")
    scale, folder, data = _points_table(row, rows)
    if folder is None:
        return row
    script = os.path.join(folder, "by_hand.py")  # not polars.py: it would shadow polars
    with open(script, "w") as fh:
        fh.write(scale.POLARS)
    compile_gradcalc()
    ours = [*gradcalc_command(), "grad", TABLE_PROGRAM, "--points", data, "--output"]
    contenders = {
        "polars + NumPy script": [sys.executable, script, data, os.path.join(folder, "hand.csv")],
        "gradcalc --no-check": [*ours, os.path.join(folder, "fast.csv"), "--no-check"],
        "gradcalc, checked": [*ours, os.path.join(folder, "checked.csv")],
    }
    walls, cpus = interleaved_processes(contenders, reps)
    same = scale.same_numbers(Path(folder, "fast.csv"), Path(folder, "hand.csv"))
    apart = scale.max_relative(Path(folder, "fast.csv"), Path(folder, "hand.csv"))
    shutil.rmtree(folder, ignore_errors=True)
    base = "polars + NumPy script"
    wall_and_cpu_rows(row, walls, cpus, base)
    r, rc = (walls["gradcalc --no-check"] / walls[base], walls["gradcalc, checked"] / walls[base])
    c, cc = (cpus["gradcalc --no-check"] / cpus[base], cpus["gradcalc, checked"] / cpus[base])
    row.verdict = (f"{r:.2f} × without the check, {rc:.2f} × with it (wall; CPU {c:.2f} × and "
                   f"{cc:.2f} ×) — {'met' if max(r, rc) <= 1.5 else 'NOT met'} (wall), "
                   f"{'met' if max(c, cc) <= 1.5 else 'NOT met'} (CPU)")
    row.notes.append("the same numbers as the script" if same else
                     f"numbers at most {apart:.1e} apart from the script's, relatively "
                     "(the fused kernels; on the tape, GRADCALC_FUSION=0, within a few ulps)")
    return row


def row_table_in_process(rows: int, reps: int) -> Row:
    """W3's pipeline in one process, imports done: gradcalc's --points run without the
    check against the script's body (polars' read, the NumPy formula, polars' write), so
    the pipeline's own cost shows apart from either's start-up."""
    row = Row(f"W3 in one process: {rows:,} rows, imports done, no check",
              "the pipeline's CPU beyond the script's (start-up apart)")
    _, folder, data = _points_table(row, rows)
    if folder is None:
        return row
    import polars as pl

    from gradcalc.commands.jobs import Job
    from gradcalc.run import stream

    def by_hand() -> None:
        df = pl.read_csv(data)
        a, b, c = (df[k].to_numpy() for k in ("a", "b", "c"))
        s, e, d = np.sin(c), np.exp(a * c), 1 + b**2
        g = 1 / d * e
        df.with_columns(y=a * b * s + e / d, **{
            "dy/da": g * c + s * b, "dy/db": -e / (d * d) * (2 * b) + s * a,
            "dy/dc": g * a + a * b * np.cos(c)}).write_csv(os.path.join(folder, "hand.csv"))

    def ours() -> None:
        stream.run(Job("grad", TABLE_PROGRAM, check=False), data, "csv",
                   output=os.path.join(folder, "ours.csv"), stdout=io.StringIO())

    walls, cpus = interleaved_clocks({"the script's body": by_hand,
                                      "gradcalc's --points pipeline": ours}, reps)
    shutil.rmtree(folder, ignore_errors=True)
    wall_and_cpu_rows(row, walls, cpus, "the script's body")
    extra = cpus["gradcalc's --points pipeline"] - cpus["the script's body"]
    row.verdict = f"{ms(extra)} of CPU more than the script's body"
    return row


def row_batch(jobs: int, reps: int) -> Row:
    row = Row(f"gradcalc batch, {jobs} small grad jobs with checks", "≥ 100 jobs/s")
    programs = ["y = 2*x**2", "y = sin(x)*exp(x)", "y = (a+b)*(b+c)", "y = sum(x**3)",
                "y = log(1+x**2)/x", "b = a + 3; c = b*b*3; out = mean(c)"]
    ats = ["x=1.5", "x=0.7", "a=1, b=2, c=3", "x=[1,2,3]", "x=2", "a=[2,3]"]
    lines = [json.dumps({"command": "grad", "program": programs[i % 6], "at": ats[i % 6]})
             for i in range(jobs)]

    def in_process():
        tally = batch.Tally()
        for answer in batch.run(lines, tally):
            answer_json(answer)
        assert tally.errors == 0 and tally.failures == 0, tally

    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
        fh.write("\n".join(lines) + "\n")
    cmd = [*gradcalc_command(), "batch", fh.name]
    times = interleaved({"in one process (steady state)": in_process,
                         "whole process, start-up included": lambda: timed_process(cmd)}, reps)
    os.unlink(fh.name)
    for name, t in times.items():
        row.lines.append((name, ms(t), f"{jobs / t:.0f} jobs/s"))
    rate = jobs / times["whole process, start-up included"]
    row.verdict = f"{rate:.0f} jobs/s (whole process) — {'met' if rate >= 100 else 'NOT met'}"
    return row


# --------------------------------------------------------------------------- report


def machine() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info = {"cpu": f"{cpu}, {os.cpu_count()} cores", "python": platform.python_version(),
            "numpy": np.__version__, "gradcalc": gradcalc.__version__,
            "platform": platform.platform()}
    for name in ("sympy", "typer", "numexpr", "torch", "jax", "autograd"):
        try:
            from importlib.metadata import version

            info[name] = version(name)
        except Exception:  # noqa: BLE001
            info[name] = "not installed"
    info["OPENBLAS_CORETYPE"] = os.environ.get("OPENBLAS_CORETYPE", "unset")
    info["OPENBLAS_L2_SIZE"] = os.environ.get("OPENBLAS_L2_SIZE", "unset")
    return info


def load_average() -> str:
    """The 1, 5 and 15 minute load averages (other work on the machine), or "unknown"."""
    try:
        with open("/proc/loadavg") as fh:
            return " ".join(fh.read().split()[:3])
    except OSError:
        return "unknown"


def report(rows: list[Row], info: dict[str, str]) -> str:
    out = ["gradcalc benchmark — least of the repeats, same machine, same run", ""]
    out += [f"  {k}: {v}" for k, v in info.items()]
    for row in rows:
        out += ["", f"## {row.title}", f"   target: {row.target}", f"   result: {row.verdict}"]
        width = max(len(name) for name, _, _ in row.lines)
        for name, t, ratio in row.lines:
            out.append(f"   {name.ljust(width)}  {t.rjust(10)}  {ratio}")
        out += [f"   note: {n}" for n in row.notes]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="small sizes and few repetitions: a smoke run, not a measurement")
    parser.add_argument("--no-peers", action="store_true", help="skip PyTorch, JAX, autograd")
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = parser.parse_args(argv)
    quick = args.quick
    reps = 3 if quick else 9
    peers = {name: None if args.no_peers else peer(name) for name in PEER_NAMES}
    load_at_start = load_average()
    rows = [
        row_gradient(10**4 if quick else 10**6, reps if quick else 15, peers),
        row_library_gradient(10**4 if quick else 10**6, reps, peers),
        row_jacobian(100 if quick else 1000, reps, peers),
        row_points(10**4 if quick else 10**6, reps if quick else 15, peers),
        row_scalar(10**3 if quick else 10**5, 10**4 if quick else 10**6, 3 if quick else 5,
                   peers),
        row_table(10**4 if quick else 10**6, 2 if quick else 5),
        row_table_in_process(10**4 if quick else 10**6, 2 if quick else 5),
        *row_startup(3 if quick else 11, peers),
        row_batch(20 if quick else 300, 3 if quick else 5),
    ]
    info = machine()
    info["load average at start"] = load_at_start
    info["load average at end"] = load_average()
    print(report(rows, info))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": info, "rows": [vars(r) for r in rows]}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""bench/run.py's W5 row: every command has a smallest job, and each job succeeds on the
files the benchmark writes for it (a job that failed would time its error). No timing."""

from __future__ import annotations

import subprocess
import sys

import pytest
from bench_scripts import load

from gradcalc.cli import COMMANDS

bench = load("run")


def test_every_command_has_a_smallest_job():
    assert {args[0] for args in bench.SMALLEST_JOBS.values()} == set(COMMANDS)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    where = tmp_path_factory.mktemp("startup")
    bench.startup_files(str(where))
    return where


@pytest.mark.parametrize("name", list(bench.SMALLEST_JOBS))
def test_each_smallest_job_succeeds_on_the_benchmarks_files(folder, name):
    args = [sys.executable, "-m", "gradcalc", *bench.SMALLEST_JOBS[name]]
    proc = subprocess.run(args, cwd=folder, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_the_verdict_counts_every_job_by_wall_and_by_cpu():
    floor = "floor"
    walls = {floor: 1.0, **{name: 1.1 for name in bench.SMALLEST_JOBS}}
    cpus = {floor: 1.0, **{name: 1.0 for name in bench.SMALLEST_JOBS}}
    slow = list(bench.SMALLEST_JOBS)[-1]
    cpus[slow] = 1.3
    verdict = bench.startup_verdict(walls, cpus, floor)
    n = len(bench.SMALLEST_JOBS)
    assert verdict.startswith(f"every command ({len(COMMANDS)}): ")
    assert f"wall: {n} of {n} jobs within 1.2 ×" in verdict and "— met; CPU" in verdict
    assert f"CPU: {n - 1} of {n} jobs within 1.2 ×, the slowest {slow} 1.30 × — NOT met" \
        in verdict

"""A stream that cannot encode gradcalc's symbols gets them spelled in ASCII, not a crash."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def run(encoding: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": encoding, "NO_COLOR": "1", "COLUMNS": "80"}
    return subprocess.run([sys.executable, "-m", "gradcalc", *args], capture_output=True,
                          env=env, timeout=120)


def test_an_ascii_stdout_reads_the_symbols_in_ascii() -> None:
    proc = run("ascii", "grad", "y = 2*x**2", "--at", "x=3", "--explain")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode("ascii")
    assert "dy/dx   12" in out
    assert "ok pass" in out
    assert "d#2*" in out  # the rule `∂#2·2·#1^(2−1)` spelled in ASCII


@pytest.mark.parametrize("args", [["grad", "y = 2*x**"], ["check", "x^2", "--answer", "2x"]])
def test_errors_and_verdicts_reach_an_ascii_stream(args: list[str]) -> None:
    proc = run("ascii", *args)
    assert b"Traceback" not in proc.stderr
    assert b"internal error" not in proc.stdout + proc.stderr
    proc.stdout.decode("ascii"), proc.stderr.decode("ascii")

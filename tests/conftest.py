"""Shared helpers: run gradcalc through its installed entry point, or in-process."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

import pytest
from hypothesis import settings

#: under CI (CI=true) every property test draws the same examples on every run, so a
#: submission is judged on its code, not on the draw; run locally, they explore anew
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

#: the only clock in the suite: a generous backstop that tells a hang from an answer on a
#: busy machine (limits are tested by the work they count, never by the time they take);
#: GRADCALC_TIME_SCALE stretches it on a slow one
BACKSTOP_SECONDS = 30.0 * float(os.environ.get("GRADCALC_TIME_SCALE", "1"))


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> dict:
        return json.loads(self.out)


def entry_point() -> list[str]:
    """The installed `gradcalc` script (CI installs the package), else `python -m gradcalc`."""
    script = shutil.which("gradcalc")
    return [script] if script else [sys.executable, "-m", "gradcalc"]


def run_cli(*args: str, stdin: str | None = None, timeout: float = 60, cwd=None) -> Run:
    """Run the real command in a subprocess, as a user's shell would."""
    proc = subprocess.run([*entry_point(), *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)
    return Run(proc.returncode, proc.stdout, proc.stderr)


def run_main(*args: str, stdin: str | None = None, cwd=None) -> Run:
    """Run the command in-process through `gradcalc.cli.main`, the function the installed
    script calls: what it prints and returns, without starting Python and importing
    numpy and sympy again (tests of the shell itself use `run_cli`). `stdin` is piped
    in, as bytes under a text stream like a real pipe's (empty when None)."""
    from gradcalc.cli import main

    out, err = io.StringIO(), io.StringIO()
    piped = io.TextIOWrapper(io.BytesIO((stdin or "").encode("utf-8")), encoding="utf-8")
    before = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                _stdin(piped):
            code = main(list(args))
    finally:
        os.chdir(before)
    return Run(code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _stdin(stream):
    saved, sys.stdin = sys.stdin, stream
    try:
        yield
    finally:
        sys.stdin = saved


def same_ieee(actual, expected) -> bool:
    """Equal as IEEE values: nan matches nan, and 0.0 does not match -0.0."""
    import numpy as np

    a = np.asarray(actual, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    if a.shape != e.shape:
        return False
    both_nan = np.isnan(a) & np.isnan(e)
    equal = (a == e) & (np.signbit(a) == np.signbit(e))
    return bool(np.all(both_nan | equal))


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def invoke(capsys):
    """Run gradcalc.cli.main in-process (fast); returns a Run."""
    from gradcalc.cli import main

    def _invoke(*args: str) -> Run:
        code = main(list(args))
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return _invoke

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
from hypothesis import HealthCheck, settings

#: every property test draws the same examples on every run, on a newcomer's fresh clone as
#: in CI, so a red run is a verdict on the code, not on the draw; GRADCALC_EXPLORE=1 (or
#: `--hypothesis-profile explore`) draws new examples on each run, EXPLORE_FACTOR times as
#: many (GRADCALC_EXPLORE_FACTOR, 10 unless told). No profile has a deadline or a health
#: check on speed: no test depends on the machine's speed.
EXPLORE_FACTOR = int(os.environ.get("GRADCALC_EXPLORE_FACTOR", "10"))
_ANY_SPEED = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("fixed", derandomize=True, database=None, **_ANY_SPEED)
settings.register_profile("explore", derandomize=False, max_examples=100 * EXPLORE_FACTOR,
                          **_ANY_SPEED)
settings.load_profile("explore" if os.environ.get("GRADCALC_EXPLORE") else "fixed")


def exploring() -> bool:
    """Whether this run draws new examples (the `explore` profile) rather than fixed ones."""
    return not settings.default.derandomize


def examples(n: int) -> int:
    """A property test's `max_examples`: n, or EXPLORE_FACTOR times n when exploring."""
    return n * EXPLORE_FACTOR if exploring() else n


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
    script calls (through `gradcalc.cli.run`): what it prints and returns, without
    starting Python and importing numpy and sympy again (tests of the shell itself use
    `run_cli`). `stdin` is piped in, as bytes under a text stream like a real pipe's
    (empty when None)."""
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

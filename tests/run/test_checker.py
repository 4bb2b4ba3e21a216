"""The check of a --points run in its own process (run/checker.py): what it says is
what checking in this process says, whether the child answers, dies, hangs or fails on a
row; it never leaves a process behind."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time

import numpy as np
import pytest

from gradcalc.commands import chunks as chunking
from gradcalc.commands import points
from gradcalc.commands.jobs import Job
from gradcalc.render import point_rows as write
from gradcalc.run import checker

PROGRAM = "y = a*b*sin(c) + exp(a*c)/(1+b**2)"
ROWS = 40

#: the tests of the child process (the others run wherever gradcalc does)
needs_fork = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="no fork on this platform: the rows are checked here")


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(7)
    path = tmp_path / "p.csv"
    path.write_text("a,b,c\n" + "".join(f"{u!r},{v!r},{w!r}\n"
                                        for u, v, w in rng.normal(size=(ROWS, 3)).tolist()))
    return path


@pytest.fixture
def spy(monkeypatch):
    """What each run's checker did: forked or not, the child's pid, the rows it answered;
    forking allowed although polars may be loaded in this test process (the child never
    uses it)."""
    seen: dict = {}
    monkeypatch.setattr(checker, "THREADED", frozenset())
    spawn, wait = checker.Checker.spawn, checker.Checker.wait

    def spied_spawn(self):
        forked = spawn(self)
        seen.update(forked=forked, pid=self.process.pid if forked else None,
                    threads=threading.active_count())
        return forked

    def spied_wait(self, tickets):
        wait(self, tickets)
        seen.update(answered=len(self.results), failed=len(self.failed))

    monkeypatch.setattr(checker.Checker, "spawn", spied_spawn)
    monkeypatch.setattr(checker.Checker, "wait", spied_wait)
    return seen


def no_child(monkeypatch):
    monkeypatch.setattr(checker.Checker, "spawn", lambda self: False)


def reaped(pid: int) -> bool:
    """The child is gone and waited for: no zombie (and no process) left."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return not multiprocessing.active_children()
    return False


def run(invoke, table, tmp_path, name, *more, command="grad", program=PROGRAM):
    out = tmp_path / name
    result = invoke(command, program, "--points", str(table), "--chunk-rows", "7",
                    "--output", str(out), *more)
    return result, out.read_bytes() if out.exists() else None


@needs_fork
@pytest.mark.parametrize("command, program, more", [
    ("grad", PROGRAM, ()),
    ("grad", "y = [a*b, sin(c)*a]", ("--weights", "[2, -1]")),
    ("jacobian", "k = [a*b, exp(c)*a, relu(b)]", ()),
    ("hessian", "y = a*a*b + sin(c)*b", ()),
])
def test_the_child_says_what_checking_here_says(invoke, table, tmp_path, spy, monkeypatch,
                                                command, program, more):
    forked, text = run(invoke, table, tmp_path, "forked.csv", *more, command=command,
                       program=program)
    assert spy["forked"] and spy["answered"] == 5 and spy["threads"] == 1
    assert reaped(spy["pid"])
    assert forked.code == 0 and "check: pass (symbolic) on a sample of 5 of 40" in forked.err
    # the note of checking the same rows in this process, as before the checker
    job = Job(command, program, at=[], check=True, weights=more[1] if more else None)
    whole = points.read_table(table.open())
    expected = points.run(job, whole, sample=list(chunking.plan(job, None, ROWS, False).sample))
    assert forked.err == f"note: {write.sample_note(expected.checks, ROWS)}\n"
    no_child(monkeypatch)
    here, same = run(invoke, table, tmp_path, "here.csv", *more, command=command,
                     program=program)
    assert (here.code, here.err, same) == (forked.code, forked.err, text)
    unchecked = run(invoke, table, tmp_path, "unchecked.csv", "--no-check", *more,
                    command=command, program=program)
    assert unchecked[1] == text


@needs_fork
def test_a_failed_check_exits_1_with_the_same_messages(invoke, table, tmp_path, spy,
                                                       monkeypatch):
    evaluate = points.evaluate

    def wrong(*args, **kwargs):  # a tape derivative off by 1e-3 at every point
        output, derivative, paths, passes = evaluate(*args, **kwargs)
        return output, {k: v + 1e-3 for k, v in derivative.items()}, paths, passes

    monkeypatch.setattr(points, "evaluate", wrong)
    forked, _ = run(invoke, table, tmp_path, "forked.csv")
    assert spy["forked"] and spy["answered"] == 5 and reaped(spy["pid"])
    assert forked.code == 1 and "note: check: fail (symbolic) on a sample of 5" in forked.err
    no_child(monkeypatch)
    here, _ = run(invoke, table, tmp_path, "here.csv")
    assert (here.code, here.err) == (forked.code, forked.err)


@needs_fork
def test_a_child_that_dies_leaves_its_rows_here(invoke, table, tmp_path, spy, monkeypatch):
    expected, text = run(invoke, table, tmp_path, "expected.csv")
    monkeypatch.setattr(checker, "_serve", lambda conn, other: os._exit(3))
    died, same = run(invoke, table, tmp_path, "died.csv")
    assert spy["forked"] and spy["answered"] == 0 and reaped(spy["pid"])
    assert (died.code, died.err, same) == (expected.code, expected.err, text)


@needs_fork
def test_a_child_that_hangs_is_given_up(invoke, table, tmp_path, spy, monkeypatch):
    expected, _ = run(invoke, table, tmp_path, "expected.csv")
    monkeypatch.setattr(checker, "_serve", lambda conn, other: time.sleep(600))
    monkeypatch.setattr(checker.Checker, "patience", lambda self, rows: 0.3)
    hung, _ = run(invoke, table, tmp_path, "hung.csv")
    assert spy["forked"] and spy["answered"] == 0 and reaped(spy["pid"])
    assert (hung.code, hung.err) == (expected.code, expected.err)


@needs_fork
def test_a_row_whose_check_raises_in_the_child_is_checked_here(invoke, table, tmp_path, spy,
                                                               monkeypatch):
    expected, _ = run(invoke, table, tmp_path, "expected.csv")
    parent, real = os.getpid(), checker.check_sample

    def flaky(sample, programs=None):
        if os.getpid() != parent and sample.ticket % 2:
            raise RuntimeError("a bug in the child")
        return real(sample, programs)

    monkeypatch.setattr(checker, "check_sample", flaky)
    again, _ = run(invoke, table, tmp_path, "again.csv")
    assert spy["forked"] and (spy["answered"], spy["failed"]) == (3, 2)
    assert (again.code, again.err) == (expected.code, expected.err)


@needs_fork
def test_jobs_workers_send_their_samples_back(invoke, table, tmp_path, spy):
    one, text = run(invoke, table, tmp_path, "one.csv")
    two, same = run(invoke, table, tmp_path, "two.csv", "--jobs", "2")
    assert spy["forked"] and spy["answered"] == 5
    assert (two.code, two.err, same) == (one.code, one.err, text)


def test_json_lines_and_unchecked_runs_start_no_child(monkeypatch):
    started = []
    monkeypatch.setattr(checker.Checker, "spawn", lambda self: started.append(1) or False)
    monkeypatch.setattr(checker, "warm_up", lambda: None)
    checker.start(Job("grad", PROGRAM, check=True), "json")
    checker.start(Job("grad", PROGRAM, check=False), "csv")
    assert not started and checker._ACTIVE is None
    checker.start(Job("grad", PROGRAM, check=True), "csv", jobs=2)
    assert started == [1]
    checker.stop()


@needs_fork
def test_the_child_leaves_jobs_workers_free_to_fork(monkeypatch):
    """No thread is started here: `run.workers` may still fork --jobs workers."""
    from gradcalc.run import workers as parallel

    monkeypatch.setattr(checker, "THREADED", frozenset())
    monkeypatch.setattr(parallel, "_THREADED", frozenset())
    checker.start(Job("grad", PROGRAM, check=True), "csv", jobs=2)
    try:
        assert checker._ACTIVE is not None and checker._ACTIVE.forked
        assert threading.active_count() == 1
        assert parallel._context(None, ()).get_start_method() == "fork"
    finally:
        pid = checker._ACTIVE.process.pid
        checker.stop()
    assert reaped(pid)


def test_the_childs_imports_run_with_the_collector_paused():
    """The child imports sympy with no collection at all (and the objects it inherited
    frozen), then collects again as usual."""
    import subprocess
    import sys

    code = ("import gc, sys\nfrom gradcalc.run import checker\nruns = []\n"
            "gc.callbacks.append(lambda phase, info: runs.append(phase))\n"
            "checker._import_quietly()\n"
            "print(len(runs), gc.isenabled(), gc.get_freeze_count() > 0, 'sympy' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.stdout.split() == ["0", "True", "True", "True"], proc.stderr


@needs_fork
def test_the_fused_kernels_idle_workers_are_stopped_before_a_fork(monkeypatch):
    """A large fused plan run earlier in the process left its worker threads: they are
    stopped, so the child is still forked (and the next plan makes them again)."""
    from gradcalc.engine import blocks

    monkeypatch.setattr(checker, "THREADED", frozenset())
    blocks.pool().submit(int).result()
    assert threading.active_count() > 1
    checker.start(Job("grad", PROGRAM, check=True), "csv")
    try:
        assert checker._ACTIVE is not None and checker._ACTIVE.forked
    finally:
        pid = checker._ACTIVE.process.pid
        checker.stop()
    assert reaped(pid)
    assert blocks.pool().submit(int).result() == 0

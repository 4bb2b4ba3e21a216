"""The check of a --points run in a process of its own, beside the streaming.

A checked --points run looks at a few sampled rows (`points.sample_rows`). Checking them
costs sympy's import (about half a second of CPU) and a symbolic run per row; here that
happens in a child process on another core while this one reads, answers and writes the
table. The child is a fork started before anything with threads (polars, pyarrow) is
imported, when forking is safe; it imports sympy at once. As each chunk holding a sampled
row is answered, the row's `points.Sample` (its point and the tape's derivative there) is
sent to it; its CheckResults come back by ticket and are put in row order at the end,
so the run's note and exit code are those of checking in this process.

Where fork is not available or not safe, or the child dies, hangs or fails on a row,
the rows it has not answered are checked here at the end (sympy imported meanwhile in a
thread, when no --jobs workers are to be forked): the same results. One session at a
time: `start`, then `feed` the answers, `resolve` the run's checks, `stop` (always).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any

from gradcalc.commands.jobs import Job
from gradcalc.commands.points import Sample, check_sample
from gradcalc.render.formats import Format, named
from gradcalc.render.rows_writer import TextRows
from gradcalc.run.workers import _THREADED as THREADED
from gradcalc.run.workers import stop_idle_threads

#: the modules the check needs, imported by the child (or a thread) ahead of the rows
MODULES = ("gradcalc.backends.symbolic", "gradcalc.backends.symbolic_derivatives",
           "gradcalc.verify.check", "gradcalc.verify.against_sympy",
           "gradcalc.backends.numeric", "gradcalc.language.parse")
#: seconds a live child may take to start answering (its imports) ...
START_SECONDS = 60.0
#: ... and then per row beyond its check's own budget, before it is given up
ROW_SECONDS = 30.0


class Checker:
    """One run's sampled rows: sent to the child as they come, or kept to check here."""

    def __init__(self) -> None:
        self.process: Any = None
        self.conn: Any = None
        self.samples: dict[int, Sample] = {}  # ticket -> sample
        self.results: dict[int, Any] = {}  # ticket -> CheckResult from the child
        self.failed: set[int] = set()  # tickets whose check raised in the child
        self.seconds = 0.0  # the check budgets of the rows sent

    @property
    def forked(self) -> bool:
        return self.process is not None

    def spawn(self) -> bool:
        """Fork the child, when that is safe here; whether it was."""
        import multiprocessing

        stop_idle_threads()
        if "fork" not in multiprocessing.get_all_start_methods() or \
                threading.active_count() != 1 or THREADED & sys.modules.keys():
            return False
        context = multiprocessing.get_context("fork")
        ours, theirs = context.Pipe()
        process = context.Process(target=_serve, args=(theirs, ours),
                                  name="gradcalc-checker", daemon=True)
        try:
            process.start()
        except OSError:  # no process to be had: check here
            ours.close()
            theirs.close()
            return False
        theirs.close()  # the child's end: a child that dies reads as end of file here
        self.process, self.conn = process, ours
        return True

    def submit(self, sample: Sample) -> None:
        sample.ticket = len(self.samples)
        self.samples[sample.ticket] = sample
        self.seconds += sample.job.limits.check_seconds
        if self.conn is None:
            return
        try:
            self.conn.send((sample.ticket, sample))
        except (OSError, ValueError):  # the child is gone: this row is checked here
            self.close()
        else:
            self.drain(0)

    def drain(self, wait: float) -> bool:
        """Take the child's answers that are ready (waiting up to `wait` seconds for one);
        False when the child is gone."""
        if self.conn is None:
            return False
        try:
            while self.conn.poll(wait):
                ticket, result = self.conn.recv()
                if result is None:  # the row's check raised there: checked here again
                    self.failed.add(ticket)
                else:
                    self.results[ticket] = result
                wait = 0
        except (EOFError, OSError):
            self.close()
            return False
        return True

    def wait(self, tickets: set[int]) -> None:
        """The child's answers to `tickets`, until it has given them, died or overrun."""
        deadline = time.monotonic() + self.patience(len(tickets))
        while self.conn is not None and not tickets <= self.results.keys() | self.failed:
            alive = self.process.is_alive()
            if not self.drain(0.1):
                break
            if time.monotonic() > deadline:
                self.close(ask=False)  # hung: no use asking it to end
            elif not alive and not tickets <= self.results.keys() | self.failed:
                self.close()

    def patience(self, rows: int) -> float:
        """Seconds to wait for a live child's answers to `rows` rows: its imports, then
        twice each row's check budget and more (a hung child is given up, not waited on
        for ever)."""
        return START_SECONDS + ROW_SECONDS * rows + 2 * self.seconds

    def close(self, ask: bool = True) -> None:
        """End the child (asked, then made to) and reap it: no process is left behind."""
        conn, process = self.conn, self.process
        self.conn = None
        if conn is not None and ask:
            try:
                conn.send(None)
            except (OSError, ValueError):
                pass
        if process is not None:
            process.join(2 if ask else 0)
            if process.is_alive():
                process.terminate()
                process.join(2)
            if process.is_alive():
                process.kill()
                process.join()
        if conn is not None:
            conn.close()

    def check(self, pairs: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
        """The run's (row, Sample | CheckResult) pairs with every sample's CheckResult:
        the child's, or checked here for the rows it did not answer."""
        tickets = {s.ticket for _, s in pairs if isinstance(s, Sample) and s.ticket >= 0}
        self.wait(tickets)
        programs: dict[str, Any] = {}
        out = []
        for row, s in pairs:
            if isinstance(s, Sample):
                found = self.results.get(s.ticket)
                s = found if found is not None else check_sample(s, programs)
            out.append((row, s))
        return out


_ACTIVE: Checker | None = None


def start(job: Job, rows: TextRows | Format | str, jobs: int = 1) -> None:
    """A checked run's checker: a child process when forking is safe now (call first,
    before polars is imported); else the rows are checked here at the end, sympy
    imported meanwhile in a thread when no --jobs workers are to be forked. Rows that
    carry each row's check (JSON lines; the writer of `rows`, or of the format it names,
    says so) are checked inline, as the chunk is answered."""
    global _ACTIVE
    stop()
    if not job.check:
        return
    writer = rows if isinstance(rows, TextRows) else named(rows).rows_writer
    if not writer.checks_inline:
        _ACTIVE = Checker()
        if _ACTIVE.spawn():
            return
    if jobs <= 1:
        warm_up()


def _active() -> Checker:
    global _ACTIVE
    if _ACTIVE is None:
        _ACTIVE = Checker()
    return _ACTIVE


def feed(answers: Iterable[Any]) -> Iterator[Any]:
    """The answers as they come, their sampled rows sent on to the checker."""
    checker = _active()
    for done in answers:
        for _, s in done.checks:
            if isinstance(s, Sample):
                checker.submit(s)
        yield done


def resolve(pairs: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
    """The run's checks, each sampled row's CheckResult in place of its Sample; the
    session ends."""
    try:
        return _active().check(pairs)
    finally:
        stop()


def stop() -> None:
    """End the session, and its child if any."""
    global _ACTIVE
    checker, _ACTIVE = _ACTIVE, None
    if checker is not None:
        checker.close()


def warm_up() -> None:
    """Import the check's modules (sympy: about half a second of CPU) in a thread while
    the table is read and answered, for a run whose rows are checked in this process:
    polars and NumPy release the interpreter's lock, so on a second core the import costs
    the run little."""
    def load() -> None:
        _import_all()

    threading.Thread(target=load, name="gradcalc-check-import", daemon=True).start()


def _import_all() -> None:
    import importlib

    for name in MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the check reports its own failure when it runs
            pass


def _import_quietly() -> None:
    """The child's imports with the garbage collector paused, the parent's objects it
    inherited frozen first: the collector's passes over sympy's new objects (none of them
    garbage) and over the parent's (their pages copied on the way) cost about a fifth of
    the import's CPU (docs/performance.md, W3). The child ends by `os._exit`, so what is
    frozen is never looked at again."""
    import gc

    gc.freeze()
    gc.disable()
    try:
        _import_all()
    finally:
        gc.freeze()  # and sympy's modules: the checks' collections see their own objects
        gc.enable()


def _serve(conn: Any, other: Any) -> None:
    """The child: import the check, then answer (ticket, Sample) with (ticket,
    CheckResult), or (ticket, None) for a row whose check raised, until None or the
    parent's end closes."""
    import signal

    other.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent answers an interrupt
    _import_quietly()
    programs: dict[str, Any] = {}
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        ticket, sample = message
        try:
            result = check_sample(sample, programs)
        except BaseException:  # noqa: BLE001 - checked again in the parent, which reports it
            result = None
        try:
            conn.send((ticket, result))
        except (OSError, ValueError):
            return

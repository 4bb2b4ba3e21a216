"""How long sympy may work: the CPU time of the thread that calls it, never the wall clock.

sympy has no budget of its own, so gradcalc interrupts it: `time_budget(seconds)` raises
`Timeout` in its body once the calling thread has spent `seconds` of CPU time there. A
thread's CPU time does not pass while it waits for a core, so a busy machine cannot
change where sympy stops, and with it a verdict, its feedback or its receipt. The work
gradcalc itself loops over (the steps and rules it tries, the size of what it hands to
sympy) is bounded by counts where it runs; this budget only bounds what sympy does
inside one call.

A generous wall-clock backstop (`backstop_seconds`: `BACKSTOP_TIMES` the budget, at least
`BACKSTOP_MIN_SECONDS`) ends a true hang, where the thread waits instead of working. It
raises `Backstop`, a `Timeout`, and is counted (`backstops`), so that a verdict judged
while it fired can say so in its receipt.

In the main thread the budget is kept by signals: a profiling timer ticks every `TICK`
seconds of the process's CPU time and the tick's handler compares the thread's own CPU
clock with the deadline; a real-time timer is the backstop. In any other thread (a Dask
worker's task) a watcher thread reads the thread's CPU clock every `TICK` seconds and
raises the same exceptions in it. Either repeats (every `REPEAT` seconds, time for the
stack to unwind between two) until the budget is disarmed, in case sympy swallows one,
and restores the timers and handlers it found. One that lands in a finalizer (a
generator closed as the stack unwinds, a `__del__`) cannot propagate: while a budget is
armed `sys.unraisablehook` drops a `Timeout` instead of printing its traceback.
"""

from __future__ import annotations

import math
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

#: how often the deadline is looked at (seconds of CPU time in the main thread, of wall
#: time in a watcher): a budget ends at most about this much late
TICK = 0.01
#: the wall-clock backstop: this many times the CPU budget, and at least this long
BACKSTOP_TIMES, BACKSTOP_MIN_SECONDS = 10.0, 10.0
#: a raised budget is raised again this long after (in case it was swallowed), not sooner:
#: the stack it unwinds runs cleanup code that a second raise would interrupt
REPEAT = 0.1


class Timeout(BaseException):
    """Raised inside sympy when its budget is spent; a BaseException so `except Exception`
    cannot eat it."""


class Backstop(Timeout):
    """Raised when the wall-clock backstop ends a budget before its CPU time is spent."""


def backstop_seconds(seconds: float) -> float:
    """The wall-clock time after which a budget of `seconds` of CPU time is ended anyway."""
    return max(BACKSTOP_TIMES * seconds, BACKSTOP_MIN_SECONDS)


_fired: dict[int, int] = {}
_fired_lock = threading.Lock()


def backstops() -> int:
    """How many times the wall-clock backstop has ended a budget in this thread."""
    return _fired.get(threading.get_ident(), 0)


def _count_backstop(ident: int) -> None:
    with _fired_lock:
        _fired[ident] = _fired.get(ident, 0) + 1


def cpu_clock() -> float:
    """This thread's CPU time in seconds (what a budget counts)."""
    return time.thread_time()


@contextmanager
def time_budget(seconds: float | None) -> Iterator[bool]:
    """Raise `Timeout` in the body once this thread has spent `seconds` of CPU time in it,
    or `Backstop` past `backstop_seconds(seconds)` of wall-clock time (yields whether
    armed; None or 0 arms nothing)."""
    if seconds is None or seconds <= 0:
        yield False
        return
    if threading.current_thread() is not threading.main_thread():
        with _thread_budget(seconds) as armed:
            yield armed
        return
    if not hasattr(signal, "setitimer"):
        yield False
        return
    with _main_budget(seconds) as armed:
        yield armed


# --------------------------------------------------------------------------- main thread


@dataclass(eq=False)
class _Frame:
    """One armed budget of the main thread: its CPU deadline (the earliest of its own and
    its enclosing budgets'), and whether it may still raise."""

    deadline: float
    active: bool = True
    fired: bool = False
    #: when it last raised, by the clock that made it (this thread's CPU clock for its
    #: budget, the wall clock for its backstop): it waits `REPEAT` to raise again
    raised: dict[str, float] = field(default_factory=dict)


_frames: list[_Frame] = []
#: what the outermost budget found and puts back: handlers and timers
_saved: dict[str, Any] = {}


def _on_tick(signum: int, frame: Any) -> None:
    top = _frames[-1] if _frames else None
    if top is not None and top.active and _due(top, "cpu", cpu_clock(), top.deadline):
        raise Timeout()


def _on_backstop(signum: int, frame: Any) -> None:
    top = _frames[-1] if _frames else None
    if top is not None and top.active and _due(top, "wall", time.monotonic(), -math.inf):
        if not top.fired:
            top.fired = True
            _count_backstop(threading.get_ident())
        raise Backstop()


def _due(top: _Frame, clock: str, now: float, deadline: float) -> bool:
    """Whether the budget should raise now: `now` past its deadline, and not raised by
    this `clock` within the last `REPEAT` seconds (marked as raised when it is)."""
    if now < deadline or now - top.raised.get(clock, -math.inf) < REPEAT:
        return False
    top.raised[clock] = now
    return True


@contextmanager
def _main_budget(seconds: float) -> Iterator[bool]:
    outer = not _frames
    deadline = cpu_clock() + seconds
    wall = backstop_seconds(seconds)
    if outer:
        _saved.update(prof=signal.signal(signal.SIGPROF, _on_tick),
                      alarm=signal.signal(signal.SIGALRM, _on_backstop))
        _saved["prof_timer"] = signal.setitimer(signal.ITIMER_PROF, min(seconds, TICK), TICK)
        _saved["alarm_timer"] = signal.setitimer(signal.ITIMER_REAL, wall, TICK)
        enclosing = None
    else:
        deadline = min(deadline, _frames[-1].deadline)
        signal.setitimer(signal.ITIMER_PROF, min(seconds, TICK), TICK)
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        wall = min(wall, left) if left > 0 else wall
        enclosing = left
        signal.setitimer(signal.ITIMER_REAL, wall, TICK)
    frame = _Frame(deadline)
    _frames.append(frame)
    _quiet(frame)
    try:
        yield True
    finally:
        while True:  # a signal may land before the flag is cleared: clear it again
            try:
                frame.active = False
                break
            except Timeout:
                continue
        _restore(outer, wall, enclosing)  # before the frame goes: no tick raises meanwhile
        _frames.pop()
        while True:  # an enclosing budget may raise meanwhile: put the hook back again
            try:
                _unquiet(frame)
                break
            except Timeout:
                continue


def _restore(outer: bool, wall: float, enclosing: float | None) -> None:
    """The timers and handlers as they were before a budget of the main thread (the
    enclosing budget's backstop less the wall-clock time this one took)."""
    spent = wall - signal.getitimer(signal.ITIMER_REAL)[0]
    if not outer:
        if enclosing:
            signal.setitimer(signal.ITIMER_REAL, max(enclosing - spent, 1e-3), TICK)
        return
    signal.setitimer(signal.ITIMER_PROF, 0, 0)
    signal.setitimer(signal.ITIMER_REAL, 0, 0)
    signal.signal(signal.SIGPROF, _saved.pop("prof"))
    signal.signal(signal.SIGALRM, _saved.pop("alarm"))
    for which, key in ((signal.ITIMER_PROF, "prof_timer"), (signal.ITIMER_REAL, "alarm_timer")):
        delay, interval = _saved.pop(key)
        if delay > 0:
            left = delay if which == signal.ITIMER_PROF else max(delay - spent, 1e-3)
            signal.setitimer(which, left, interval)


# --------------------------------------------------------------------------- other threads


@contextmanager
def _thread_budget(seconds: float) -> Iterator[bool]:
    """`time_budget` in a thread that is not the main one (signals reach only that): a
    watcher reads this thread's CPU clock and has CPython's PyThreadState_SetAsyncExc
    raise `Timeout` (or `Backstop`) here, as a signal handler would (sympy is Python
    code; a long NumPy call ends first)."""
    try:
        import ctypes

        raise_in = ctypes.pythonapi.PyThreadState_SetAsyncExc
        clock = time.pthread_getcpuclockid(threading.get_ident())
    except (ImportError, AttributeError, OSError):  # not CPython or no thread clocks
        yield False
        return
    ident = threading.get_ident()
    target = ctypes.c_ulong(ident)
    deadline = time.clock_gettime(clock) + seconds
    ticks = int(backstop_seconds(seconds) / TICK) + 1  # waits of at least TICK each
    stop = threading.Event()

    def watch() -> None:
        for _ in range(ticks):
            if stop.wait(TICK):
                return
            if time.clock_gettime(clock) >= deadline:
                _raise_until(stop, lambda: raise_in(target, ctypes.py_object(Timeout)))
                return
        _count_backstop(ident)
        _raise_until(stop, lambda: raise_in(target, ctypes.py_object(Backstop)))

    watcher = threading.Thread(target=watch, name="gradcalc-check-budget", daemon=True)
    _quiet(stop)
    watcher.start()
    try:
        yield True
    finally:
        while True:  # a Timeout may land while disarming: disarm again
            try:
                stop.set()
                watcher.join()
                _withdraw(raise_in, target)  # one raised but not yet delivered
                _unquiet(stop)
                break
            except Timeout:
                continue


class _Withdrawn(Exception):
    """Delivered to a thread whose budget ends, in place of a Timeout not yet delivered."""


def _withdraw(raise_in: Any, target: Any) -> None:
    """Take back a Timeout raised in this thread but not yet delivered, and the flag it
    leaves set: withdrawn with NULL, Python 3.11 keeps the interpreter's pending flag set
    for good, and a profile function set later (`gradcalc.verify.counted`) then loops
    forever at the next call. A private exception delivered here and caught clears it."""
    import ctypes

    try:
        raise_in(target, ctypes.py_object(_Withdrawn))
        while True:  # delivered at the first jump back
            pass
    except _Withdrawn:
        pass


def _raise_until(stop: threading.Event, raise_once: Any) -> None:
    """Raise in the watched thread every `REPEAT` seconds until its budget is disarmed."""
    while not stop.is_set():
        raise_once()
        if stop.wait(REPEAT):
            return


# --------------------------------------------------------------------------- finalizers

#: the budgets armed now (any thread), and the unraisable hook found by the first of them
_armed: set[object] = set()
_found: list[Any] = []
_armed_lock = threading.Lock()


def _drop_timeouts(unraisable: Any) -> None:
    """sys.unraisablehook while a budget is armed: a Timeout that landed in a finalizer is
    dropped (the budget raises again in the body); anything else goes where it went."""
    if isinstance(unraisable.exc_value, Timeout):
        return
    (_found[-1] if _found else sys.__unraisablehook__)(unraisable)


def _quiet(token: object) -> None:
    """Budget `token` is armed: a Timeout in a finalizer prints nothing (no traceback)."""
    with _armed_lock:
        _armed.add(token)
        if sys.unraisablehook is not _drop_timeouts:
            _found[:] = [sys.unraisablehook]
            sys.unraisablehook = _drop_timeouts


def _unquiet(token: object) -> None:
    """Budget `token` is disarmed; the last to go puts back the hook the first found. Safe
    to call again (a Timeout of an enclosing budget may interrupt it)."""
    with _armed_lock:
        _armed.discard(token)
        if not _armed and sys.unraisablehook is _drop_timeouts:
            sys.unraisablehook = _found[-1] if _found else sys.__unraisablehook__

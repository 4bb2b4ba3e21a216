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
raises the same exceptions in it. Either repeats until the budget is disarmed, in case
sympy swallows one, and restores the timers and handlers it found.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

#: how often the deadline is looked at (seconds of CPU time in the main thread, of wall
#: time in a watcher): a budget ends at most about this much late
TICK = 0.01
#: the wall-clock backstop: this many times the CPU budget, and at least this long
BACKSTOP_TIMES, BACKSTOP_MIN_SECONDS = 10.0, 10.0


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


@dataclass
class _Frame:
    """One armed budget of the main thread: its CPU deadline (the earliest of its own and
    its enclosing budgets'), and whether it may still raise."""

    deadline: float
    active: bool = True
    fired: bool = False


_frames: list[_Frame] = []
#: what the outermost budget found and puts back: handlers and timers
_saved: dict[str, Any] = {}


def _on_tick(signum: int, frame: Any) -> None:
    if _frames and _frames[-1].active and cpu_clock() >= _frames[-1].deadline:
        raise Timeout()


def _on_backstop(signum: int, frame: Any) -> None:
    top = _frames[-1] if _frames else None
    if top is not None and top.active:
        if not top.fired:
            top.fired = True
            _count_backstop(threading.get_ident())
        raise Backstop()


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
    watcher.start()
    try:
        yield True
    finally:
        while True:  # a Timeout may land while disarming: disarm again
            try:
                stop.set()
                watcher.join()
                raise_in(target, None)  # one raised but not yet delivered: withdrawn
                break
            except Timeout:
                continue


def _raise_until(stop: threading.Event, raise_once: Any) -> None:
    """Raise in the watched thread every TICK until its budget is disarmed."""
    while not stop.is_set():
        raise_once()
        if stop.wait(TICK):
            return

"""The check's time budget: an alarm that interrupts sympy, which has no budget of its own.

The one wall-clock limit in gradcalc, and only on the check's symbolic attempt: past it,
the check falls back to finite differences (whose cost is estimated from counted work).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class Timeout(BaseException):
    """Raised by SIGALRM inside sympy; a BaseException so `except Exception` cannot eat it."""


@contextmanager
def time_budget(seconds: float | None) -> Iterator[bool]:
    """Raise `Timeout` in the body after `seconds` (yields whether armed).

    In the main thread an alarm signal; in any other thread (a Dask worker's task) a
    watcher thread raises it in this one between two of its bytecodes. Either repeats
    every 50 ms until disarmed, in case sympy swallows one; the previous handler and
    timer are restored afterwards.
    """
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
    state = {"active": True}

    def on_alarm(signum: int, frame: Any) -> None:
        if state["active"]:
            raise Timeout()

    previous_handler = signal.signal(signal.SIGALRM, on_alarm)
    started = time.monotonic()
    previous_delay, previous_interval = signal.setitimer(signal.ITIMER_REAL, seconds, 0.05)
    try:
        yield True
    finally:
        while True:  # an alarm may land before the flag is cleared: clear it again
            try:
                state["active"] = False
                break
            except Timeout:
                continue
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        signal.signal(signal.SIGALRM, previous_handler)
        if previous_delay > 0:
            left = max(previous_delay - (time.monotonic() - started), 1e-3)
            signal.setitimer(signal.ITIMER_REAL, left, previous_interval)


@contextmanager
def _thread_budget(seconds: float) -> Iterator[bool]:
    """`time_budget` in a thread that is not the main one (signals reach only that):
    CPython's PyThreadState_SetAsyncExc raises `Timeout` in this thread, as a signal
    handler would (sympy is Python code; a long NumPy call ends first)."""
    try:
        import ctypes

        raise_in = ctypes.pythonapi.PyThreadState_SetAsyncExc
    except (ImportError, AttributeError):  # not CPython: no budget, as before
        yield False
        return
    ident = ctypes.c_ulong(threading.get_ident())
    stop = threading.Event()

    def watch() -> None:
        if stop.wait(seconds):
            return
        while not stop.is_set():
            raise_in(ident, ctypes.py_object(Timeout))
            if stop.wait(0.05):
                return

    watcher = threading.Thread(target=watch, name="gradcalc-check-budget", daemon=True)
    watcher.start()
    try:
        yield True
    finally:
        while True:  # a Timeout may land while disarming: disarm again
            try:
                stop.set()
                watcher.join()
                raise_in(ident, None)  # one raised but not yet delivered: withdrawn
                break
            except Timeout:
                continue

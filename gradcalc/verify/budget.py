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
    """Raise `Timeout` in the body after `seconds` (main thread only; yields whether armed).

    The timer repeats every 50 ms until disarmed, in case sympy swallows one alarm; the
    previous handler and timer are restored afterwards.
    """
    usable = (seconds is not None and seconds > 0 and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
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

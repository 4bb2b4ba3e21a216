"""gradcalc.verify.budget: sympy's budget is the CPU time of the thread that runs it, so a
machine too busy to run it changes nothing; a wall-clock backstop ends a true hang and
is counted."""

from __future__ import annotations

import signal
import sys
import threading
import time
from types import SimpleNamespace

import pytest

from gradcalc.verify import budget
from gradcalc.verify.budget import Backstop, Timeout, backstops, time_budget

from conftest import BACKSTOP_SECONDS


def spin() -> None:
    """Work that never ends (Python code, as sympy is), stopped only by a budget."""
    started = time.monotonic()
    while time.monotonic() - started < BACKSTOP_SECONDS:
        pass
    raise AssertionError("the budget never ended the work: a hang")


def in_a_thread(body):
    """`body()` run in a thread that is not the main one (a Dask worker's), its result or
    exception returned."""
    out = {}

    def run():
        try:
            out["result"] = body()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            out["raised"] = exc

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(BACKSTOP_SECONDS)
    assert not worker.is_alive(), "a hang"
    return out


def waits_then_works(seconds: float) -> str:
    """Waiting past the budget (as a process does when others hold the cores) spends no
    CPU time: the budget goes on."""
    with time_budget(seconds) as armed:
        time.sleep(4 * seconds)
        assert armed
    return "done"


def test_waiting_spends_no_budget_in_the_main_thread_or_another():
    assert waits_then_works(0.05) == "done"
    assert in_a_thread(lambda: waits_then_works(0.05)) == {"result": "done"}


def test_working_spends_it_in_the_main_thread_or_another():
    with pytest.raises(Timeout) as caught:
        with time_budget(0.05):
            spin()
    assert type(caught.value) is Timeout  # not the backstop
    out = in_a_thread(works_past_the_budget)
    assert type(out["raised"]) is Timeout


def works_past_the_budget() -> None:
    with time_budget(0.05):
        spin()


def test_the_budget_is_this_threads_cpu_time():
    """Another thread's work does not spend this thread's budget (a reader or an import
    on a second core)."""
    stop = threading.Event()

    def busy():
        while not stop.is_set():
            pass

    other = threading.Thread(target=busy, daemon=True)
    other.start()
    try:
        started = budget.cpu_clock()
        with time_budget(0.2):
            time.sleep(0.5)  # the other thread works meanwhile, this one waits
        assert budget.cpu_clock() - started < 0.2
    finally:
        stop.set()
        other.join()


def test_an_enclosing_budget_ends_an_inner_one():
    order = []
    with pytest.raises(Timeout):
        with time_budget(0.05):
            try:
                with time_budget(100.0):
                    spin()
            except Timeout:
                order.append("inner stopped at the outer budget's end")
            spin()
    assert order == ["inner stopped at the outer budget's end"]


def test_an_inner_budget_ends_and_the_enclosing_one_goes_on():
    with time_budget(100.0):
        with pytest.raises(Timeout):
            with time_budget(0.02):
                spin()
        assert sum(range(10**5)) > 0  # the enclosing budget does not raise after it


def test_the_backstop_ends_a_wait_and_is_counted(monkeypatch):
    monkeypatch.setattr(budget, "BACKSTOP_MIN_SECONDS", 0.2)
    assert budget.backstop_seconds(0.01) == 0.2
    assert budget.backstop_seconds(1.0) == 10.0
    before = backstops()
    with pytest.raises(Backstop):
        with time_budget(0.01):
            time.sleep(BACKSTOP_SECONDS)  # a hang: waiting, not working
    assert backstops() == before + 1
    out = in_a_thread(lambda: (backstops(), waits_past_the_backstop(), backstops()))
    assert out["result"][1] == "stopped" and out["result"][0] + 1 == out["result"][2]
    assert backstops() == before + 1  # counted in its own thread


def waits_past_the_backstop() -> str:
    """In a thread the watcher's exception lands between two bytecodes (a thread's
    sleep is not interrupted, so this one waits in short naps)."""
    started = time.monotonic()
    try:
        with time_budget(0.01):
            while time.monotonic() - started < BACKSTOP_SECONDS:
                time.sleep(0.01)
    except Backstop:
        return "stopped"
    return "not stopped"


def test_timers_and_handlers_are_put_back():
    calls = []

    def handler(signum, frame):
        calls.append(signum)

    previous = signal.signal(signal.SIGPROF, handler), signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, 100.0)
    try:
        with time_budget(0.5):
            with time_budget(0.2):
                pass
        assert signal.getsignal(signal.SIGPROF) is handler
        assert signal.getsignal(signal.SIGALRM) is handler
        assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)
        assert 90 < signal.getitimer(signal.ITIMER_REAL)[0] <= 100
        assert calls == []
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, previous[0])
        signal.signal(signal.SIGALRM, previous[1])


def test_no_budget_for_none_or_zero():
    for seconds in (None, 0, -1):
        with time_budget(seconds) as armed:
            assert not armed


class Finalized:
    """An object whose finalizer works past the budget (as a generator closed while the
    stack unwinds, or a __del__, may): the Timeout lands in it."""

    def __del__(self) -> None:
        started = time.thread_time()
        while time.thread_time() - started < 1.0:
            pass


def works_in_a_finalizer() -> list:
    """Work past a budget that spends it in a finalizer, then goes on; the unraisable
    exceptions seen."""
    seen: list = []
    previous, sys.unraisablehook = sys.unraisablehook, seen.append
    try:
        with pytest.raises(Timeout):
            with time_budget(0.05):
                Finalized()
                spin()
    finally:
        sys.unraisablehook = previous
    return seen


def test_a_timeout_in_a_finalizer_prints_nothing_and_the_budget_still_ends():
    """A Timeout that lands in a finalizer cannot propagate; Python would print it with a
    traceback ("Exception ignored in ..."): it is dropped, and raised again in the body."""
    seen = works_in_a_finalizer()
    assert [u for u in seen if isinstance(u.exc_value, Timeout)] == []
    out = in_a_thread(works_in_a_finalizer)
    assert "raised" not in out, out
    assert [u for u in out["result"] if isinstance(u.exc_value, Timeout)] == []


def test_only_a_timeout_is_dropped_and_the_hook_is_put_back():
    seen: list = []
    previous, sys.unraisablehook = sys.unraisablehook, seen.append
    try:
        with time_budget(10.0):
            with time_budget(5.0):
                sys.unraisablehook(SimpleNamespace(exc_value=Timeout()))
            sys.unraisablehook(SimpleNamespace(exc_value=ValueError("a finalizer's own")))
        assert sys.unraisablehook == seen.append
    finally:
        sys.unraisablehook = previous
    assert [type(u.exc_value) for u in seen] == [ValueError]


def test_a_swallowed_timeout_is_raised_again_after_the_stack_has_unwound():
    """Work that swallows the first Timeout (a bare except in sympy) is still stopped, by
    a second one that comes `REPEAT` seconds of CPU time later, not at once."""
    caught = []
    with pytest.raises(Timeout):
        with time_budget(0.02):
            try:
                spin()
            except Timeout:
                caught.append(budget.cpu_clock())
            spin()
    assert len(caught) == 1 and budget.cpu_clock() - caught[0] >= budget.REPEAT * 0.9


def test_a_budget_in_another_thread_leaves_counted_work_free_to_run():
    """A thread's budget ends without leaving the interpreter's pending flag set: with it
    set, work counted by a profile function (gradcalc.verify.counted) looped forever at
    its first call (Python 3.11). Run in a fresh process, which a hang would not end."""
    import subprocess

    code = ("import threading, time\n"
            "from gradcalc.verify import counted\n"
            "from gradcalc.verify.budget import time_budget\n"
            "def waits():\n"
            "    with time_budget(0.05):\n"
            "        time.sleep(0.2)\n"
            "t = threading.Thread(target=waits); t.start(); t.join()\n"
            "def one(): pass\n"
            "try:\n"
            "    with counted.counting(100):\n"
            "        [one() for _ in range(1000)]\n"
            "except counted.OverCount:\n"
            "    print('stopped')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=BACKSTOP_SECONDS, check=False)
    assert done.stdout == "stopped\n"

"""Counted work: sympy work bounded by the Python calls it makes, counted where the count is
the same in every run, on any machine and under any load.

`run(work, *args, calls=N)` runs `work(*args)` in a fresh Python process and stops it
after `N` counted calls (`sys.setprofile`). Counted in the caller's own process, the same
work varied by up to 2% between runs; the sources, found by diffing the calls of one
integral in several processes, and what removes each:

- sympy's random generators, seeded by the OS at import: the assumptions system asks a
  fact's prerequisites in a shuffled order, and `Dummy` numbers its symbols from a random
  base. In the child every generator made while sympy is imported is seeded with 0 (and
  sympy's two generators again before the work).
- string hashing, random in every process: sets of symbols are visited in hash order.
  The child runs with `PYTHONHASHSEED=0`.
- what a process keeps between calls: caches that `clear_cache` leaves (heurisch's
  symbols, least-recently-used caches), `Dummy`'s counter. The child is fresh for every
  piece of work, so nothing earlier is kept; sympy's cache is cleared before the count.
- hash collisions in dictionaries keyed by classes (sympy's cache keys hold the types of
  the arguments; a class is hashed by its address, which differs in every process): a
  collision calls `__eq__`. Calls made inside `__eq__` and `__ne__` are not counted, nor
  those made while a module is imported (once a process).
- the machine's libraries: sympy and mpmath do their arithmetic in C when gmpy2 is
  installed, in Python (counted) otherwise; the child always uses Python's.

So a count depends only on the work and on the versions of Python, sympy and mpmath.
A wall-clock backstop (`BACKSTOP_SECONDS`) ends a child that hangs without calling
anything; the counted limits stop far before it.

A fresh process costs about 0.5 s of CPU time before the work starts, too much for the
small pieces of work a solution does at every step. `decide(work, *args, calls=N)` runs
the work here first, counted in this process (`counting`: every Python call, generator
steps and equality tests too, which is cheaper to count and never fewer) and stopped
after `N // HERE` calls, a tenth of its limit: what finishes within that is its answer.
Counted here, the same work's count differs from the exact one (more by the calls the
exact count leaves out, fewer by what sympy has cached, either way with string hashing:
between runs of the problem set, by up to 1.4x), so work that finishes here within a
tenth of its limit stays within its limit in the fresh process too, and gives the same
answer there. Only work that runs past a tenth of its limit here is sent to the fresh
process, where the exact count decides. Either way the outcome is the exact count's.
"""

from __future__ import annotations

import inspect
import os
import pickle
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

#: the environment the counted work runs in, whatever the caller's
FIXED_ENVIRONMENT = {"PYTHONHASHSEED": "0", "SYMPY_GROUND_TYPES": "python",
                     "MPMATH_NOGMPY": "1"}
#: variables of the caller's environment not passed on (they change what Python, sympy
#: and mpmath do)
DROPPED_PREFIXES = ("PYTHON", "SYMPY", "MPMATH")
#: code whose calls are not counted, nor the calls made inside it: imports (once a
#: process) and equality tests (where a hash collision lands)
UNCOUNTED = frozenset({"<module>", "__eq__", "__ne__"})
#: a generator's steps are not counted (what they call is): how far a search runs into
#: a set of classes, visited in the order of their addresses, differs between runs
GENERATOR_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
#: the wall-clock backstop against a child that hangs, never reached by counted work
BACKSTOP_SECONDS = 600.0
#: `decide` counts work here up to this fraction of its limit (1/HERE) before sending it
#: to the fresh process: ten times the most a count here was seen to differ from the
#: exact one (1.4x)
HERE = 10


@dataclass(frozen=True)
class Counted:
    """What counted work gave: its result (None when stopped), the calls it made (the
    limit + 1 when stopped), and whether it was stopped."""

    result: Any
    made: int
    over: bool


class ChildFailed(RuntimeError):
    """The counted work's process ended without an answer (a crash or the backstop)."""


class OverCount(BaseException):
    """Counted work made more calls than its `counter` allows (a BaseException, so that
    `except Exception` in the work cannot eat it; Python unsets a profile function that
    raises, so the work would go on uncounted)."""

    def __init__(self, counter: Counter) -> None:
        super().__init__(counter.calls)
        self.counter = counter


class Counter:
    """The Python calls counted while `profile` is the profile function, `made` (read when
    counting ends), with `OverCount` raised past `calls`; an enclosing counter's
    `profile` sees every event too. Exact (the fresh process's): calls made inside
    `UNCOUNTED` code and a generator's steps left out. Here: every call and step, which
    is cheaper to count and never fewer."""

    def __init__(self, calls: int, outer: Counter | None = None, exact: bool = False
                 ) -> None:
        self.calls, self.made = calls, 0
        make = _exact_profile if exact else _plain_profile
        self.profile, self._made = make(self, outer.profile if outer else None)


def _plain_profile(counter: Counter, outer: Any) -> tuple[Any, Any]:
    """(a profile function counting every Python call, a function giving the count): a
    closure over a plain integer, the cheapest a profile function can be (its work
    costs about twice as much counted)."""
    made, calls = 0, counter.calls

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal made
        if outer is not None:
            outer(frame, event, arg)
        if event == "call":
            made += 1
            if made > calls:
                counter.made = made
                raise OverCount(counter)

    return profile, lambda: made


def _exact_profile(counter: Counter, outer: Any) -> tuple[Any, Any]:
    """(a profile function counting the calls that are the same in every run, a function
    giving the count)."""
    made = uncounted = 0
    calls = counter.calls

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal made, uncounted
        if outer is not None:
            outer(frame, event, arg)
        if event == "call":
            code = frame.f_code
            if code.co_name in UNCOUNTED or code.co_filename.startswith("<frozen"):
                uncounted += 1
            elif not uncounted and not code.co_flags & GENERATOR_FLAGS:
                made += 1
                if made > calls:
                    counter.made = made
                    raise OverCount(counter)
        elif event == "return" and uncounted and (
                frame.f_code.co_name in UNCOUNTED
                or frame.f_code.co_filename.startswith("<frozen")):
            uncounted -= 1

    return profile, lambda: made


@contextmanager
def counting(calls: int, exact: bool = False) -> Iterator[Counter]:
    """The body's Python calls counted in this thread, `OverCount` raised past `calls`
    (exact: as the fresh process counts them; else every call, see `decide`)."""
    earlier, hook = sys.getprofile(), sys.unraisablehook
    counter = Counter(calls, getattr(earlier, "counter", None), exact)
    counter.profile.counter = counter  # type: ignore[attr-defined]
    sys.unraisablehook = partial(_drop_over_counts, hook)
    sys.setprofile(counter.profile)
    try:
        yield counter
    finally:
        sys.setprofile(earlier)
        sys.unraisablehook = hook
        counter.made = counter._made()
    if counter.made > calls:  # the stop landed where it could not propagate (a finalizer)
        raise OverCount(counter)


def _drop_over_counts(hook: Any, unraisable: Any) -> None:
    """sys.unraisablehook while counting: a stop that landed in a finalizer (a generator
    closed, a `__del__`) is not printed (`counting` raises it again when the body ends);
    anything else goes to `hook`."""
    if not isinstance(unraisable.exc_value, OverCount):
        hook(unraisable)


def decide(work: Callable[..., Any], *args: Any, calls: int,
           warm: Callable[[], Any] | None = None) -> Counted:
    """`work(*args)` stopped past `calls` counted calls, as `run` would count them in a
    fresh process: run here when it finishes within `calls // HERE` calls counted here,
    else in the fresh process (`made`: the calls counted where it ran)."""
    from sympy.core.cache import clear_cache

    try:
        with counting(calls // HERE) as counter:
            result = work(*args)
        return Counted(result, counter.made, False)
    except OverCount as over:
        if over.counter is not counter:  # an enclosing count's: not this work's
            raise
        clear_cache()  # what it cached would make the same work cheaper here next time
    return run(work, *args, calls=calls, warm=warm)


def run(work: Callable[..., Any], *args: Any, calls: int,
        warm: Callable[[], Any] | None = None) -> Counted:
    """`work(*args)` in a fresh process, stopped past `calls` counted calls; `warm()` runs
    first, uncounted (tables sympy builds once a process). `work`, `warm`, the arguments
    and the result travel by pickle (`work` and `warm`: module-level functions). An
    exception `work` raises is raised here."""
    request = pickle.dumps((work, args, calls, warm))
    try:
        done = subprocess.run([sys.executable, "-m", "gradcalc.verify.counted"],
                              input=request, capture_output=True, env=_environment(),
                              timeout=BACKSTOP_SECONDS, check=False)
    except subprocess.TimeoutExpired as stopped:
        raise ChildFailed(f"counted work stopped by the {BACKSTOP_SECONDS:g} s backstop"
                          ) from stopped
    if done.returncode != 0 or not done.stdout:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:]
        raise ChildFailed(f"counted work ended with code {done.returncode}: {tail}")
    outcome, value, made = pickle.loads(done.stdout)
    if outcome == "raised":
        raise value
    return Counted(value, made, outcome == "over")


def _environment() -> dict[str, str]:
    """The caller's environment less what changes Python's, sympy's and mpmath's work,
    with the fixed settings and the caller's import path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(DROPPED_PREFIXES)}
    env.update(FIXED_ENVIRONMENT, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return env


# --------------------------------------------------------------------------- the child


def _import_sympy_seeded() -> None:
    """sympy imported with every random generator it makes seeded with 0."""
    import random

    assert "sympy" not in sys.modules, "sympy imported before its generators were fixed"
    seed = random.Random.seed

    def fixed(self: random.Random, a: Any = None, version: int = 2) -> None:
        seed(self, 0 if a is None else a, version)

    random.Random.seed = fixed  # type: ignore[method-assign]
    try:
        import sympy  # noqa: F401 - imported here, seeded
    finally:
        random.Random.seed = seed  # type: ignore[method-assign]


def count_calls(work: Callable[[], Any], calls: int) -> tuple[str, Any, int]:
    """('done', result, calls made) or ('over', None, calls + 1): `work()` counted from
    a cleared cache and reseeded generators."""
    import sympy.core.random
    from sympy.core.cache import clear_cache

    clear_cache()
    sympy.core.random.seed(0)
    try:
        with counting(calls, exact=True) as counter:
            result = work()
    except OverCount:  # the outermost count: its own
        return "over", None, counter.made
    return "done", result, counter.made


def _serve(request: bytes) -> bytes:
    """The child's answer to a pickled request: (outcome, value, calls made)."""
    work, args, calls, warm = pickle.loads(request)
    if warm is not None:
        warm()
    try:
        outcome = count_calls(lambda: work(*args), calls)
    except Exception as raised:  # noqa: BLE001 - raised again in the caller
        outcome = ("raised", raised, 0)
    try:
        return pickle.dumps(outcome)
    except Exception:  # noqa: BLE001 - an exception that does not pickle: its text
        return pickle.dumps(("raised", RuntimeError(repr(outcome[1])), outcome[2]))


def _main() -> None:
    _import_sympy_seeded()
    request = sys.stdin.buffer.read()
    answer, sys.stdout = sys.stdout.buffer, sys.stderr  # what the work prints: not the answer
    answer.write(_serve(request))
    answer.flush()


if __name__ == "__main__":
    _main()

"""--jobs: the one way gradcalc uses every core. A command hands `ordered_map` a function
from one chunk of rows to that chunk's answers, and an iterator of chunks; the chunks go
to N worker processes, a few at a time (so memory stays bounded however long the input),
and the answers come back in input order, the same whatever N is.

Workers are forks of this process when that is safe (no other thread runs here and no
library with its own thread pool, such as polars, is loaded): they start at once with
everything this process has imported (`preload`: modules imported first, such as sympy
for a class, so no worker imports them again). Otherwise they come from a fork server (a
clean process that has imported the chunk function's module and `preload` once). A
worker's error (a GradcalcError or any other) is carried back and raised in the parent,
where the command line reports it as it would without --jobs; a worker killed from
outside ends the run with a clear error.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from gradcalc.errors import GradcalcError, failure

T = TypeVar("T")
R = TypeVar("R")

#: chunks in flight per worker: one being answered, one queued
IN_FLIGHT = 2
#: most worker processes (--jobs)
MAX_JOBS = 256


def job_count(text: str | int | None) -> int:
    """--jobs N or auto (every core this process may use) as a number of processes."""
    if text is None:
        return 1
    if isinstance(text, int):
        n = text
    elif text.strip().lower() == "auto":
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                   else os.cpu_count() or 1)
    else:
        try:
            n = int(text)
        except ValueError:
            raise GradcalcError(f"--jobs takes a number of processes or auto, not {text!r}",
                                kind="usage") from None
    if not 1 <= n <= MAX_JOBS:
        raise GradcalcError(f"--jobs takes 1 to {MAX_JOBS} processes (or auto), not {n}",
                            kind="usage")
    return n


def _guarded(fn: Callable[[T], R], item: T) -> tuple[bool, Any]:
    """fn(item) in a worker; an exception comes back as (kind, message): exceptions with
    keyword arguments (GradcalcError's kind) do not survive pickling."""
    try:
        return True, fn(item)
    except BaseException as exc:  # noqa: BLE001 - reported in the parent
        return False, failure(exc) if isinstance(exc, Exception) else ("internal", repr(exc))


#: modules whose import starts threads (or that are not fork-safe): a process that has
#: loaded one is not forked
_THREADED = frozenset({"polars", "pyarrow", "dask", "distributed", "torch", "jax"})


def stop_idle_threads() -> None:
    """The fused kernels' idle workers stopped (when they were started), so that a fork
    here is safe: they are made again by the next large plan."""
    import sys

    blocks = sys.modules.get("gradcalc.engine.blocks")
    if blocks is not None:
        blocks.stop_pool()


def _context(fn: Callable | None, preload: tuple[str, ...], warm: tuple[str, ...] = ()
             ) -> Any:
    """How workers start: a fork of this process when safe (`preload` imported here
    first), else a fork server (which imports `preload` and `warm` once)."""
    import importlib
    import multiprocessing
    import sys
    import threading

    methods = multiprocessing.get_all_start_methods()
    stop_idle_threads()
    if "fork" in methods and threading.active_count() == 1 and \
            not _THREADED & sys.modules.keys():
        for name in preload:
            importlib.import_module(name)
        if threading.active_count() == 1 and not _THREADED & sys.modules.keys():
            return multiprocessing.get_context("fork")
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if "forkserver" in methods:
        module = getattr(getattr(fn, "func", fn), "__module__", None)
        context.set_forkserver_preload([m for m in ("numpy", module, *preload, *warm) if m])
    return context


def _warm(modules: tuple[str, ...]) -> None:
    """A worker's first act: import what its chunks will need (an import that fails is
    left for the chunk to report)."""
    import importlib

    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - reported where the module is used
            pass


def _launch(pool: Any) -> None:
    """A pool's workers started now: a fork pool forks them all at its first task, and
    this process's objects are frozen out of their garbage collections meanwhile
    (`gc.freeze`), so a worker's collections neither walk nor write the objects it
    inherited (sympy's, for a class). Each write would copy a page, and each walk costs
    time: on a 2,000-row class of distinct answers on two jobs, the workers' CPU went
    from 10.7 s to 8.7 s. This process's objects are unfrozen again once they exist."""
    import gc

    gc.freeze()
    try:
        pool.submit(int)
    finally:
        gc.unfreeze()


class Workers:
    """--jobs worker processes started before their first chunk is known: forked at once
    (while this process is still safe to fork), each importing `warm` (such as polars,
    which this process then never needs) while this one reads ahead. A context manager:
    the workers end with it."""

    def __init__(self, jobs: int, preload: tuple[str, ...] = (), warm: tuple[str, ...] = ()
                 ) -> None:
        from concurrent.futures import ProcessPoolExecutor

        self.jobs = jobs
        self.pool = ProcessPoolExecutor(jobs, mp_context=_context(None, preload, warm),
                                        initializer=_warm, initargs=(warm,))
        _launch(self.pool)  # the workers start now

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *_: object) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def ordered_map(fn: Callable[[T], R], items: Iterable[T], jobs: int = 1,
                preload: tuple[str, ...] = (), workers: Workers | None = None
                ) -> Iterator[R]:
    """fn over the items in `jobs` processes (1: in this one; or on `workers`, started
    earlier and left running), the answers in input order; at most `IN_FLIGHT` items per
    worker are read ahead."""
    if workers is None and jobs <= 1:
        yield from map(fn, items)
        return
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool
    from functools import partial

    if workers is not None:
        pool, jobs = workers.pool, workers.jobs
    else:
        pool = ProcessPoolExecutor(jobs, mp_context=_context(fn, preload))
        _launch(pool)
    task = partial(_guarded, fn)
    source = iter(items)
    pending: deque[Any] = deque(pool.submit(task, item)
                                for _, item in zip(range(jobs * IN_FLIGHT), source))
    try:
        while pending:
            try:
                ok, value = pending.popleft().result()
            except BrokenProcessPool:
                raise GradcalcError("a worker process ended unexpectedly (killed, or out of "
                                    "memory); no output was completed; try fewer --jobs or "
                                    "a smaller --chunk-rows", kind="internal") from None
            if not ok:
                kind, message = value
                raise GradcalcError(message, kind=kind)
            for item in source:
                pending.append(pool.submit(task, item))
                break
            yield value
    finally:
        if workers is None:
            pool.shutdown(wait=True, cancel_futures=True)
        else:
            for future in pending:
                future.cancel()


def read_ahead(items: Iterable[T], depth: int = 1) -> Iterator[T]:
    """The items, with the next `depth` read by a thread while this one works on the
    current (for a reader that releases the interpreter's lock, such as polars' CSV
    parser: one core parses the next chunk while the other answers this one). The
    reader's exception is raised here, in order; closing early stops the reader."""
    import queue
    import threading

    box: queue.Queue[tuple[bool, Any]] = queue.Queue(depth)
    stop = threading.Event()
    done = object()

    def read() -> None:
        try:
            for item in items:
                if stop.is_set():
                    return
                box.put((True, item))
            box.put((True, done))
        except BaseException as exc:  # noqa: BLE001 - raised in the reading thread's place
            box.put((False, exc))

    reader = threading.Thread(target=read, name="gradcalc-read-ahead", daemon=True)
    reader.start()
    try:
        while True:
            ok, item = box.get()
            if not ok:
                raise item
            if item is done:
                return
            yield item
    finally:
        stop.set()
        while reader.is_alive():  # let a reader blocked on a full queue see the stop
            try:
                box.get(timeout=0.05)
            except queue.Empty:
                pass


def one_heap() -> None:
    """Have this process's allocations stay in one heap, kept between chunks (glibc):
    - every thread allocates from the main heap (M_ARENA_MAX 1): glibc gives each thread
      that allocates its own heap, and chunks allocated by `read_ahead`'s thread and
      freed by this one left both heaps fragmented (a 10^7-row table peaked at 297 MiB
      instead of 227 MiB, growing with the rows);
    - a chunk's arrays and text (up to 32 MiB each) come from that heap, not from maps
      of their own (M_MMAP_THRESHOLD), and up to 64 MiB freed at its top are kept
      (M_TRIM_THRESHOLD): otherwise every chunk's memory went back to the kernel and
      was faulted in again, page by page (10^7 rows on two jobs: 620,000 page faults
      and 4.6 s of system time; with this, 82,000 and 2.9 s).
    Settings made before --jobs workers fork hold in them too. For a process the command
    line owns; elsewhere (not glibc) nothing changes."""
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    for option, value in MALLOC_SETTINGS:
        mallopt(option, value)


#: glibc mallopt settings: (M_ARENA_MAX, 1), (M_MMAP_THRESHOLD, 32 MiB, its largest),
#: (M_TRIM_THRESHOLD, 64 MiB)
MALLOC_SETTINGS = ((-8, 1), (-3, 32 << 20), (-1, 64 << 20))

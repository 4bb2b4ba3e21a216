"""run.workers: --jobs N as processes, answers in input order, errors carried back,
and workers started ahead of their first chunk."""

from __future__ import annotations

import os
import sys

import pytest

from gradcalc.errors import GradcalcError
from gradcalc.run import workers as parallel


def square(x: int) -> int:
    return x * x


def pid_and_modules(_: int) -> tuple[int, bool]:
    return os.getpid(), "json.tool" in sys.modules


def fail_on_three(x: int) -> int:
    if x == 3:
        raise GradcalcError("three is bad", kind="value")
    return x


def die(_: int) -> int:
    os._exit(1)


@pytest.mark.parametrize("text,jobs", [(None, 1), ("1", 1), ("3", 3), (2, 2)])
def test_job_count(text, jobs):
    assert parallel.job_count(text) == jobs


@pytest.mark.parametrize("text", ["0", "x", "-2", str(parallel.MAX_JOBS + 1)])
def test_job_count_refuses(text):
    with pytest.raises(GradcalcError) as info:
        parallel.job_count(text)
    assert info.value.kind == "usage" and "--jobs" in info.value.message


def test_answers_come_in_input_order_whatever_the_jobs():
    items = list(range(40))
    assert list(parallel.ordered_map(square, items, 1)) == [x * x for x in items]
    assert list(parallel.ordered_map(square, items, 2)) == [x * x for x in items]


def test_workers_started_early_import_their_modules_and_serve_a_map():
    assert "json.tool" not in sys.modules or pytest.skip("json.tool already imported here")
    with parallel.Workers(2, warm=("json.tool", "no_such_module_anywhere")) as workers:
        got = list(parallel.ordered_map(pid_and_modules, range(8), workers=workers))
        assert list(parallel.ordered_map(square, range(5), workers=workers)) == \
            [0, 1, 4, 9, 16]  # the same workers serve a second map
    assert all(imported for _, imported in got)  # warm: imported in the workers ...
    assert "json.tool" not in sys.modules  # ... not here
    assert os.getpid() not in {pid for pid, _ in got}


def test_a_workers_error_is_raised_here_as_itself():
    with pytest.raises(GradcalcError) as info:
        list(parallel.ordered_map(fail_on_three, range(6), 2))
    assert info.value.kind == "value" and info.value.message == "three is bad"


def test_a_worker_that_dies_ends_the_run_with_a_clear_error():
    with pytest.raises(GradcalcError) as info:
        list(parallel.ordered_map(die, range(3), 2))
    assert info.value.kind == "internal" and "ended unexpectedly" in info.value.message


def test_read_ahead_keeps_order_and_raises_the_readers_error_in_place():
    assert list(parallel.read_ahead(iter(range(50)), depth=2)) == list(range(50))

    def broken():
        yield 1
        yield 2
        raise GradcalcError("the third cannot be read", kind="value")

    got = []
    with pytest.raises(GradcalcError) as info:
        for item in parallel.read_ahead(broken()):
            got.append(item)
    assert got == [1, 2] and info.value.message == "the third cannot be read"


def test_read_ahead_closed_early_stops_reading():
    import threading

    read = []

    def endless():
        k = 0
        while True:
            read.append(k)
            yield k
            k += 1

    items = parallel.read_ahead(endless(), depth=1)
    assert [next(items) for _ in range(3)] == [0, 1, 2]
    items.close()
    assert not any(t.name == "gradcalc-read-ahead" for t in threading.enumerate())
    assert len(read) <= 3 + 2  # the items taken, the one queued, the one being read


ARENAS = """
import ctypes, sys, threading
from gradcalc.run import workers as parallel
if sys.argv[1] == "one":
    parallel.one_heap()
kept = []
worker = threading.Thread(target=lambda: kept.extend(bytearray(1000) for _ in range(100)))
worker.start()
worker.join()
ctypes.CDLL(None).malloc_stats()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_stats")
def test_one_heap_keeps_a_threads_allocations_in_the_main_heap():
    import subprocess

    def arenas(mode: str) -> int:
        run = subprocess.run([sys.executable, "-c", ARENAS, mode], capture_output=True,
                             text=True, check=True)
        return run.stderr.count("Arena ")

    assert arenas("default") >= 2  # the thread got a heap of its own
    assert arenas("one") == 1


REFAULTS = """
import resource, sys
from gradcalc.run import workers as parallel
if sys.argv[1] == "one":
    parallel.one_heap()
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
def chunk():  # a chunk's arrays and text: 32 MiB in 6 MiB pieces, touched, then freed
    return [bytearray(6 << 20) for _ in range(5)]
chunk()
before = faults()
for _ in range(20):
    chunk()
print(faults() - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_one_heap_keeps_a_chunks_memory_instead_of_faulting_it_in_again():
    import subprocess

    def faults(mode: str) -> int:
        run = subprocess.run([sys.executable, "-c", REFAULTS, mode], capture_output=True,
                             text=True, check=True)
        return int(run.stdout)

    pages = (30 << 20) // 4096  # a chunk's
    assert faults("default") >= 10 * pages  # chunks given back and faulted in anew
    assert faults("one") < pages  # the freed chunk's pages used again


def frozen_objects(_: int) -> int:
    import gc

    return gc.get_freeze_count()


def test_forked_workers_leave_what_they_inherit_out_of_their_collections():
    import gc

    if parallel._context(None, ()).get_start_method() != "fork":
        pytest.skip("workers come from a fork server here (another thread is running)")
    counts = list(parallel.ordered_map(frozen_objects, range(4), jobs=2))
    # every object the parent had when it forked: many thousands (pytest, numpy, ...)
    assert min(counts) > 10_000
    assert gc.get_freeze_count() == 0  # the parent's own collections go on as before

"""The engine's own memory for large float64 results, kept warm from one call to the next.

A large array that NumPy allocates and frees goes back to the C library, which hands
its pages back to the operating system once enough lies free: the next call of the same
size gets fresh pages, which the kernel zeroes as each is first touched (for W1, a
quarter of the tape's time). The pool keeps such buffers instead. `take` gives one that
nothing refers to any more (its reference count is the pool's own: no tensor, node,
view or caller holds it), or makes a new one. A buffer in use is never given twice, and
a result handed to a caller stays the caller's for as long as it is held (being the
pool's too, it refuses `ndarray.resize`, which wants no other holder: resize a copy).

Bounded: at most `MOST_PER_SHAPE` buffers of one shape and `MOST_BYTES` in all (idle
buffers of other shapes given up, oldest first, to make room; past that, arrays are
made outside the pool as ever). `clear()` gives every idle buffer back.
"""

from __future__ import annotations

import math
import os
import sys
import threading
from typing import Any

import numpy as np

#: arrays of at least this many elements come from the pool (smaller ones cost no pages)
POOLED = 65_536

#: the most buffers of one shape the pool keeps (W1 uses 6), so finding one is short
MOST_PER_SHAPE = 16

#: the most memory the pool keeps, in bytes, idle and in use
MOST_BYTES = 128 * 2**20

#: buffers by shape, then by id, oldest first; the inner dict is an idle one's only holder
_shelves: dict[tuple[int, ...], dict[int, np.ndarray]] = {}
_lock = threading.Lock()
_NUMBERS = (float, np.float64, int)
_counts = {"made": 0}


def _after_fork() -> None:
    """A child process starts with a lock no thread of its own holds."""
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def _calibrate() -> int:
    """The reference count of an idle buffer as `take` sees it (its shelf's, the loop's)."""
    probe = {0: np.empty(1)}
    for b in probe.values():
        return sys.getrefcount(b)
    raise AssertionError


_IDLE = _calibrate()


def held() -> int:
    """The bytes the pool holds, idle and in use."""
    return sum(b.nbytes for shelf in list(_shelves.values()) for b in list(shelf.values()))


def made() -> int:
    """How many buffers the pool has made since the process began (tests count them: a
    call that finds every buffer it needs idle makes none)."""
    return _counts["made"]


def holds(a: Any) -> int:
    """1 if `a` is one of the pool's buffers (so one more reference than its users'), else 0."""
    shelf = _shelves.get(a.shape)
    return 1 if shelf is not None and shelf.get(id(a)) is a else 0


def take(shape: tuple[int, ...]) -> np.ndarray:
    """An uninitialised float64 C array of `shape`: an idle buffer of the pool when one
    fits, else a new one (kept by the pool while it has room)."""
    if math.prod(shape) < POOLED:
        return np.empty(shape)
    with _lock:
        shelf = _shelves.setdefault(shape, {})
        for b in shelf.values():
            if sys.getrefcount(b) == _IDLE:
                return b
        made = np.empty(shape)
        if len(shelf) < MOST_PER_SHAPE and _room(made.nbytes):
            shelf[id(made)] = made
            _counts["made"] += 1
        return made


def _room(nbytes: int) -> bool:
    """Whether `nbytes` more fit under `MOST_BYTES`, giving up idle buffers (oldest
    shape first) to make room."""
    total = held()
    for shelf in _shelves.values():
        if total + nbytes <= MOST_BYTES:
            break
        for key in list(shelf):
            if sys.getrefcount(shelf[key]) == _IDLE - 1:  # no loop variable here
                total -= shelf.pop(key).nbytes
    return total + nbytes <= MOST_BYTES


def clear() -> None:
    """Give every idle buffer back (buffers in use stay their holders', outside the pool)."""
    with _lock:
        _shelves.clear()


def fresh(ufunc: Any, *operands: Any) -> Any:
    """`ufunc(*operands)` written into a pool buffer when its result is a large float64
    array that NumPy would lay out as the buffer is; None otherwise (the caller computes
    it as ever)."""
    shape = pooled_shape(operands)
    if shape is None:
        return None
    return ufunc(*operands, out=take(shape))


def pooled_shape(operands: tuple) -> tuple[int, ...] | None:
    """The result's shape when it may go into a pool buffer: every operand a number or a
    float64 array of one shape (C-contiguous when it has two axes or more, so the
    result's layout is what NumPy would give it and a reduction of it adds in the same
    order; a 0-d array counts as a number), and that shape large enough to be pooled;
    else None."""
    shape = None
    for v in operands:
        t = type(v)
        if t is np.ndarray:
            if v.dtype != np.float64 or v.ndim > 1 and not v.flags.c_contiguous:
                return None
            if v.ndim == 0:
                continue
            if shape is None:
                shape = v.shape
            elif v.shape != shape:
                return None
        elif t not in _NUMBERS:
            return None
    return shape if shape is not None and math.prod(shape) >= POOLED else None

"""Every bound gradcalc puts on its inputs, in one place, so they are stated and settable."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Resource bounds; every module reads them from here (CLI flags may override some)."""

    max_source_chars: int = 100_000
    """Longest program text (and longest value text for --at/--weights/--expect)."""

    max_nodes: int = 20_000
    """Most Python ast nodes a program may have (bounds parse and evaluation work)."""

    max_depth: int = 100
    """Deepest nesting of expressions and statements (keeps every tree walk shallow
    enough for recursion: a chain `a+b+...` of N terms is N deep)."""

    max_literal_digits: int = 30
    """Most digits in one number literal (float64 holds ~17 significant digits)."""

    max_array_elements: int = 10_000_000
    """Most elements in one array value (ones(n), zeros(n, m), list literals)."""

    max_iterations: int = 1_000_000
    """Most loop iterations in one run, summed over all loops."""

    max_operations: int = 300_000
    """Most operations (arithmetic, calls, indexing, lists) evaluated in one run; with
    `max_work` it bounds the time of a run whatever its loops do."""

    max_work: int = 50_000_000
    """Most floating-point work in one run: the elements of every result plus the
    multiply-adds of matrix products, summed over all operations. Every result stays on
    the tape until the backward pass, so this also bounds the tape's memory (8 bytes an
    element)."""

    max_derivative_elements: int = 250_000
    """Largest Jacobian or Hessian (in entries) a command computes; its batched reverse
    sweep is also bounded: entries of one seed row times the run's work at most
    `max_work * 5`."""

    check_seconds: float = 2.0
    """CPU time (of the thread that runs sympy, not the wall clock) each of sympy's steps
    may take: the symbolic check before it falls back to finite differences, a homework
    formula, proof or search (gradcalc.verify.budget)."""

    max_symbolic_ops: int = 5_000
    """Most symbolic operations the check builds before it falls back to finite differences."""


DEFAULT_LIMITS = Limits()

#: rows of a table read, answered and written at a time (--chunk-rows): about 40 MB of a
#: run's memory for three inputs, whatever the table's length
CHUNK_ROWS = 100_000

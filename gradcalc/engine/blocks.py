"""Elementwise programs run block by block, the way a fused kernel runs: a block of
`BLOCK` elements goes through every step (one NumPy function each, in its SIMD loops)
while it sits in the core's cache, so a program reads its inputs and writes its results
once, where whole-array NumPy makes and reads back a temporary per operation.

Blocks are shared between threads (NumPy lets go of the GIL in its loops). A block's
numbers are the same whichever thread runs it, and a sum adds the blocks' sums in block
order, so no result depends on the number of threads.

sin and cos, which NumPy computes without SIMD for float64 (several times its tan's
time), come from one tan of half the angle: with t = tan(u/2), sin u = 2t/(1+t²) and
cos u = (1-t)(1+t)/(1+t²), so a sin and its derivative's cos cost one tan between them.
NumPy's tan is within an ulp of the C library's over every range of float64; sin and cos
so computed are within 4e-16 of NumPy's (docs/performance.md).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

import numpy as np

#: elements per block: the few blocks live at once (256 KiB each) stay in a core's cache
BLOCK = 1 << 15
#: the graph's operations, by the NumPy function a step runs
UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
          "pow": np.power, "neg": np.negative, "tan": np.tan, "exp": np.exp, "log": np.log,
          "sqrt": np.sqrt, "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh,
          "atan": np.arctan, "square": np.square}
#: a step: (function, first operand's slot, second's or -1, the result's slot)
Step = tuple[np.ufunc, int, int, int]


class Nodes(Protocol):
    """What a plan reads of a graph (gradcalc/engine/fused.py's `Graph`)."""

    ops: list[str]
    args: list[tuple]

    def node(self, op: str, *args: Any) -> int: ...

    def num(self, v: float) -> int: ...


_pools: dict[int, ThreadPoolExecutor] = {}


def pool() -> ThreadPoolExecutor:
    """One worker per core, made on a first large plan's run, in this process (a forked
    worker makes its own: the parent's threads are not in the child)."""
    pid = os.getpid()
    if pid not in _pools:
        _pools.clear()
        _pools[pid] = ThreadPoolExecutor(max_workers=threads(),
                                         thread_name_prefix="gradcalc-block")
    return _pools[pid]


def stop_pool() -> None:
    """The workers joined and forgotten (a next large plan makes them again), so that
    this process may fork safely: a fork copies no thread."""
    for workers in _pools.values():
        workers.shutdown(wait=True)
    _pools.clear()


def threads() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


class Plan:
    """Roots of a graph as steps over blocks. `feeds` holds the nodes whose values are
    given: flat arrays of `size` elements, or numbers. A summed root gives the sum of its
    elements, the others an array of `size` elements each."""

    def __init__(self, graph: Nodes, roots: list[int], summed: list[bool],
                 feeds: dict[int, Any], size: int) -> None:
        self.graph, self.size = graph, size
        self.arrays = {k: v for k, v in feeds.items() if np.ndim(v) == 1}
        self.numbers = {k: v for k, v in feeds.items() if np.ndim(v) == 0}
        low = self._lowered(roots)
        self.roots = [low[r] for r in roots]
        self.summed = summed
        self.steps: list[Step] = []
        self.registers = 0
        self._compile()

    # ------------------------------------------------------------------ compiling

    def _given(self, k: int) -> bool:
        return k in self.arrays or k in self.numbers or self.graph.ops[k] in ("in", "num")

    def _lowered(self, roots: list[int]) -> dict[int, int]:
        """Each node the roots need, with sin and cos rewritten over a half-angle tan."""
        g, low = self.graph, {}
        for k in sorted(self._reachable(roots)):
            if self._given(k):
                low[k] = k
                continue
            args = tuple(low[a] for a in g.args[k])
            if g.ops[k] in ("sin", "cos"):
                low[k] = self._half_angle(g.ops[k], g.node("half", *args))
            else:
                low[k] = g.node(g.ops[k], *args)
        return low

    def _half_angle(self, op: str, t: int) -> int:
        g = self.graph
        one, across = g.num(1.0), g.node("add", g.num(1.0), g.node("mul", t, t))
        if op == "sin":
            return g.node("div", g.node("mul", g.num(2.0), t), across)
        return g.node("div", g.node("mul", g.node("sub", one, t), g.node("add", one, t)),
                      across)

    def _reachable(self, roots: list[int]) -> set[int]:
        seen: set[int] = set()
        stack = list(roots)
        while stack:
            k = stack.pop()
            if k not in seen:
                seen.add(k)
                if not self._given(k):
                    stack.extend(self.graph.args[k])
        return seen

    def _compile(self) -> None:
        """Steps in node order, a register reused once the last step reading it ran; then
        the slots laid out: registers, the given arrays' blocks, numbers, results' blocks."""
        g = self.graph
        order = sorted(k for k in self._reachable(self.roots) if not self._given(k))
        last = {a: i for i, k in enumerate(order) for a in g.args[k]}
        computed = set(order)
        outputs: dict[int, int] = {}
        for r, s in zip(self.roots, self.summed):
            if not s and r in computed:
                outputs.setdefault(r, len(outputs))
        self._outputs = outputs
        kept = set(self.roots)
        where: dict[int, tuple[str, int]] = {}
        free: list[int] = []
        steps = []
        for i, k in enumerate(order):
            operands = [where.get(a) or self._given_slot(a) for a in g.args[k]]
            for a in set(g.args[k]):
                if last[a] == i and a not in kept and where.get(a, ("",))[0] == "r":
                    free.append(where[a][1])
            if k in outputs:
                where[k] = ("o", outputs[k])
            elif free:
                where[k] = ("r", free.pop())
            else:
                where[k], self.registers = ("r", self.registers), self.registers + 1
            steps += self._emit(k, operands, where[k])
        self._where = {r: where.get(r) or self._given_slot(r) for r in self.roots}
        self._layout(steps)

    def _given_slot(self, k: int) -> tuple[str, int]:
        if k in self.arrays:
            return ("a", k)
        if k not in self.numbers and self.graph.ops[k] == "num":
            self.numbers[k] = self.graph.args[k][0]
        if k not in self.numbers:
            raise KeyError(f"node {k} ({self.graph.ops[k]}) has no value")
        return ("n", k)

    def _emit(self, k: int, operands: list, out: tuple[str, int]) -> list:
        g, op, args = self.graph, self.graph.ops[k], self.graph.args[k]
        if op == "half":
            return [(np.multiply, operands[0], self._given_slot(g.num(0.5)), out),
                    (np.tan, out, None, out)]
        if op == "pow" and g.ops[args[1]] == "num" and g.args[args[1]][0] == 2.0:
            return [(np.square, operands[0], None, out)]
        return [(UFUNCS[op], operands[0], operands[1] if len(operands) > 1 else None, out)]

    def _layout(self, steps: list) -> None:
        """Slot numbers for the steps' operands (-1: none)."""
        arrays, numbers = list(self.arrays), list(self.numbers)
        base = {"r": 0, "a": self.registers, "n": self.registers + len(arrays),
                "o": self.registers + len(arrays) + len(numbers)}
        index = {"a": {k: i for i, k in enumerate(arrays)},
                 "n": {k: i for i, k in enumerate(numbers)}}

        def slot(s: tuple[str, int] | None) -> int:
            if s is None:
                return -1
            kind, i = s
            return base[kind] + (index[kind][i] if kind in index else i)

        self.steps = [(f, slot(a), slot(b), slot(o)) for f, a, b, o in steps]
        self._root_slots = [slot(self._where[r]) for r in self.roots]
        self._given_arrays = [self.arrays[k] for k in arrays]
        self._given_numbers = [self.numbers[k] for k in numbers]

    # ------------------------------------------------------------------ running

    def run(self) -> list[Any]:
        """Each root's result: an array of `size` elements, or a summed root's sum."""
        blocks = -(-self.size // BLOCK)
        results = [np.empty(self.size) for _ in self._outputs]
        sums = np.zeros((max(blocks, 1), len(self.roots)))
        workers = min(threads(), blocks)
        if workers > 1:
            parts = np.array_split(np.arange(blocks), workers)
            for done in [pool().submit(self._run_blocks, p, results, sums) for p in parts]:
                done.result()
        else:
            self._run_blocks(range(blocks), results, sums)
        return self._answers(results, sums)

    def _run_blocks(self, blocks: Any, results: list[np.ndarray], sums: np.ndarray) -> None:
        registers = [np.empty(BLOCK) for _ in range(self.registers)]
        summed = [(j, s) for j, (s, flag) in enumerate(zip(self._root_slots, self.summed))
                  if flag]
        with np.errstate(all="ignore"):
            for b in blocks:
                start = int(b) * BLOCK
                end = min(start + BLOCK, self.size)
                slots = [r[: end - start] for r in registers]
                slots += [a[start:end] for a in self._given_arrays]
                slots += self._given_numbers
                slots += [r[start:end] for r in results]
                for f, a, c, o in self.steps:
                    if c < 0:
                        f(slots[a], out=slots[o])
                    else:
                        f(slots[a], slots[c], out=slots[o])
                for j, s in summed:
                    sums[b, j] = np.add.reduce(slots[s])

    def _answers(self, results: list[np.ndarray], sums: np.ndarray) -> list[Any]:
        out: list[Any] = []
        handed: set[int] = set()
        for j, (root, s) in enumerate(zip(self.roots, self.summed)):
            if s:
                out.append(np.float64(np.sum(sums[:, j])))
            elif root in self._outputs:
                made = results[self._outputs[root]]
                out.append(made.copy() if root in handed else made)
                handed.add(root)
            elif root in self.arrays:
                out.append(np.array(self.arrays[root], copy=True))
            else:
                out.append(np.full(self.size, self.numbers[root], dtype=np.float64))
        return out

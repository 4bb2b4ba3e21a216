"""Fused kernels for programs known in advance: the value and the gradient of a
straight-line elementwise program in one pass over its inputs, each block of elements
taken through every step while it is in cache, on every core (gradcalc/engine/blocks.py;
docs/performance.md), not one whole-array NumPy pass per operation.

A program is a `Graph`: interned nodes (the same operation on the same operands is one
node, so `x**2` written twice is computed once), inputs, numbers, elementwise operations
and at most one `sum` at the top. `Graph.adjoints` differentiates it in reverse mode into
more nodes of the same graph, with the tape's rules (docs/language.md: `x**0` has
derivative 0), and again for second derivatives. A `Kernel` runs the value and each
input's diagonal (an elementwise program's derivatives) in one pass, the second
derivatives in another. sin and cos come from a tan of half the angle, and sums add
blocks: the results agree with the tape's to a relative 1e-13 on the measured programs
(tests/engine/test_fused.py); the symbolic check decides correctness either way.

Fusion runs only on inputs of at least `state.min_size` elements (where it pays), and is
switched off with the environment variable GRADCALC_FUSION=0 or `fusion(False)`;
GRADCALC_FUSION=always fuses every size (the tests' way of running with it on).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

import numpy as np

from gradcalc.engine.blocks import Plan

#: elementwise functions of one argument, by the graph's name (sin and cos are computed
#: from a "half" node, tan of half the angle: gradcalc/engine/blocks.py)
FUNCS = ("sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "sinh", "cosh", "atan")
BINARY = ("add", "sub", "mul", "div", "pow")
#: the same operations on numbers, for folding them
UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
          "pow": np.power, "neg": np.negative, "sin": np.sin, "cos": np.cos, "tan": np.tan,
          "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh, "sinh": np.sinh,
          "cosh": np.cosh, "atan": np.arctan}


class Switch:
    """Whether fusion runs (unless switched off), and from how many elements."""

    __slots__ = ("enabled", "min_size")

    def __init__(self) -> None:
        setting = os.environ.get("GRADCALC_FUSION", "")
        self.enabled = setting not in ("0", "off")
        self.min_size = 0 if setting == "always" else 1 << 14


state = Switch()


@contextmanager
def fusion(on: bool = True, *, min_size: int | None = None):
    """Inside the block, fuse or not, from `min_size` elements."""
    saved = (state.enabled, state.min_size)
    state.enabled = on
    if min_size is not None:
        state.min_size = min_size
    try:
        yield state
    finally:
        state.enabled, state.min_size = saved


class Unfusable(Exception):
    """The program has a step fusion does not take: the tape runs it instead."""


class Graph:
    """Interned nodes: node k is `ops[k]` applied to nodes `args[k]` (or an input's
    position, a number's value)."""

    def __init__(self) -> None:
        self.ops: list[str] = []
        self.args: list[tuple] = []
        self._ids: dict[tuple, int] = {}

    def node(self, op: str, *args: Any) -> int:
        key = (op, *args)
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = len(self.ops)
            self.ops.append(op)
            self.args.append(args)
        return found

    def num(self, v: float) -> int:
        return self.node("num", float(v))

    def needs(self, root: int) -> set[int]:
        """The nodes `root` is computed from (itself included)."""
        seen: set[int] = set()
        stack = [root]
        while stack:
            k = stack.pop()
            if k not in seen:
                seen.add(k)
                if self.ops[k] not in ("in", "num"):
                    stack.extend(self.args[k])
        return seen

    def value_of(self, k: int) -> float | None:
        return self.args[k][0] if self.ops[k] == "num" else None

    def apply(self, op: str, *args: int) -> int:
        """An operation: numbers folded as the tape computes them (float64, inf and nan
        without a warning), x·1 and 1·x as x."""
        consts = [self.value_of(a) for a in args]
        if None not in consts and op in UFUNCS:
            with np.errstate(all="ignore"):
                return self.num(UFUNCS[op](*(np.float64(c) for c in consts)))
        if op == "mul":
            a, b = args
            if self.value_of(a) == 1.0:
                return b
            if self.value_of(b) == 1.0:
                return a
        if op not in BINARY and op not in FUNCS and op != "neg":
            raise Unfusable(op)
        return self.node(op, *args)

    def adjoints(self, out: int, seed: int, inputs: list[int]) -> list[int | None]:
        """Each input's cotangent as a node, given the output's `seed` (None: no path)."""
        adj: dict[int, int] = {out: seed}
        for k in range(out, -1, -1):
            g = adj.pop(k, None)
            if g is None or self.ops[k] in ("in", "num"):
                if g is not None:
                    adj[k] = g  # an input keeps its cotangent
                continue
            for arg, part in self._rule(k, g):
                adj[arg] = part if arg not in adj else self.apply("add", adj[arg], part)
        return [adj.get(i) for i in inputs]

    def _rule(self, k: int, g: int) -> list[tuple[int, int]]:
        """(argument, cotangent part) for node k's differentiable arguments."""
        op, args, a = self.ops[k], self.args[k], self.apply
        x = args[0]
        live = [i for i in args if self._varies(i)]
        if op == "add":
            return [(i, g) for i in live]
        if op == "neg":
            return [(x, a("neg", g))]
        if op == "sub":  # by position: x - x is g and -g on the same node
            return [(x, g)] * (x in live) + [(args[1], a("neg", g))] * (args[1] in live)
        y = args[1] if len(args) > 1 else None
        if op == "mul":
            return [(x, a("mul", g, y))] * (x in live) + [(y, a("mul", g, x))] * (y in live)
        if op == "div":
            return [(x, a("div", g, y))] * (x in live) + [
                (y, a("div", a("mul", a("neg", g), x), a("mul", y, y)))] * (y in live)
        if op == "pow":
            return self._pow_rule(k, g, x, y)
        return [(x, self._func_rule(op, g, x, k))]

    def _varies(self, k: int) -> bool:
        return self.ops[k] != "num"

    def _pow_rule(self, k: int, g: int, x: int, y: int) -> list[tuple[int, int]]:
        a, c = self.apply, self.value_of(y)
        if c is None:
            base = self.value_of(x)
            if base is None or base <= 0.0:  # two varying values, or the tape's kinks at 0
                raise Unfusable("a power the tape differentiates with its conventions")
            return [(y, a("mul", g, a("mul", k, self.num(math.log(base)))))]
        if c == 0.0:
            return []  # PyTorch: x**0 has derivative 0, even where x**-1 is inf
        if c == 2.0:
            return [(x, a("mul", g, a("mul", y, x)))]
        return [(x, a("mul", g, a("mul", y, a("pow", x, self.num(c - 1.0)))))]

    def _func_rule(self, op: str, g: int, x: int, k: int) -> int:
        a, one = self.apply, self.num(1.0)
        parts = {
            "sin": lambda: a("mul", g, a("cos", x)),
            "cos": lambda: a("mul", a("neg", g), a("sin", x)),
            "tan": lambda: a("mul", g, a("add", one, a("mul", k, k))),
            "exp": lambda: a("mul", g, k),
            "log": lambda: a("div", g, x),
            "sqrt": lambda: a("div", g, a("mul", self.num(2.0), k)),
            "tanh": lambda: a("mul", g, a("sub", one, a("mul", k, k))),
            "sinh": lambda: a("mul", g, a("cosh", x)),
            "cosh": lambda: a("mul", g, a("sinh", x)),
            "atan": lambda: a("div", g, a("add", one, a("mul", x, x))),
        }
        return parts[op]()


class Kernel:
    """A fused program at given inputs, run lazily: `value` and `diagonal()` (each
    output element's derivative by the same element of each input) in one pass,
    `pull(seed)` from them, `second()` in another. `inputs` are the differentiated
    inputs' nodes (their arrays in `values`, all of the output's shape); `constants` the
    other inputs' arrays by node (any broadcast)."""

    def __init__(self, graph: Graph, out: int, summed: bool, inputs: list[int],
                 values: list[np.ndarray], constants: dict[int, Any]) -> None:
        self.graph, self.out, self.summed = graph, out, summed
        self.inputs, self.values = inputs, values
        self.shape = np.broadcast_shapes(*(np.shape(v) for v in values),
                                         *(np.shape(v) for v in constants.values()))
        if any(np.shape(v) != self.shape for v in values):
            raise Unfusable("an input broadcast against the others")
        self.size = math.prod(self.shape)
        self.passes = 0  # passes over the inputs (each one fused plan), for the tests
        self._feeds = {k: _flat(v, self.shape) for k, v in constants.items()}
        self._feeds.update((k, _flat(v, self.shape)) for k, v in zip(inputs, values))
        if not any(np.ndim(self._feeds.get(k, 0)) for k in self.graph.needs(out)):
            raise Unfusable("the output does not vary with the inputs' elements")
        # an element of the output varies with the same element of each input alone, so
        # every derivative is a diagonal: the adjoints for a seed of one
        self.unit = graph.adjoints(out, graph.num(1.0), inputs)
        self._first: tuple[np.ndarray, list[np.ndarray]] | None = None
        self._handed = False

    @property
    def value(self) -> np.ndarray:
        return self._value_and_diagonal()[0]

    def diagonal(self) -> list[np.ndarray]:
        """d output_k / d input_k, for each input, in the inputs' shape."""
        return self._value_and_diagonal()[1]

    def pull(self, seed: Any) -> list[np.ndarray]:
        """Each input's gradient for the output's cotangent `seed` (of the value's shape):
        the seed times the diagonal."""
        seed = np.asarray(seed, dtype=np.float64)
        diagonal = self.diagonal()
        if seed.shape == () and seed == 1.0:
            handed, self._handed = self._handed, True
            return [d.copy() for d in diagonal] if handed else list(diagonal)
        return [np.multiply(d, seed) for d in diagonal]

    def second(self) -> list[list[np.ndarray]]:
        """d² output / d input_i d input_j element by element (for a summed or a
        one-element output, or each element's own), in one pass."""
        return self._second(with_value=False)[1]

    def value_and_second(self) -> tuple[np.ndarray, list[list[np.ndarray]]]:
        """The value and `second()`, both from one pass."""
        return self._second(with_value=True)

    def _second(self, with_value: bool) -> tuple[Any, list[list[np.ndarray]]]:
        one = self.graph.num(1.0)
        rows = [self.graph.adjoints(g, one, self.inputs) if g is not None
                else [None] * len(self.inputs) for g in self.unit]
        wanted = [h for row in rows for h in row if h is not None]
        found = self._run([self.out] * with_value + wanted, [self.summed] * with_value)
        value = _reshaped(found[0], () if self.summed else self.shape) if with_value else None
        made = iter(found[1:] if with_value else found)
        return value, [self._shaped(row, made) for row in rows]

    def _value_and_diagonal(self) -> tuple[np.ndarray, list[np.ndarray]]:
        if self._first is None:
            found = self._run([self.out, *(k for k in self.unit if k is not None)],
                              [self.summed])
            value = _reshaped(found[0], () if self.summed else self.shape)
            self._first = value, self._shaped(self.unit, iter(found[1:]))
        return self._first

    def _shaped(self, nodes: list[int | None], made: Any) -> list[np.ndarray]:
        """Results for `nodes` (zeros where None), in the inputs' shape."""
        return [np.zeros(self.shape) if k is None else _reshaped(next(made), self.shape)
                for k in nodes]

    def _run(self, roots: list[int], summed: list[bool]) -> list[Any]:
        """One fused pass: the roots' arrays (or sums, for the first len(summed))."""
        flags = summed + [False] * (len(roots) - len(summed))
        self.passes += 1
        return Plan(self.graph, roots, flags, self._feeds, self.size).run()



def _reshaped(a: Any, shape: tuple[int, ...]) -> np.ndarray:
    a = np.asarray(a)
    return a if a.shape == shape else a.reshape(shape)


def _flat(v: Any, shape: tuple[int, ...]) -> Any:
    """A given value for a plan: a number, or float64 elements in the output's order."""
    a = np.asarray(v, dtype=np.float64)
    if a.size == 1:
        return np.float64(a.reshape(()))
    if a.shape != shape:
        a = np.broadcast_to(a, shape)
    return np.ascontiguousarray(a).reshape(-1)


def wanted(size: int) -> bool:
    """Whether inputs of `size` elements (the largest) are fused: switched on, at least
    `state.min_size` elements."""
    return state.enabled and size >= max(state.min_size, 1)


def kernel_for(f: Callable[..., Any], point: tuple[Any, ...]) -> Kernel | None:
    """The fused kernel of `f` (a program that offers one as `f.fused`) at `point`, or
    None: fusion off, inputs too small, or a step fusion does not take."""
    make = getattr(f, "fused", None)
    if make is None or not wanted(max((np.size(v) for v in point), default=0)):
        return None
    try:
        return make(point)
    except Unfusable:
        return None

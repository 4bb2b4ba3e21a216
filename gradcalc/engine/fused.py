"""Fused kernels for programs known in advance: the value and the gradient of a
straight-line elementwise program in a few multi-threaded numexpr calls, not one NumPy
array pass per operation (docs/performance.md). numexpr comes with the `[fast]` extra;
without it the tape runs every program, on NumPy.

A program is a `Graph`: interned nodes (the same operation on the same operands is one
node, so `x**2` written twice is computed once), inputs, numbers, elementwise operations
and at most one `sum` at the top. `Graph.adjoints` differentiates it in reverse mode into
more nodes of the same graph, with the tape's rules (docs/language.md: `x**0` has
derivative 0). A `Kernel` evaluates the value, then each input's gradient: a
transcendental node that several expressions need is computed once into an array, the
rest is inlined into one numexpr expression per result. numexpr's transcendentals may
differ from NumPy's in the last bits: the engine's results and these agree to a relative
1e-13 on the measured programs (tests/engine/test_fused.py); the symbolic check decides
correctness either way.

Fusion runs only on inputs of at least `state.min_size` elements (where it pays), and is
switched off with the environment variable GRADCALC_FUSION=0 or `fusion(False)`;
GRADCALC_FUSION=always fuses every size (the tests' way of running with it on).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import numpy as np

#: elementwise functions of one argument, by the graph's name: numexpr's name
FUNCS = {"sin": "sin", "cos": "cos", "tan": "tan", "exp": "exp", "log": "log",
         "sqrt": "sqrt", "tanh": "tanh", "sinh": "sinh", "cosh": "cosh", "atan": "arctan"}
BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**"}
#: the same operations on numbers, for folding them
UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
          "pow": np.power, "neg": np.negative, "sin": np.sin, "cos": np.cos, "tan": np.tan,
          "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh, "sinh": np.sinh,
          "cosh": np.cosh, "atan": np.arctan}


class Switch:
    """Whether fusion runs (unless switched off, where numexpr is installed), and from
    how many elements."""

    __slots__ = ("enabled", "min_size")

    def __init__(self) -> None:
        setting = os.environ.get("GRADCALC_FUSION", "")
        self.enabled = setting not in ("0", "off")
        self.min_size = 0 if setting == "always" else 1 << 14


state = Switch()


@lru_cache(maxsize=1)
def numexpr() -> Any:
    """The numexpr module (the [fast] extra), imported when a first kernel is made (not at
    start-up), or None."""
    try:
        import numexpr as ne
    except ImportError:  # pragma: no cover - fusion is then off
        return None
    return ne


@contextmanager
def fusion(on: bool = True, *, min_size: int | None = None):
    """Inside the block, fuse (where numexpr is installed) or not, from `min_size`
    elements."""
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
        if op == "sub":
            return [(i, g if i == x else a("neg", g)) for i in live]
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
    """A fused program at given inputs: `value` now, `pull(seed)` for the gradients.
    `inputs` are the differentiated inputs' nodes (their arrays in `values`, all of the
    output's shape); `constants` the other inputs' arrays by node (any broadcast)."""

    def __init__(self, graph: Graph, out: int, summed: bool, inputs: list[int],
                 values: list[np.ndarray], constants: dict[int, Any]) -> None:
        self.graph, self.out, self.summed = graph, out, summed
        self.inputs, self.values = inputs, values
        self.shape = np.broadcast_shapes(*(np.shape(v) for v in values),
                                         *(np.shape(v) for v in constants.values()))
        if any(np.shape(v) != self.shape for v in values):
            raise Unfusable("an input broadcast against the others")
        self.calls = 0  # numexpr calls made (each a fused kernel), for the tests
        self._arrays: dict[int, Any] = {**constants, **dict(zip(inputs, values))}
        self._seed = graph.node("in", "seed")
        self.adjoints = graph.adjoints(out, self._seed, inputs)
        # what both the value and a gradient need is computed once, before either
        self._shared_first([out, *(a for a in self.adjoints if a is not None)])
        self.value = np.asarray(self._evaluate([out], [summed])[0], dtype=np.float64)

    def pull(self, seed: Any) -> list[np.ndarray]:
        """Each input's gradient for the output's cotangent `seed` (of the value's shape)."""
        self._arrays[self._seed] = np.asarray(seed, dtype=np.float64)
        adj = self.adjoints
        roots = [a for a in adj if a is not None]
        found = iter(self._evaluate(roots, [False] * len(roots)))
        grads = []
        for a in adj:
            r = np.zeros(self.shape) if a is None else np.asarray(next(found), dtype=np.float64)
            grads.append(r if r.shape == self.shape else np.broadcast_to(r, self.shape).copy())
        return grads

    # ------------------------------------------------------------------ evaluation

    def _evaluate(self, roots: list[int], flags: list[bool]) -> list[Any]:
        """The roots' arrays (summed where asked), shared transcendentals computed once."""
        for k in self._shared(roots):
            self._arrays[k] = self._run(self._text(k, top=True))
        return [self._run(f"sum({self._text(r, top=True)})" if s else self._text(r, top=True))
                for r, s in zip(roots, flags)]

    def _reachable(self, roots: list[int]) -> set[int]:
        seen: set[int] = set()
        stack = list(roots)
        while stack:
            k = stack.pop()
            if k in seen:
                continue
            seen.add(k)
            if k not in self._arrays and self.graph.ops[k] not in ("in", "num"):
                stack.extend(self.graph.args[k])
        return seen

    def _shared_first(self, roots: list[int]) -> None:
        """Compute the transcendental nodes that several of `roots` need, but not the
        seed, before the value: the gradients reuse them."""
        for k in self._shared(roots):
            if self._seed not in self._reachable([k]):
                self._arrays[k] = self._run(self._text(k, top=True))

    def _run(self, text: str) -> Any:
        """One numexpr call over the named arrays (generated names only: no user text)."""
        self.calls += 1
        names = {f"a{k}": v for k, v in self._arrays.items()}
        try:
            return numexpr().evaluate(text, local_dict=names)
        except (ValueError, TypeError, KeyError, OverflowError, ZeroDivisionError,
                RuntimeError) as exc:  # e.g. more operands than a kernel takes: the tape
            raise Unfusable(str(exc)) from exc

    def _shared(self, roots: list[int]) -> list[int]:
        """Transcendental nodes that more than one place needs, not yet computed: each
        becomes an array of its own, in dependency order."""
        g, parents = self.graph, {}
        for k in self._reachable(roots):
            if k in self._arrays or g.ops[k] in ("in", "num"):
                continue
            for a in set(g.args[k]):
                parents[a] = parents.get(a, 0) + 1
        for r in roots:
            parents[r] = parents.get(r, 0) + 1
        return sorted(k for k, n in parents.items()
                      if n > 1 and g.ops[k] in FUNCS and k not in self._arrays)

    def _text(self, k: int, top: bool = False) -> str:
        """Node k as numexpr text, computed arrays by name."""
        g = self.graph
        if k in self._arrays and not top or g.ops[k] == "in":
            return f"a{k}"
        op, args = g.ops[k], g.args[k]
        if op == "num":
            v = args[0]
            if not math.isfinite(v):
                self._arrays[k] = np.float64(v)
                return f"a{k}"
            return f"({v!r})"
        if op == "neg":
            return f"(-{self._text(args[0])})"
        if op in FUNCS:
            return f"{FUNCS[op]}({self._text(args[0])})"
        return f"({self._text(args[0])} {BINARY[op]} {self._text(args[1])})"


def wanted(size: int) -> bool:
    """Whether inputs of `size` elements (the largest) are fused: switched on, at least
    `state.min_size` elements, numexpr installed."""
    return state.enabled and size >= max(state.min_size, 1) and numexpr() is not None


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

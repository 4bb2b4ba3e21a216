"""The tape: recorded operations in evaluation order, and the reverse sweep over them.

Every operation on a value that requires a gradient makes a `Node` (its primitive, its
parents, the values the VJP rules need). Inside `recording()` the nodes are also appended
to a `Tape`, a plain list in evaluation order, and each carries the `Span` of the program
text that made it (set by the interpreter in `state.span`; None for library use):

    with tape.recording() as t:
        out = run_numeric(program, inputs, of="y")   # any code that records
    for node in t.nodes:                             # evaluation order
        node.span.line, node.span.col, node.span.text, node.prim.name
        node.parents                                 # per argument: a Node or None
        node.saved                                   # (argument values, output value)
    trace = {}
    backward([(out.node, 1.0)], tape=t, retain_graph=True, trace=trace)
    trace[node]                                      # every swept node's cotangent

`backward` walks a tape in reverse from its latest root, adding cotangents into a dict;
nodes the roots do not depend on never receive one and are passed over. Without a tape
(the PyTorch-style library) the order is an iterative topological sort from the roots.
Neither recurses, so a program of a million steps differentiates like a short one.
"""

from __future__ import annotations

import gc
import itertools
import operator
import sys
import weakref
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

import numpy as np

from gradcalc.engine import pool

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


class Zero:
    """A cotangent known to be zero: PyTorch's efficient zero tensor, which the derivative
    of `sgn` (inside |x|'s gradient) is. A plain sweep passes it through nodes without
    running their rules and adds it as nothing, so 0 times an infinite factor below stays
    0, as in PyTorch; a recorded sweep (create_graph) turns it into ordinary zeros, since
    PyTorch's zero tensor records itself there. What reaches a leaf is zeros."""

    __slots__ = ("shape",)

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = tuple(shape)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.zeros(self.shape, dtype=dtype or np.float64)

    def __repr__(self) -> str:
        return f"Zero({self.shape})"


def _real(g: Any) -> Any:
    """A cotangent as the rules and the callers see it: a Zero becomes zeros."""
    return np.zeros(g.shape) if type(g) is Zero else g


@dataclass(frozen=True)
class Span:
    """Where a node came from: 1-based line and column, and the expression's source text."""

    line: int
    col: int
    text: str


@dataclass(eq=False)
class Tape:
    """The nodes recorded inside one `recording()`, in evaluation order."""

    nodes: list[Node] = field(default_factory=list)


class State:
    """The engine's switches, in one place (read on every operation, so kept flat).

    `grad_enabled`: record operations (set only through `set_grad_enabled`/`no_grad`);
    `quiet`: NumPy's floating-point warnings are already off (inside `hot()`);
    `span`: the source span stamped on new nodes; `tape`: the recording, or None;
    `spare`: the cotangent a sweep owns, lent to the rule it is calling (gradcalc/engine/
    scratch.py), or None; `lean`: new nodes keep only what their rules read (`lean()`);
    `aliases`: inside a plain sweep, the ids of the cotangents that are read-only views of
    another array (`scratch.times`' 1·v), which a caller gets as arrays of their own;
    `once`: inside a plain sweep, the rule results made once for the whole sweep
    (`scratch.scaled_once`), else None.
    """

    __slots__ = ("grad_enabled", "quiet", "span", "tape", "spare", "lean", "aliases", "once")

    def __init__(self) -> None:
        self.grad_enabled = True
        self.quiet = False
        self.span: Span | None = None
        self.tape: Tape | None = None
        self.spare: np.ndarray | None = None
        self.lean = False
        self.aliases: set[int] | None = None
        self.once: dict[tuple[int, float], tuple[Any, Any]] | None = None


state = State()


#: nodes made off any tape take minus this count as their index (see `Node`)
created = itertools.count(2)


class Node:
    """One recorded operation (or a leaf when `prim` is None)."""

    # `output` and `cotangent` are set on library nodes (off any tape) as a sweep passes
    # them (see `remember`); unset until then, so making a node costs nothing more.
    __slots__ = ("prim", "parents", "saved", "params", "leaf", "span", "index", "output",
                 "cotangent", "__weakref__")

    def __init__(self, prim: Any, parents: tuple, saved: Any, params: dict,
                 leaf: Any = None) -> None:
        self.prim = prim
        self.parents = parents  # per positional argument: the argument's Node, or None
        self.saved = saved  # (argument values, output value); None once freed
        self.params = params  # static, non-differentiable parameters (axis, index, ...)
        self.leaf = leaf  # weak reference to the leaf tensor, for .grad
        self.span = state.span
        t = state.tape
        if t is None:  # off any tape: minus the creation count, for PyTorch's sweep order
            self.index = -next(created)
        else:  # its place on the tape: the sweep starts there
            self.index = len(t.nodes)
            t.nodes.append(self)

    def name(self) -> str:
        return "AccumulateGrad" if self.prim is None else self.prim.grad_fn

    def __repr__(self) -> str:
        return f"<{self.name()}>"


#: the output's place among the values a VJP rule reads (`Prim.reads`); arguments 0, 1, …
ANS = -1

#: Arrays up to this size are kept as they are by a node that saves nothing.
_SMALL = 256


def _shape_only(v: Any) -> Any:
    """An array of v's shape and dtype that takes no memory (what a shape-only rule needs)."""
    if type(v) is np.ndarray and v.size > _SMALL:
        return np.broadcast_to(np.zeros((), v.dtype), v.shape)
    return v


def lean_saved(saved: tuple, reads: tuple, parents: list) -> tuple:
    """A node's (argument values, output) with the large arrays that none of its rules to
    be run reads (`Prim.reads`, for the arguments with a node) as stand-ins of their shape."""
    wanted: set[int] = set()
    for read, parent in zip(reads, parents):
        if parent is not None:
            wanted.update(read)
    values, out = saved
    return (tuple(v if i in wanted else _shape_only(v) for i, v in enumerate(values)),
            out if ANS in wanted else _shape_only(out))


def release(node: Node) -> None:
    """Free what `node` saved after a sweep without retain_graph. A node whose PyTorch twin
    saves no tensors keeps its values (large arrays as zero-cost stand-ins of their shape,
    all its rule needs): sweeping it again works, as in PyTorch; a node that saved tensors
    raises on the next sweep."""
    saves = node.prim.saves
    if saves is True or (saves is not False and saves(node.params)):
        node.saved = None
        return
    saved = node.saved
    if saved is None:
        return
    values, out = saved
    for v in (out, *values):
        if type(v) is np.ndarray and v.size > _SMALL:
            node.saved = (tuple(_shape_only(v) for v in values), _shape_only(out))
            return


def remember(seen: list[tuple[Node, Any]]) -> None:
    """What a picture of a library graph shows after backward (`gradcalc.graph(y)`, as
    micrograd's draw_dot shows data and grad): the cotangent each sweep that finished
    brought a node, summed as .grad is (the node's own output is kept by the sweep as it
    passes: freeing the saved values does not take it, as a PyTorch tensor keeps its
    data). Only off a tape: a recorded program frees its arrays as the sweep goes."""
    for node, g in seen:
        g = np.asarray(getattr(g, "value", g), dtype=np.float64)  # a recorded sweep's tensor
        before = getattr(node, "cotangent", None)
        node.cotangent = g if before is None or before.shape != g.shape else before + g


def leaf_node(tensor: Any) -> Node:
    return Node(None, (), None, {}, weakref.ref(tensor))


# --------------------------------------------------------------------------- switches


def grad_enabled() -> bool:
    return state.grad_enabled


@contextmanager
def set_grad_enabled(mode: bool):
    """Record (True) or do not record (False) operations inside the block."""
    previous, state.grad_enabled = state.grad_enabled, bool(mode)
    try:
        yield
    finally:
        state.grad_enabled = previous


def no_grad():
    """Record nothing inside the block (like torch.no_grad)."""
    return set_grad_enabled(False)


@contextmanager
def hot():
    """The block records or sweeps a whole program: domain errors give nan/inf silently
    (one np.errstate for the block, not one per operation), and Python's cyclic garbage
    collector pauses, since it would otherwise walk the growing tape again and again
    (the tape has no cycles: reference counting frees it; see `_collect_again`)."""
    previous, collecting = state.quiet, gc.isenabled()
    with np.errstate(all="ignore"):
        state.quiet = True
        gc.disable()
        try:
            yield
        finally:
            state.quiet = previous
            if collecting:
                _collect_again()


#: young objects (made and alive) past which leaving `hot()` moves them unwalked
_UNWALKED = 10_000


def _collect_again() -> None:
    """The collector on again. When the paused block left many objects alive (a tape:
    four a node), they go to the collector's oldest generation unwalked (`gc.freeze`,
    then `gc.unfreeze`): otherwise the first allocation after the block walks every node
    once (a sixth of a 10^5-step scalar program's time). The full collections still walk
    them. A block that left few (an array program, a chunk of a table) changes nothing,
    nor does one where some objects are frozen already (a caller's `gc.freeze` stays)."""
    if gc.get_count()[0] > _UNWALKED and gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
    gc.enable()


@contextmanager
def lean(on: bool = True):
    """Inside the block (`on`), nodes keep only the values their VJP rules read
    (`lean_saved`): for a recording swept once (grad, vjp, jacobian), whose other
    intermediate arrays are then freed as the forward pass goes, as NumPy frees an
    expression's temporaries, and their memory is reused while it is warm. Values a
    node does not keep are not there to show (explain and pictures record without it)."""
    previous, state.lean = state.lean, on
    try:
        yield
    finally:
        state.lean = previous


@contextmanager
def recording(onto: Tape | None = None):
    """Collect the nodes made inside the block on a `Tape` (`onto`: append to that one).
    Inside another recording, that one's tape: a caller's recording sees every node of
    what it calls."""
    previous = state.tape
    if previous is not None and onto is None:
        yield previous
        return
    state.tape = Tape() if onto is None else onto
    try:
        yield state.tape
    finally:
        state.tape = previous


# --------------------------------------------------------------------------- the sweep


#: a library node's place in PyTorch's sweep order (its index: minus its creation count)
_creation = operator.attrgetter("index")


def topological(roots: Iterable[Node]) -> list[Node]:
    """The nodes reachable from `roots`, each before all of its parents (iteratively)."""
    seen: set[Node] = set()
    post: list[Node] = []
    stack: list[tuple[Node, bool]] = [(r, False) for r in roots]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            post.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.append((node, True))
        for p in node.parents:  # a loop, not a generator: no call per node
            if p is not None and p not in seen:
                stack.append((p, False))
    post.reverse()
    return post


def postorder(root: Any) -> list[Any]:
    """The nodes `root` depends on, parents before children and first arguments first (an
    evaluation order, for drawing and explaining a graph), iteratively."""
    order: list[Any] = []
    done: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if node is None or id(node) in done:
            continue
        if expanded:
            done.add(id(node))
            order.append(node)
            continue
        stack.append((node, True))
        stack.extend((p, False) for p in reversed(node.parents) if p is not None)
    return order


def _on_tape(t: Tape | None, roots: list[Node]) -> int:
    """The index of the latest root when every root is on `t`, else -1."""
    if t is None or not roots:
        return -1
    nodes = t.nodes
    last = -1
    for r in roots:
        i = r.index
        if not 0 <= i < len(nodes) or nodes[i] is not r:
            return -1
        last = max(last, i)
    return last


def backward(
    roots: Iterable[tuple[Node, Any]],
    *,
    retain_graph: bool = False,
    create_graph: bool = False,
    stop_at: set[Node] | None = None,
    tape: Tape | None = None,
    trace: dict[Node, Any] | None = None,
    lift: Callable[[Any, Node | None], Any] | None = None,
    needed: set[Node] | None = None,
) -> dict[Node, Any]:
    """Propagate seeds from `roots` back to the leaves; return the cotangent of each leaf.

    Seeds may carry leading batch axes (a batch of cotangents, e.g. an identity seed for a
    whole Jacobian): every VJP rule works on them unchanged. With `create_graph` the
    sweep itself is recorded: `lift(value, node)` makes the tensors the rules run on.
    Nodes in `stop_at` have their cotangent reported too (gradients with respect to
    intermediate values). `tape`: walk that recording in reverse when the roots are on
    it. `trace` (a dict) receives the cotangent of every node the sweep passes through.
    Given `needed` (the nodes that lead to the wanted ones), a node runs only if one of
    its parents is needed: PyTorch's engine runs only what the requested gradients need
    (and frees only that).
    """
    pending: dict[Node, Any] = {}
    for node, seed in roots:
        pending[node] = pending[node] + seed if node in pending else seed
    result: dict[Node, Any] = {}
    sweep = _Sweep(pending, result, retain_graph, lift if create_graph else None,
                   stop_at, trace, needed)
    outer = state.aliases, state.once
    state.aliases, state.once = (None, None) if create_graph else (set(), {})
    with hot(), _aliasing(outer):
        last = _on_tape(tape, list(pending))
        if last >= 0:
            nodes = tape.nodes  # type: ignore[union-attr]
            sweep.run(islice(reversed(nodes), len(nodes) - 1 - last, None))
        rest = [n for n in pending if n.prim is not None]
        if rest:  # nodes made before the tape began (or no tape): a topological order
            order = topological(rest)
            if all(n.index < 0 for n in order):  # PyTorch's: the latest made first (which
                order.sort(key=_creation)  # leaves are finished if a freed node raises)
            sweep.run(order)
        for node, g in pending.items():  # leaves
            result[node] = g = _handed(_real(g))
            if trace is not None:
                trace[node] = g
        remember(sweep.seen)
    return result


@contextmanager
def _aliasing(outer: tuple[set[int] | None, dict | None]):
    """Inside: `state.aliases` and `state.once` as `backward` set them; after: the outer
    sweep's (if any)."""
    try:
        yield
    finally:
        state.aliases, state.once = outer


def _handed(g: Any) -> Any:
    """A cotangent as a caller gets it: an alias of another array (`scratch.times`' 1·v,
    a view of a forward value) becomes an array of its own, 1·v as the rule would have
    made it (the same bits)."""
    aliases = state.aliases
    if aliases and id(g) in aliases:
        return np.multiply(1.0, g)
    return g


def _last_parent(parents: tuple) -> int:
    """The position of the last argument that has a node (the last rule to run)."""
    for i in range(len(parents) - 1, -1, -1):
        if parents[i] is not None:
            return i
    return -1


def _addable(before: Any, gi: Any) -> bool:
    """Whether `before + gi` may be written into `before` (held by the pending dict
    alone: checked by the caller): the same shape and float64."""
    return _own(before) and type(gi) is np.ndarray and gi.shape == before.shape \
        and gi.dtype == np.float64


class FreedError(RuntimeError):
    """A sweep met a node whose saved values were freed. `finished` holds the cotangents
    of the leaves that were complete by then: PyTorch has already added those into .grad
    when it raises (its leaves accumulate as soon as their last consumer has run)."""

    def __init__(self, finished: dict[Node, Any]) -> None:
        super().__init__(FREED_MESSAGE)
        self.finished = finished


def _calibrate() -> int:
    """The reference count `sys.getrefcount` reports for an array one local name holds."""
    probe = np.empty(1)
    return sys.getrefcount(probe)


#: see `_calibrate`: a cotangent with this count (and its own memory) is the sweep's alone
_ALONE = _calibrate()


def _reclaimed(view: np.ndarray) -> np.ndarray:
    """The array that a cotangent which is a read-only alias (`scratch.times`' 1·v)
    views, when nothing but the alias holds either (no node, name, caller or other
    cotangent): no one can see it written, so the sweep may lend it to a rule as a
    cotangent of its own. Else the alias itself."""
    base = view.base
    if type(base) is not np.ndarray or base.base is not None or \
            not base.flags.writeable or base.dtype != np.float64 or \
            base.shape != view.shape or base.strides != view.strides or \
            id(view) not in state.aliases:  # type: ignore[operator]
        return view
    # the view: the caller's name, this parameter, the call; its array: `view.base` too
    if sys.getrefcount(view) != _ALONE + 1 or \
            sys.getrefcount(base) != _ALONE + 1 + pool.holds(base) or \
            view.ctypes.data != base.ctypes.data:
        return view
    state.aliases.discard(id(view))  # type: ignore[union-attr]
    return base


def _own(g: Any) -> bool:
    """Whether `g` owns its writable float64 memory (not a view, a broadcast or a Zero)."""
    return (type(g) is np.ndarray and g.base is None and g.dtype == np.float64
            and g.flags.writeable)


def _sum(before: Any, gi: Any) -> Any:
    """before + gi, into a pool buffer when it is a large float64 array."""
    if type(before) is np.ndarray and type(gi) is np.ndarray:
        made = pool.fresh(np.add, before, gi)
        if made is not None:
            return made
    return before + gi


class _Sweep:
    """The reverse sweep's state: cotangents waiting for their node, and the results."""

    def __init__(self, pending: dict, result: dict, retain_graph: bool,
                 lift: Callable[[Any, Node | None], Any] | None, stop_at: set | None,
                 trace: dict | None, needed: set | None) -> None:
        self.pending, self.result = pending, result
        self.retain_graph, self.lift = retain_graph, lift
        self.stop_at, self.trace, self.needed = stop_at, trace, needed
        self.seen: list[tuple[Node, Any]] = []  # library nodes swept, and their cotangent

    def run(self, order: Iterable[Node]) -> None:
        state.spare = None  # lent only inside `_rules`, and taken back there
        plain = self.lift is None and self.trace is None and self.stop_at is None \
            and self.needed is None
        try:
            self._run_plain(order) if plain else self._run(order)
        finally:
            state.spare = None

    def _run_plain(self, order: Iterable[Node]) -> None:
        """`_run` for a plain sweep (no recording, trace, stops or needed set): a node
        whose cotangent is a NumPy scalar (a scalar program's every node) runs its rules
        here, with the same steps inline; any other node takes `_run`."""
        pending, retain, general = self.pending, self.retain_graph, self._run
        pop = pending.pop
        for node in order:
            prim = node.prim
            if prim is None:
                continue  # a leaf: reported at the end
            g = pop(node, None)
            if g is None:
                continue  # not on the roots' path
            saved = node.saved
            if type(g) is not np.float64 or saved is None or node.index < 0 \
                    or prim.variadic_vjp is not None or node.params:
                pending[node], g = g, None  # held by `_run` alone: its rules may write in it
                general((node,))
                continue
            values, ans = saved
            rules = prim.vjps
            for i, parent in enumerate(node.parents):
                if parent is None:
                    continue
                gi = rules[i](g, ans, *values)
                if gi is None:
                    continue
                if parent not in pending:
                    pending[parent] = gi
                elif type(gi) is np.float64 and type(pending[parent]) is np.float64:
                    pending[parent] += gi
                else:
                    self._add(parent, gi)
            if not retain:
                if prim.saves is True:
                    node.saved = None
                elif prim.saves is not False or not prim.elementwise:
                    release(node)  # (an elementwise node of a scalar cotangent that
                    # saves no tensors holds scalars only: nothing to release)

    def _run(self, order: Iterable[Node]) -> None:
        pending, pop = self.pending, self.pending.pop
        stop_at, trace, lift, needed = self.stop_at, self.trace, self.lift, self.needed
        retain = self.retain_graph
        for node in order:
            prim = node.prim
            if prim is None or node not in pending:
                continue  # a leaf (reported at the end) or not on the roots' path
            g = pop(node)
            if type(g) is Zero and (lift is not None or not prim.passes_zero):
                g = _real(g)  # recorded sweeps and custom Functions get ordinary zeros
            if trace is not None:
                trace[node] = _real(g)
            if stop_at is not None and node in stop_at:
                self.result[node] = _handed(_real(g))
            if needed is not None and not any(p in needed for p in node.parents):
                continue
            saved = node.saved
            if saved is None:
                raise FreedError(self.finished_leaves(node))
            values, ans = saved
            if node.index < 0:  # a library node: what its picture shows afterwards
                if getattr(node, "output", None) is None:
                    node.output = ans
                self.seen.append((node, g))
            if type(g) is Zero:  # zero in, zero out: no rule runs
                self.pass_zero(node, g, values, ans)
                continue
            if lift is None and type(g) is np.ndarray and not g.flags.writeable:
                g = _reclaimed(g)  # an alias that alone holds its array: that array
            if lift is not None:
                args = [v if p is None else lift(v, p) for v, p in zip(values, node.parents)]
                ans, g = lift(ans, node), lift(g, None)
                last = -1
            elif type(g) is np.ndarray and sys.getrefcount(g) == _ALONE + pool.holds(g) \
                    and _own(g):
                last = _last_parent(node.parents)  # its rule may write into g (scratch.py)
                args = values
            else:
                last, args = -1, values
            self._rules(node, prim, g, ans, args, last)
            g = None  # held no longer: the next node's cotangent may be alone
            if not retain:
                if prim.saves is True:
                    node.saved = None
                else:
                    release(node)

    def _rules(self, node: Node, prim: Any, g: Any, ans: Any, args: Any, last: int) -> None:
        """Run `node`'s rule for each argument with a node and add the results into the
        pending cotangents; the rule at `last` may write into `g`."""
        pending, needed, params = self.pending, self.needed, node.params
        rules = prim.vjps if prim.variadic_vjp is None else None
        for i, parent in enumerate(node.parents):
            if parent is None:
                continue
            if i == last:
                state.spare = g
            if rules is not None:  # the common case, without the Prim.vjp indirection
                gi = rules[i](g, ans, *args, **params)
            else:
                gi = prim.vjp(i, g, ans, args, params)
            if i == last:
                state.spare = None
            if gi is None or needed is not None and parent not in needed:
                continue  # no gradient (a custom backward's None), or none wanted
            if parent not in pending:
                pending[parent] = gi
            else:
                self._add(parent, gi)

    def _add(self, parent: Node, gi: Any) -> None:
        """Add `gi` to the cotangent pending for `parent`."""
        pending = self.pending
        if type(gi) is not Zero:  # a Zero adds nothing
            before = pending[parent]
            if type(before) is Zero:
                pending[parent] = gi
            elif type(before) is np.ndarray and \
                    sys.getrefcount(before) == _ALONE + 1 + pool.holds(before) \
                    and _addable(before, gi):
                np.add(before, gi, out=before)  # the sweep's own sum: in place
            else:
                pending[parent] = _sum(before, gi)

    def pass_zero(self, node: Node, g: Zero, values: Any, ans: Any) -> None:
        """Send a Zero on to every parent, shaped as the parent (plus g's batch axes)."""
        batch = g.shape[:len(g.shape) - np.ndim(ans)]
        for parent, v in zip(node.parents, values):
            if parent is None or self.needed is not None and parent not in self.needed:
                continue
            if parent not in self.pending:
                self.pending[parent] = Zero(batch + np.shape(v))
        if not self.retain_graph:
            release(node)

    def finished_leaves(self, node: Node) -> dict[Node, Any]:
        """The leaves whose cotangent no node still to be swept (`node` and the pending
        ones, and all they lead to) would add to."""
        pending = [node, *self.pending]
        reached: set[Node] = set()
        stack = [p for n in pending if n.prim is not None for p in n.parents if p is not None]
        while stack:
            n = stack.pop()
            if n not in reached:
                reached.add(n)
                stack.extend(p for p in n.parents if p is not None)
        finished = dict(self.result)  # swept leaves, and wanted tensors already complete
        finished.update((n, g) for n, g in self.pending.items()
                        if n.prim is None and n not in reached)
        return finished

"""`--explain` and `--wrt` on intermediates, as data: the tape of one run with the source
text of each step, and the backward sweep over it, edge by edge.

The program runs once more on the tape, with an interpreter that notes which expression
made each recorded node and which name each value was assigned to. The part of the tape
the output depends on, in evaluation order, is the table of steps; the sweep walks it in
reverse and keeps what the engine's sweep only adds up: the cotangent arriving at each
step and what each rule sends to each parent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.backends.numeric import NumericBackend
from gradcalc.engine import tape
from gradcalc.engine.ops import PRIMITIVES
from gradcalc.engine.tensor import Tensor
from gradcalc.errors import GradcalcError, LimitError
from gradcalc.language.program import (
    Assign,
    Decisions,
    For,
    Interpreter,
    Program,
    While,
)
from gradcalc.language.unparse import unparse
from gradcalc.limits import Limits

#: an explanation of more recorded steps than this is refused (it would not be read)
MAX_STEPS = 5_000
#: a Jacobian's explanation shows the sweeps of this many rows; J beside wᵀJ this many
MAX_ROWS = 6
MAX_TABLE_ROWS = 12
#: a block of steps repeated at least this many times in a row is shown compressed
MIN_REPEATS = 4
MAX_BLOCK = 8


@dataclass
class Step:
    id: int
    op: str  # 'input' or a primitive's name
    text: str  # the source text that made it (an input: its name)
    inputs: list[int]  # step ids of the recorded arguments (constants are in the text)
    value: np.ndarray
    args: tuple[bool, ...] = ()  # which arguments are recorded (the others are constants)
    name: str | None = None  # the name it was assigned to, if any
    line: int | None = None
    col: int | None = None
    operands: tuple[str, ...] = ()  # per argument: "#3" (a step) or a constant's value
    iteration: tuple[int, ...] = ()  # inside loops: each loop's iteration, from 1

    @property
    def where(self) -> str:
        """' [iteration 3]' (nested loops: ' [iteration 2.1]') for a step made in a loop."""
        if not self.iteration:
            return ""
        return " [iteration " + ".".join(map(str, self.iteration)) + "]"

    @property
    def rule(self) -> str:
        """The VJP rule in words (for each recorded argument, when they differ), its
        arguments named by their steps (#1) or values and the cotangent arriving here by
        this step (∂#4, the gradient of the output with respect to step #4), never by
        letters that the program's own names could be (the table writes g·y·x^(y−1))."""
        prim = PRIMITIVES.get(self.op)
        rule = prim.rule if prim is not None and prim.rule else f"{self.op}'s VJP"
        if isinstance(rule, tuple):
            rule = ";  ".join(r for r, used in zip(rule, self.args or (True,) * len(rule))
                              if used)
        own = _RESULT.get(self.op)
        if own is not None:  # the step's own value, by its number too
            rule = re.sub(rf"(?<![A-Za-z_0-9]){own}(?![A-Za-z_0-9])", f"#{self.id}", rule)
        return _named(rule, self.operands, cotangent(self.id))

    @property
    def key(self) -> tuple:
        return (self.op, self.text, self.line, self.col)


@dataclass
class Sweep:
    label: str
    seed: np.ndarray
    cotangent: dict[int, np.ndarray] = field(default_factory=dict)
    flows: dict[int, list[tuple[int, np.ndarray]]] = field(default_factory=dict)
    adds: dict[int, int] = field(default_factory=dict)  # contributions arriving at a step


@dataclass
class Explanation:
    steps: list[Step]
    output: int
    sweeps: list[Sweep] = field(default_factory=list)
    weights_table: Any = None  # (J rows, w, wᵀJ, column names)
    notes: list[str] = field(default_factory=list)

    def runs(self) -> list[tuple[int, int, int]]:
        """(first index, block length, repeats) of each repeated block of steps."""
        keys = [s.key for s in self.steps]
        out, i = [], 0
        while i < len(keys):
            best = None
            for size in range(1, MAX_BLOCK + 1):
                k = 1
                while keys[i + k * size: i + (k + 1) * size] == keys[i: i + size] \
                        and i + (k + 1) * size <= len(keys):
                    k += 1
                if k >= MIN_REPEATS and (best is None or k * size > best[1] * best[2]):
                    best = (i, size, k)
            if best:
                out.append(best)
                i += best[1] * best[2]
            else:
                i += 1
        return out

    def shown(self, reverse: bool = False) -> list[Step | str]:
        """The steps with repeated blocks cut to their first and last: the cut part is one
        line saying how many times it repeated and the values it went through."""
        items: list[Step | str] = []
        i = 0
        runs = {r[0]: r for r in self.runs()}
        while i < len(self.steps):
            if i in runs:
                _, size, k = runs[i]
                middle = self.steps[i + size: i + (k - 1) * size]
                first, last = middle[0], middle[-1]
                note = (f"#{first.id}–#{last.id}: {k - 2} more times {first.text}"
                        f" (values {_short(first.value)} … {_short(last.value)})")
                items += self.steps[i: i + size] + [note] \
                    + self.steps[i + (k - 1) * size: i + k * size]
                i += size * k
            else:
                items.append(self.steps[i])
                i += 1
        return items[::-1] if reverse else items

    def to_json(self, jsonable: Any) -> dict[str, Any]:
        steps = [{"id": s.id, "op": s.op, "source": s.text, "inputs": s.inputs,
                  "name": s.name, "line": s.line, "col": s.col, "value": jsonable(s.value),
                  **({"iteration": list(s.iteration)} if s.iteration else {})}
                 for s in self.steps]
        sweeps = [{"label": w.label, "seed": jsonable(w.seed),
                   "cotangents": {str(k): jsonable(v) for k, v in w.cotangent.items()},
                   "flows": [{"from": c, "to": p, "value": jsonable(v)}
                             for c, fl in w.flows.items() for p, v in fl]}
                  for w in self.sweeps]
        out: dict[str, Any] = {
            "steps": steps, "output": self.output, "sweeps": sweeps,
            "repeats": [{"first": self.steps[i].id, "block": n, "times": k}
                        for i, n, k in self.runs()],
            "notes": self.notes}
        if self.weights_table is not None:
            jac, w, wj, names = self.weights_table
            out["weights"] = {"jacobian": jsonable(jac), "weights": jsonable(w),
                              "weighted": jsonable(wj), "columns": names}
        return out


#: the table's names for a rule's arguments, by position (logb's base b, conv's weight
#: w); `g` is the incoming cotangent
_FORMAL = ({"x", "A"}, {"y", "B", "b", "w"})
#: the rules that name the step's own result by a letter (sigmoid's g·s·(1 − s))
_RESULT = {"sigmoid": "s", "softmax": "s", "cumprod": "out"}


def cotangent(step: int) -> str:
    """The name of the cotangent arriving at a step in rule text: ∂#4 (∂out/∂#4). A
    program name cannot contain `#`, so it never reads as one of the program's."""
    return f"∂#{step}"


def _named(rule: str, operands: tuple[str, ...], incoming: str = "g") -> str:
    """`rule` with its argument letters (x, y; A, B) replaced by the steps or constants
    they stand for, and the cotangent `g` by `incoming`."""

    def name(m: re.Match[str]) -> str:
        if m.group(0) == "g":
            return incoming
        for k, letters in enumerate(_FORMAL):
            if m.group(0) in letters and k < len(operands):
                return operands[k]
        return m.group(0)

    return re.sub(r"(?<![A-Za-z_0-9])[gxyABbw](?![A-Za-z_0-9])", name, rule)


def _short(v: Any) -> str:
    a = np.asarray(v, dtype=np.float64)
    if a.size == 1:
        return f"{float(a.reshape(-1)[0]):g}"
    return "[" + ", ".join(f"{x:g}" for x in a.reshape(-1)[:3]) + (", …]" if a.size > 3 else "]")


# --------------------------------------------------------------------------- recording


class _Tracer(Interpreter):
    """The interpreter, noting the expression that made each node and the names given."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.made: dict[int, tuple[Any, Any]] = {}  # id(node) -> (node, expression)
        self.names: dict[int, str] = {}  # id(node) -> the name last assigned that value
        self.loops: list[int] = []  # the iteration of each loop running, outermost first
        self.iteration: dict[int, tuple[int, ...]] = {}  # id(node) -> loops' iterations

    def evaluate(self, e: Any) -> Any:
        value = super().evaluate(e)
        node = getattr(value, "node", None)
        if node is not None and node.prim is not None and id(node) not in self.made:
            self.made[id(node)] = (node, e)
            if self.loops:
                self.iteration[id(node)] = tuple(self.loops)
        return value

    def tick(self, pos: Any) -> None:
        super().tick(pos)
        if self.loops:
            self.loops[-1] += 1

    def exec_stmt(self, stmt: Any) -> None:
        loop = isinstance(stmt, (While, For))
        if loop:
            self.loops.append(0)
        try:
            super().exec_stmt(stmt)
        finally:
            if loop:
                self.loops.pop()
        if isinstance(stmt, Assign):
            node = getattr(self.env.get(stmt.target), "node", None)
            if node is not None:
                self.names[id(node)] = stmt.target


@dataclass
class Traced:
    """One recorded run: its environment, the output, the tracer's notes, the leaves."""

    env: dict[str, Any]
    out: Any
    tracer: _Tracer
    leaves: dict[str, Tensor]


def trace(program: Program, values: dict[str, np.ndarray], names: list[str],
          constants: dict[str, np.ndarray], of: str, limits: Limits) -> Traced:
    leaves = {n: Tensor(np.asarray(values[n], dtype=np.float64), requires_grad=True)
              for n in names}
    env: dict[str, Any] = {**constants, **leaves}
    tracer = _Tracer(NumericBackend(limits), env, Decisions(), limits.max_iterations)
    with tape.hot(), tape.recording():  # nodes numbered in evaluation order
        tracer.run(program)
    if of not in env:
        raise GradcalcError(f"the program never assigns '{of}'", kind="eval")
    return Traced(env, env[of], tracer, leaves)


def _ancestors(root: Any) -> list[Any]:
    """The nodes `root` depends on, in evaluation order (iteratively: tapes are long)."""
    seen: dict[int, Any] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node
        if len(seen) > MAX_STEPS:
            raise LimitError(f"the run recorded more than {MAX_STEPS:,} steps: too many "
                             "to explain (try a smaller loop or input)")
        stack.extend(node.parents)
    nodes = list(seen.values())
    ops = [n for n in nodes if n.prim is not None]
    if all(getattr(n, "index", -1) >= 0 for n in ops):  # recorded on a tape: its order
        leaves = [n for n in nodes if n.prim is None]
        return leaves + sorted(ops, key=lambda n: n.index)
    from gradcalc.engine.tape import postorder

    return postorder(root)


def steps_of(traced: Traced) -> tuple[list[Step], dict[int, int]]:
    """The steps of a traced run (inputs first), and id(node) -> step id."""
    steps: list[Step] = []
    ids: dict[int, int] = {}
    for name, leaf in traced.leaves.items():
        ids[id(leaf.node)] = len(steps) + 1
        steps.append(Step(len(steps) + 1, "input", name, [], leaf.value, name=name))
    root = getattr(traced.out, "node", None)
    nodes = [] if root is None else _ancestors(root)
    made, names = traced.tracer.made, traced.tracer.names
    for node in nodes:
        if node.prim is None:
            continue
        expr = made.get(id(node), (None, None))[1]
        # the expression this run's interpreter saw make the node; else the span the
        # engine may record on the node itself (a step made inside a function's rule)
        pos = getattr(expr, "pos", None) or getattr(node, "span", None)
        text = unparse(expr) if expr is not None else getattr(pos, "text", "") or ""
        step = Step(len(steps) + 1, node.prim.name, text,
                    [ids[id(p)] for p in node.parents if p is not None and id(p) in ids],
                    np.asarray(node.saved[1]), tuple(p is not None for p in node.parents),
                    names.get(id(node)), getattr(pos, "line", None), getattr(pos, "col", None),
                    _operands(node, ids), traced.tracer.iteration.get(id(node), ()))
        ids[id(node)] = step.id
        steps.append(step)
    _inner_texts(steps)
    return steps, ids


def _operands(node: Any, ids: dict[int, int]) -> tuple[str, ...]:
    """Each argument of a node as its step (#3) or, a constant, its value."""
    values = node.saved[0] if node.saved is not None else ()
    out = []
    for k, parent in enumerate(node.parents):
        if parent is not None and id(parent) in ids:
            out.append(f"#{ids[id(parent)]}")
        elif k < len(values) and np.size(values[k]) == 1:
            out.append(_short(values[k]))
        else:
            out.append("c")  # a constant array
    return tuple(out)


def _inner_texts(steps: list[Step]) -> None:
    """A step made inside a function (mean's sum) is named after the call that used it."""
    for step in reversed(steps):
        if not step.text:
            users = [s for s in steps if step.id in s.inputs and s.text]
            step.text = f"(in {users[0].text})" if users else "(internal)"


# --------------------------------------------------------------------------- sweeping


def sweep(traced: Traced, steps: list[Step], ids: dict[int, int], seed: np.ndarray,
          label: str) -> Sweep:
    """The reverse sweep from the output seeded with `seed`, edge by edge (the engine's
    rules, applied in reverse evaluation order, keeping every contribution)."""
    result = Sweep(label, np.asarray(seed, dtype=np.float64))
    root = getattr(traced.out, "node", None)
    if root is None:
        return result
    nodes = {ids[id(n)]: n for n in _ancestors(root) if id(n) in ids}
    result.cotangent[ids[id(root)]] = result.seed
    result.adds[ids[id(root)]] = 1
    with tape.hot():
        for step in reversed(steps):
            g = result.cotangent.get(step.id)
            node = nodes.get(step.id)
            if g is None or node is None or node.prim is None:
                continue
            values, ans = node.saved
            for i, parent in enumerate(node.parents):
                if parent is None:
                    continue
                gi = np.asarray(node.prim.vjp(i, g, ans, values, node.params),
                                dtype=np.float64)
                pid = ids[id(parent)]
                result.flows.setdefault(step.id, []).append((pid, gi))
                have = result.cotangent.get(pid)
                result.cotangent[pid] = gi if have is None else have + gi
                result.adds[pid] = result.adds.get(pid, 0) + 1
    return result


def explain(command: str, program: Program, values: dict[str, np.ndarray], names: list[str],
            constants: dict[str, np.ndarray], of: str, weights: np.ndarray | None,
            limits: Limits) -> Explanation:
    """The explanation of a grad, jacobian or hessian job (see the module's docstring)."""
    traced = trace(program, values, names, constants, of, limits)
    steps, ids = steps_of(traced)
    out_value = np.asarray(getattr(traced.out, "value", traced.out), dtype=np.float64)
    root = getattr(traced.out, "node", None)
    output = ids.get(id(root), 0) if root is not None else 0
    ex = Explanation(steps, output)
    if root is None:
        ex.notes.append(f"'{of}' does not depend on the inputs: every derivative is 0")
        return ex
    if command == "jacobian":
        count = out_value.size
        for i in range(min(count, MAX_ROWS)):
            onehot = np.zeros(count)
            onehot[i] = 1.0
            seed = onehot.reshape(out_value.shape)
            ex.sweeps.append(sweep(traced, steps, ids, seed,
                                   f"row {i} of the Jacobian: one-hot weights "
                                   f"{_literal(seed)}"))
        if count > MAX_ROWS:
            ex.notes.append(f"(the other {count - MAX_ROWS} rows are the sweeps of the other "
                            "one-hot weights; gradcalc does them all in one batched sweep)")
        return ex
    if weights is None:
        ex.sweeps.append(sweep(traced, steps, ids, np.ones(out_value.shape),
                               f"seeded with d{of}/d{of} = 1"))
    else:
        ex.sweeps.append(sweep(traced, steps, ids, weights,
                               f"seeded with the weights w = {_literal(weights)}"))
        ex.weights_table = _weights_table(traced, steps, ids, weights)
    if command == "hessian":
        ex.notes.append("the Hessian differentiates this sweep once more: gradcalc records the "
                        "sweep itself on the tape and sweeps it once per input element")
    return ex


def _literal(a: Any) -> str:
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 0:
        v = float(a)
        return str(int(v)) if v == int(v) else repr(v)
    return "[" + ", ".join(_literal(x) for x in a) + "]"


def _weights_table(traced: Traced, steps: list[Step], ids: dict[int, int],
                   weights: np.ndarray) -> Any:
    """J (one row per output element, one column per input element) and wᵀJ."""
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.size > MAX_TABLE_ROWS:
        return None
    columns = [f"{n}" if leaf.value.ndim == 0 else f"{n}{list(idx)}"
               for n, leaf in traced.leaves.items() for idx in np.ndindex(*leaf.shape)]
    rows = []
    for i in range(w.size):
        seed = np.zeros(w.size)
        seed[i] = 1.0
        s = sweep(traced, steps, ids, seed.reshape(np.shape(weights)), "")
        rows.append(np.concatenate([np.reshape(s.cotangent.get(step.id, np.zeros(step.value.shape)),
                                               -1) for step in steps if step.op == "input"]))
    jac = np.array(rows)
    return jac, w, w @ jac, [c.replace(" ", "") for c in columns]


def intermediate_gradients(command: str, program: Program, values: dict[str, np.ndarray],
                           inputs: list[str], intermediates: list[str],
                           constants: dict[str, np.ndarray], of: str,
                           seed: Any, limits: Limits) -> dict[str, np.ndarray]:
    """d of / d name for assigned names (their last values), like PyTorch's retain_grad():
    one sweep that reports the cotangent reaching those nodes (a batched seed for a
    Jacobian)."""
    traced = trace(program, values, inputs, constants, of, limits)
    out_value = np.asarray(getattr(traced.out, "value", traced.out), dtype=np.float64)
    root = getattr(traced.out, "node", None)
    targets = {}
    for name in intermediates:
        value = traced.env.get(name)
        targets[name] = getattr(value, "node", None)
    batch: tuple[int, ...] = ()
    if command == "jacobian":
        seed = np.eye(out_value.size).reshape((out_value.size,) + out_value.shape)
        batch = out_value.shape
    found = {}
    stop = {n for n in targets.values() if n is not None}
    if root is not None and stop:
        found = tape.backward([(root, np.asarray(seed))], stop_at=stop)
    out = {}
    for name, node in targets.items():
        shape = np.shape(getattr(traced.env.get(name), "value", traced.env.get(name)))
        g = found.get(node) if node is not None else None
        g = np.zeros((int(np.prod(batch)),) + shape if batch else shape) if g is None \
            else np.asarray(g, dtype=np.float64)
        out[name] = g.reshape(batch + shape)
    return out

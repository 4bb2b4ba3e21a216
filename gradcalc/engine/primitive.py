"""What a primitive is, how one runs on tensors, and the registry every list derives from.

A `Prim` is one table entry (gradcalc.engine.table): its NumPy forward, a VJP rule per
argument, its sympy twin, where its kinks are, its arity in the language and the names it
goes by (language, library, Tensor method). `table.register` puts an entry in `PRIMITIVES`,
its public function in `fn` and, by its names, in the language's `FUNCTIONS` and on the
Tensor class; the library's names and the symbolic backend read the same registry, so
adding a function is one entry.

A VJP rule has the HIPS-autograd shape `(g, ans, *args, **params) -> cotangent of one
argument` and is written with `fn`'s functions, so the same rule runs on plain arrays (a
fast backward) and on tensors (a recorded backward: create_graph, Hessians).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.engine import pool
from gradcalc.engine.tape import Node, created, lean_saved, state

#: the params of a node that has none: one shared dict, never written, not one per node
NO_PARAMS: dict[str, Any] = {}

#: set while a Python function is traced (gradcalc/engine/tracing.py): `apply` hands it
#: every operation on tensors, and it records one that has a traced operand (None: not
#: one of its own, so the operation runs as always)
tracer: Callable[[Prim, tuple, dict], Any] | None = None


class Traced:
    """A value that can carry a tape node: the base of Tensor, so that `apply` (which
    lives below the Tensor class) can tell tensors from plain values. `_floating`, when
    set, says PyTorch would hold it as a floating-point tensor although its float64
    values are whole (so it may not index); a constant result of a floating operand is
    floating too."""

    __slots__ = ("value", "node", "_floating")

    @classmethod
    def wrap(cls, value: Any, node: Node | None) -> Traced:
        t = cls.__new__(cls)
        t.value, t.node = value, node
        return t


@dataclass(frozen=True)
class Kink:
    """Points where the tape's convention has no sympy expression (the check excuses a
    mismatch there): `where(at, symbolic)` gets the operands' float64 values at one
    element and whether each depends on an input."""

    text: str
    where: Callable[[list[float], list[bool]], bool]


@dataclass(frozen=True)
class Facts:
    """What a calculus course knows of a primitive, beside what the tape needs: each is
    read from here by the homework, the language and the worked solutions.

    `defined`: where it is a real number (`DEFINED`'s words). `rule`: the derivative
    rule's id in a worked solution (trig, inverse-trig, hyperbolic, exponential,
    logarithm, power, abs); `derivative(sympy, u)`: f'(u) as a textbook writes it
    (tan' = sec²) and `says`: that rule in words. `tex`: the LaTeX commands that read
    as it, without the backslash (sin for \\sin; `\\operatorname{name}` always does).
    `written`: its name in a book (ln for log), which the LaTeX and MathML print;
    `outer`: how the chain rule names it as an outer function (√( ) for sqrt).
    `glued`: a student writes it against what follows (`sinx`, `xln(x)`); `applied`:
    against a one-letter argument too (`sint`), and without parentheses (`sin x^2`,
    a notation trap). `spellings`: other names the language reads as it (ln).
    `misapplied`: the catalogue's per-function misapplications (their ids).
    `inverse`: the function `f^-1` means. `kinked`: its derivative jumps somewhere
    (|x| at 0), so a point there is not judged.
    """

    defined: str = ""
    rule: str = ""
    derivative: Callable[[Any, Any], Any] | None = field(default=None, repr=False)
    says: str = ""
    tex: tuple[str, ...] = ()
    written: str = ""
    outer: str = ""
    glued: bool = False
    applied: bool = False
    spellings: tuple[str, ...] = ()
    misapplied: tuple[str, ...] = ()
    inverse: str = ""
    kinked: bool = False


#: where a function is a real number: everywhere; everywhere but isolated points (tan's
#: poles); or where its argument is positive, nonnegative, in [-1, 1] ("unit"), >= 1
#: ("one") or in (-1, 1) ("open unit"). "": not said (a part may be undefined).
DEFINED = ("everywhere", "isolated", "positive", "nonnegative", "unit", "one", "open unit")


@dataclass(eq=False)
class Prim:
    """One primitive: forward on NumPy values, a VJP rule per argument, a sympy twin.

    `sym` takes object arrays of sympy expressions (elementwise twins take scalars when
    `elementwise`); `sym_local(nums, *exprs, **params)`, if given, is the twin on the
    branch the float64 operands `nums` select (ties in max split evenly, as the tape
    does). `arity` is (least, most) arguments in the language (None: not in the
    language); `axis`: the language's `axis=` keyword is its second argument; `call`:
    the public function (default: all arguments positional, straight to `apply`).
    `saves`: whether PyTorch's node saves tensors (False: only shapes, so a freed graph
    of such nodes can be swept again), or a predicate over a node's params.
    `rule`: the VJP rule in words for `--explain`, one per argument where they differ.
    `passes_zero`: a zero cotangent (tape.Zero) passes through a plain sweep without
    running the rules (False for custom Functions, whose backward gets zeros).
    `facts`: what a calculus course knows of it (`Facts`).
    `reads`: per argument, the saved values its VJP rule reads, plain or recorded
    (argument positions, `ANS` for the output; shapes are always there); None: all of
    them; an entry that saves nothing reads none. A lean recording (`tape.lean`) keeps
    only those, so the forward pass frees the rest as it goes. `scalar`: an operator's
    forward when an operand is a NumPy float64 scalar (its `forwards.scalar_fast`), called
    straight by `apply_two`. `ufunc`: the NumPy ufunc an elementwise forward is (read from
    the forward), whose large float64 results go into the engine's pool (`pool.fresh`).
    """

    name: str
    forward: Callable[..., Any]
    vjps: tuple[Callable[..., Any], ...]
    sym: Callable[..., Any] | None = None
    grad_fn: str = ""
    kinks: str = ""
    kink: Kink | None = None
    elementwise: bool = False
    arity: tuple[int, int] | None = None
    axis: bool = False
    methods: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    library: bool = True
    call: Callable[..., Any] | None = field(default=None, repr=False)
    sym_local: Callable[..., Any] | None = field(default=None, repr=False)
    domain: tuple[float, float] | None = None
    variadic_vjp: Callable[..., Any] | None = field(default=None, repr=False)
    rule: str | tuple[str, ...] = ""
    passes_zero: bool = True
    doc: str = ""
    saves: bool | Callable[[dict], bool] = True
    facts: Facts = field(default_factory=Facts, repr=False)
    reads: tuple[tuple[int, ...], ...] | None = None
    scalar: Callable[[Any, Any], Any] | None = field(default=None, repr=False)
    ufunc: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.ufunc is None and self.elementwise:
            self.ufunc = _float_ufunc(self.forward)
        if not self.grad_fn:
            self.grad_fn = self.name.title().replace("_", "") + "Backward0"
        if self.reads is None and self.saves is False:
            self.reads = ()

    @property
    def names(self) -> tuple[str, ...]:
        """The language and library names: its own and its aliases."""
        return (self.name, *self.aliases)

    def vjp(self, i: int, g: Any, ans: Any, args: list, params: dict) -> Any:
        if self.variadic_vjp is not None:
            return self.variadic_vjp(i, g, ans, *args, **params)
        return self.vjps[i](g, ans, *args, **params)

    def __call__(self, *args: Any, **params: Any) -> Any:
        return apply(self, *args, **params)


def _float_ufunc(forward: Any) -> Any:
    """The ufunc `forward` is (or names as its `ufunc`) when it has a float64 loop of
    its arity, else None."""
    u = forward if isinstance(forward, np.ufunc) else getattr(forward, "ufunc", None)
    if not isinstance(u, np.ufunc) or u.nout != 1:
        return None
    return u if "d" * u.nin + "->d" in u.types else None


def computed(prim: Prim, *values: Any) -> Any:
    """`prim.forward(*values)`, into a pool buffer when the result is a large float64
    array (`pool.fresh`): the same ufunc on the same operands."""
    u = prim.ufunc
    if u is None:
        return prim.forward(*values)
    if u is np.power and type(values[1]) is not np.ndarray:
        made = _power(*values)
    else:
        made = pool.fresh(u, *values)
    return prim.forward(*values) if made is None else made


def _power(x: Any, y: Any) -> Any:
    """x ** y for a number y into a pool buffer by `power`, which the forward calls too;
    None where the forward's `**` may take another ufunc: a NumPy float64 exponent in
    0.5, -1, 1, 0 or 2, which NumPy before 2.0 sends to sqrt, reciprocal, ... (the forward
    runs then, as before)."""
    if type(y) is _F64 and y in _SHORTCUTS and not _power_only():
        return None
    return pool.fresh(np.power, x, y)


#: the exponents NumPy before 2.0 takes a shortcut for in `array ** number`
_SHORTCUTS = (0.5, -1.0, 1.0, 0.0, 2.0)
_seen_power: list[bool] = []


def _power_only() -> bool:
    """Whether this NumPy's `array ** float64` calls `power` for every exponent (seen
    once, through a subclass that reports the ufunc it is given)."""
    if not _seen_power:
        called: list[str] = []

        class Spy(np.ndarray):
            def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kw: Any) -> Any:
                called.append(ufunc.__name__)
                plain = [np.asarray(i) if isinstance(i, Spy) else i for i in inputs]
                return getattr(ufunc, method)(*plain, **kw)

        probe = np.ones(1).view(Spy)
        with np.errstate(all="ignore"):
            for e in _SHORTCUTS:
                probe ** np.float64(e)  # noqa: B018 - the call is the probe
        _seen_power.append(called == ["power"] * len(_SHORTCUTS))
    return _seen_power[0]


def apply(prim: Prim, *args: Any, **params: Any) -> Any:
    """Run `prim` on raw values; if any argument is a tensor, wrap and record the result.

    This is the hot path of every recorded program, so it is written for speed: inside
    `tape.hot()` (interpreter runs, reverse sweeps) NumPy's warnings are already off.
    """
    values = []
    parents = []
    kind = None
    needs_grad = False
    for a in args:
        if isinstance(a, Traced):
            kind = type(a)
            values.append(a.value)
            node = a.node
            parents.append(node)
            if node is not None:
                needs_grad = True
        else:
            values.append(a)
            parents.append(None)
    if tracer is not None and kind is not None:
        traced = tracer(prim, args, params)
        if traced is not None:
            return traced
    try:
        if state.quiet:
            out = prim.forward(*values, **params)
        else:
            with np.errstate(all="ignore"):
                out = prim.forward(*values, **params)
    except ValueError as exc:  # shapes that do not broadcast: PyTorch's RuntimeError
        if kind is None:
            raise
        raise BroadcastError(_broadcast_message(values) or str(exc)) from None
    except TypeError as exc:  # NumPy's refusals of boolean arithmetic: PyTorch's words
        if kind is None or "numpy boolean" not in str(exc):
            raise
        raise RuntimeError(_BOOLEAN["negative" if "negative" in str(exc) else "subtract"]) \
            from None
    if kind is None:
        return out
    if needs_grad and state.grad_enabled:  # tuples of arrays leave the cyclic GC's watch
        saved = (tuple(values), out)
        if state.lean and prim.reads is not None and (
                type(out) is not np.float64 or not prim.elementwise):  # arrays may be in it
            saved = lean_saved(saved, prim.reads, parents)
        return kind.wrap(out, Node(prim, tuple(parents), saved, params or NO_PARAMS))
    made = kind.wrap(out, None)
    for a in args:
        if isinstance(a, Traced) and (a.node is not None or getattr(a, "_floating", False)):
            made._floating = True
            break
    return made


def apply_one(prim: Prim, x: Any) -> Any:
    """`apply` for one operand and no params (the elementwise functions), unrolled for the
    common case, a recorded operation; anything else takes `apply`, which also says what
    went wrong when the forward fails."""
    if not isinstance(x, Traced):  # a plain value (a rule of a plain sweep): no wrapping
        if state.quiet:
            return prim.forward(x) if type(x) is not _ARRAY else computed(prim, x)
        with np.errstate(all="ignore"):
            return computed(prim, x)
    node = x.node
    if node is None or not state.grad_enabled:
        return apply(prim, x)
    v = x.value
    try:
        if state.quiet:
            out = prim.forward(v) if type(v) is not _ARRAY else computed(prim, v)
        else:
            with np.errstate(all="ignore"):
                out = computed(prim, v)
    except (ValueError, TypeError):
        return apply(prim, x)
    saved = ((v,), out)
    if state.lean and type(out) is not np.float64 and prim.reads is not None:
        saved = lean_saved(saved, prim.reads, (node,))
    return recorded(type(x), out, prim, (node,), saved)


def apply_two(prim: Prim, x: Any, y: Any) -> Any:
    """`apply` for two operands and no params (the arithmetic operators), unrolled as
    `apply_one` is."""
    tx, ty = isinstance(x, Traced), isinstance(y, Traced)
    if not (tx or ty):  # plain values (a rule of a plain sweep): no wrapping
        if state.quiet:
            return prim.forward(x, y)
        with np.errstate(all="ignore"):
            return prim.forward(x, y)
    nx = x.node if tx else None
    ny = y.node if ty else None
    if nx is None and ny is None or not state.grad_enabled:
        return apply(prim, x, y)
    vx = x.value if tx else x
    vy = y.value if ty else y
    try:
        if type(vx) is _F64 is type(vy) and state.quiet and prim.scalar is not None:
            out = prim.scalar(vx, vy)  # two scalars (a scalar program's every step)
        elif type(vx) is np.ndarray or type(vy) is np.ndarray:  # arrays: maybe pooled
            if state.quiet:
                out = computed(prim, vx, vy)
            else:
                with np.errstate(all="ignore"):
                    out = computed(prim, vx, vy)
        elif state.quiet:
            scalar = prim.scalar
            out = scalar(vx, vy) if scalar is not None and (
                type(vx) is _F64 or type(vy) is _F64) else prim.forward(vx, vy)
        else:
            with np.errstate(all="ignore"):
                out = prim.forward(vx, vy)
    except (ValueError, TypeError):
        return apply(prim, x, y)
    saved, parents = ((vx, vy), out), (nx, ny)
    if state.lean and type(out) is not np.float64 and prim.reads is not None:
        saved = lean_saved(saved, prim.reads, parents)
    return recorded(type(y if ty else x), out, prim, parents, saved)


def spare_buffer(x: Any) -> np.ndarray | None:
    """The value of `x` when an operation may write over it: a pool buffer (so made by
    the engine, never a caller's array) that a primitive's forward made and whose node
    keeps no reference to it (a lean node's rules do not read it); else None. Only for
    values the caller knows nothing else reads (the interpreter's temporaries)."""
    if not isinstance(x, Traced):
        return None
    v, node = x.value, x.node
    if type(v) is not _ARRAY or node is None or node.prim is None or \
            node.prim.ufunc is None or not pool.holds(v):
        return None  # a leaf's, a caller's or an unpooled array
    saved = node.saved
    if saved is None or saved[1] is v or any(s is v for s in saved[0]):
        return None
    return v


def apply_into(prim: Prim, spares: tuple[int, ...], *args: Any) -> Any:
    """`apply_one` / `apply_two` with the result written over the first operand in
    `spares` that is a temporary nothing else reads (the interpreter says which are its
    own) and that `prim`'s rules do not read: the same ufunc on the same operands, so the
    same bits, one full-size array fewer. The ordinary forward whenever unsure."""
    values = tuple(a.value if isinstance(a, Traced) else a for a in args)
    for spare in spares:
        into = spare_buffer(args[spare]) if _overwritable(prim, spare, args) else None
        if into is not None and pool.pooled_shape(values) == into.shape:
            out = prim.ufunc(*values, out=into)
            parents = tuple(a.node if isinstance(a, Traced) else None for a in args)
            saved = (values, out)
            if state.lean:
                saved = lean_saved(saved, prim.reads, parents)
            kind = type(args[-1] if isinstance(args[-1], Traced) else args[0])
            return recorded(kind, out, prim, parents, saved)
    return apply_one(prim, *args) if len(args) == 1 else apply_two(prim, *args)


def _overwritable(prim: Prim, spare: int, args: tuple) -> bool:
    """Whether `prim`'s forward may write over argument `spare` on this call: an
    elementwise ufunc (not `power`, whose `**` may take another ufunc), recording
    quietly, and no rule of an argument with a node reads that argument."""
    reads = prim.reads
    if prim.ufunc is None or prim.ufunc is np.power or reads is None or \
            not (state.quiet and state.grad_enabled):
        return False
    return not any(spare in read for read, a in zip(reads, args)
                   if isinstance(a, Traced) and a.node is not None)


_new = object.__new__
_F64, _ARRAY = np.float64, np.ndarray

#: the Traced class that `recorded` makes inline (Tensor, which registers itself by
#: `make_plainly`)
_plain_kind: type | None = None


def make_plainly(kind: type) -> None:
    """Let `recorded` make `kind`'s instances inline, as its `wrap` does: a value, a node,
    no gradient yet."""
    global _plain_kind
    _plain_kind = kind


def recorded(kind: type, out: Any, prim: Prim, parents: tuple, saved: tuple) -> Any:
    """`kind.wrap(out, Node(prim, parents, saved, NO_PARAMS))` with both made inline (one
    call where a scalar program spent three on each operation)."""
    node = _new(Node)  # one store a slot (faster than unpacking a tuple into them)
    node.prim = prim
    node.parents = parents
    node.saved = saved
    node.params = NO_PARAMS
    node.leaf = None
    node.span = state.span
    t = state.tape
    if t is None:
        node.index = -next(created)
    else:
        nodes = t.nodes
        node.index = len(nodes)
        nodes.append(node)
    if kind is not _plain_kind:
        return kind.wrap(out, node)
    made = _new(kind)
    made.value = out
    made.node = node
    made.grad = None
    made._retain_grad = False
    return made


_BOOLEAN = {
    "subtract": "Subtraction, the `-` operator, with two bool tensors is not supported. Use "
                "the `^` or `logical_xor()` operator instead.",
    "negative": "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead.",
}


def _broadcast_message(values: list) -> str | None:
    """PyTorch's words for two shapes that do not broadcast, naming the first dimension
    (from the right) where they differ; None when the error was another."""
    shapes = [np.shape(v) for v in values if isinstance(v, np.ndarray)][:2]
    if len(shapes) < 2:
        return None
    a, b = shapes
    n = max(len(a), len(b))
    for k in range(1, n + 1):
        da = a[-k] if k <= len(a) else 1
        db = b[-k] if k <= len(b) else 1
        if da != db and 1 not in (da, db):
            return (f"The size of tensor a ({da}) must match the size of tensor b ({db}) "
                    f"at non-singleton dimension {n - k}")
    return None


class BroadcastError(RuntimeError, ValueError):
    """Operands whose shapes do not fit: a RuntimeError as in PyTorch, and still the
    ValueError that NumPy raises, which the command line reports as a bad input."""


class Functions:
    """Each registered primitive's public function by name (`fn.sin(x)`), for the VJP
    rules, the Tensor methods and `ops`: filled by `register`, read at call time."""

    def __iter__(self):
        return iter(vars(self).items())


fn = Functions()

#: every primitive by name, in registration order (gradcalc.engine.table.register)
PRIMITIVES: dict[str, Prim] = {}

#: the language's functions: name -> (function, (least, most) positional arguments)
FUNCTIONS: dict[str, tuple[Callable[..., Any], tuple[int, int]]] = {}

#: lists computed from the registry (`derived`), emptied when an entry comes or goes
_DERIVED: dict[str, Any] = {}


def derived(name: str, build: Callable[[], Any]) -> Any:
    """`build()`'s list from the registry, built once per state of the registry: the
    homework's and the language's lists of functions are computed here from the entries,
    and a primitive registered later (a test's toy) is in them too."""
    try:
        return _DERIVED[name]
    except KeyError:
        made = _DERIVED[name] = build()
        return made


def forget_derived() -> None:
    """Empty the derived lists (`table.register` and `unregister` call it)."""
    _DERIVED.clear()


def named(which: Callable[[Prim], bool]) -> frozenset[str]:
    """Every name (its own, aliases and spellings) of the entries `which` picks."""
    return frozenset(n for p in PRIMITIVES.values() if which(p)
                     for n in (*p.names, *p.facts.spellings))


def by_name() -> dict[str, Prim]:
    """Every entry by each of its names (aliases and spellings too)."""
    return derived("by name", lambda: {n: p for p in PRIMITIVES.values()
                                       for n in (*p.names, *p.facts.spellings)})


def public_function(prim: Prim) -> Callable[..., Any]:
    """The function a user calls: `prim.call` with the primitive bound, or plain apply."""
    custom = prim.call
    operands = len(prim.vjps) if prim.elementwise and prim.variadic_vjp is None else 0

    if custom is None and operands == 1:
        def function(x: Any) -> Any:
            if state.quiet and not isinstance(x, Traced):  # a rule of a plain sweep
                return prim.forward(x) if type(x) is not _ARRAY else computed(prim, x)
            return apply_one(prim, x)
    elif custom is None and operands == 2:
        def function(x: Any, y: Any) -> Any:
            return apply_two(prim, x, y)
    elif custom is None:
        def function(*args: Any) -> Any:
            return apply(prim, *args)
    else:
        def function(*args: Any, **kwargs: Any) -> Any:
            return custom(prim, *args, **kwargs)

    function.__name__ = function.__qualname__ = prim.name
    function.__doc__ = prim.doc or f"{prim.name} (a primitive; see gradcalc.engine.table)."
    return function

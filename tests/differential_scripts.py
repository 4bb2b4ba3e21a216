"""Seeded generator of small autograd scripts, and a runner that observes them.

A script is a list of Python statements over a module named `lib`, written in the part of
the API that gradcalc and PyTorch share; tests/engine/test_autograd_differential.py runs
each script with `lib` bound to torch and to gradcalc and compares what `observe` records
after every statement: each tensor's values, shape, requires_grad, is_leaf and .grad (None
included), NumPy results, and the type of any exception a statement raised.

The families: elementwise and reduction trees over broadcasting shapes; backward with
and without `gradient`; accumulation, `.grad.zero_()` and `.grad = None`; retain_graph
and a second sweep; autograd.grad with grad_outputs and allow_unused; create_graph to
second and third order; indexing and index assignment; in-place methods; custom
Functions; kinks (zeros and ties); jacobian and hessian; the error cases.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

Shape = tuple[int, ...]

# broadcast-compatible pairs of leaf shapes
SHAPE_PAIRS: list[tuple[Shape, Shape]] = [
    ((), ()), ((3,), (3,)), ((3,), ()), ((2, 3), (3,)), ((2, 3), (2, 1)), ((2, 1), (1, 3)),
    ((2, 3), (2, 3)), ((1, 3), (2, 1)), ((2, 2, 3), (2, 1, 3)), ((4,), (1,)),
]
KINKS = [0.0, 0.0, 1.0, -1.0, 2.0, -0.5, 0.5, 1.5]

# what a script's namespace holds besides `lib`: the shared custom Functions and the
# functional helpers, written once per library (PyTorch's functional API returns tensors)
PRELUDE = '''
class Exp(lib.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        r = a.exp()
        ctx.save_for_backward(r)
        return r

    @staticmethod
    def backward(ctx, g):
        (r,) = ctx.saved_tensors
        return g * r


class Twice(lib.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


class FirstOnly(lib.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        (b,) = ctx.saved_tensors
        return g * b, None


class Both(lib.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b + a

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * (b + 1), g * a


class WrongCount(lib.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a + 1

    @staticmethod
    def backward(ctx, g):
        return g, g


class Clip(lib.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a.clamp(min=0)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        out = g.clone()
        out[a < 0] = 0
        return out
'''


def bind(lib_name: str) -> dict[str, Any]:
    """A fresh namespace with `lib` and the prelude, for torch or gradcalc."""
    if lib_name == "torch":
        import torch

        torch.set_default_dtype(torch.float64)
        from torch.autograd.functional import hessian as torch_hessian
        from torch.autograd.functional import jacobian as torch_jacobian

        ns: dict[str, Any] = {
            "lib": torch,
            "softplus": torch.nn.functional.softplus,
            "jacobian": lambda f, v: torch_jacobian(f, torch.tensor(v)).numpy(),
            "hessian": lambda f, v: torch_hessian(f, torch.tensor(v)).numpy(),
        }
    else:
        import gradcalc

        ns = {"lib": gradcalc, "softplus": gradcalc.softplus,
              "jacobian": gradcalc.jacobian, "hessian": gradcalc.hessian}
    exec(PRELUDE, ns)  # noqa: S102 - the test's own fixed code
    return ns


# --------------------------------------------------------------------------- observing

def _array(t: Any) -> np.ndarray:
    if getattr(t, "_is_zerotensor", lambda: False)():
        # PyTorch's zero tensor (a derivative known to be 0) has no storage to read
        # (torch 2.13's .numpy(force=True) crashes on it)
        return np.zeros(tuple(t.shape))
    return np.array(t.detach().numpy(), dtype=np.float64)


def snapshot(x: Any) -> Any:
    """A comparable record of a value: tensors, tuples of them, arrays, numbers, None."""
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, np.ndarray):
        return ("array", np.array(x, dtype=np.float64))
    if isinstance(x, (tuple, list)):
        return ("seq", tuple(snapshot(v) for v in x))
    if hasattr(x, "requires_grad") and hasattr(x, "detach"):
        grad = x.grad if x.is_leaf or getattr(x, "retains_grad", False) else None
        return ("tensor", _array(x), tuple(x.shape), bool(x.requires_grad), bool(x.is_leaf),
                None if grad is None else (_array(grad), bool(grad.requires_grad)))
    return ("other", type(x).__name__)


IGNORED = {"lib", "softplus", "jacobian", "hessian", "Exp", "Twice", "FirstOnly", "Both",
           "WrongCount", "Clip", "__builtins__"}


ERROR_KINDS = (RuntimeError, IndexError, TypeError, ValueError, AttributeError, NameError,
               NotImplementedError, ZeroDivisionError)


def _kind(exc: Exception) -> tuple[str, str]:
    """The built-in class an error is (subclasses such as torch's count as their base) and
    its first line, `torch.Size` spelled as gradcalc prints it."""
    words = str(exc).strip().split("\n")[0].replace("torch.Size", "Size")
    return next((k.__name__ for k in ERROR_KINDS if isinstance(exc, k)),
                type(exc).__name__), words


#: how many characters of PyTorch's message gradcalc's must begin with
MESSAGE_START = 24


def same_error(a: tuple[str, str] | None, b: tuple[str, str] | None) -> bool:
    """Both none, or the same class with the same first words."""
    if a is None or b is None:
        return a is b
    return a[0] == b[0] and b[1].startswith(a[1][:MESSAGE_START])


def _separate_grads(ns: dict[str, Any]) -> None:
    """Give PyTorch's leaves their own `.grad` where two share one buffer.

    PyTorch's first gradient of a 0-d leaf takes over the incoming gradient's memory, so two
    leaves fed from one buffer (a sum's expanded scalar, a stack of 0-d tensors) end up
    with one `.grad` between them, and zeroing or accumulating one changes the other
    (docs/pytorch.md's known deviations). gradcalc's are separate arrays; after each
    statement the torch side is given copies, so the scripts compare derivatives, not
    buffer identity."""
    seen: set[int] = set()
    for v in list(ns.values()):
        grad = getattr(v, "grad", None) if getattr(v, "is_leaf", False) else None
        if grad is None or grad._is_zerotensor():
            continue
        where = grad.untyped_storage().data_ptr()
        if where in seen:
            v.grad = grad.clone()
        seen.add(where)


def run_script(lines: list[str], lib_name: str) -> list[Any]:
    """Execute the statements one by one; after each, record every variable and any error."""
    ns = bind(lib_name)
    record: list[Any] = []
    with np.errstate(all="ignore"):
        for line in lines:
            try:
                exec(line, ns)  # noqa: S102 - generated test code, never user text
                error = None
            except Exception as exc:  # noqa: BLE001 - which error is part of the comparison
                error = _kind(exc)
            if lib_name == "torch":
                _separate_grads(ns)
            state = {k: snapshot(v) for k, v in ns.items()
                     if k not in IGNORED and not k.startswith("_") and not callable(v)}
            record.append((line, error, state))
    return record


def _close(a: np.ndarray, b: np.ndarray, rtol: float) -> bool:
    if a.shape != b.shape:
        return False
    both_nan = np.isnan(a) & np.isnan(b)
    with np.errstate(all="ignore"):
        near = np.isclose(a, b, rtol=rtol, atol=rtol * 1e-3, equal_nan=True)
    # two huge finite values may round to inf in one library only
    huge = (np.abs(a) > 1e300) & (np.abs(b) > 1e300) & (np.sign(a) == np.sign(b))
    return bool(np.all(both_nan | near | huge))


def same(x: Any, y: Any, rtol: float = 1e-6) -> bool:
    """Whether two snapshots agree (values within rtol, everything else exactly)."""
    if isinstance(x, tuple) and isinstance(y, tuple) and x and y and x[0] == y[0]:
        kind = x[0]
        if kind == "array":
            return _close(x[1], y[1], rtol)
        if kind == "seq":
            return len(x[1]) == len(y[1]) and all(same(a, b, rtol) for a, b in zip(x[1], y[1]))
        if kind == "tensor":
            if x[2:5] != y[2:5] or not _close(x[1], y[1], rtol):
                return False
            gx, gy = x[5], y[5]
            if gx is None or gy is None:
                return gx is gy
            return gx[1] == gy[1] and _close(gx[0], gy[0], rtol)
        return x == y
    if isinstance(x, float) and isinstance(y, float):
        return _close(np.array(x), np.array(y), rtol)
    return x == y


def first_difference(a: list[Any], b: list[Any]) -> str | None:
    """The first statement after which the two records disagree, described; else None."""
    for (line, err_a, state_a), (_, err_b, state_b) in zip(a, b, strict=True):
        if not same_error(err_a, err_b):
            return f"{line!r}: torch raised {err_a}, gradcalc raised {err_b}"
        for name in sorted(set(state_a) | set(state_b)):
            if not same(state_a.get(name), state_b.get(name)):
                return (f"{line!r}: {name} differs:\n  torch    {state_a.get(name)}\n"
                        f"  gradcalc {state_b.get(name)}")
    return None


# --------------------------------------------------------------------------- generating


def _numbers(rng: random.Random, shape: Shape, kinks: bool) -> str:
    n = math.prod(shape)
    if kinks:
        values = [rng.choice(KINKS) for _ in range(n)]
    else:
        values = [round(rng.uniform(-2, 2), 2) for _ in range(n)]
    return repr(np.array(values, dtype=float).reshape(shape).tolist())


def _broadcast(a: Shape, b: Shape) -> Shape:
    return tuple(np.broadcast_shapes(a, b))


def _broadcastable(a: Shape, b: Shape) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


class Expr:
    """Random expression trees over the leaves, with their shapes tracked."""

    def __init__(self, rng: random.Random, leaves: dict[str, Shape],
                 higher: bool = False) -> None:
        self.rng = rng
        self.leaves = leaves
        # derivatives of derivatives: divide only by values away from zero and take no
        # root of |x| at 0, so no value or derivative is infinite (where one is, PyTorch's
        # fused double backwards decide whether 0 * inf is 0 or nan: see docs/pytorch.md's
        # known deviations)
        self.higher = higher
        self.code = ""  # the script's `e`, once generated

    def leaf(self) -> tuple[str, Shape]:
        name = self.rng.choice(list(self.leaves))
        return name, self.leaves[name]

    def tree(self, depth: int) -> tuple[str, Shape]:
        r = self.rng
        if depth <= 0 or r.random() < 0.2:
            return self.leaf()
        kind = r.choice(["unary", "unary", "binary", "binary", "binary", "reduce", "shape",
                         "index", "special"])
        a, sa = self.tree(depth - 1)
        if kind == "unary":
            return self.unary(a), sa
        if kind == "binary":
            b, sb = self.tree(depth - 1)
            if not _broadcastable(sa, sb):
                b, sb = f"({b}).sum()", ()
            code = self.binary(a, b)
            return code, _broadcast(sa, sb) if "{b}" in code or b in code else sa
        if kind == "reduce":
            return self.reduce(a, sa)
        if kind == "shape":
            return self.reshape(a, sa)
        if kind == "index":
            return self.index(a, sa)
        return self.special(a, sa, depth)

    def unary(self, a: str) -> str:
        code = self.rng.choice([
            f"({a}).exp()", f"({a}).sin()", f"({a}).cos()", f"({a}).tanh()",
            f"({a}).sigmoid()", f"({a}).abs()", f"({a}).relu()", f"lib.relu({a})",
            f"({a}).sign()", f"({a}).atan()", f"(({a}).abs() + 0.5).log()",
            f"(({a}).abs() + 0.25).sqrt()", f"({a}).abs().sqrt()", f"-({a})",
            f"({a}) ** 2", f"({a}) ** 3", f"({a}) ** 0.0", f"({a}) ** 1.0",
            f"(({a}).abs() + 0.1) ** 0.5", f"({a}).abs() ** 1.5", f"2 ** ({a})",
            f"({a}).clamp(min=0)", f"({a}).clamp(-0.5, 0.5)", f"({a}).clamp(max=1.0)",
            f"softplus({a})", f"({a}).clamp(-0.9, 0.9).asin()", f"({a}).sinh()",
            f"({a}).clone()", f"({a}).detach()", f"(({a}).abs() + 1).log2()",
            f"({a}).clamp(-1.2, 1.2).tan()", f"({a}).cosh()", f"({a}).clamp(-0.9, 0.9).acos()",
            f"(({a}).abs() + 1).log10()",
            # PyTorch's library ops (gradcalc/engine/extended.py)
            f"lib.nn.functional.gelu({a})", f"lib.nn.functional.silu({a})",
            f"lib.nn.functional.elu({a}, 0.5)", f"lib.nn.functional.leaky_relu({a}, 0.1)",
            f"lib.nn.functional.hardtanh({a}, -0.5, 0.75)", f"({a}).floor() + ({a})",
            f"({a}).round() * ({a})", f"lib.nn.functional.gelu({a}, approximate='tanh')",
        ])
        if self.higher and code in (f"({a}).abs().sqrt()", f"({a}).abs() ** 1.5"):
            # derivatives of derivatives: no infinite derivative at 0 either
            return code.replace(f"({a}).abs()", f"(({a}).abs() + 0.25)")
        return code

    def binary(self, a: str, b: str) -> str:
        # (+ 0.0 after maximum/minimum of two expressions: a tie of -0.0 and +0.0 gives
        # either sign in PyTorch, varying with the length of the vector; see the docs)
        code = self.rng.choice([
            f"({a}) + ({b})", f"({a}) - ({b})", f"({a}) * ({b})", f"({a}) / (({b}).abs() + 0.5)",
            f"({a}) + 1", f"1 - ({a})", f"({a}) * 2", f"({a}) / 4", f"3 / (({a}).abs() + 1)",
            f"lib.maximum({a}, {b}) + 0.0", f"lib.minimum({a}, {b}) + 0.0",
            f"lib.atan2({a}, {b})",
            f"lib.where(({a}) > 0, {a}, {b})", f"(({a}).abs() + 0.5) ** ({b})",
            f"({a}) * ({a})", f"({a}) - ({a})", f"lib.maximum({a}, {a})", f"({a}) / ({b})",
            f"lib.max({a}, {b}) + 0.0", f"lib.min({a}, {a})",
        ])
        if self.higher and code == f"({a}) / ({b})":
            return f"({a}) / (({b}) ** 2 + 0.5)"
        return code

    def reduce(self, a: str, sa: Shape) -> tuple[str, Shape]:
        r = self.rng
        if not sa or r.random() < 0.4:
            fn = r.choice(["sum", "mean", "prod", "norm", "max", "min", "amax"])
            return f"({a}).{fn}()", ()
        dim = r.randrange(len(sa))
        keep = r.random() < 0.5
        fn = r.choice(["sum", "mean", "prod", "amax", "amin", "logsumexp", "softmax",
                       "max", "min", "lib.max", "argmax", "log_softmax", "cumsum", "cumprod",
                       "flip", "var", "cummax"])
        if fn in ("log_softmax", "cumsum", "flip"):
            return f"({a}).{fn}({dim})" if fn != "flip" else f"({a}).flip({dim})", sa
        if fn == "cumprod":  # zeros: PyTorch differentiates its backward formula itself
            return (f"(({a}).abs() + 0.5).cumprod({dim})" if self.higher
                    else f"({a}).cumprod({dim})"), sa
        if fn == "cummax":
            return f"lib.cummax({a}, {dim}).values", sa
        out = tuple(1 if i == dim else d for i, d in enumerate(sa)) if keep else \
            sa[:dim] + sa[dim + 1:]
        if fn == "var":
            corr = r.choice([0, 1]) if sa[dim] > 1 else 0
            return f"({a}).var({dim}, keepdim={keep}, correction={corr})", out
        if fn == "softmax":
            return f"({a}).softmax({dim})", sa
        if fn in ("max", "min"):  # a (values, indices) pair: the gradient to one element
            return f"({a}).{fn}({dim}, keepdim={keep}).values", out
        if fn == "lib.max":
            return f"lib.max({a}, dim={dim}, keepdim={keep})[0]", out
        if fn == "argmax":  # indices, as a constant factor (ties: the first)
            return f"({a}) * ({a}).argmax({dim}, keepdim=True)", sa
        return f"({a}).{fn}({dim}, keepdim={keep})", out

    def reshape(self, a: str, sa: Shape) -> tuple[str, Shape]:
        r = self.rng
        options: list[tuple[str, Shape]] = [
            (f"({a}).reshape(-1)", (math.prod(sa),)),
            (f"({a}).unsqueeze(0)", (1,) + sa),
            (f"({a}).expand(2, *{list(sa)})", (2,) + sa),
        ]
        if len(sa) == 2:
            options += [(f"({a}).t()", sa[::-1]), (f"({a}).transpose(0, 1)", sa[::-1]),
                        (f"({a}).permute(1, 0)", sa[::-1])]
        if 1 in sa:
            options.append((f"({a}).squeeze()", tuple(d for d in sa if d != 1)))
        return r.choice(options)

    def index(self, a: str, sa: Shape) -> tuple[str, Shape]:
        r = self.rng
        if not sa:
            return f"({a})[None]", (1,)
        n = sa[0]
        options: list[tuple[str, Shape]] = [
            (f"({a})[0]", sa[1:]), (f"({a})[-1]", sa[1:]), (f"({a})[0:1]", (1,) + sa[1:]),
            (f"({a})[{[0] * 2 + [n - 1]}]", (3,) + sa[1:]), (f"({a})[..., 0]", sa[:-1]),
        ]
        if len(sa) >= 2:
            options.append((f"({a})[:, -1]", sa[:1] + sa[2:]))
        if len(sa) == 1:
            options.append((f"({a})[({a}) > 0].sum()", ()))
        return r.choice(options)

    def special(self, a: str, sa: Shape, depth: int) -> tuple[str, Shape]:
        r = self.rng
        choice = r.choice(["func", "stack", "matmul"])
        if choice == "func":
            fn = r.choice(["Exp", "Twice", "Clip"])
            return f"{fn}.apply({a})", sa
        if choice == "stack":  # of 1-d or more: PyTorch's quirk with 0-d, see the docs
            if not sa:
                a, sa = f"({a}).reshape(1)", (1,)
            b, sb = self.tree(depth - 1)
            if not _broadcastable(sa, sb):
                b, sb = f"({b}).sum()", ()
            if sb != sa:
                b = f"({b}).expand(*{list(_broadcast(sa, sb))}) * 1"
                s = _broadcast(sa, sb)
                a = f"({a}).expand(*{list(s)}) * 1"
                return f"lib.stack([{a}, {b}])", (2,) + s
            return f"lib.stack([{a}, {b}])", (2,) + sa
        if len(sa) == 1:
            return f"({a}) @ ({a})", ()
        if len(sa) == 2:
            return f"({a}) @ lib.ones({sa[1]})", sa[:1]
        return f"({a}).sum() * 1.5", ()


def _leaves(rng: random.Random, kinks: bool) -> tuple[list[str], dict[str, Shape]]:
    sx, sy = rng.choice(SHAPE_PAIRS)
    lines = [f"x = lib.tensor({_numbers(rng, sx, kinks)}, requires_grad=True)",
             f"y = lib.tensor({_numbers(rng, sy, kinks)}, requires_grad=True)",
             f"c = lib.tensor({_numbers(rng, sx, kinks)})"]
    return lines, {"x": sx, "y": sy, "c": sx}


def _weights(rng: random.Random, shape: Shape) -> str:
    return f"lib.tensor({_numbers(rng, shape, False)})"


def generate(seed: int) -> list[str]:
    """One script (a list of statements) from `seed`."""
    rng = random.Random(seed)
    kinks = rng.random() < 0.35
    lines, leaves = _leaves(rng, kinks)
    family = rng.choice(FAMILIES)
    expr = Expr(rng, leaves, higher=family in (_higher, _functions))
    e, se = expr.tree(rng.randint(1, 4))
    expr.code = e
    lines.append(f"e = {e}")
    lines += family(rng, expr, se)
    return lines


def _backward(rng: random.Random, expr: Expr, se: Shape) -> list[str]:
    lines = []
    how = rng.choice(["sum", "weights", "plain", "wrong"])
    if how == "sum":
        lines.append("out = e.sum()")
        lines.append("out.backward()")
    elif how == "weights":
        lines.append(f"e.backward({_weights(rng, se)})")
    elif how == "plain":
        lines.append("e.backward()")  # an error unless e has one element
    else:
        lines.append(f"e.backward({_weights(rng, se + (2,))})")  # wrong shape
    if rng.random() < 0.5:  # a second sweep: fine where nothing was saved
        lines.append("e.sum().backward()" if rng.random() < 0.5 else "out.backward()")
    if rng.random() < 0.5:
        lines += ["x.grad.zero_()" if rng.random() < 0.5 else "x.grad = None",
                  "(e * 2).sum().backward()"]
    return lines


def _retain(rng: random.Random, expr: Expr, se: Shape) -> list[str]:
    return ["out = (e * e).sum()", "out.backward(retain_graph=True)", "out.backward()",
            "y.grad = None", "out.backward()", "x.grad.zero_()" if rng.random() < 0.5 else
            "e.sum().backward()"]


def _grad(rng: random.Random, expr: Expr, se: Shape) -> list[str]:
    unused = rng.random() < 0.5
    inputs = rng.choice(["[x, y]", "x", "[y]", "[x, c]", "[e]"])
    go = _weights(rng, se) if rng.random() < 0.6 else "None"
    return [f"gs = lib.autograd.grad(e, {inputs}, grad_outputs={go}, allow_unused={unused})",
            "gs2 = lib.autograd.grad(e.sum(), x, retain_graph=True)",
            "gs3 = lib.autograd.grad(e.sum(), [x, y], allow_unused=True)"]


def _higher(rng: random.Random, expr: Expr, se: Shape) -> list[str]:
    wrt = rng.choice(["x", "y"])
    lines = [f"(g,) = lib.autograd.grad(e.sum(), {wrt}, create_graph=True)",
             f"(h,) = lib.autograd.grad(g.sum(), {wrt}, create_graph=True)"]
    if rng.random() < 0.5:  # (retained: which nodes a sweep frees in a graph of gradients
        # differs, see docs/pytorch.md's known deviations)
        lines += [f"hs = lib.autograd.grad((g * g).sum(), [x, y], allow_unused=True, "
                  f"grad_outputs={_weights(rng, ())}, retain_graph=True)"]
    lines += [f"(k,) = lib.autograd.grad(h.sum(), {wrt}, allow_unused=True)"]
    if rng.random() < 0.4:
        lines += ["x.grad = None", "e.sum().backward(create_graph=True)", "gx = x.grad",
                  "x.grad = None", "gx.sum().backward()"]
    return lines


def _inplace(rng: random.Random, expr: Expr, se: Shape) -> list[str]:
    b, sb = expr.tree(2)
    src = b if _broadcastable(se, sb) and _broadcast(se, sb) == se else f"({b}).sum()"
    # y.sum() straight into a 0-d h would hand x and a 0-d y one gradient buffer in
    # PyTorch (its .grad of two leaves then share memory: see docs/pytorch.md)
    add_y = "h += y.sum() * 1" if se == () == expr.leaves["y"] else "h += y.sum()"
    step = rng.choice([
        add_y, "h -= c.sum()", "h *= 2", "h /= 4", "h.add_(1.5)", "h.mul_(x.sum())",
        "h.sub_(y.sum(), alpha=2)", "h.zero_()", "h.fill_(1.5)", f"h.copy_({src})",
        f"h[...] = {src}", "h.div_(2)",
    ])
    lines = [rng.choice(["h = e * 1", "h = e + 0", "h = e.clone()"]), step]
    if se:
        lines.append(rng.choice(["h[0] = y.sum() * 3", "h[h > 0] = 0", "h[-1] = 2.0",
                                 f"h[0] = ({b}).sum()"]))
    lines += ["h.sum().backward()", rng.choice(["h.sum().backward()", "x.grad = None"])]
    return lines


def _index_put(rng: random.Random, expr: Expr, se: Shape) -> list[str]:
    lines = [f"n = lib.zeros({list(se) or [1]})"]
    part = "e" if se else "e.reshape(1)"
    lines.append(rng.choice([f"n[...] = {part}", f"n[0] = ({part})[0] * 2",
                             f"n[0] = {part}.sum()", "n[n == 0] = 1.5"]))
    lines += ["n.sum().backward()", "n.sum().backward()"]
    return lines


def _functions(rng: random.Random, expr: Expr, se: Shape) -> list[str]:
    # (a None into a computed input with a custom Function below: a known deviation)
    below = ".apply(" in expr.code
    fn = rng.choice(["Exp.apply(e)", "Twice.apply(e)", "FirstOnly.apply(e, y)",
                     "FirstOnly.apply(e, x)" if below else "FirstOnly.apply(x, e)",
                     "Both.apply(e, y)", "Clip.apply(e)", "WrongCount.apply(e)",
                     "Both.apply(x, c)", "FirstOnly.apply(c, x)"])
    lines = [f"f = {fn}", "f.sum().backward()", "f.sum().backward()",
             "gs = lib.autograd.grad(f.sum(), [x, y], allow_unused=True)"]
    if rng.random() < 0.5:
        lines += ["(g,) = lib.autograd.grad(f.sum(), x, create_graph=True, allow_unused=True)",
                  "(h,) = lib.autograd.grad(g.sum(), x, allow_unused=True)"]
    return lines


def _errors(rng: random.Random, expr: Expr, se: Shape) -> list[str]:
    return rng.sample([
        "x += 1", "x.add_(1)", "x[0] = 1" if expr.leaves["x"] else "x.zero_()",
        "c.backward()", "c.sum().backward()", "lib.autograd.grad(e.sum(), c)",
        "lib.autograd.grad(e.sum(), x, retain_graph=True)", "lib.autograd.grad(c.sum(), x)",
        "(x * 2).sum().backward(); (x * 2).backward()", "e.detach().sum().backward()",
        "y.requires_grad_(False)", "e.requires_grad_(False)", "x.detach().requires_grad_()",
        "w = x.detach().clone().requires_grad_()\nwith lib.no_grad():\n    w += 1",
        "with lib.no_grad():\n    z = x * 2",
        # (a clone: PyTorch's detach() shares memory, and a later `x += 1` would show in
        # it; gradcalc's copies, see docs/pytorch.md's views)
        "z = e.detach().clone(); z.requires_grad_()", "e.retain_grad(); e.sum().backward()",
    ], 4)


def _functional(rng: random.Random, expr: Expr, se: Shape) -> list[str]:
    sx = expr.leaves["x"]
    sub = Expr(rng, {"v": sx})
    f, sf = sub.tree(rng.randint(1, 3))
    point = _numbers(rng, sx, rng.random() < 0.4)
    return [f"J = jacobian(lambda v: {f}, {point})",
            f"H = hessian(lambda v: ({f}).sum(), {point})"]


FAMILIES = [_backward, _backward, _retain, _grad, _higher, _higher, _inplace, _index_put,
            _functions, _errors, _functional]

"""PyTorch functions built from the table's entries rather than entries themselves: stack,
split, chunk, var/std (with `correction`), outer, cummax/cummin, all/any/isclose, and the seeded
random constructors and dropout.

The random stream is NumPy's (one `numpy.random.Generator`, reset by `manual_seed`): the
same seed gives the same numbers run after run, but not PyTorch's numbers.
"""

from __future__ import annotations

import builtins
from collections import namedtuple
from typing import Any

import numpy as np

from gradcalc.engine.contract import outer
from gradcalc.engine.primitive import fn
from gradcalc.engine.shapes import dim_index, ndim, normalize_axis, shape, value
from gradcalc.engine.tensor import Tensor, to_tensor

__all__ = ["stack", "split", "chunk", "var", "std", "var_mean", "std_mean", "outer", "cummax",
           "cummin", "all", "any", "isclose", "manual_seed", "seed", "rand", "randn",
           "randint", "rand_like", "randn_like", "randint_like", "randperm", "dropout",
           "empty", "empty_like", "normal"]

_state: dict[str, Any] = {}


def manual_seed(seed: int) -> Any:
    """Reset the one random stream (NumPy's generator, not PyTorch's numbers)."""
    _state["rng"] = np.random.default_rng(int(seed))
    return _state["rng"]


def rng() -> Any:
    """The stream, made on first use (numpy.random costs start-up time)."""
    if "rng" not in _state:
        _state["rng"] = np.random.default_rng(0)
    return _state["rng"]


seed = manual_seed


def _sizes(size: tuple) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    out = tuple(int(s) for s in size)
    if builtins.any(s < 0 for s in out):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: "
                           f"{list(out)}")
    return out


def _leaf(v: np.ndarray, requires_grad: bool) -> Tensor:
    """A floating-point leaf, as PyTorch's random and empty constructors make."""
    return Tensor.wrap(np.asarray(v, dtype=np.float64), None).as_floating().requires_grad_(
        requires_grad)


def rand(*size: Any, generator: Any = None, dtype: Any = None,
         requires_grad: bool = False) -> Tensor:
    return _leaf(rng().random(_sizes(size)), requires_grad)


def randn(*size: Any, generator: Any = None, dtype: Any = None,
          requires_grad: bool = False) -> Tensor:
    return _leaf(rng().standard_normal(_sizes(size)), requires_grad)


def normal(mean: float = 0.0, std: float = 1.0, size: Any = (), **_: Any) -> Tensor:
    return _leaf(rng().normal(mean, std, _sizes((size,))), False)


def randint(low: int, high: Any = None, size: Any = None, **_: Any) -> Tensor:
    """Whole numbers in [low, high), int64 as PyTorch's (they print and index as integers;
    arithmetic with float tensors gives float64)."""
    if size is None:
        low, high, size = 0, low, high
    if int(high) <= int(low):
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={int(low)} >= to={int(high)}")
    return Tensor.wrap(rng().integers(int(low), int(high), _sizes((size,)), dtype=np.int64),
                       None)


def randperm(n: int, **_: Any) -> Tensor:
    return Tensor.wrap(rng().permutation(int(n)).astype(np.int64), None)


def empty(*size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _leaf(np.zeros(_sizes(size)), requires_grad)


def rand_like(t: Any, **kw: Any) -> Tensor:
    return rand(*shape(t), **kw)


def randn_like(t: Any, **kw: Any) -> Tensor:
    return randn(*shape(t), **kw)


def randint_like(t: Any, low: int, high: Any = None, **_: Any) -> Tensor:
    """Whole numbers of t's shape and, as PyTorch's, of t's dtype (float64 for a float t)."""
    out = randint(low, high, shape(t)) if high is not None else randint(0, low, shape(t))
    if np.asarray(value(t)).dtype.kind in "iu":
        return out
    made = Tensor.wrap(np.asarray(out.value, dtype=np.float64), None)
    return made.as_floating() if getattr(t, "floating", True) else made


def empty_like(t: Any, **kw: Any) -> Tensor:
    return empty(*shape(t), **kw)


def dropout(input: Any, p: float = 0.5, training: bool = True,  # noqa: A002
            inplace: bool = False) -> Tensor:
    """Zero each element with probability p and scale the rest by 1 / (1 - p), from the
    seeded stream; the identity when not training."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return to_tensor(input)
    if p == 1.0:
        return to_tensor(input * np.zeros(shape(input)))
    keep = rng().random(shape(input)) >= p
    return to_tensor(input * (keep / (1.0 - p)))


# --------------------------------------------------------------------------- pieces


def stack(tensors: Any, dim: int = 0) -> Tensor:
    """Join equal-shaped tensors along a new axis `dim` (differentiable), with PyTorch's
    errors: an empty list, a `dim` outside the result's dims (IndexError), unequal
    shapes."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    nd = ndim(tensors[0]) + 1
    d = dim_index(dim, nd)
    for k, t in enumerate(tensors[1:], 1):
        if shape(t) != shape(tensors[0]):
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(shape(tensors[0]))} at entry 0 and "
                               f"{list(shape(t))} at entry {k}")
    out = fn.stack(tensors)
    if d:
        axes = list(range(1, nd))
        axes.insert(d, 0)
        out = fn.transpose(out, axes)
    return to_tensor(out)


def split(tensor: Any, split_size_or_sections: Any, dim: int = 0) -> tuple:
    d = dim_index(dim, ndim(tensor))
    n = shape(tensor)[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if builtins.sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {d}), but got split_sizes="
                               f"{sizes}")
    else:
        step = int(split_size_or_sections)
        if step == 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {n}")
        sizes = [builtins.min(step, n - i) for i in range(0, n, step)] if step else [0]
    out, start = [], 0
    for s in sizes:
        index = (slice(None),) * d + (slice(start, start + s),)
        out.append(to_tensor(fn.getitem(tensor, index)))
        start += s
    return tuple(out)


def chunk(input: Any, chunks: int, dim: int = 0) -> tuple:  # noqa: A002
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = shape(input)[dim_index(dim, ndim(input))]
    return split(input, -(-n // chunks) if n else 1, dim)


def unbind(input: Any, dim: int = 0) -> tuple:  # noqa: A002
    d = dim_index(dim, ndim(input))
    return tuple(to_tensor(fn.getitem(input, (slice(None),) * d + (i,)))
                 for i in range(shape(input)[d]))


# --------------------------------------------------------------------------- statistics


def _correction(unbiased: Any, correction: Any) -> float:
    if correction is not None:
        return float(correction)
    return 1.0 if unbiased is None or unbiased else 0.0


def var(input: Any, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,  # noqa: A002
        correction: Any = None, axis: Any = None) -> Tensor:
    """sum((x - mean)²) / (n - correction) over dim (all if None); correction=1 default."""
    if isinstance(dim, bool):  # var(x, False): the old unbiased argument
        dim, unbiased = None, dim
    d = dim if axis is None else axis
    axes = normalize_axis(d, ndim(input))
    c = _correction(unbiased, correction)
    n = np.size(value(input)) if axes is None else int(np.prod([shape(input)[a] for a in axes]))
    centred = input - fn.mean(input, axes, True)
    total = fn.sum(centred * centred, axes, keepdim)
    return to_tensor(total / builtins.max(n - c, 0.0))


def std(input: Any, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,  # noqa: A002
        correction: Any = None, axis: Any = None) -> Tensor:
    return to_tensor(fn.sqrt(var(input, dim, unbiased, keepdim, correction=correction,
                                 axis=axis)))


def var_mean(input: Any, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,  # noqa: A002
             correction: Any = None) -> tuple:
    axes = normalize_axis(dim, ndim(input))
    return (var(input, dim, unbiased, keepdim, correction=correction),
            to_tensor(fn.mean(input, axes, keepdim)))


def std_mean(input: Any, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,  # noqa: A002
             correction: Any = None) -> tuple:
    axes = normalize_axis(dim, ndim(input))
    return (std(input, dim, unbiased, keepdim, correction=correction),
            to_tensor(fn.mean(input, axes, keepdim)))


# --------------------------------------------------------------------------- cummax/cummin

Cummax = namedtuple("cummax", ["values", "indices"])
Cummin = namedtuple("cummin", ["values", "indices"])


def _cumulative(largest: bool):
    def function(input: Any, dim: int) -> tuple:  # noqa: A002
        x = to_tensor(input)
        nd = ndim(x)
        d = dim_index(dim, nd)
        pair = Cummax if largest else Cummin
        if nd == 0:
            return pair(to_tensor(fn.clone(x)), Tensor.wrap(np.array(0), None))
        a = np.moveaxis(np.asarray(value(x), dtype=np.float64), d, -1)
        acc = (np.maximum if largest else np.minimum).accumulate(a, -1)
        hit = (a == acc) | np.isnan(a)  # ties move to the later element, nan wins
        pos = np.where(hit, np.arange(a.shape[-1]), -1)
        idx = np.moveaxis(np.maximum.accumulate(pos, -1), -1, d)
        grids = list(np.indices(idx.shape, sparse=True))
        values = fn.getitem(x, tuple(grids[:d] + [idx] + grids[d + 1:]))
        return pair(to_tensor(values), Tensor.wrap(idx, None))

    function.__name__ = "cummax" if largest else "cummin"
    return function


cummax, cummin = _cumulative(True), _cumulative(False)


# --------------------------------------------------------------------------- booleans


def _bool_reduce(reduce):
    def function(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A002
        v = np.asarray(value(input))
        axes = normalize_axis(dim, v.ndim)
        return Tensor.wrap(np.asarray(reduce(v != 0, axis=axes, keepdims=keepdim)), None)

    return function


all = _bool_reduce(np.all)  # noqa: A001
any = _bool_reduce(np.any)  # noqa: A001


def isclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
            equal_nan: bool = False) -> Tensor:
    return Tensor.wrap(np.isclose(value(input), value(other), rtol=rtol, atol=atol,
                                  equal_nan=equal_nan), None)


def _outer_t(a: Any, b: Any) -> Tensor:
    """torch.outer: two vectors, and PyTorch's error for anything else."""
    for role, t in (("self", a), ("vec2", b)):
        if ndim(t) != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {role}, but got {ndim(t)}-D")
    return to_tensor(outer(a, b))


#: the Tensor methods these functions also are
METHODS = {"split": split, "chunk": chunk, "unbind": unbind, "var": var, "std": std,
           "outer": _outer_t, "cummax": cummax, "cummin": cummin, "all": all, "any": any,
           "isclose": isclose, "ger": _outer_t}

FUNCTIONS = {**METHODS, "stack": stack, "outer": _outer_t, "var_mean": var_mean,
             "std_mean": std_mean, "manual_seed": manual_seed, "seed": seed, "rand": rand,
             "randn": randn,
             "randint": randint, "rand_like": rand_like, "randn_like": randn_like,
             "randint_like": randint_like, "randperm": randperm, "dropout": dropout,
             "empty": empty, "empty_like": empty_like, "normal": normal}


def attach() -> None:
    for name, f in METHODS.items():
        setattr(Tensor, name, f)
    Tensor.uniform_ = _uniform_
    Tensor.normal_ = _normal_


def _uniform_(self: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    self.value = rng().uniform(a, b, self.shape)
    return self


def _normal_(self: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    self.value = rng().normal(mean, std, self.shape)
    return self

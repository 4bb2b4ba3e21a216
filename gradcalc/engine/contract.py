"""einsum as one table entry: the VJP for each operand is another einsum of the cotangent
with the other operands (indices the operand alone has are broadcast back). An ellipsis
is spelled out as letters before the entry runs; an index repeated inside one operand (a
diagonal) is differentiated only where it appears in a single operand's gradient."""

from __future__ import annotations

import string
from typing import Any

import numpy as np

from gradcalc.engine.primitive import PRIMITIVES, Prim, apply, fn
from gradcalc.engine.shapes import ndim, shape


def _einsum(*ops, spec=""):
    return np.einsum(spec, *[np.asarray(o, dtype=np.float64) for o in ops], optimize=True)


def _vjp(i, g, ans, *ops, spec=""):
    ins, out = spec.split("->")
    subs = ins.split(",")
    mine = subs[i]
    used = set(spec)
    spare = [c for c in string.ascii_letters if c not in used]
    nb = ndim(g) - ndim(ans)
    batch = "".join(spare[:nb])
    others = [s for j, s in enumerate(subs) if j != i]
    known = set(out) | set("".join(others))
    unique = "".join(dict.fromkeys(mine))
    reach = "".join(c for c in unique if c in known)
    spec_i = ",".join([batch + out, *others]) + "->" + batch + reach
    part = apply(PRIMITIVES["einsum"], g, *[o for j, o in enumerate(ops) if j != i],
                 spec=spec_i)
    sizes = dict(zip(mine, shape(ops[i]), strict=True))
    if reach != unique:  # indices the operand alone has: the gradient is constant along them
        full = shape(g)[:nb] + tuple(sizes[c] if c in reach else 1 for c in unique)
        part = fn.broadcast_to(fn.reshape(part, full),
                               shape(g)[:nb] + tuple(sizes[c] for c in unique))
    # an axis of one that broadcast against another operand's: summed back to one
    ones = tuple(nb + k for k, c in enumerate(unique) if sizes[c] == 1
                 and shape(part)[nb + k] != 1)
    if ones:
        part = fn.sum(part, ones, True)
    if unique == mine:
        return part
    # a repeated index (a diagonal such as 'ii'): the gradient lives on that diagonal
    grid = np.indices(shape(ops[i]), sparse=True)
    first = {c: grid[mine.index(c)] for c in unique}
    on_diagonal = np.ones(shape(ops[i]), dtype=bool)
    for k, c in enumerate(mine):
        on_diagonal &= grid[k] == first[c]
    read = fn.getitem(part, (slice(None),) * nb + tuple(first[c] for c in unique))
    return fn.where(on_diagonal, read, 0.0)


def _twin(*ops, spec=""):
    ins, out = spec.split("->")
    subs = ins.split(",")
    arrays = [np.asarray(o, dtype=object) for o in ops]
    sizes: dict[str, int] = {}
    for s, a in zip(subs, arrays, strict=True):
        sizes.update(zip(s, a.shape, strict=True))
    summed = [c for c in sizes if c not in out]
    result = np.empty(tuple(sizes[c] for c in out), dtype=object)
    for idx in np.ndindex(*result.shape):
        fixed = dict(zip(out, idx, strict=True))
        total = 0
        for rest in np.ndindex(*(sizes[c] for c in summed)):
            env = {**fixed, **dict(zip(summed, rest, strict=True))}
            term = 1
            for s, a in zip(subs, arrays, strict=True):
                term = term * a[tuple(env[c] for c in s)]
            total = total + term
        result[idx] = total
    return result


def _spell(spec: str, ops: tuple) -> str:
    """The subscripts with '...' spelled out and the output made explicit."""
    spec = spec.replace(" ", "")
    ins, arrow, out = spec.partition("->")
    subs = ins.split(",")
    if len(subs) != len(ops):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation" if len(ops) > len(subs) else
                           "einsum(): fewer operands were provided than specified in the "
                           "equation")
    spare = [c for c in string.ascii_letters if c not in spec]
    width = max((ndim(o) - len(s.replace("...", "")) for s, o in zip(subs, ops, strict=True)
                 if "..." in s), default=0)
    ell = "".join(spare[:width])
    spelled = []
    for s, o in zip(subs, ops, strict=True):
        if "..." in s:
            k = ndim(o) - len(s.replace("...", ""))
            s = s.replace("...", ell[width - k:])
        if len(s) != ndim(o):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(s)}) "
                               f"does not match the number of dimensions ({ndim(o)}) for "
                               "operand and no ellipsis was given")
        spelled.append(s)
    if arrow:
        out = out.replace("...", ell)
    else:
        letters = "".join(spelled)
        out = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1
                                   and c not in ell))
    for c in out:
        if c not in "".join(spelled):
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the "
                               f"equation for any input operand")
    sizes: dict[str, int] = {}
    for k, (s, o) in enumerate(zip(spelled, ops, strict=True)):
        own: dict[str, int] = {}
        for c, n in zip(s, shape(o), strict=True):
            if own.setdefault(c, n) != n:
                raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but "
                                   f"the sizes don't match, {own[c]} != {n}")
        for c, n in zip(s, shape(o), strict=True):
            if sizes.setdefault(c, n) != n and n != 1 and sizes[c] != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {k} "
                                   f"which does not broadcast with previously seen size "
                                   f"{sizes[c]}")
    return ",".join(spelled) + "->" + out


def einsum(prim: Prim, equation: str, *operands: Any) -> Any:
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return apply(prim, *operands, spec=_spell(equation, operands))


def entries() -> list[Prim]:
    return [Prim("einsum", _einsum, (), _twin, "EinsumBackward0", variadic_vjp=_vjp,
                 call=einsum, rule="einsum of g with the other operands")]


def outer(a: Any, b: Any) -> Any:
    """The outer product of two vectors (torch.outer)."""
    return fn.reshape(a, (-1, 1)) * fn.reshape(b, (1, -1))

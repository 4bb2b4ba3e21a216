"""The textbooks' convention for odd roots, in judging answers only.

Calculus books take x^(p/q) with q odd as the real root at a negative base: x^(2/3) is
(∛x)² ≥ 0 for every x, and (8/3)·y^(5/3) is the derivative of ∛(y²)·(y² + 9y) for
y < 0 too. The engine's `**` keeps PyTorch's convention ((-8)**(1/3) is nan, as in
`gradcalc grad`); a homework check reads every such power in both sides, on the tape
(`tape_program`: |b|^(p/q), times sign(b) when p is odd) and in sympy (`real_powers`),
so that the domain, the verdict and the expected text agree with the book. A power whose
exponent is not a number, or a fraction with an even denominator (x^(1/2), x^(3/4)), is
untouched: it needs a base ≥ 0.
"""

from __future__ import annotations

from dataclasses import fields, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy as sp

from gradcalc.language.ir import Binary, Call, Num, Program, Unary, walk

#: the largest denominator an exponent's float is read back with (as exact_number does)
MAX_DENOMINATOR = 10**4


def odd_root(value: float) -> Fraction | None:
    """The exponent as p/q with q odd and above 1 (2/3, -5/3, 0.6 = 3/5), else None."""
    r = Fraction(value).limit_denominator(MAX_DENOMINATOR)
    return r if float(r) == value and r.denominator > 1 and r.denominator % 2 else None


def _constant(node: Any) -> float | None:
    """The value of an exponent written with numbers only (5/3, -1/3, 0.6), else None."""
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Unary) and node.op in "+-":
        v = _constant(node.operand)
        return None if v is None else (-v if node.op == "-" else v)
    if isinstance(node, Binary) and node.op in ("/", "*", "+", "-"):
        a, b = _constant(node.left), _constant(node.right)
        if a is None or b is None or (node.op == "/" and b == 0):
            return None
        return a / b if node.op == "/" else a * b if node.op == "*" else \
            a + b if node.op == "+" else a - b
    return None


def _real_power(node: Binary) -> Any:
    """b ** (p/q), q odd, as |b| ** (p/q), times sign(b) when p is odd."""
    exponent = _constant(node.right)
    r = odd_root(exponent) if exponent is not None else None
    if r is None:
        return node
    size = Binary("**", Call("abs", (node.left,), node.pos), node.right, node.pos)
    if r.numerator % 2 == 0:
        return size
    return Binary("*", Call("sign", (node.left,), node.pos), size, node.pos)


def _rebuilt(node: Any) -> Any:
    if isinstance(node, tuple):
        return tuple(_rebuilt(v) for v in node)
    if not hasattr(node, "__dataclass_fields__") or isinstance(node, Num):
        return node
    new = replace(node, **{f.name: _rebuilt(getattr(node, f.name)) for f in fields(node)
                           if f.name != "pos"})
    return _real_power(new) if isinstance(new, Binary) and new.op == "**" else new


@lru_cache(maxsize=4096)
def tape_program(program: Program) -> Program:
    """The program with every odd-root power taken as the real root (the same program
    when it has none)."""
    if not any(isinstance(n, Binary) and n.op == "**" and _odd(n.right)
               for n in walk(program)):
        return program
    return replace(program, body=_rebuilt(program.body))


def _odd(exponent: Any) -> bool:
    value = _constant(exponent)
    return value is not None and odd_root(value) is not None


def _odd_power(e: Any) -> bool:
    return (isinstance(e, sp.Pow) and e.exp.is_Rational and e.exp.q > 1 and e.exp.q % 2 == 1
            and e.base.is_extended_nonnegative is not True)


def _real(e: sp.Pow) -> Any:
    size = sp.Abs(e.base) ** e.exp
    return size if e.exp.p % 2 == 0 else sp.sign(e.base) * size


def real_powers(expr: Any) -> Any:
    """A sympy expression with every odd-root power of a base that may be negative taken
    as the real root: |b|^(p/q), times sign(b) when p is odd."""
    if not isinstance(expr, sp.Basic) or not any(_odd_power(p) for p in expr.atoms(sp.Pow)):
        return expr
    return expr.replace(_odd_power, _real)


def _sign_power(factor: Any, base: Any) -> int | None:
    """k when the factor is sign(base)^k (k ≥ 1), else None."""
    b, k = factor.as_base_exp()
    if isinstance(b, sp.sign) and b.args[0] == base and k.is_Integer and k > 0:
        return int(k)
    return None


def _written_product(mul: sp.Mul) -> Any:
    """sign(b)^k·|b|^(p/q) with k ≡ p (mod 2) as b^(p/q), in one product."""
    factors = list(mul.args)
    for i, f in enumerate(factors):
        if not (isinstance(f, sp.Pow) and isinstance(f.base, sp.Abs) and
                _odd_exponent(f.exp)):
            continue
        base, r = f.base.args[0], f.exp
        signs = [j for j, g in enumerate(factors) if _sign_power(g, base)]
        k = _sign_power(factors[signs[0]], base) if signs else 0
        if (k - r.p) % 2 == 0:
            factors[i] = sp.Pow(base, r)
            if signs:
                factors[signs[0]] = sp.S.One
    return sp.Mul(*factors)


def _odd_exponent(e: Any) -> bool:
    return bool(e.is_Rational and e.q > 1 and e.q % 2 == 1)


def as_written(expr: Any) -> Any:
    """The expression with the real roots written back as powers, as books write them
    (x^(2/3), not |x|^(2/3)): |b|^(p/q) with p even, and sign(b)·|b|^(p/q) with p odd,
    are b^(p/q) by the convention."""
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Abs):
        return expr
    out = expr.replace(lambda e: isinstance(e, sp.Mul), _written_product)
    return out.replace(lambda e: isinstance(e, sp.Pow) and isinstance(e.base, sp.Abs)
                       and _odd_exponent(e.exp) and e.exp.p % 2 == 0,
                       lambda e: sp.Pow(e.base.args[0], e.exp))

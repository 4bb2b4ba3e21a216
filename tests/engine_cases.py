"""Gradients of fixed programs, for tests/engine/test_tape_bits.py: the engine's results bit
for bit, so a change that makes the engine faster cannot change a number.

`python tests/engine_cases.py` writes tests/engine_pinned.py (every number as
`float.hex`) from the code as it is; it was run before the engine's speed work.
"""

from __future__ import annotations

import pprint
from pathlib import Path
from typing import Any

import numpy as np

import gradcalc
from gradcalc.backends import batched
from gradcalc.backends.numeric import as_function
from gradcalc.engine import functional
from gradcalc.engine.fused import fusion
from gradcalc.language.parse import parse
from gradcalc.limits import Limits

#: inputs: a fixed grid with the awkward points (0, ±1, ±2, negatives for log's nan)
X = np.concatenate([np.linspace(-3.0, 3.0, 37), [0.0, -0.0, 1.0, 2.0, 1e-300, 50.0]])
Y = np.cos(np.arange(X.size) * 0.7) * 2.0
Z = np.sin(np.arange(X.size) * 1.3) + 1.5

PROGRAMS = {
    "w1": "out = sum(sin(x)*exp(-x**2) + log(1+x**2))",
    "powers": "out = sum(x**2 + x**3 + x**0.5 + x**-1 + 2**x + x**y)",
    "trig": "out = sum(tan(x)*cos(y) + sin(x)*sin(y) + atan(x) + cos(x*y))",
    "chain": "u = x*y + z\nv = exp(-u**2)/(1 + z**2)\nout = sum(v*u - sqrt(z) + tanh(x))",
    "shared": "u = x**2\nout = sum(u*u + u*sin(u) + exp(u/10) - u)",
    "abs": "out = sum(abs(x)*relu(y) + maximum(x, y) + sigmoid(x) + softplus(y))",
    "broadcast": "out = sum(x*2 + mean(x)*y - z/3 + sum(x*z)*x)",
}
VECTORS = {
    "jac": "out = x**2*sum(x) + sin(x)",
    "jac2": "out = exp(x)*cos(x) - x/(1 + x**2)",
}
POINTS = "out = a*b*sin(c) + exp(a*c)/(1+b**2)"


def _hex(a: Any) -> str:
    """The array's shape and every number as `float.hex`: equal strings, equal bits."""
    a = np.asarray(a, dtype=np.float64)
    return " ".join([str(a.shape), *(float(v).hex() for v in a.reshape(-1))])


def _inputs(program: str) -> tuple[list[str], list[np.ndarray]]:
    p = parse(program)
    names = sorted(p.names_used() - set(p.assigned()))
    return names, [{"x": X, "y": Y, "z": Z}[n] for n in names]


def _function(program: str) -> tuple[Any, list[np.ndarray]]:
    names, values = _inputs(program)
    f, _ = as_function(parse(program), names, {}, of="out", limits=Limits())
    return f, values


def library_case() -> dict[str, str]:
    """The PyTorch-style library: a graph with reuse, broadcasting and accumulation."""
    x = gradcalc.tensor(X[:12].reshape(3, 4), requires_grad=True)
    w = gradcalc.tensor(Y[:4], requires_grad=True)
    h = gradcalc.tanh(x * w + 1.0)
    loss = (h * h).sum() + (gradcalc.exp(-h) * x).mean() + (x ** 2 * w).sum()
    loss.backward()
    return {"x": _hex(x.grad.numpy()), "w": _hex(w.grad.numpy())}


def observe() -> dict[str, Any]:
    """Every case's numbers as hex strings, from the tape (fused kernels off)."""
    with fusion(False):
        return _observe()


def _observe() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, program in PROGRAMS.items():
        f, values = _function(program)
        value, grads = functional.vjp(f, tuple(values), 1.0)
        out[f"grad {name}"] = [_hex(value), *(_hex(g) for g in grads)]
        small = tuple(v[:6] for v in values)
        out[f"hessian {name}"] = [_hex(b) for row in functional.hessian(f, small) for b in row]
    for name, program in VECTORS.items():
        f, values = _function(program)
        out[f"jacobian {name}"] = [_hex(functional.jacobian(f, values[0]))]
    values = {"a": X, "b": Y, "c": Z}
    value, derivative, *_ = batched.evaluate(parse(POINTS), values, ["a", "b", "c"], "out",
                                             Limits(), seed=np.ones)
    out["points"] = [_hex(value), *(_hex(derivative[n]) for n in "abc")]
    out["library"] = library_case()
    return out


def main() -> None:
    text = ('"""The engine\'s numbers for tests/engine_cases.py, written by '
            '`python tests/engine_cases.py`."""\n\nPINNED = ' + pprint.pformat(observe(), width=96)
            + "\n")
    Path(__file__).with_name("engine_pinned.py").write_text(text)


if __name__ == "__main__":
    main()

"""The engine's numbers stay bit for bit what they were before its speed work
(tests/engine_cases.py pinned them): gradients, Hessians, Jacobians, --points and the
library's backward, nan, inf and signed zeros included; the same through the engine's
pool of buffers; and a lean recording (nodes keeping only what their rules read) gives
the bits a full one gives."""

from __future__ import annotations

import engine_cases
import numpy as np
import pytest
from engine_cases import observe
from engine_pinned import PINNED

import gradcalc
from gradcalc.backends.numeric import as_function
from gradcalc.engine import functional, pool
from gradcalc.engine.diagonal import Diagonal
from gradcalc.engine.fused import fusion
from gradcalc.engine.tensor import Tensor
from gradcalc.language.parse import parse
from gradcalc.limits import Limits


@pytest.fixture(scope="module")
def observed() -> dict:
    return observe()


def test_the_same_cases(observed: dict) -> None:
    assert sorted(observed) == sorted(PINNED)


@pytest.mark.parametrize("case", sorted(PINNED))
def test_bit_for_bit(observed: dict, case: str) -> None:
    assert observed[case] == PINNED[case]


def _gradients(program: str, lean: bool) -> list[str]:
    """The gradient (or, for a vector output, the Jacobian) of `program` at inputs past the
    size a lean node replaces by a stand-in, from a recording `lean` or not."""
    f, values = engine_cases._function(program)
    leaves = [Tensor(np.tile(v, 8), requires_grad=True) for v in values]
    with fusion(False):
        out, t = functional.record(f, leaves, lean=lean)
        shape = out.shape
        seed = np.ones(shape) if shape == () else Diagonal.identity(shape[0])
        grads = functional.sweep(out, seed, leaves, retain_graph=False, on=t)
    return [engine_cases._hex(out.value), *(engine_cases._hex(g) for g in grads)]


def test_the_same_bits_through_the_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every array of every pinned case from the engine's pool (gradcalc/engine/pool.py),
    written by `out=`: the same bits."""
    monkeypatch.setattr(pool, "POOLED", 1)
    made = pool.made()
    try:
        assert observe() == PINNED
        assert pool.made() > made
    finally:
        pool.clear()  # the small buffers this made


@pytest.mark.parametrize("program", [*engine_cases.PROGRAMS.values(),
                                     *engine_cases.VECTORS.values()])
def test_a_lean_recording_gives_the_same_bits(program: str) -> None:
    assert _gradients(program, lean=True) == _gradients(program, lean=False)


# --------------------------------------------------------------------------- scalar programs

#: scalar programs (the scalar tape's paths: the numeric backend's two-scalar operators,
#: the plain sweep's inline rules), at x = 0.7, y = -1.3, z = 2.0
SCALAR_PROGRAMS = {
    "w4": "y = x\nfor i in range(50):\n    y = y*1.0001 + sin(y)*0.001\nout = y",
    "operators": "out = (x*y - z/x + x**2 + abs(y)**0.5 + 2**x - -x) * exp(-x) + log(z)*tanh(y)"
                 " + sqrt(z)*cos(x*y) + x**y/z",
    "branches": "u = x\nfor i in range(30):\n    if u > 0:\n        u = u - y*0.1\n    else:\n"
                "        u = u + sin(z*u)\nout = u*u + u",
    "infinite": "out = x/(z - z) + y*0 - log(x - x)",
    "signed zeros": "out = (-0.0)*x - y*(z - z)",
    "nan": "out = sqrt(-z) + x*y",
}
SCALAR_POINT = {"x": 0.7, "y": -1.3, "z": 2.0}

#: their values, gradients and Hessians, and the library's W4 loop, as `float.hex`,
#: recorded from the code before the scalar tape's shorter paths (commit 095cd0c)
SCALAR_PINNED = {
    "grad branches": ["0x1.9c28f5c28f5bap+4", "0x1.4666666666663p+3",
                      "-0x1.e999999999995p+4", "0x0.0p+0"],
    "grad infinite": ["inf", "nan", "0x0.0p+0", "nan"],
    "grad nan": ["nan", "-0x1.4cccccccccccdp+0", "0x1.6666666666666p-1", "nan"],
    "grad operators": ["0x1.28a3d545a6eb6p+0", "0x1.c801bbb465348p-4",
                       "0x1.9cd4ab5a21d76p-1", "-0x1.521cfc18f1c5bp+0"],
    "grad signed zeros": ["0x0.0p+0", "-0x0.0p+0", "-0x0.0p+0", "0x0.0p+0"],
    "grad w4": ["0x1.7912be792eb6cp-1", "0x1.0b27303998493p+0"],
    "hessian branches": ["0x1.0000000000000p+1", "-0x1.8000000000003p+2", "0x0.0p+0",
                         "-0x1.8000000000003p+2", "0x1.2000000000002p+4", "0x0.0p+0",
                         "0x0.0p+0", "0x0.0p+0", "0x0.0p+0"],
    "hessian infinite": ["nan", "0x0.0p+0", "nan", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "nan",
                         "0x0.0p+0", "nan"],
    "hessian nan": ["0x0.0p+0", "0x1.0000000000000p+0", "0x0.0p+0", "0x1.0000000000000p+0",
                    "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "nan"],
    "hessian operators": ["-0x1.cca8a30d92c67p+2", "0x1.f7b9654d546dap+1",
                          "0x1.0c901f2314987p+1", "0x1.f7b9654d546dap+1",
                          "-0x1.9b3ba0e822915p-4", "0x1.dd0f675186fd6p-2",
                          "0x1.0c901f2314987p+1", "0x1.dd0f675186fd6p-2",
                          "0x1.1e08b9d709264p-1"],
    "hessian signed zeros": ["0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0",
                             "0x0.0p+0", "0x0.0p+0", "-0x0.0p+0", "0x0.0p+0"],
    "hessian w4": ["-0x1.1ee47cd3603d8p-5"],
    "library w4": ["0x1.5502b231fb75dp+0", "0x1.1900b2a496a26p+0"],
}


def _hexes(*values) -> list[str]:
    return [np.asarray(v, dtype=np.float64).item().hex() for v in values]


def _scalar_observe() -> dict[str, list[str]]:
    out = {}
    with fusion(False):
        for name, program in SCALAR_PROGRAMS.items():
            p = parse(program)
            names = sorted(p.names_used() - set(p.assigned()))
            f, _ = as_function(p, names, {}, of="out", limits=Limits())
            point = tuple(SCALAR_POINT[n] for n in names)
            value, grads = functional.vjp(f, point, 1.0)
            out[f"grad {name}"] = _hexes(value, *grads)
            blocks = functional.hessian(f, point)
            out[f"hessian {name}"] = _hexes(*(b for row in blocks for b in row))
    x = gradcalc.tensor(0.5, requires_grad=True)
    y = x
    for _ in range(50):
        y = y * 1.0001 + gradcalc.sin(y) * 0.001
    d = y * y + y / x  # a diamond on the library's loop
    d.backward()
    out["library w4"] = _hexes(d.value, x.grad.value)
    return out


def test_scalar_programs_bit_for_bit() -> None:
    assert _scalar_observe() == SCALAR_PINNED

"""Fused kernels (gradcalc/engine/fused.py): the same numbers as the tape within the
documented tolerance, the work counted in numexpr calls, every program fusion does not
take left to the tape, and the symbolic check passing with fusion on and off."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from gradcalc.backends import batched
from gradcalc.backends.numeric import as_function
from gradcalc.engine import functional, fused
from gradcalc.engine.fused import fusion
from gradcalc.language.parse import parse
from gradcalc.limits import Limits

pytest.importorskip("numexpr", reason="fusion needs the [fast] extra's numexpr")

N = 3000
A = np.linspace(-2.5, 2.5, N)
B = np.cos(np.arange(N) * 0.37) * 1.5
C = np.sin(np.arange(N) * 0.11) + 1.6
#: the documented tolerance: |fused - tape| <= RTOL * (largest |tape| of that result)
RTOL = 1e-13

PROGRAMS = [
    ("y = sum(sin(x)*exp(-x**2) + log(1+x**2))", ["x"]),
    ("y = a*b*sin(c) + exp(a*c)/(1+b**2)", ["a", "b", "c"]),
    ("u = a*b + c\nv = exp(-u**2)/(1 + c**2)\ny = sum(v*u - sqrt(c) + tanh(a))", ["a", "b", "c"]),
    ("y = sum(tan(a/2)*cos(b) + sinh(a)*cosh(b) - atan(a*b) + a**3 + 2**b + c**0.5)",
     ["a", "b", "c"]),
    ("u = a**2\ny = sum(u*u + u*sin(u) + exp(u/10) - u + a**0 + 1/c)", ["a", "c"]),
]
VALUES = {"x": A, "a": A, "b": B, "c": C}


def _both(program: str, names: list[str]) -> tuple[list, list]:
    f, _ = as_function(parse(program), names, {}, of="y")
    point = tuple(VALUES[n] for n in names)
    out = []
    for on in (False, True):
        with fusion(on, min_size=0):
            value, pull = functional.pullback(f, point)
            seed = np.cos(np.arange(np.size(value))).reshape(np.shape(value))
            out.append([value, *pull(seed)])
    return out[0], out[1]


@pytest.mark.parametrize(("program", "names"), PROGRAMS)
def test_fused_matches_the_tape(program: str, names: list[str]) -> None:
    tape, fast = _both(program, names)
    for t, f in zip(tape, fast, strict=True):
        assert f.shape == t.shape
        scale = np.max(np.abs(t))
        assert np.max(np.abs(f - t)) <= RTOL * scale


def test_one_kernel_per_region() -> None:
    f, _ = as_function(parse(PROGRAMS[0][0]), ["x"], {}, of="y")
    with fusion(min_size=0):
        kernel = fused.kernel_for(f, (A,))
        assert kernel is not None and kernel.calls == 3  # sin(x), exp(-x²), the value
        kernel.pull(np.float64(1.0))
        assert kernel.calls == 4  # the gradient: one kernel, sin and exp reused


@pytest.mark.parametrize("program", [
    "if x[0] > 0:\n    y = sum(x)\nelse:\n    y = sum(-x)",  # a branch
    "y = sum(x @ x + x)",  # a matrix product
    "y = sum(abs(x))",  # a kink
    "y = sum(x)*sum(x)",  # a sum inside
    "y = sum(x**x)",  # a power of two varying values
    "y = sum(0**x)",  # a power of 0 (the tape's kink: d/dx = 0 there)
])
def test_what_fusion_does_not_take_runs_on_the_tape(program: str) -> None:
    f, _ = as_function(parse(program), ["x"], {}, of="y")
    with fusion(min_size=0):
        assert fused.kernel_for(f, (C,)) is None
        assert np.isfinite(functional.grad(f, C)).all()


def test_switched_off_or_small_inputs_run_on_the_tape() -> None:
    f, _ = as_function(parse(PROGRAMS[0][0]), ["x"], {}, of="y")
    with fusion(False, min_size=0):
        assert fused.kernel_for(f, (A,)) is None
    with fusion(min_size=N + 1):
        assert fused.kernel_for(f, (A,)) is None
    assert fused.kernel_for(lambda x: x, (A,)) is None  # a function with no program


@pytest.mark.parametrize("setting", ["0", "always"])
def test_the_symbolic_check_passes_with_fusion_on_and_off(setting: str) -> None:
    env = {**os.environ, "GRADCALC_FUSION": setting}
    at = "a=[0.5, 1, -2], b=[1, 2, 3], c=[0.3, 2, 1]"
    for program, _ in PROGRAMS[2:]:  # scalar outputs
        done = subprocess.run([sys.executable, "-m", "gradcalc", "grad", program, "--at", at,
                               "--json"], env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["check"]["status"] == "pass", program


def test_points_fused_match_the_tape() -> None:
    program = parse(PROGRAMS[1][0])
    values = {"a": A, "b": B, "c": C}
    found = []
    for on in (False, True):
        with fusion(on, min_size=0):
            out, der, paths, passes = batched.evaluate(program, values, ["a", "c"], "y",
                                                       Limits(), seed=np.ones)
        found.append([out, der["a"], der["c"]])
    for t, f in zip(*found, strict=True):
        assert f.shape == t.shape == (N,)
        assert np.max(np.abs(f - t)) <= RTOL * np.max(np.abs(t))


@pytest.mark.parametrize(("program", "names"), [
    ("y = sum(9**9**9*x + x)", ["x"]),  # numbers folded as float64 (inf), as the tape does
    ("y = sum(" + " + ".join(f"sin(x{i})" for i in range(70)) + ")",  # more operands than
     [f"x{i}" for i in range(70)]),  # one numexpr kernel takes: the tape runs it
])
def test_awkward_programs_give_the_tapes_answers(program: str, names: list[str]) -> None:
    f, _ = as_function(parse(program), names, {}, of="y")
    point = tuple(A + i for i in range(len(names)))
    found = []
    for on in (False, True):
        with fusion(on, min_size=0):
            found.append(functional.grad(f, point))
    for t, g in zip(*found, strict=True):
        assert np.allclose(g, t, rtol=RTOL, atol=0.0, equal_nan=True)

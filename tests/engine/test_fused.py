"""Fused kernels (gradcalc/engine/fused.py, gradcalc/engine/blocks.py): the same numbers
as the tape within the documented tolerance, the work counted in passes and steps, every
program fusion does not take left to the tape, and the symbolic check passing with fusion
on and off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from gradcalc.backends import batched
from gradcalc.backends.numeric import as_function
from gradcalc.engine import blocks, functional, fused
from gradcalc.engine.fused import fusion
from gradcalc.language.parse import parse
from gradcalc.limits import Limits

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


def _steps(kernel: fused.Kernel, roots: list[int], summed: list[bool]) -> list[str]:
    plan = blocks.Plan(kernel.graph, roots, summed, kernel._feeds, kernel.size)
    return [step[0].__name__ for step in plan.steps]


def test_one_pass_for_the_value_and_the_gradient() -> None:
    f, _ = as_function(parse(PROGRAMS[0][0]), ["x"], {}, of="y")
    with fusion(min_size=0):
        kernel = fused.kernel_for(f, (A,))
        assert kernel is not None and kernel.passes == 0  # nothing run until asked
        kernel.pull(np.float64(1.0))
        assert kernel.passes == 1  # the value and the gradient together
        kernel.pull(np.float64(2.0))
        assert kernel.value.shape == () and kernel.passes == 1  # any seed: from the same


def test_each_operation_once_and_sin_and_cos_by_one_tan() -> None:
    f, _ = as_function(parse(PROGRAMS[0][0]), ["x"], {}, of="y")
    with fusion(min_size=0):
        kernel = fused.kernel_for(f, (A,))
    steps = _steps(kernel, [kernel.out, *kernel.unit], [True])
    # x², exp(-x²), log(1+x²), sin and cos's tan(x/2): each once, for the value and gradient
    assert [steps.count(name) for name in ("square", "exp", "log", "tan", "sin", "cos")] \
        == [1, 1, 1, 1, 0, 0]
    assert len(steps) == 24


def test_no_copy_of_the_inputs_and_the_results_made_in_place() -> None:
    f, _ = as_function(parse(PROGRAMS[1][0]), ["a", "b", "c"], {}, of="y")
    with fusion(min_size=0):
        kernel = fused.kernel_for(f, (A, B, C))
        grads = kernel.pull(np.ones(N))
    for given, name in zip((A, B, C), kernel.inputs, strict=True):
        assert np.shares_memory(kernel._feeds[name], given)
    for made in (kernel.value, *grads):
        assert made.base is None and made.flags.owndata  # written by the plan, not copied


def test_the_same_numbers_on_any_number_of_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.linspace(-3.0, 3.0, 5 * blocks.BLOCK + 17)
    f, _ = as_function(parse(PROGRAMS[0][0]), ["x"], {}, of="y")
    found = []
    for count in (1, 2, 3):
        monkeypatch.setattr(blocks, "threads", lambda count=count: count)
        kernel = fused.kernel_for(f, (x,))
        found.append([kernel.value, *kernel.pull(np.float64(1.0))])
    for other in found[1:]:
        for a, b in zip(found[0], other, strict=True):
            assert a.tobytes() == b.tobytes()


def test_sin_and_cos_from_a_half_angle_tan_within_the_tolerance() -> None:
    x = np.concatenate([np.linspace(-7.0, 7.0, 20001), [0.0, -0.0, np.pi, 1e10, 1e300]])
    f, _ = as_function(parse("y = sin(x)"), ["x"], {}, of="y")
    g, _ = as_function(parse("y = cos(x)"), ["x"], {}, of="y")
    with fusion(min_size=0):
        sin, cos = fused.kernel_for(f, (x,)).value, fused.kernel_for(g, (x,)).value
    assert np.max(np.abs(sin - np.sin(x))) <= 4e-16
    assert np.max(np.abs(cos - np.cos(x))) <= 4e-16
    assert np.signbit(sin[-4]) and sin[-5] == 0.0 and cos[-5] == 1.0


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
    ("y = sum(x - x + 2*x)", ["x"]),  # x - x: the cotangents g and -g on the same node
    ("y = sum(" + " + ".join(f"sin(x{i})" for i in range(70)) + ")",  # 70 inputs in one
     [f"x{i}" for i in range(70)]),  # pass (numexpr, used before, took at most 32)
])
def test_awkward_programs_give_the_tapes_answers(program: str, names: list[str]) -> None:
    f, _ = as_function(parse(program), names, {}, of="y")
    point = tuple(A + i for i in range(len(names)))
    found = []
    for on in (False, True):
        with fusion(on, min_size=0):
            found.append(functional.grad(f, point))
    for t, g in zip(*found, strict=True):
        finite = np.isfinite(t)
        assert np.array_equal(g[~finite], t[~finite], equal_nan=True)
        scale = np.max(np.abs(t[finite]), initial=0.0)
        assert np.all(np.abs(g[finite] - t[finite]) <= RTOL * scale)


SMALL = 200  # Jacobians and Hessians are n × n: a few hundred points
JACOBIAN = ("y = a*b*sin(c) + exp(a*c)/(1+b**2)", ["a", "b", "c"])
HESSIAN = ("y = sum(a*b*sin(c) + exp(a*c)/(1+b**2) + log(1+a**2)*tanh(b))", ["a", "b", "c"])


def _small(names: list[str]) -> tuple[np.ndarray, ...]:
    return tuple(VALUES[n][:: N // SMALL][:SMALL] for n in names)


def _sympy_parts(text: str, names: list[str]) -> tuple[object, list[object]]:
    import sympy as sp

    symbols = sp.symbols(names)
    expr = sp.sympify(text, locals=dict(zip(names, symbols, strict=True)))  # test text only
    return expr, symbols


@pytest.mark.parametrize("on", [False, True])
def test_jacobian_of_an_elementwise_program_with_fusion_on_and_off(on: bool) -> None:
    import sympy as sp

    program, names = JACOBIAN
    f, _ = as_function(parse(program), names, {}, of="y")
    point = _small(names)
    with fusion(on, min_size=0):
        found = functional.jacobian(f, point)
    expr, symbols = _sympy_parts(program[4:], names)
    for block, s in zip(found, symbols, strict=True):
        assert block.shape == (SMALL, SMALL)
        assert np.count_nonzero(block - np.diag(np.diag(block))) == 0
        exact = sp.lambdify(symbols, sp.diff(expr, s), "numpy")(*point)
        assert np.max(np.abs(np.diag(block) - exact)) <= 1e-12 * np.max(np.abs(exact))


@pytest.mark.parametrize("on", [False, True])
def test_hessian_of_an_elementwise_program_with_fusion_on_and_off(on: bool) -> None:
    import sympy as sp

    program, names = HESSIAN
    f, _ = as_function(parse(program), names, {}, of="y")
    point = _small(names)
    with fusion(on, min_size=0):
        found = functional.hessian(f, point)
    expr, symbols = _sympy_parts(program[8:-1], names)
    for row, si in zip(found, symbols, strict=True):
        for block, sj in zip(row, symbols, strict=True):
            assert block.shape == (SMALL, SMALL)
            assert np.count_nonzero(block - np.diag(np.diag(block))) == 0
            exact = sp.lambdify(symbols, sp.diff(expr, si, sj), "numpy")(*point)
            exact = np.broadcast_to(exact, (SMALL,))
            scale = max(np.max(np.abs(exact)), 1.0)
            assert np.max(np.abs(np.diag(block) - exact)) <= 1e-12 * scale


def test_fused_jacobian_and_hessian_are_the_tapes_within_the_tolerance() -> None:
    for (program, names), derive in ((JACOBIAN, functional.jacobian),
                                     (HESSIAN, functional.hessian)):
        f, _ = as_function(parse(program), names, {}, of="y")
        found = []
        for on in (False, True):
            with fusion(on, min_size=0):
                found.append(np.array(derive(f, _small(names))))
        assert np.max(np.abs(found[1] - found[0])) <= RTOL * np.max(np.abs(found[0]))


def test_a_jacobian_is_one_pass_and_a_hessian_one_more(kernels_made: list[fused.Kernel]) -> None:
    made = kernels_made
    for (program, names), derive in ((JACOBIAN, functional.jacobian),
                                     (HESSIAN, functional.hessian)):
        f, _ = as_function(parse(program), names, {}, of="y")
        with fusion(min_size=0):
            derive(f, _small(names))
        assert made[-1].passes == 1  # every block's diagonal in one pass


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_a_forked_process_runs_plans_on_threads_of_its_own() -> None:
    x = np.linspace(-3.0, 3.0, 4 * blocks.BLOCK)
    f, _ = as_function(parse(PROGRAMS[0][0]), ["x"], {}, of="y")
    expected = functional.grad(f, x)  # the parent's pool made and used
    pid = os.fork()
    if pid == 0:  # the child: a plan on the parent's pool would wait for ever
        ok = np.array_equal(functional.grad(f, x), expected)
        os._exit(0 if ok else 1)
    for _ in range(600):  # a bounded wait: 60 s of polling, not a timing
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail("the forked process's plan did not finish")
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_fused_jacobian_has_the_tapes_nan_off_its_diagonal() -> None:
    f, _ = as_function(parse("y = sqrt(x) + sin(x)"), ["x"], {}, of="y")
    x = np.array([0.0, 1.0, -1.0, 2.5])  # derivatives inf, positive, nan, negative
    found = []
    for on in (False, True):
        with fusion(on, min_size=0):
            found.append(functional.jacobian(f, x))
    assert np.array_equal(found[0], found[1], equal_nan=True)  # 0 * inf: nan, as on the tape


def _points_hessians(on: bool, program: str, names: list[str]) -> tuple:
    with fusion(on, min_size=0):
        out, blocks_, _, _ = batched.evaluate(parse(program), {n: VALUES[n] for n in names},
                                              names, "y", Limits(), seed=batched.hessian_seed)
    return out, blocks_


def test_points_hessians_fused_match_the_tape_and_sympy() -> None:
    import sympy as sp

    program, names = JACOBIAN[0].replace("y = ", "y = log(1+a**2)*tanh(b) + "), JACOBIAN[1]
    (tape_out, tape), (out, fast) = (_points_hessians(on, program, names) for on in (0, 1))
    assert np.max(np.abs(out - tape_out)) <= RTOL * np.max(np.abs(tape_out))
    assert list(fast) == list(tape) == [f"{a},{b}" for a in names for b in names]
    expr, symbols = _sympy_parts(program[4:], names)
    for (a, sa), (b, sb) in ((p, q) for p in zip(names, symbols) for q in zip(names, symbols)):
        t, f = tape[f"{a},{b}"], fast[f"{a},{b}"]
        assert f.shape == t.shape == (N,)
        assert np.max(np.abs(f - t)) <= RTOL * max(np.max(np.abs(t)), 1.0)
        exact = sp.lambdify(symbols, sp.diff(expr, sa, sb), "numpy")(A, B, C)
        assert np.max(np.abs(f - exact)) <= 1e-12 * max(np.max(np.abs(exact)), 1.0)


def test_points_hessians_are_one_kernel_and_one_pass(kernels_made: list[fused.Kernel]) -> None:
    made = kernels_made
    _, found = _points_hessians(True, "y = a*sin(c) + exp(a*c)", ["a", "c"])
    assert len(made) == 1 and made[0].passes == 1  # the value and every second derivative
    assert set(found) == {"a,a", "a,c", "c,a", "c,c"}


def test_points_with_a_vector_at_each_point_are_left_to_the_tape() -> None:
    from functools import partial

    from gradcalc.commands.jobs import grad_seed

    x = np.stack([A, B], axis=1)  # x[0], x[1] at every point: y is a vector there
    unweighted = partial(grad_seed, of="y", weights=None, where=" at each point")
    for seed in (unweighted, batched.hessian_seed):  # both refuse a vector's shape
        errors = []
        for on in (False, True):
            with fusion(on, min_size=0), pytest.raises(Exception) as caught:
                batched.evaluate(parse("y = sin(x)*2"), {"x": x}, ["x"], "y", Limits(),
                                 seed=seed)
            errors.append((type(caught.value), str(caught.value)))
        assert errors[0] == errors[1]

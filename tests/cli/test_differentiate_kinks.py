"""Kinks and singular points through the command line (docs/checking.md, docs/language.md).

Each case runs `gradcalc grad ... --json` in-process and asserts: the output and the
gradient are PyTorch's, exactly as IEEE values (nan is nan, -0 is not 0), as measured
with torch (docs/language.md lists the kinks); the check says `pass` or `skipped`, never
`fail`; and a non-finite result is flagged with a warning. When torch is installed, the
same cases are also replayed against live torch.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from conftest import same_ieee

nan, inf = math.nan, math.inf


def _number(v: Any) -> Any:
    """JSON's "nan"/"inf"/"-inf" strings back to floats (nested lists too)."""
    if isinstance(v, list):
        return [_number(i) for i in v]
    if isinstance(v, str):
        return float(v)
    return v


# (kink, program, --at, f torch, {input: d torch}, torch replay or None)
CASES: list[tuple[int, str, str, Any, dict[str, Any], Callable[..., Any] | None]] = [
    (1, "y = abs(x)", "x=0", 0.0, {"x": 0.0}, lambda t, x: t.abs(x)),
    (2, "y = relu(x)", "x=0", 0.0, {"x": 0.0}, lambda t, x: t.relu(x)),
    (3, "y = maximum(x, 0)", "x=0", 0.0, {"x": 0.5},
     lambda t, x: t.maximum(x, t.tensor(0.0, dtype=t.float64))),
    (26, "y = sign(x)", "x=0", 0.0, {"x": 0.0}, lambda t, x: t.sign(x)),
    (15, "y = maximum(x, z)", "x=1, z=1", 1.0, {"x": 0.5, "z": 0.5},
     lambda t, x, z: t.maximum(x, z)),
    (16, "y = minimum(x, z)", "x=1, z=1", 1.0, {"x": 0.5, "z": 0.5},
     lambda t, x, z: t.minimum(x, z)),
    (19, "y = clamp(x, 0, 1)", "x=0", 0.0, {"x": 1.0}, lambda t, x: t.clamp(x, 0, 1)),
    (20, "y = clamp(x, 0, 1)", "x=1", 1.0, {"x": 1.0}, lambda t, x: t.clamp(x, 0, 1)),
    (0, "y = clamp(x, lo, hi)", "x=1, lo=1, hi=1", 1.0, {"x": 1.0, "lo": 0.0, "hi": 0.0},
     lambda t, x, lo, hi: t.clamp(x, lo, hi)),
    (5, "y = sqrt(x)", "x=0", 0.0, {"x": inf}, lambda t, x: t.sqrt(x)),
    (6, "y = x**0.5", "x=0", 0.0, {"x": inf}, lambda t, x: x**0.5),
    (21, "y = log(x)", "x=0", -inf, {"x": inf}, lambda t, x: t.log(x)),
    (22, "y = log(x)", "x=-1", nan, {"x": -1.0}, lambda t, x: t.log(x)),
    (23, "y = sqrt(x)", "x=-1", nan, {"x": nan}, lambda t, x: t.sqrt(x)),
    (35, "y = norm(v)", "v=[0,0,0]", 0.0, {"v": [0.0, 0.0, 0.0]},
     lambda t, v: t.linalg.norm(v)),
    (36, "y = sqrt(sum(v**2))", "v=[0,0,0]", 0.0, {"v": [nan, nan, nan]},
     lambda t, v: t.sqrt(t.sum(v**2))),
    (10, "y = x**z", "x=0, z=0", 1.0, {"x": 0.0, "z": 0.0}, lambda t, x, z: x**z),
    (11, "y = x**z", "x=0, z=2", 0.0, {"x": 0.0, "z": 0.0}, lambda t, x, z: x**z),
    (12, "y = x**z", "x=-2, z=2", 4.0, {"x": -4.0, "z": nan}, lambda t, x, z: x**z),
    (9, "y = x**0", "x=0", 1.0, {"x": 0.0}, lambda t, x: x**0),
    (7, "y = x**2", "x=0", 0.0, {"x": 0.0}, lambda t, x: x**2),
    (13, "y = x**(1/3)", "x=-8", nan, {"x": nan}, lambda t, x: x ** (1 / 3)),
    (14, "y = sign(x)*abs(x)**(1/3)", "x=0", 0.0, {"x": nan},
     lambda t, x: t.sign(x) * t.abs(x) ** (1 / 3)),
    (24, "y = 1/x", "x=0", inf, {"x": -inf}, lambda t, x: 1 / x),
    (25, "y = x/x", "x=0", nan, {"x": nan}, lambda t, x: x / x),
    (0, "y = x/0", "x=1", inf, {"x": inf}, lambda t, x: x / 0),
    (0, "y = 0/x", "x=0", nan, {"x": nan}, lambda t, x: 0 / x),
    (34, "y = atan2(z, x)", "z=0, x=0", 0.0, {"z": 0.0, "x": -0.0},
     lambda t, z, x: t.atan2(z, x)),
    (37, "y = sqrt(x**2)", "x=0", 0.0, {"x": nan}, lambda t, x: t.sqrt(x**2)),
    (38, "y = x*log(x)", "x=0", nan, {"x": nan}, lambda t, x: x * t.log(x)),
    (39, "y = asin(x)", "x=1", math.pi / 2, {"x": inf}, lambda t, x: t.asin(x)),
    (40, "y = exp(x)", "x=1000", inf, {"x": inf}, lambda t, x: t.exp(x)),
    (28, "y = where(x > 0, x, 0)", "x=0", 0.0, {"x": 0.0},
     lambda t, x: t.where(x > 0, x, t.zeros_like(x))),
    (29, "y = where(x > 0, sqrt(x), 0)", "x=0", 0.0, {"x": nan},
     lambda t, x: t.where(x > 0, t.sqrt(x), t.zeros_like(x))),
    (30, "y = where(x > 0, log(x), 0)", "x=0", 0.0, {"x": nan},
     lambda t, x: t.where(x > 0, t.log(x), t.zeros_like(x))),
    (0, "y = relu(x)*x + abs(x)", "x=0", 0.0, {"x": 0.0},
     lambda t, x: t.relu(x) * x + t.abs(x)),
    (0, "y = sum(maximum(v, 1))", "v=[1, 2, 0]", 4.0, {"v": [0.5, 1.0, 0.0]},
     lambda t, v: t.sum(t.maximum(v, t.tensor(1.0, dtype=t.float64)))),
    (0, "y = sum(clamp(v, 0, 1))", "v=[0, 1, 0.5, 2]", 2.5, {"v": [1.0, 1.0, 1.0, 0.0]},
     lambda t, v: t.sum(t.clamp(v, 0, 1))),
]

IDS = [f"{row}: {prog} @ {at}" for row, prog, at, *_ in CASES]


def _run(invoke, *args: str) -> dict:
    run = invoke(*args, "--json")
    assert run.code == 0, run.err  # a check at a kink passes or is skipped: never exit 1
    return json.loads(run.out)


@pytest.mark.parametrize("row, program, at, f, grads, replay", CASES, ids=IDS)
def test_grad_at_a_kink_is_pytorchs_and_the_check_never_fails(invoke, row, program, at, f,
                                                               grads, replay):
    data = _run(invoke, "grad", program, "--at", at)
    assert same_ieee(_number(data["output"]["value"]), f), data["output"]
    for name, expected in grads.items():
        assert same_ieee(_number(data["gradient"][name]), expected), (name, data["gradient"])
    assert data["check"]["status"] in ("pass", "skipped"), data["check"]
    if data["check"]["status"] == "skipped":
        assert data["check"]["detail"]  # the reason is said
    nonfinite = not np.all(np.isfinite(f)) or not all(
        np.all(np.isfinite(np.asarray(v, dtype=float))) for v in grads.values())
    assert bool(data.get("warnings")) == nonfinite, data.get("warnings")


@pytest.mark.parametrize("row, program, at, f, grads, replay", CASES, ids=IDS)
def test_the_table_is_live_torch(row, program, at, f, grads, replay):
    torch = pytest.importorskip("torch")
    from gradcalc.language.values import parse_assignments

    values = parse_assignments([at])
    leaves = [torch.tensor(v, dtype=torch.float64, requires_grad=True)
              for v in values.values()]
    out = replay(torch, *leaves)
    out.backward()
    assert same_ieee(out.detach().numpy(), f)
    for name, leaf in zip(values, leaves, strict=True):
        got = leaf.grad.numpy() if leaf.grad is not None else np.zeros(leaf.shape)
        assert same_ieee(got, grads[name]), (name, got)


# jacobian and hessian at kinks: PyTorch's values (torch.autograd.functional), and the
# check stays pass or skipped
OTHER = [
    ("jacobian", "y = [abs(x[0]), relu(x[1]), maximum(x[0], x[1]), sign(x[0])]", "x=[0,0]",
     [[0.0, 0.0], [0.0, 0.0], [0.5, 0.5], [0.0, 0.0]],
     lambda t, x: t.stack([t.abs(x[0]), t.relu(x[1]), t.maximum(x[0], x[1]), t.sign(x[0])])),
    ("jacobian", "y = clamp(x, 0, 1)", "x=[0, 1, 2]",
     [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]], lambda t, x: t.clamp(x, 0, 1)),
    # row 0's zero cotangent meets sqrt'(0) = inf: 0*inf = nan, in torch too
    ("jacobian", "y = [norm(x), sqrt(x[0])]", "x=[0, 0]", [[nan, 0.0], [inf, 0.0]],
     lambda t, x: t.stack([t.linalg.norm(x), t.sqrt(x[0])])),
    ("hessian", "y = maximum(x[0], x[1])**2", "x=[1, 1]", [[0.5, 0.5], [0.5, 0.5]],
     lambda t, x: t.maximum(x[0], x[1]) ** 2),
    ("hessian", "y = abs(x)*x", "x=0", 0.0, lambda t, x: t.abs(x) * x),
    ("hessian", "y = relu(x)**3", "x=0", 0.0, lambda t, x: t.relu(x) ** 3),
    # relu masks sqrt'(0) = inf and the nan it makes in the other rows: exact zeros
    ("jacobian", "y = sqrt(relu(x))", "x=[-0.5, 1, 0]",
     [[0.0, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 0.0]], lambda t, x: t.sqrt(t.relu(x))),
    # |x|'s second derivative at 0 is 0 in PyTorch, 2 to sympy (Abs(x)**2 = x**2): a kink
    ("hessian", "y = sum(abs(x)**2)", "x=[0, 1]", [[0.0, 0.0], [0.0, 2.0]],
     lambda t, x: t.sum(t.abs(x) ** 2)),
]
OTHER_IDS = [f"{c}: {p} @ {a}" for c, p, a, *_ in OTHER]


@pytest.mark.parametrize("command, program, at, expected, replay", OTHER, ids=OTHER_IDS)
def test_jacobian_and_hessian_at_kinks(invoke, command, program, at, expected, replay):
    data = _run(invoke, command, program, "--at", at)
    assert same_ieee(_number(data[command]["x"]), expected), data[command]
    assert data["check"]["status"] in ("pass", "skipped"), data["check"]


@pytest.mark.parametrize("command, program, at, expected, replay", OTHER, ids=OTHER_IDS)
def test_jacobian_and_hessian_table_is_live_torch(command, program, at, expected, replay):
    torch = pytest.importorskip("torch")
    from gradcalc.language.values import parse_assignments

    x = torch.tensor(parse_assignments([at])["x"], dtype=torch.float64)
    transform = getattr(torch.autograd.functional, command)
    assert same_ieee(transform(lambda v: replay(torch, v), x).numpy(), expected)


def test_the_symbolic_check_is_not_fooled_by_relu_as_max():
    """relu is a Piecewise on the symbolic side, not Max (whose derivative is 1/2 at 0)."""
    from gradcalc.commands import one_point as commands

    result = commands.run(commands.Job("grad", "y = relu(x) + relu(-x)", at=["x=0"]))
    assert result.derivative["x"] == 0.0
    assert result.check.status in ("pass", "skipped")

"""The numeric backend on a scalar program (bench/run.py's W4): its work per operation,
counted in Python calls (sys.setprofile), and the limits' counts and messages, which the
two-scalar short path keeps exactly."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gradcalc.backends.numeric import as_function, run_numeric
from gradcalc.engine import functional
from gradcalc.engine.tensor import Tensor
from gradcalc.errors import EvalError, LimitError
from gradcalc.language.parse import parse
from gradcalc.limits import Limits

#: W4's step: four operations (two products, a sine, a sum)
STEP = "y = y*1.0001 + sin(y)*0.001"
STEPS = 100
OPERATIONS = 4 * STEPS
W4 = parse(f"y = x\nfor i in range({STEPS}):\n    {STEP}")


def python_calls(thunk: Callable[[], Any]) -> tuple[Any, Counter]:
    """thunk() and the Python functions it called (generators' resumptions too), by
    file:function."""
    calls: Counter = Counter()

    def count(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            calls[f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}"] += 1

    sys.setprofile(count)
    try:
        result = thunk()
    finally:
        sys.setprofile(None)
    return result, calls


def recorded_w4() -> tuple[Any, Any, Tensor, Counter]:
    """W4's program recorded as `vjp` records it: its output, tape, leaf and the calls."""
    f, _ = as_function(W4, ["x"], {}, of="y")
    leaf = Tensor(0.5, requires_grad=True)
    (out, t), calls = python_calls(lambda: functional.record(f, [leaf], lean=True))
    return out, t, leaf, calls


def test_recording_a_scalar_operation_takes_under_six_python_calls():
    """The interpreter's own (about 2.3 an operation) plus the backend's and the
    primitive's: a node and its tensor made in one call, the two scalars' operation
    counted inline. The code before made 7.9 (Node.__init__, Tensor.wrap, _counted)."""
    _, t, _, calls = recorded_w4()
    assert len(t.nodes) == OPERATIONS
    assert sum(calls.values()) / OPERATIONS < 6, calls.most_common(12)
    assert calls["primitive.py:recorded"] == OPERATIONS
    assert calls["tape.py:__init__"] == calls["tensor.py:wrap"] == 0
    assert calls["numeric.py:_counted"] == 1  # the first product's operand is a 0-d array


def test_sweeping_a_scalar_program_takes_under_three_and_a_half_calls_an_operation():
    """The rules themselves (table.py's, with their shape and scratch helpers) and
    nothing else a node: no release of an elementwise node's scalars, no `apply_one`
    under the cosine a rule asks for. The code before made 3.84."""
    out, t, leaf, _ = recorded_w4()
    grads, calls = python_calls(
        lambda: functional.sweep(out, np.ones(()), [leaf], retain_graph=False, on=t))
    assert sum(calls.values()) / OPERATIONS < 3.5, calls.most_common(12)
    # (the last node, whose cotangent is the 0-d seed, takes the general way)
    assert calls["tape.py:release"] <= 1 and calls["primitive.py:apply_one"] == 0
    y, expected = 0.5, 1.0
    for _ in range(STEPS):
        expected *= 1.0001 + np.cos(y) * 0.001
        y = y * 1.0001 + np.sin(y) * 0.001
    assert np.isclose(grads[0], expected, rtol=1e-13)


def test_the_short_path_counts_operations_and_work_as_before():
    usage: dict[str, int] = {}
    run_numeric(W4, {"x": np.float64(0.5)}, of="y", usage=usage)
    assert usage == {"operations": OPERATIONS, "work": OPERATIONS}


@pytest.mark.parametrize(("limits", "message"), [
    (Limits(max_operations=10), "the program ran more than 10 operations (at line 3, column "
     "26); the limit is settable with --max-operations"),
    (Limits(max_operations=11), "the program ran more than 11 operations (at line 3, column "
     "18); the limit is settable with --max-operations"),
    (Limits(max_work=9), "the program computes more than 9 array elements in all (at line 3, "
     "column 20; matrix products count their multiply-adds / 32): the limit on work and "
     "tape memory, fixed"),
    (Limits(max_array_elements=0), "'*' at line 3, column 10 would make an array of 1 "
     "elements (from () and ()), over the limit of 0 elements"),
], ids=["a product", "a call", "work", "no elements"])
def test_a_limit_stops_the_short_path_where_it_stopped_before(limits, message):
    with pytest.raises(LimitError) as caught:
        run_numeric(W4, {"x": np.float64(0.5)}, of="y", limits=limits)
    assert str(caught.value) == message


def test_a_matrix_product_of_scalars_is_refused_as_before():
    with pytest.raises(EvalError, match=r"'@' needs vectors or matrices, not scalars "
                                        r"\(line 1, column 7\)"):
        run_numeric(parse("y = x @ 2"), {"x": np.float64(0.5)}, of="y")


# temporaries written over (the interpreter says which values are its own) -------------
W1 = parse("y = sum(sin(x)*exp(-x**2) + log(1+x**2))")


def _w1_point() -> np.ndarray:
    return np.linspace(-3.0, 3.0, 10**6)


def test_w1s_forward_fills_five_full_size_arrays_not_nine(monkeypatch):
    """-x**2 into x**2's buffer, exp into that, 1 + x**2 into x**2's, the last sum into
    the product's: 5 arrays filled where each operation filled a new one (9)."""
    from gradcalc.engine import pool

    taken: list[tuple[int, ...]] = []
    take = pool.take
    monkeypatch.setattr(pool, "take", lambda shape: taken.append(shape) or take(shape))
    f, _ = as_function(W1, ["x"], {}, of="y")
    leaves, _ = functional._leaves(_w1_point())
    functional.record(f, leaves, lean=True)
    assert taken == [(10**6,)] * 5


def test_writing_over_temporaries_keeps_the_bits(monkeypatch):
    from gradcalc.backends.numeric import NumericBackend
    from gradcalc.engine.fused import fusion

    program = parse("t = exp(-x*2)\ny = sum(-(t + 1)*(x - 1) - log(1 + x**2) / (2*x + t))")
    f, _ = as_function(program, ["x"], {}, of="y")
    with fusion(False):
        now = functional.vjp(f, _w1_point(), 1.0)
        monkeypatch.setattr(NumericBackend, "writes_over_temporaries", False)
        f, _ = as_function(program, ["x"], {}, of="y")
        before = functional.vjp(f, _w1_point(), 1.0)
    assert [np.asarray(v).tobytes() for v in now] == [np.asarray(v).tobytes() for v in before]


def test_named_values_inputs_and_constants_are_never_written_over():
    from gradcalc.engine import ops

    x = _w1_point()
    u = ops.exp(Tensor(x, requires_grad=True))  # a caller's tensor on a pool buffer
    c = np.full(10**6, 2.0)
    held = {"x": x.copy(), "u": u.value.copy(), "c": c.copy()}
    program = parse("t = x*2\nw = exp(-u)\ny = sum(-t + (-(c)) + exp(-w) + (-(u)))")
    run_numeric(program, {"x": Tensor(x, requires_grad=True), "u": u}, {"c": c}, of="y")
    assert x.tobytes() == held["x"].tobytes() and c.tobytes() == held["c"].tobytes()
    assert u.value.tobytes() == held["u"].tobytes()
    for name, wanted in (("t", x * 2), ("w", np.exp(-held["u"]))):
        value = run_numeric(program, {"x": Tensor(x, requires_grad=True), "u": u}, {"c": c},
                            of=name)
        assert value.value.tobytes() == wanted.tobytes()

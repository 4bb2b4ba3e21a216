"""Random programs: the tape, sympy and central finite differences must agree."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gradcalc.backends.numeric import run_numeric
from gradcalc.commands import one_point as commands
from gradcalc.engine.ops import value
from gradcalc.language.parse import parse

from conftest import examples

UNARY = ["sin({})", "cos({})", "tanh({})", "sigmoid({})", "softplus({})", "atan({})",
         "exp(0.3*{})", "sqrt(1 + ({})**2)", "log(1 + ({})**2)", "-({})", "({})**2", "({})**3"]
BINARY = ["({}) + ({})", "({}) - ({})", "({}) * ({})", "({}) / (1.5 + ({})**2)",
          "maximum({}, 2*({}))", "atan2({}, 1 + ({})**2)"]
LEAVES = ["x", "y", "v[0]", "v[1]", "v[2]", "0.5", "2"]


@st.composite
def expressions(draw, depth: int = 3) -> str:
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(LEAVES))
    if draw(st.booleans()):
        return draw(st.sampled_from(UNARY)).format(draw(expressions(depth - 1)))
    template = draw(st.sampled_from(BINARY))
    return template.format(draw(expressions(depth - 1)), draw(expressions(depth - 1)))


@st.composite
def programs(draw) -> str:
    """A few statements, sometimes a loop, ending in a scalar output."""
    a = draw(expressions())
    b = draw(expressions()).replace("y", "a")
    lines = [f"a = {a}", f"b = {b}"]
    if draw(st.booleans()):
        lines.append("for i in range(2): a = 0.5*a + sin(b)")
    if draw(st.booleans()):
        lines.append("w = [a, b, a*b]; out = sum(w*v) + norm(w)")
    else:
        lines.append("out = a*b + mean(v*a)")
    return "\n".join(lines)


# values away from 0, so that finite differences (h = 1e-6) never straddle a kink
COORDINATE = st.builds(lambda m, s: m * s, st.floats(0.1, 1.5), st.sampled_from([-1.0, 1.0]))
POINT = st.tuples(*(COORDINATE for _ in range(5)))


def assume_smooth(check) -> None:
    """A kink of the point (norm at 0, a tie in maximum) is reported as skipped: never fail."""
    if check.status == "skipped":
        assert "singular" in (check.detail or ""), check
    assume(check.status != "skipped")


def finite_differences(text: str, values: dict[str, np.ndarray], h: float = 1e-6) -> dict:
    program = parse(text)
    grads = {}
    for name, base in values.items():
        g = np.zeros(base.shape)
        for idx in np.ndindex(base.shape or ()):
            plus, minus = dict(values), dict(values)
            plus[name] = base.copy()
            minus[name] = base.copy()
            plus[name][idx] += h
            minus[name][idx] -= h
            f_plus = float(value(run_numeric(program, plus, of="out")))
            f_minus = float(value(run_numeric(program, minus, of="out")))
            g[idx] = (f_plus - f_minus) / (2 * h)
        grads[name] = g
    return grads


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), POINT)
def test_tape_equals_sympy_equals_finite_differences(text, point):
    x, y, *v = point
    at = f"x={x!r}, y={y!r}, v=[{v[0]!r}, {v[1]!r}, {v[2]!r}]"
    result = commands.run(commands.Job(command="grad", program=text, at=[at]))
    assume_smooth(result.check)
    assert result.check.status == "pass", (text, at, result.check)
    assert result.check.method == "symbolic"
    values = {"x": np.array(x), "y": np.array(y), "v": np.array(v)}
    numeric = finite_differences(text, values)
    for name, g in result.derivative.items():
        np.testing.assert_allclose(g, numeric[name], rtol=1e-4, atol=1e-5, err_msg=text)


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), POINT)
def test_hessian_is_symmetric_and_checked(text, point):
    x, y, *v = point
    at = f"x={x!r}, y={y!r}, v=[{v[0]!r}, {v[1]!r}, {v[2]!r}]"
    result = commands.run(commands.Job(command="hessian", program=text, at=[at], wrt=["x", "v"]))
    assume_smooth(result.check)
    assert result.check.status == "pass", (text, at, result.check)
    np.testing.assert_allclose(result.derivative["x,v"], result.derivative["v,x"], atol=1e-10)
    vv = result.derivative["v,v"]
    np.testing.assert_allclose(vv, vv.T, atol=1e-10)

"""Job planning shared by every command (one point, --points, batch), and the one mapping
of failures to error kinds that the command line and batch share."""

from __future__ import annotations

import io

import numpy as np
import pytest

from gradcalc.commands import batch, jobs, one_point, points
from gradcalc.errors import EvalError, GradcalcError, ShapeError, failure
from gradcalc.language.parse import parse

PROGRAM = parse("y = a*x + b\nz = y*2")


def values(**kw) -> dict[str, np.ndarray]:
    return {k: np.asarray(v, dtype=np.float64) for k, v in kw.items()}


def test_inputs_are_the_given_values_or_wrt():
    given = values(a=1, x=2, b=3)
    assert jobs.choose_inputs(PROGRAM, given, None) == ["a", "x", "b"]
    assert jobs.choose_inputs(PROGRAM, given, ["x", "ｘ", "a"]) == ["x", "a"]  # NFKC, once
    with pytest.raises(GradcalcError, match=r"--wrt q: no value given .*a, x, b\)$"):
        jobs.choose_inputs(PROGRAM, given, ["q"])
    with pytest.raises(GradcalcError, match=r"no inputs: .*\(the program reads a, b, x\)"):
        jobs.choose_inputs(PROGRAM, {}, None)
    assert jobs.choose_inputs(PROGRAM, given, ["y"], intermediates=True) == ["y"]


def test_plan_names_the_output_and_checks_the_weights():
    job = jobs.Job("grad", "", weights="[1, 2]", of="ｙ")
    names, output, weights = jobs.plan(job, PROGRAM, values(a=1, x=[1, 2], b=0))
    assert (names, output.name) == (["a", "x", "b"], "y") and weights.tolist() == [1.0, 2.0]
    assert jobs.plan(jobs.Job("grad", ""), PROGRAM, values(x=1, a=1, b=1))[1].name == "z"
    with pytest.raises(GradcalcError, match="--weights goes with grad"):
        jobs.plan(jobs.Job("jacobian", "", weights="[1]"), PROGRAM, values(x=1))
    with pytest.raises(GradcalcError, match="--weights must be finite"):
        jobs.plan(jobs.Job("grad", "", weights="[1, nan]"), PROGRAM, values(x=1))


def test_the_grad_seed_is_one_or_the_weights():
    assert jobs.grad_seed((), "y", None).tolist() == 1.0
    assert jobs.grad_seed((1,), "y", None).tolist() == [1.0]
    w = np.array([1.0, 2.0])
    assert jobs.grad_seed((2,), "y", w) is w
    with pytest.raises(ShapeError, match=r"'y' has shape \(2,\) at each point, so its gradient "
                                         r"needs weights"):
        jobs.grad_seed((2,), "y", None, where=" at each point")
    with pytest.raises(ShapeError, match=r"--weights has shape \(2,\) but 'y' has shape "
                                         r"\(3,\); they must match"):
        jobs.grad_seed((3,), "y", w)


def test_check_kinds():
    assert jobs.check_kind("grad", None) == "gradient"
    assert jobs.check_kind("grad", np.ones(2)) == "vjp"
    assert jobs.check_kind("jacobian", None) == "jacobian"
    assert jobs.check_kind("hessian", None) == "hessian"


def test_nonfinite_warnings_for_one_point_and_for_many():
    out = jobs.nonfinite_warnings("y", np.array([np.inf]), {"x": np.array([1.0]),
                                                            "v": np.array([np.nan])})
    assert out == ["the output 'y' has non-finite values (a domain error such as log(0), 0/0 "
                   "or overflow)", "the derivative with respect to v has non-finite values "
                   "(a singular point or a domain error)"]
    many = jobs.nonfinite_warnings("y", np.array([1.0, np.nan, np.nan]),
                                   {"x": np.array([[1.0, 2.0], [3.0, 4.0], [np.inf, 0.0]])},
                                   points=True)
    assert many == ["the output 'y' has non-finite values at 2 points (first: row 2)",
                    "the derivative with respect to x has non-finite values at 1 point "
                    "(first: row 3)"]
    assert jobs.nonfinite_warnings("y", np.ones(3), {"x": np.ones(3)}, points=True) == []


def test_one_point_and_many_points_plan_alike():
    """The same job through derivatives and points: the same names, seed and messages."""
    job = jobs.Job("grad", "y = [x, x*2]", check=False)
    with pytest.raises(ShapeError, match=r"'y' has shape \(2,\), so its gradient needs"):
        one_point.run(jobs.Job("grad", "y = [x, x*2]", at=["x=1"], check=False))
    with pytest.raises(ShapeError, match=r"'y' has shape \(2,\) at each point, so its "):
        points.run(job, points.read_table(io.StringIO("x\n1\n")))
    message = "--of 'q': the program never assigns it (assigned: y)"
    for run in (lambda: one_point.run(jobs.Job("grad", "y = x", at=["x=1"], of="q")),
                lambda: points.run(jobs.Job("grad", "y = x", of="q"),
                                   points.read_table(io.StringIO("x\n1\n")))):
        with pytest.raises(EvalError) as caught:
            run()
        assert caught.value.message == message


@pytest.mark.parametrize("exc, kind, message", [
    (GradcalcError("bad", kind="usage"), "usage", "bad"),
    (EvalError("no"), "eval", "no"),
    (RecursionError(), "limit", "the program is nested too deeply to evaluate"),
    (MemoryError(), "limit", "out of memory: the program's arrays are too large"),
    (ZeroDivisionError("boom"), "internal",
     "internal error (ZeroDivisionError): boom; please report it"),
])
def test_one_mapping_of_failures(exc, kind, message):
    assert failure(exc) == (kind, message)


def test_batch_and_the_command_line_map_failures_alike(invoke, monkeypatch):
    def broken(job):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(one_point, "run", broken)
    tally = batch.Tally()
    (answer,) = batch.run(['{"command": "grad", "program": "y = x", "at": "x=1"}'], tally)
    assert answer.error == failure(ZeroDivisionError("boom")) and tally.exit_code == 2
    monkeypatch.delenv("GRADCALC_DEBUG", raising=False)
    run = invoke("grad", "y = x", "--at", "x=1")
    assert run.code == 2
    assert run.err == ("error: internal error (ZeroDivisionError): boom; set GRADCALC_DEBUG=1 "
                       "for a traceback and please report it\n")


def test_a_program_is_read_once_for_the_same_text_and_names(monkeypatch):
    """A table's chunks (each a `points.run`) share one reading of the program."""
    from gradcalc.language import parse as parsing

    read = []
    real = parsing.parse
    monkeypatch.setattr(parsing, "parse", lambda *a, **k: read.append(k["given"])
                        or real(*a, **k))
    job = jobs.Job("grad", "y = q*1.2345 + r")
    first = jobs.program_of(job, ["q", "r"])
    assert jobs.program_of(job, ["q", "r"]) is first and len(read) == 1
    assert jobs.program_of(job, ["q", "r", "s"]) is not first and len(read) == 2


def test_nonfinite_rows_are_none_for_a_finite_array_by_one_sum():
    assert jobs.nonfinite_rows(np.ones((4, 2))) is None
    assert jobs.nonfinite_rows(np.ones((0, 3))) is None
    rows = jobs.nonfinite_rows(np.array([[1.0, 2.0], [np.inf, 0.0], [3.0, np.nan]]))
    assert rows.tolist() == [False, True, True]
    with np.errstate(all="raise"):  # a sum that overflows: looked at point by point
        assert jobs.nonfinite_rows(np.array([1e308, 1e308, -1e308])).tolist() == [False] * 3


def test_a_program_is_read_anew_once_a_primitive_is_registered():
    """Registering (or removing) a primitive changes what a text may mean: a program read
    while it was there is not served once it is gone."""
    from gradcalc.engine import table, twins
    from gradcalc.errors import ParseError

    job = jobs.Job("grad", "y = quad(q)")
    table.register(table.unary("quad", lambda x: np.asarray(x) ** 4,
                               lambda g, ans, x: g * 4.0 * x**3,
                               twins.piecewise(lambda s, x: x**4), rule="g·4x³"))
    try:
        assert jobs.program_of(job, ["q"]) is jobs.program_of(job, ["q"])
    finally:
        table.unregister("quad")
    with pytest.raises(ParseError):
        jobs.program_of(job, ["q"])

"""--points: CSV in, one vectorised pass, CSV / JSON lines out; each row equals a single run."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from gradcalc.backends import batched
from gradcalc.commands import one_point as commands
from gradcalc.commands import points
from gradcalc.errors import GradcalcError, LimitError, ShapeError
from gradcalc.language import program
from gradcalc.render import point_rows as write

from conftest import run_cli


def table(text: str) -> points.PointTable:
    return points.read_table(io.StringIO(text))


def job(command: str, prog: str, **kw) -> commands.Job:
    return commands.Job(command=command, program=prog, check=kw.pop("check", False), **kw)


def csv_of(columns: list[str], rows: np.ndarray) -> str:
    head = io.StringIO()
    csv.writer(head, lineterminator="\n").writerow(columns)  # quotes "A[0,1]"
    return head.getvalue() + "".join(",".join(repr(float(v)) for v in row) + "\n"
                                     for row in rows)


# --------------------------------------------------------------------------- reading


def test_header_names_scalars_vectors_and_matrices():
    t = table('a,x[0],x[1],"A[0,0]","A[0,1]",A[1][0],A[1][1]\n1,2,3,4,5,6,7\n8,9,10,11,12,13,14\n')
    assert t.count == 2
    assert t.values["a"].shape == (2,)
    np.testing.assert_array_equal(t.values["x"], [[2, 3], [9, 10]])
    np.testing.assert_array_equal(t.values["A"][1], [[11, 12], [13, 14]])


def test_columns_may_come_in_any_order_and_blank_lines_are_skipped():
    t = table("\nx[1], x[0]\n\n1,2\n\n3,4\n")
    np.testing.assert_array_equal(t.values["x"], [[2, 1], [4, 3]])


@pytest.mark.parametrize("text,message", [
    ("", "the table is empty"),
    ("x,y\n", "no points"),
    ("x,x\n1,2\n", "'x' appears twice"),
    ("x[0],x[2]\n1,2\n", "x[1] is missing"),
    ("x,x[0]\n1,2\n", "mixes x with x[...]"),
    ("2x\n1\n", "is not an input name"),
    ("x.y\n1\n", "is not an input name"),
    ("A[0,0],A[0,1]\n1,2\n", 'is quoted in CSV: "A[0,1]"'),
])
def test_bad_tables_are_errors_that_say_where(text, message):
    with pytest.raises(GradcalcError) as err:
        table(text)
    assert message in err.value.message


@pytest.mark.parametrize("text,reason", [
    ("x,y\n1,2\n3\n", "row 2 (line 3): 1 value, but the header names 2 columns"),
    ("x\n1\nabc\n", "row 2 (line 3): 'abc' is not a number (column x)"),
])
def test_a_bad_row_is_kept_in_its_place_with_its_reason(text, reason):
    read = table(text)
    assert read.count == 2 and read.rows.reason(1) == reason


# --------------------------------------------------------------------------- the pass


RNG = np.random.default_rng(7)

# (command, program, columns, weights or None): each is checked row by row against a single run
PROGRAMS = [
    ("grad", "y = a*b*sin(c) + exp(a*c)/(1+b**2)", ["a", "b", "c"], None),
    ("grad", "y = sum(x**3) + mean(x) * prod(x) + norm(x)", ["x[0]", "x[1]", "x[2]"], None),
    ("grad", "y = x[0]*x[-1] + sum(x[1:3]) + dot(x, [1, 2, 3])", ["x[0]", "x[1]", "x[2]"], None),
    ("grad", "M = [[x[0], x[1]], [x[1], 2*x[0]]]; y = sum(M @ x) + sum(transpose(M) @ M)",
     ["x[0]", "x[1]"], None),
    ("grad", "y = sum(A @ v) + sum(v @ A) + v @ v", ["A[0,0]", "A[0,1]", "A[1,0]", "A[1,1]",
                                                     "v[0]", "v[1]"], None),
    ("grad", "y = sum(A, 0) @ [1, 2] + sum(mean(A, 1) * [3, 4]) + norm(A)",
     ["A[0,0]", "A[0,1]", "A[1,0]", "A[1,1]"], None),
    ("grad", "y = sum(maximum(x, 0.3) + clamp(x, -0.5, 0.5) + where(x > 0, x**2, -x))",
     ["x[0]", "x[1]"], None),
    ("grad", "y = x**2 + [1, 2, 3]", ["x"], "[0.1, 1.0, 0.001]"),
    ("grad", "y = [x*2, sin(x)]", ["x"], "[1, 3]"),
    ("jacobian", "k = [m[0]**2 + 3*m[1], m[1]**2 + 2*m[0]]", ["m[0]", "m[1]"], None),
    ("jacobian", "y = [[a*b, a], [b, sin(a)]]", ["a", "b"], None),
    ("jacobian", "y = sum(x*x)", ["x[0]", "x[1]"], None),
    ("grad", "if a > 0: y = a**2 * b\nelse: y = -a*b*3", ["a", "b"], None),
    ("grad", "y = x; while abs(y) < 10: y = y*3", ["x"], None),
    ("grad", "y = 0; for i in range(3): y = y + x**i", ["x"], None),
    ("grad", "y = a; if a > 0 and b > 0: y = a*b; elif b > 0: y = b**2; else: y = 2*a",
     ["a", "b"], None),
]


@pytest.mark.parametrize("command,prog,columns,weights", PROGRAMS, ids=[p[1] for p in PROGRAMS])
def test_every_row_equals_a_single_run(command, prog, columns, weights):
    rows = RNG.uniform(-2, 2, size=(7, len(columns)))
    rows[:, 0] = np.where(np.abs(rows[:, 0]) < 0.05, 0.5, rows[:, 0])
    t = table(csv_of(columns, rows))
    result = points.run(job(command, prog, weights=weights), t)
    assert result.output.shape[0] == 7
    for i in range(7):
        at = [f"{name}={points_literal(v[i])}" for name, v in t.values.items()]
        single = commands.run(job(command, prog, at=at, weights=weights))
        np.testing.assert_allclose(result.output[i], single.output, rtol=1e-13, atol=1e-15)
        for name in single.derivative:
            np.testing.assert_allclose(result.derivative[name][i], single.derivative[name],
                                       rtol=1e-12, atol=1e-14, err_msg=f"{prog} row {i}")


def points_literal(v: np.ndarray) -> str:
    return repr(float(v)) if np.ndim(v) == 0 else "[" + ", ".join(
        points_literal(x) for x in v) + "]"


def test_no_control_flow_is_exactly_one_interpreter_run(monkeypatch):
    runs = []
    original = program.Interpreter.run

    def counting(self, prog):
        runs.append(1)
        return original(self, prog)

    monkeypatch.setattr(program.Interpreter, "run", counting)
    t = table(csv_of(["x", "y"], RNG.normal(size=(1000, 2))))
    result = points.run(job("grad", "z = x*y + sin(x)*exp(y)"), t)
    assert len(runs) == 1 and result.passes == 1 and result.paths == 1
    assert result.derivative["x"].shape == (1000,)


def test_divergent_points_run_once_per_path():
    t = table("x\n1\n-1\n2\n-3\n")
    result = points.run(job("grad", "if x > 0: y = x**2\nelse: y = -3*x"), t)
    np.testing.assert_array_equal(result.output, [1, 3, 4, 9])
    np.testing.assert_array_equal(result.derivative["x"], [2, -3, 4, -3])
    assert result.paths == 2
    assert any("2 different paths" in w for w in result.warnings)


def test_too_many_paths_is_a_limit(monkeypatch):
    monkeypatch.setattr(batched, "MAX_PATHS", 3)
    t = table("n\n" + "".join(f"{i}\n" for i in range(10)))
    with pytest.raises(LimitError, match="more than 3 different paths"):
        points.run(job("grad", "y = n; for i in range(n): y = y + n"), t)


def test_outputs_of_different_shapes_on_different_paths_are_an_error():
    t = table("x\n1\n-1\n")
    with pytest.raises(ShapeError, match="different shapes"):
        points.run(job("jacobian", "if x > 0: y = [x, x]\nelse: y = x"), t)


def test_shared_values_from_at_are_broadcast_over_points():
    t = table("x[0],x[1]\n1,2\n3,4\n")
    result = points.run(job("grad", "y = sum(c*x**2)", at=["c=[10,100]"]), t)
    np.testing.assert_array_equal(result.derivative["x"], [[20, 400], [60, 800]])
    np.testing.assert_array_equal(result.derivative["c"], [[1, 4], [9, 16]])
    assert result.names == ["x", "c"]


def test_jacobian_shape_is_points_then_output_then_input():
    t = table("x[0],x[1],x[2]\n1,2,3\n4,5,6\n")
    result = points.run(job("jacobian", "y = [[x[0]*x[1], x[2]]]"), t)
    assert result.output.shape == (2, 1, 2)
    assert result.derivative["x"].shape == (2, 1, 2, 3)
    np.testing.assert_array_equal(result.derivative["x"][1], [[[5, 4, 0], [0, 0, 1]]])


@pytest.mark.parametrize("prog,weights,message", [
    ("y = [x, x]", None, "needs weights"),
    ("y = [x, x]", "[1, 2, 3]", "must match"),
])
def test_shape_errors(prog, weights, message):
    with pytest.raises(ShapeError, match=message):
        points.run(job("grad", prog, weights=weights), table("x\n1\n2\n"))


@pytest.mark.parametrize("kw,message", [
    ({"command": "check"}, "grad, jacobian and hessian"),
    ({"expect": "x=1"}, "--expect"),
    ({"at": ["x=1"]}, "both in --points and --at"),
])
def test_usage_errors(kw, message):
    args = {"command": "grad", "program": "y = x", "check": False, **kw}
    with pytest.raises(GradcalcError, match=message):
        points.run(commands.Job(**args), table("x\n1\n"))


def test_sample_rows_are_first_last_and_between():
    assert points.sample_rows(3) == [0, 1, 2]
    rows = points.sample_rows(1_000_000)
    assert len(rows) == 5 and rows[0] == 0 and rows[-1] == 999_999
    assert all(abs(b - a - 250_000) <= 1 for a, b in zip(rows, rows[1:]))


def test_the_check_runs_on_a_sample_only():
    t = table(csv_of(["x"], np.linspace(0.5, 2, 40)[:, None]))
    result = points.run(job("grad", "y = log(x)*x", check=True), t)
    assert [row for row, _ in result.checks] == points.sample_rows(40)
    assert all(c.status == "pass" for _, c in result.checks)
    assert "sample of 5 of 40 points" in write.check_note(result)


# --------------------------------------------------------------------------- writing


def test_csv_out_has_one_row_per_point_with_named_columns():
    t = table("m[0],m[1]\n2,4\n1,1\n")
    result = points.run(job("jacobian", "k = [m[0]**2 + 3*m[1], m[1]**2 + 2*m[0]]"), t)
    text = "".join(write.csv_lines(result))
    assert text.splitlines() == [
        "m[0],m[1],k[0],k[1],dk[0]/dm[0],dk[0]/dm[1],dk[1]/dm[0],dk[1]/dm[1]",
        "2,4,16,20,4,3,2,8",
        "1,1,4,3,2,3,2,2",
    ]


def test_csv_numbers_read_back_exactly_and_nan_inf_are_words():
    t = table("x\n0.1\n3\n-2\n0\n")
    result = points.run(job("grad", "y = log(x) + x/3"), t)
    lines = "".join(write.csv_lines(result)).splitlines()
    back = np.array([[float(c) for c in line.split(",")] for line in lines[1:]])
    np.testing.assert_array_equal(back[:, 1], result.output)
    assert lines[3].split(",")[1] == "nan" and lines[4].split(",")[1] == "-inf"


def test_json_lines_one_object_per_point():
    t = table("x\n1\n2\n3\n")
    result = points.run(job("grad", "y = x**2", check=True), t)
    objs = [json.loads(line) for line in "".join(write.json_lines(result)).splitlines()]
    assert [o["point"] for o in objs] == [1, 2, 3]
    assert objs[1]["at"] == {"x": 2.0} and objs[1]["gradient"] == {"x": 4.0}
    assert objs[1]["output"] == {"name": "y", "shape": [], "value": 4.0}
    assert objs[0]["check"]["status"] == "pass"


def test_cli_points_csv_json_plain_and_stdin(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("x,y\n1,2\n3,4\n")
    run = run_cli("grad", "z = x*y", "--points", str(path))
    assert run.code == 0, run.err
    assert run.out.splitlines() == ["x,y,z,dz/dx,dz/dy", "1,2,2,2,1", "3,4,12,4,3"]
    assert "note: check: pass" in run.err
    run = run_cli("grad", "z = x*y", "--points", "-", "--json", "--no-check",
                  stdin="x,y\n1,2\n")
    assert json.loads(run.out)["gradient"] == {"x": 2.0, "y": 1.0} and run.err == ""
    run = run_cli("jacobian", "z = [x*y, x]", "--points", str(path), "--plain", "--no-check")
    assert run.out.splitlines() == ["2 1 1 0", "4 1 3 0"]  # dz/dx, then dz/dy


def test_cli_points_errors_exit_2(tmp_path):
    run = run_cli("grad", "z = x", "--points", str(tmp_path / "missing.csv"))
    assert run.code == 2 and run.err.startswith("error: cannot read --points file")
    run = run_cli("grad", "-", "--points", "-", stdin="x\n1\n")
    assert run.code == 2 and "both come from standard input" in run.err

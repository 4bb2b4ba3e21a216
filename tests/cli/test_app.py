"""The command line: options, output formats, program sources and the error contract."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import run_cli


def test_wrt_narrows_the_inputs(invoke):
    run = invoke("grad", "y = (a+b)*(b+c)", "--at", "a=1, b=2, c=3", "--wrt", "b,c", "--json")
    assert run.code == 0
    assert run.json()["gradient"] == {"b": 8.0, "c": 3.0}


def test_of_picks_another_output(invoke):
    run = invoke("grad", "h = x*x; y = h + x", "--at", "x=3", "--of", "h", "--json")
    data = run.json()
    assert data["output"]["name"] == "h" and data["gradient"] == {"x": 6.0}


def test_bare_expression_is_the_output(invoke):
    run = invoke("grad", "2*x[0]**3 + 2*x[1]**3", "--at", "x=[1,1]", "--json")
    assert run.json()["output"]["name"] == "result"
    assert run.json()["gradient"]["x"] == [6.0, 6.0]


def test_repeated_at_options(invoke):
    run = invoke("grad", "y = a*b", "--at", "a=2", "--at", "b=[1,2]", "--weights", "[1,1]",
                 "--json")
    assert run.json()["gradient"] == {"a": 3.0, "b": [2.0, 2.0]}


def test_matrix_input_and_jacobian_shape(invoke):
    run = invoke("jacobian", "y = A @ v", "--at", "A=[[1,2],[3,4]], v=[1,1]", "--json")
    data = run.json()
    assert np.shape(data["jacobian"]["A"]) == (2, 2, 2)
    assert data["jacobian"]["v"] == [[1.0, 2.0], [3.0, 4.0]]
    assert data["check"]["status"] == "pass"


def test_hessian_blocks_for_several_inputs(invoke):
    run = invoke("hessian", "y = a*a*b + sin(b)", "--at", "a=1, b=2", "--json")
    data = run.json()
    assert set(data["hessian"]) == {"a,a", "a,b", "b,a", "b,b"}
    assert data["hessian"]["a,b"] == 2.0
    assert data["check"]["status"] == "pass"


def test_hessian_of_a_vector_output_is_an_error(invoke):
    run = invoke("hessian", "y = x**2", "--at", "x=[1,2]")
    assert run.code == 2 and "scalar" in run.err


def test_plain_prints_rows(invoke):
    run = invoke("jacobian", "k = [m[0]**2 + 3*m[1], m[1]**2 + 2*m[0]]", "--at", "m=[2,4]",
                 "--plain")
    assert run.out.splitlines() == ["4 3", "2 8"]


def test_json_nonfinite_numbers_are_strings(invoke):
    run = invoke("grad", "y = sqrt(x)", "--at", "x=0", "--json")
    data = run.json()
    assert data["gradient"]["x"] == "inf"
    assert data["check"]["status"] == "skipped"
    assert data["warnings"]


def test_no_check_skips_the_check(invoke):
    data = invoke("grad", "y = x**2", "--at", "x=3", "--no-check", "--json").json()
    assert data["check"] == {"status": "skipped", "method": "none", "max_abs_error": None,
                             "detail": "check disabled with --no-check"}


@pytest.mark.parametrize("args,needle", [
    (["grad", "y = 2*x**2", "--at", "x=[1,1,1]", "--weights", "[1,1]"], "(2,)"),
    (["grad", "y = x + q", "--at", "x=1"], "names with values: x"),
    (["grad", "y = x +", "--at", "x=1"], "line 1"),
    (["grad", "import os", "--at", "x=1"], "import"),
    (["grad", "y = x", "--at", "x=[1,[2]]"], "ragged"),
    (["grad", "y = x", "--wrt", "z", "--at", "x=1"], "--wrt z"),
    (["grad", "y = x"], "--at"),
    (["grad", "y = x", "--at", "x=1", "--json", "--plain"], "together"),
    (["grad", "@/nonexistent/prog.txt", "--at", "x=1"], "cannot read"),
    (["grad", "y = x", "--at", "x=1", "--of", "z"], "never assigns"),
    (["frobnicate"], "No such command"),
    (["grad", "y = x", "--at", "x=1", "--bogus"], "--bogus"),
    (["grad", "y = [x, [x, x]]", "--at", "x=1", "--weights", "[1,1]"], "different shapes"),
    (["grad", "y = x @ x", "--at", "x=2"], "'@'"),
])
def test_bad_input_is_one_error_line_and_exit_2(invoke, args, needle):
    run = invoke(*args)
    assert run.code == 2, run
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert needle in lines[0]
    assert "Traceback" not in run.err


def test_json_errors_are_objects(invoke):
    run = invoke("grad", "y = 2*x**2", "--at", "x=[1,1,1]", "--json")
    assert run.code == 2
    error = json.loads(run.out)["error"]
    assert error["kind"] == "shape" and "(3,)" in error["message"]
    assert run.err.startswith("error:")


def test_check_failure_exits_1_with_expect(invoke):
    assert invoke("grad", "y = x**2", "--at", "x=3", "--expect", "6").code == 0
    run = invoke("grad", "y = x**2", "--at", "x=3", "--expect", "7", "--json")
    assert run.code == 1 and run.json()["expect"] == "mismatch"


def test_program_from_file_and_stdin(tmp_path):
    prog = tmp_path / "prog.txt"
    prog.write_text("b = a + 3\nc = b*b*3\nout = mean(c)\n", encoding="utf-8")
    run = run_cli("grad", f"@{prog}", "--at", "a=[2,3]", "--plain")
    assert run.code == 0 and run.out.split() == ["15", "18"]
    run = run_cli("grad", "-", "--at", "a=[2,3]", "--plain", stdin=prog.read_text())
    assert run.code == 0 and run.out.split() == ["15", "18"]


def test_python_dash_m_and_help():
    run = run_cli("--help")
    assert run.code == 0 and "jacobian" in run.out
    run = run_cli("grad", "--help")
    assert run.code == 0 and "--weights" in run.out


def test_a_loop_of_100000_operations(invoke):
    program = "y = x; for i in range(25000): y = y*1.0001 + sin(y)*0.001"
    run = invoke("grad", program, "--at", "x=0.5", "--no-check", "--json")
    assert run.code == 0
    assert np.isfinite(run.json()["gradient"]["x"])


def test_rich_output_names_everything(invoke):
    run = invoke("grad", "y = 2*x**2", "--at", "x=[1,1,1]", "--weights", "[0.1, 1.0, 0.001]")
    assert run.code == 0
    for text in ("input", "x = [1, 1, 1]", "weights", "y = [2, 2, 2]", "[0.4, 4, 0.004]",
                 "pass", "symbolic"):
        assert text in run.out

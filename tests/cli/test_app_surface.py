"""The surface a newcomer meets: matrices the right way round, the output they meant,
forgiving arguments, --expect expressions, rounding. Through `gradcalc.cli.main`, the
function the installed `gradcalc` calls, in-process; the shell's part (arguments as a
shell passes them, --version, the bare command, piped output) through the installed
command itself."""

from __future__ import annotations

import json
import math
import re

import pytest

from conftest import run_cli, run_main

# --------------------------------------------------------------------------- 1. matrices


def test_jacobian_with_two_inputs_is_the_assembled_matrix_in_plain():
    run = run_main("jacobian", "y = [a*b, 5*a]", "--at", "a=1, b=2", "--plain")
    assert run.code == 0, run.err
    assert run.out.splitlines() == ["2 1", "5 0"]


def test_jacobian_with_two_inputs_is_labelled_in_the_readable_view():
    run = run_main("jacobian", "y = [a*b, 5*a]", "--at", "a=1, b=2")
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("∂y/∂(a, b)"))
    block = [line.split() for line in lines[start:start + 3]]
    assert block[0][-2:] == ["a", "b"]
    assert block[1][-3:] == ["y[0]", "2", "1"]
    assert block[2][-3:] == ["y[1]", "5", "0"]


def test_jacobian_json_keeps_one_block_per_input():
    data = run_main("jacobian", "y = [a*b, 5*a]", "--at", "a=1, b=2", "--json").json()
    assert data["jacobian"] == {"a": [2.0, 5.0], "b": [1.0, 0.0]}


def test_jacobian_columns_follow_wrt_order_and_flatten_vectors():
    run = run_main("jacobian", "y = [a*b[0], b[1]]", "--at", "a=2, b=[3,4]", "--wrt", "b,a",
                  "--plain")
    # columns: b[0], b[1], a
    assert run.out.splitlines() == ["2 0 3", "0 1 0"]


def test_hessian_with_two_inputs_is_one_matrix():
    run = run_main("hessian", "y = a*a*b + b**3", "--at", "a=1, b=2", "--plain")
    assert run.code == 0, run.err
    assert run.out.splitlines() == ["4 2", "2 12"]
    readable = run_main("hessian", "y = a*a*b + b**3", "--at", "a=1, b=2").out.splitlines()
    start = next(k for k, line in enumerate(readable) if line.startswith("∂²y/∂(a, b)²"))
    assert [line.split()[-3:] for line in readable[start + 1:start + 3]] == [
        ["a", "4", "2"], ["b", "2", "12"]]


def test_hessian_json_keeps_blocks():
    data = run_main("hessian", "y = a*a*b + b**3", "--at", "a=1, b=2", "--json").json()
    assert data["hessian"] == {"a,a": 4.0, "a,b": 2.0, "b,a": 2.0, "b,b": 12.0}


def test_grad_plain_with_several_inputs_is_one_line_in_wrt_order():
    run = run_main("grad", "y = a*b[0] + b[1]", "--at", "a=2, b=[3,4]", "--plain")
    assert run.out.splitlines() == ["3 2 1"]


def test_one_input_keeps_its_own_shape():
    run = run_main("jacobian", "k = [m[0]**2 + 3*m[1], m[1]**2 + 2*m[0]]", "--at", "m=[2,4]",
                  "--plain")
    assert run.out.splitlines() == ["4 3", "2 8"]


# --------------------------------------------------------------------------- 2. the output


LOOP = "y = x*2; i = 0; while i < 5: y = y*2; i = i + 1"


def test_the_default_output_skips_a_loop_counter_and_says_so():
    run = run_main("grad", LOOP, "--at", "x=1")
    assert run.code == 0, run.err
    assert "∂y/∂x" in run.out and "∂i/∂x" not in run.out
    assert re.search(r"note\s+the output is y\b.*\bi\b", run.out)
    assert run_main("grad", LOOP, "--at", "x=1", "--json").json()["output"]["name"] == "y"
    plain = run_main("grad", LOOP, "--at", "x=1", "--plain")
    assert plain.out == "64\n" and "note: the output is y" in plain.err


def test_a_later_constant_is_not_the_output():
    data = run_main("grad", "y = x**2; z = 3", "--at", "x=3", "--json").json()
    assert data["output"]["name"] == "y" and data["gradient"] == {"x": 6.0}


def test_an_output_that_depends_on_no_input_is_a_warning_offering_of():
    run = run_main("grad", "y = x**2; z = 3", "--at", "x=3", "--of", "z", "--json")
    data = run.json()
    assert run.code == 0 and data["gradient"] == {"x": 0.0}
    assert any("'z' does not depend" in w for w in data["warnings"])
    alone = run_main("grad", "z = 3", "--at", "x=3")
    assert "warning" in alone.out and "'z' does not depend" in alone.out and "--of" in alone.out


def test_an_output_not_assigned_on_the_path_taken_does_not_mention_of():
    run = run_main("grad", "y = x*3; if x > 5: z = y*2", "--at", "x=1")
    assert run.code == 2
    assert "'z'" in run.err and "--of" not in run.err and "path" in run.err
    given = run_main("grad", "y = x*3; if x > 5: z = y*2", "--at", "x=1", "--of", "z")
    assert given.code == 2 and "--of" in given.err


def test_a_value_for_a_name_the_program_assigns_is_an_input_error():
    run = run_main("grad", "y = x**2", "--at", "x=1, y=5")
    assert run.code == 2
    assert run.err.startswith("error: y is given a value with --at, but the program assigns")
    # an input the program updates after reading it is fine
    ok = run_main("grad", "x = x*3; y = x**2", "--at", "x=1", "--plain")
    assert ok.code == 0 and ok.out == "18\n"


@pytest.mark.parametrize("program", ["x > 0", "y = x > 0"])
def test_a_comparison_as_the_output_is_an_input_error(program):
    run = run_main("grad", program, "--at", "x=1")
    assert run.code == 2 and "comparison" in run.err and "no derivative" in run.err


# --------------------------------------------------------------------------- 3. arguments


def test_surrounding_whitespace_is_ignored():
    run = run_main("grad", " x**2 ", "--at", "x=3", "--plain")
    assert run.code == 0, run.err
    assert run.out == "6\n"


@pytest.mark.parametrize("args", [
    ["grad", "-x^2", "--at", "x=1", "--plain"],
    ["grad", "--at", "x=1", "-x^2", "--plain"],
    ["grad", "--plain", "-x**2", "-a", "x=1"],
])
def test_a_program_starting_with_minus_works(args):
    run = run_cli(*args)
    assert run.code == 0, run.err
    assert run.out == "-2\n"


def test_a_program_naming_a_file_asks_did_you_mean(tmp_path):
    (tmp_path / "chain.txt").write_text("b = a + 3\nc = b*b*3\nout = mean(c)\n")
    run = run_main("grad", "chain.txt", "--at", "a=[2,3]", cwd=tmp_path)
    assert run.code == 2
    assert "did you mean @chain.txt?" in run.err
    assert run_main("grad", "@chain.txt", "--at", "a=[2,3]", "--plain", cwd=tmp_path).out == \
        "15 18\n"


# --------------------------------------------------------------------------- 4. --expect

PROGRAM = "y = x**2 * sin(x)"  # dy/dx at 1 = 2 sin(1) + cos(1)


def test_expect_takes_an_expression():
    run = run_main("grad", PROGRAM, "--at", "x=1", "--expect", "x=2*sin(1)+cos(1)")
    assert run.code == 0, run.out + run.err
    assert "✓ match" in run.out
    assert run_main("grad", "y = pi*x/2", "--at", "x=1", "--expect", "pi/2", "--plain").code == 0


def test_expect_mismatch_prints_expected_computed_and_difference():
    run = run_main("grad", PROGRAM, "--at", "x=1", "--expect", "x=2.2232")
    assert run.code == 1
    assert "x: expected 2.2232, computed 2.22324427548393, difference 4.43e-05" in run.out
    plain = run_main("grad", PROGRAM, "--at", "x=1", "--expect", "x=2.2232", "--plain")
    assert plain.code == 1
    assert f"expected 2.2232, computed {2 * math.sin(1) + math.cos(1)!r}" in plain.err


def test_expect_rtol_and_atol():
    assert run_main("grad", PROGRAM, "--at", "x=1", "--expect", "x=2.2232",
                   "--rtol", "1e-4").code == 0
    assert run_main("grad", PROGRAM, "--at", "x=1", "--expect", "x=2.2232",
                   "--atol", "1e-4").code == 0
    assert run_main("grad", PROGRAM, "--at", "x=1", "--expect", "x=2.2232",
                   "--rtol", "1e-6").code == 1


def test_expect_mismatch_in_json():
    run = run_main("grad", PROGRAM, "--at", "x=1", "--expect", "x=2.2232", "--json")
    data = run.json()
    assert run.code == 1 and data["expect"] == "mismatch"
    (bad,) = data["expect_mismatch"]
    assert bad["name"] == "x" and bad["expected"] == 2.2232
    assert bad["computed"] == 2 * math.sin(1) + math.cos(1)


def test_expect_is_never_python():
    run = run_main("grad", "y = x", "--at", "x=1", "--expect", "x=__import__('os').getpid()")
    assert run.code == 2 and run.err.startswith("error: --expect")


def test_expect_the_assembled_matrix_without_names():
    ok = run_main("hessian", "y = a*a*b + b**3", "--at", "a=1, b=2",
                 "--expect", "[[4, 2], [2, 12]]", "--plain")
    assert ok.code == 0, ok.err


# --------------------------------------------------------------------------- 5. digits


def test_rounding_noise_reads_as_zero_with_the_full_value_one_flag_away():
    run = run_main("grad", "y = sin(x)", "--at", "x=pi/2")
    assert run.code == 0
    assert re.search(r"^∂y/∂x\s+0$", run.out, re.M)
    assert "6.123233995736766e-17" in run.out and "--digits full" in run.out
    assert run_main("grad", "y = sin(x)", "--at", "x=pi/2", "--plain").out == "0\n"
    full = run_main("grad", "y = sin(x)", "--at", "x=pi/2", "--plain", "--digits", "full")
    assert full.out == "6.123233995736766e-17\n"
    data = run_main("grad", "y = sin(x)", "--at", "x=pi/2", "--json").json()
    assert data["gradient"]["x"] == math.cos(math.pi / 2)


def test_digits_rounds_readable_and_plain_but_not_json():
    plain = run_main("grad", "y = exp(x)", "--at", "x=1", "--plain", "--digits", "4")
    assert plain.out == "2.718\n"
    readable = run_main("grad", "y = exp(x)", "--at", "x=1", "--digits", "4")
    assert re.search(r"^∂y/∂x\s+2\.718$", readable.out, re.M)
    data = run_main("grad", "y = exp(x)", "--at", "x=1", "--json", "--digits", "4").json()
    assert data["gradient"]["x"] == math.e


def test_sums_that_miss_a_short_decimal_read_as_it():
    assert run_main("grad", "y = (0.1 + 0.2)*x", "--at", "x=1", "--plain").out == "0.3\n"


@pytest.mark.parametrize("bad", ["0", "18", "many"])
def test_bad_digits(bad):
    run = run_main("grad", "y = x", "--at", "x=1", "--digits", bad)
    assert run.code == 2 and "--digits" in run.err


# --------------------------------------------------------------------------- 7. the shell


def test_version():
    run = run_cli("--version")
    assert run.code == 0 and re.fullmatch(r"gradcalc \d+\.\d+\.\d+\n", run.out)


def test_bare_gradcalc_prints_the_help():
    run = run_cli()
    assert run.code == 0 and "Usage" in run.out and "error" not in run.err


def test_piped_readable_output_has_no_trailing_spaces():
    run = run_cli("jacobian", "y = [a*b, 5*a]", "--at", "a=1, b=2")
    assert run.out and all(line == line.rstrip() for line in run.out.splitlines())


def test_json_stays_one_object():
    run = run_main("grad", LOOP, "--at", "x=1", "--json")
    assert set(json.loads(run.out)) >= {"command", "output", "gradient", "check"}


def test_a_command_builds_its_own_options_alone(monkeypatch, capsys):
    """typer builds the options of the command run, not of all twelve (start-up work); the
    bare command's help lists them all, and an option of another command still names it."""
    import typer.main

    from gradcalc.cli import main

    built = []
    real = typer.main.get_command
    monkeypatch.setattr(typer.main, "get_command",
                        lambda app: built.append(real(app)) or built[-1])
    assert main(["grad", "y = x**2", "--at", "x=1", "--no-check", "--plain"]) == 0
    assert list(built[0].commands) == ["grad"]
    assert main(["grad", "y = x**2", "--at", "x=1", "--roster", "r.csv"]) == 2
    assert "(--roster is an option of gradcalc grade and sheets)" in capsys.readouterr().err
    built.clear()
    assert main(["--help"]) == 0
    assert {"grad", "check", "grade", "plot"} <= set(built[0].commands)

"""gradcalc plot: the function and its derivative on a grid, kinks and undefined stretches
found, drawn in the terminal (plotext) and saved with matplotlib where installed."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from gradcalc.cli import main
from gradcalc.commands.plot import parse_over, run, segments


def test_values_and_derivative_on_the_grid():
    data = run("y = x**3 - 2*x", "x=-2:2", [], points=5)
    assert data.xs.tolist() == [-2, -1, 0, 1, 2]
    assert data.f.tolist() == [-4, 1, 0, -1, 4]
    assert data.df.tolist() == [10, 1, -2, 1, 10]
    assert data.jumps == [] and data.undefined == []


def test_a_kink_is_a_jump_of_the_derivative():
    data = run("y = abs(x)", "x=-1:1", [], points=21)
    assert np.allclose(data.jumps, [(-0.1, 0.0), (0.0, 0.1)])  # PyTorch's 0 at the kink
    assert run("y = x**4", "x=-1:1", [], points=21).jumps == []  # steep, but smooth
    assert np.allclose(run("y = sign(x)*x**2 + relu(x - 0.5)", "x=-1:1", [],
                           points=21).jumps, [(0.5, 0.6)])  # off the grid: one jump
    assert data.df[10] == 0


def test_undefined_stretches():
    data = run("y = sqrt(x)", "x=-1:1", [], points=5)
    assert data.undefined == [(-1.0, 0.0)]  # sqrt'(0) is inf
    pieces = segments(data.xs, data.f, [])
    assert [p[0].tolist() for p in pieces] == [[0.0, 0.5, 1.0]]


def test_segments_break_at_jumps():
    xs = np.array([0.0, 1, 2, 3])
    ys = np.array([0.0, 0, 5, 5])
    assert [p[0].tolist() for p in segments(xs, ys, [(1.0, 2.0)])] == [[0, 1], [2, 3]]


def test_value_dependent_control_flow_per_point():
    data = run("if x > 0: y = x**2\nelse: y = -x", "x=-2:2", [], points=5)
    assert data.f.tolist() == [2, 1, 0, 1, 4]
    assert data.df.tolist() == [-1, -1, -1, 2, 4]


def test_other_inputs_are_constants():
    data = run("y = w * sin(x)", "x=0:1", ["w=3"], points=2)
    assert data.df[0] == 3


@pytest.mark.parametrize("text, message", [
    ("x", "expected NAME=LOW:HIGH"), ("x=1:0", "LOW must be below HIGH"),
    ("x=0:inf", "finite"), ("x=[1]:2", "finite"),
])
def test_bad_intervals(text, message):
    from gradcalc.errors import GradcalcError

    with pytest.raises(GradcalcError, match=message):
        parse_over(text)


def test_parse_over_reads_constants():
    assert parse_over("t = -pi : pi") == ("t", -np.pi, np.pi)


def test_cli_draws_and_explains(capsys):
    assert main(["plot", "y = abs(x)", "--over", "x=-3:3", "--height", "10"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" not in out  # no colour codes when not a terminal
    assert "⠉" in out or "⣀" in out  # braille dots
    assert ("the derivative jumps between x = -0.03 and 0.03 (a kink: the function is "
            "continuous there)") in out
    assert out.splitlines()[-2].startswith("y(x) and dy/dx on [-3, 3], 201 points")


def test_cli_json(capsys):
    assert main(["plot", "y = log(x)", "--over", "x=-1:1", "--samples", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["f"] == ["nan", "-inf", 0.0] and data["undefined"] == [[-1.0, 0.0]]


def test_cli_refuses_a_vector_output(capsys):
    assert main(["plot", "y = [x, x]", "--over", "x=0:1"]) == 2
    assert "scalar output" in capsys.readouterr().err


def test_plotext_is_imported_only_by_plot():
    import subprocess
    import sys

    code = ("import sys; from gradcalc.cli import main; main(['grad', 'y = x', '--at', 'x=1',"
            " '--no-check']); print('plotext' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.splitlines()[-1] == "False"


needs_matplotlib = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None,
                                      reason="the plot extra (matplotlib) is not installed")


@needs_matplotlib
@pytest.mark.parametrize("suffix, magic", [(".svg", b"<svg"), (".png", b"\x89PNG")])
def test_save(tmp_path, suffix, magic, capsys):
    path = tmp_path / f"plot{suffix}"
    assert main(["plot", "y = relu(x) - sqrt(x)", "--over", "x=-1:1", "--save",
                 str(path)]) == 0
    assert magic in path.read_bytes()[:400]


def test_save_needs_a_known_suffix(tmp_path, capsys):
    assert main(["plot", "y = x", "--over", "x=0:1", "--save", str(tmp_path / "p.gif")]) == 2
    assert ".svg or .png" in capsys.readouterr().err


@pytest.mark.parametrize("program, over, note", [
    ("y = tan(x)", "x=0:3",
     "the function and its derivative jump between x = 1.56 and 1.59 (a pole or a step)"),
    ("y = 1/x", "x=-1:1",
     "the derivative jumps between x = 0.01 and 0.02, beside where it is undefined (a pole)"),
    ("y = sign(x)", "x=-1:1", "the function jumps between x = -0.01 and 0.01 (a step, which "
     "the derivative on either side misses)"),
])
def test_notes_tell_kinks_poles_and_steps_apart(capsys, program, over, note):
    assert main(["plot", program, "--over", over, "--height", "8"]) == 0
    out = capsys.readouterr().out
    assert note in out
    assert "(a kink" not in out  # none of these is a kink


def test_smooth_steep_functions_have_no_steps():
    for program, over in (("y = x**4", "x=-1:1"), ("y = exp(10*x)", "x=0:1"),
                          ("y = tan(x)", "x=-1.4:1.4")):
        data = run(program, over, [])
        assert data.steps == [] and data.jumps == [], program


def test_json_carries_the_steps(capsys):
    assert main(["plot", "y = sign(x)", "--over", "x=-1:1", "--samples", "5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["steps"] == [[-0.5, 0.0], [0.0, 0.5]] and data["jumps"] == []

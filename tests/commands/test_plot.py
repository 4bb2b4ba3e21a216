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
    assert ("a kink between x = -0.03 and 0.03: dy/dx jumps from -1 to 1 while y is "
            "continuous") in out
    assert "•" in out  # the derivative's dots: told from the function without colour
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


@needs_matplotlib
def test_save_gets_the_terminals_treatment(tmp_path, capsys):
    """The saved picture of tan on [-3, 3]: the y-range chosen away from the poles (no
    8,580 tick), the asymptotes drawn and named, the derivative dashed (no colour needed)."""
    import re

    path = tmp_path / "tan.svg"
    assert main(["plot", "y = tan(x)", "--over", "x=-3:3", "--save", str(path)]) == 0
    svg = path.read_text(encoding="utf-8")
    labels = re.findall(r"<!-- (.*?) -->", svg)  # matplotlib writes each text as a comment
    assert {"y", "dy/dx", "asymptote"} <= set(labels)
    ticks = [float(t.replace("−", "-")) for t in labels if re.fullmatch(r"−?\d+", t)]
    assert max(ticks) <= 14 and min(ticks) >= -6  # the range is -4.49 … 12.07, padded
    assert "stroke-dasharray" in svg  # the dashed derivative and dotted asymptotes


def test_save_needs_a_known_suffix(tmp_path, capsys):
    assert main(["plot", "y = x", "--over", "x=0:1", "--save", str(tmp_path / "p.gif")]) == 2
    assert ".svg or .png" in capsys.readouterr().err


@pytest.mark.parametrize("program, over, note", [
    ("y = tan(x)", "x=0:3", "a pole between x = 1.56 and 1.575: y and dy/dx grow without "
     "bound (the asymptote is drawn │)"),
    ("y = 1/x", "x=-1:1", "a pole between x = -0.01 and 0.01"),
    ("y = sign(x)", "x=-1:1", "a step between x = -0.01 and 0.01: y jumps from -1 to 1, "
     "which dy/dx on either side misses"),
])
def test_notes_tell_kinks_poles_and_steps_apart(capsys, program, over, note):
    assert main(["plot", program, "--over", over, "--height", "8"]) == 0
    out = capsys.readouterr().out
    assert note in out
    assert "a kink" not in out  # none of these is a kink


#: (program, poles, steps, kinks, y-range) on [-3, 3] with 201 points: the grid steps by
#: 0.03, so a feature on a grid point (0) spans the two steps beside it
SHAPES = [
    ("y = tan(x)", [(-1.59, -1.56), (1.56, 1.59)], [], [], (-4.49, 12.07)),
    ("y = abs(x) + tan(x)", [(-1.59, -1.56), (1.56, 1.59)], [], [(-0.03, 0.0), (0.0, 0.03)],
     (-3.21, 13.05)),
    ("y = 1/x", [(-0.03, 0.03)], [], [], (-10.40, 4.25)),
    ("y = sign(x)", [], [(-0.03, 0.0), (0.0, 0.03)], [], (-1, 1)),
    ("y = x**4", [], [], [], (-108, 108)),
    ("y = exp(10*x)", [], [], [], (np.exp(-30), np.exp(30) * 10)),
]


@pytest.mark.parametrize("program, poles, steps, kinks, ylim", SHAPES,
                         ids=[s[0] for s in SHAPES])
def test_poles_steps_kinks_and_the_y_range(program, poles, steps, kinks, ylim):
    data = run(program, "x=-3:3", [])
    assert np.allclose(data.poles, poles, atol=1e-9) and len(data.poles) == len(poles)
    assert np.allclose(data.steps, steps, atol=1e-9) and len(data.steps) == len(steps)
    assert np.allclose(data.kinks, kinks, atol=1e-9) and len(data.kinks) == len(kinks)
    assert np.allclose(data.ylim, ylim, rtol=1e-3)
    # with poles, the range leaves them out (8,580 at tan's pole) and the rest is clipped
    assert data.clipped == bool(poles)


@pytest.mark.parametrize("points", [200, 21])
def test_the_classification_does_not_hang_on_the_grid(points):
    """Off the grid (200 points) and on a coarse one (21), the same verdicts."""
    for program, poles, steps, kinks, _ in SHAPES:
        data = run(program, "x=-3:3", [], points=points)
        assert len(_merge(data.poles)) == len(_merge(poles)), (program, points)
        assert len(_merge(data.steps)) == len(_merge(steps)), (program, points)
        if points == 200:  # 21 points cannot see a kink beside a pole's climb
            assert len(_merge(data.kinks)) == len(_merge(kinks)), (program, points)


def _merge(spans):
    out = []
    for a, b in spans:
        if out and np.isclose(out[-1][1], a):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def test_poles_where_the_function_is_infinite():
    assert run("y = 1/x**2", "x=-2:2", [], points=200).poles  # no grid point at the pole
    assert np.allclose(run("y = 1/x**2", "x=-2:2", []).poles, [(-0.02, 0.02)])  # inf at 0
    data = run("y = log(x)", "x=-1:1", [])
    assert data.poles == [(0.0, 0.0)] and data.kinks == []
    assert run("y = sqrt(x)", "x=-1:1", []).poles == []  # only its slope is infinite


def test_ylim_is_the_users(capsys):
    assert main(["plot", "y = 1/x", "--over", "x=-3:3", "--ylim", "-5:5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ylim"] == [-5.0, 5.0] and data["clipped"] is True
    assert main(["plot", "y = 1/x", "--over", "x=-3:3", "--ylim", "-5:5", "--height", "8"]) == 0
    out = capsys.readouterr().out
    assert "y-axis -5 … 5 (--ylim): values beyond it are cut off" in out
    assert out.splitlines()[1].lstrip().startswith("5.0┤")


@pytest.mark.parametrize("text", ["5", "5:-5", "a:b", "0:inf"])
def test_bad_ylim(capsys, text):
    assert main(["plot", "y = x", "--over", "x=0:1", "--ylim", text]) == 2
    assert "--ylim" in capsys.readouterr().err


def test_clip_runs_to_the_edge_then_cuts():
    from gradcalc.render.drawing import clip

    out = clip(np.array([0.0, 1.0, 5.0, 9.0, -7.0, 2.0]), -1, 3)
    assert out[:3].tolist() == [0.0, 1.0, 3.0] and np.isnan(out[3])
    assert out[4:].tolist() == [-1.0, 2.0]


def test_without_colour_the_curves_have_different_marks():
    from gradcalc.render.drawing import terminal

    text = terminal(run("y = x**2", "x=-1:1", []), 60, 12, color=False)
    legend = [line for line in text.splitlines() if "y" in line][:2]
    assert "⢕⢕ y" in legend[0] and "•• dy/dx" in legend[1]
    assert "\x1b[" not in text


def test_the_asymptotes_are_drawn():
    from gradcalc.render.drawing import terminal

    text = terminal(run("y = tan(x)", "x=-3:3", []), 64, 14, color=False)
    top = text.splitlines()[0]
    assert top.count("┬") == 2  # a vertical line from the top of the frame, per pole


def test_smooth_steep_functions_have_no_steps():
    for program, over in (("y = x**4", "x=-1:1"), ("y = exp(10*x)", "x=0:1"),
                          ("y = tan(x)", "x=-1.4:1.4")):
        data = run(program, over, [])
        assert data.steps == [] and data.jumps == [] and data.poles == [], program


def test_json_carries_the_steps(capsys):
    assert main(["plot", "y = sign(x)", "--over", "x=-1:1", "--samples", "5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["steps"] == [[-0.5, 0.0], [0.0, 0.5]] and data["kinks"] == []
    assert data["poles"] == [] and data["ylim"] == [-1.0, 1.0] and data["clipped"] is False

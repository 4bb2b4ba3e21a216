"""gradcalc.graph(y), y.graph() and gradcalc.explain(y): a library tensor's graph and
sweep as objects a notebook displays (gradcalc/engine/pictures.py), and docs/notebooks.md
run as written: its python blocks in order, each followed by its exact output."""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gradcalc

PAGE = Path(__file__).resolve().parents[2] / "docs" / "notebooks.md"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)


def _y():
    x = gradcalc.tensor(2.0, requires_grad=True)
    w = gradcalc.tensor(3.0, requires_grad=True)
    y = x * w + gradcalc.sin(x)
    return x, w, y


def test_every_node_shows_its_value_and_gradient():
    x, w, y = _y()
    y.backward(retain_graph=True)
    rows = y.graph().rows
    assert [r.name for r in rows] == ["AccumulateGrad", "AccumulateGrad", "MulBackward0",
                                      "SinBackward0", "AddBackward0"]
    assert rows[0].grad == pytest.approx(3 + float(gradcalc.cos(x).value))  # x.grad
    assert rows[1].grad == 2.0 and rows[2].value == 6.0 and rows[4].grad == 1.0
    assert rows[3].flows[0][0] == 1 and rows[2].inputs == [1, 2]


def test_before_backward_the_gradients_are_the_sweeps():
    x, w, y = _y()
    rows = gradcalc.graph(y).rows  # no backward yet: the sweep from y says what it will be
    assert rows[1].grad == 2.0 and x.grad is None


def test_after_a_plain_backward_every_node_keeps_its_value_and_gradient():
    """backward() frees what the graph saved, not the nodes' own outputs: the picture
    still shows every value and the gradient the sweep brought each node, while a second
    backward raises exactly as PyTorch's does."""
    x, w, y = _y()
    y.backward()
    rows = y.graph().rows
    assert [r.value for r in rows] == pytest.approx([2, 3, 6, float(gradcalc.sin(x).value),
                                                     float(y.value)])
    assert [r.grad for r in rows] == pytest.approx([3 + float(gradcalc.cos(x).value), 2,
                                                    1, 1, 1])
    assert "?" not in str(y.graph()) and "?" not in y.graph().mermaid()
    mul, sin = y.grad_fn.parents
    assert mul.saved is None and sin.saved is None  # the saved values are gone
    assert not rows[2].flows and not rows[3].flows  # what they sent needs them
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    rows = y.graph().rows  # the failed sweep added nothing
    assert [r.grad for r in rows][2:] == [1, 1, 1] and rows[1].grad == 2


def test_the_gradients_shown_are_the_sweeps_that_ran():
    """The seed backward() was given, summed over sweeps as .grad is; with retain_graph
    the flows are what each node sent."""
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    y = h * 3.0
    y.backward(gradcalc.tensor([1.0, 10.0]), retain_graph=True)
    rows = y.graph().rows
    assert rows[-1].grad.tolist() == [1, 10] and rows[1].grad.tolist() == [3, 30]
    assert [(p, v.tolist()) for p, v in rows[1].flows] == [(1, [3, 60]), (1, [3, 60])]
    y.backward(gradcalc.tensor([1.0, 1.0]))
    rows = y.graph().rows
    assert rows[-1].grad.tolist() == [2, 11] and rows[0].grad.tolist() == x.grad.tolist()
    assert [r.value.tolist() for r in rows] == [[1, 2], [1, 4], [3, 12]]


def test_a_program_on_the_tape_keeps_nothing_for_pictures():
    """The command line's recorded runs free their arrays as the sweep goes (for speed):
    only library nodes keep their output and cotangent."""
    from gradcalc.engine import tape

    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    with tape.recording() as t:
        y = (gradcalc.sin(x) * x).sum()
    tape.backward([(y.node, 1.0)], tape=t)
    assert all(getattr(n, "output", None) is None and getattr(n, "cotangent", None) is None
               for n in t.nodes)


def test_notebook_displays():
    x, w, y = _y()
    y.backward(retain_graph=True)
    g = gradcalc.graph(y)
    assert g._repr_markdown_().startswith("```mermaid\nflowchart LR\n")
    assert 'n3["MulBackward0 #35;3<br/>value 6<br/>grad 1"]' in g.mermaid()
    assert "n1 -> n3;" in g.dot()
    svg = g._repr_svg_()
    if shutil.which("dot"):
        assert svg is not None and "<svg" in svg and "MulBackward0" in svg
    else:
        assert svg is None  # Jupyter then shows the Markdown
    table = gradcalc.explain(y)
    assert table._repr_html_().count("<table>") == 2
    assert [r["operation"] for r in table.tape][-1] == "AddBackward0"
    assert table.sweep[0]["node"] == 5 and table.sweep[0]["flows to"] == {3: 1.0, 4: 1.0}


def test_a_tensor_without_a_graph_is_refused():
    with pytest.raises(ValueError, match="does not require grad"):
        gradcalc.graph(gradcalc.tensor(1.0))


def test_import_gradcalc_does_not_import_the_pictures():
    code = "import sys, gradcalc; print('gradcalc.engine.pictures' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == "False"


def test_the_page_runs_as_written():
    blocks = [(m.group(1), m.group(2)) for m in FENCE.finditer(PAGE.read_text("utf-8"))]
    namespace: dict = {}
    ran = 0
    for k, (kind, body) in enumerate(blocks):
        if kind != "python":
            continue
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(body, f"{PAGE.name}:block{k}", "exec"), namespace)  # noqa: S102
        expected = blocks[k + 1]
        assert expected[0] == "text", f"block {k} has no output block after it"
        assert buf.getvalue().rstrip("\n") == expected[1].rstrip("\n")
        ran += 1
    assert ran == 3
    (mermaid,) = [body for kind, body in blocks if kind == "mermaid"]
    assert mermaid.rstrip("\n") == namespace["g"].mermaid()

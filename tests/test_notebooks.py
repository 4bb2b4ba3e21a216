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

PAGE = Path(__file__).resolve().parents[1] / "docs" / "notebooks.md"
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

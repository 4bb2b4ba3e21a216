"""--graph: Graphviz and Mermaid text of the computation graph, read back by strict
parsers of the subset gradcalc writes (and by Graphviz's `dot` where it is installed)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from gradcalc.cli import app

runner = CliRunner()

PROGRAMS = [
    ("y = (a+b)*(b+c)", "a=1, b=2, c=3"),
    ("y = x*x + x", "x=3"),
    ('b = a + 3; c = b*b*3; out = mean(c)', "a=[2,3]"),
    ("y = x*2; while norm(y) < 1000: y = y*2", "x=[2,3,4]"),
    ("k = [m[0]**2 + 3*m[1], m[1]**2 + 2*m[0]]", "m=[2,4]"),
    ("y = where(x > 0, x, -x) / (1 + x**2)", "x=[-1, 2]"),
]

# ------------------------------------------------------------------ a strict dot reader

_ID = r"[A-Za-z_][A-Za-z0-9_]*"
_STRING = r'"(?:[^"\\]|\\.)*"'
_VALUE = rf"(?:{_STRING}|[A-Za-z0-9_.]+)"
_ATTRS = rf"\[(?:{_ID}={_VALUE}(?:, {_ID}={_VALUE})*)\]"


def parse_dot(text: str) -> tuple[dict[str, dict[str, str]], list[tuple[str, str, dict]]]:
    """Nodes (id -> attributes) and edges of the dot subset gradcalc writes; anything
    else raises AssertionError."""
    lines = text.splitlines()
    assert lines[0] == "digraph gradcalc {" and lines[-1] == "}", text
    nodes: dict[str, dict[str, str]] = {}
    edges: list[tuple[str, str, dict]] = []
    for line in lines[1:-1]:
        line = line.strip()
        if re.fullmatch(r"rankdir=(LR|TB);", line):
            continue
        if m := re.fullmatch(rf"(node|edge) ({_ATTRS});", line):
            continue
        if re.fullmatch(r"subgraph cluster_\d+ \{", line) or line == "}" \
                or re.fullmatch(rf"label={_STRING};", line):
            continue  # a Jacobian's rows: one labelled cluster each
        if m := re.fullmatch(rf"({_ID}) -> ({_ID})( {_ATTRS})?;", line):
            edges.append((m.group(1), m.group(2), _attrs(m.group(3))))
            continue
        m = re.fullmatch(rf"({_ID}) ({_ATTRS});", line)
        assert m, f"not in the dot subset: {line!r}"
        assert m.group(1) not in nodes, f"node {m.group(1)} declared twice"
        nodes[m.group(1)] = _attrs(m.group(2))
    for a, b, _ in edges:
        assert a in nodes and b in nodes, f"edge {a} -> {b} to an undeclared node"
    return nodes, edges


def _attrs(text: str | None) -> dict[str, str]:
    if not text:
        return {}
    pairs = re.findall(rf"({_ID})=({_VALUE})", text)
    out = {}
    for k, v in pairs:
        if v.startswith('"'):
            v = re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), v[1:-1])
        out[k] = v
    return out


# ------------------------------------------------------------------ a strict Mermaid reader

_LABEL = r'"[^"<>]*(?:<br/>[^"<>]*)*"'


def parse_mermaid(text: str) -> tuple[dict[str, str], list[tuple[str, str, str | None]]]:
    lines = text.splitlines()
    assert lines[0] == "flowchart LR", text
    nodes: dict[str, str] = {}
    edges: list[tuple[str, str, str | None]] = []
    for line in lines[1:]:
        assert line.startswith("  "), line
        line = line.strip()
        if re.fullmatch(rf"subgraph row\d+ \[{_LABEL}\]", line) or line == "end" \
                or line == "direction LR":
            continue  # a Jacobian's rows: one labelled subgraph each
        if m := re.fullmatch(rf'({_ID})(\(\[|\[\[|\[)({_LABEL})(\]\)|\]\]|\])', line):
            pair = m.group(2) + m.group(4)
            assert pair in ("([])", "[[]]", "[]"), line
            assert m.group(1) not in nodes
            nodes[m.group(1)] = _unescape(m.group(3)[1:-1])
            continue
        m = re.fullmatch(rf"({_ID}) -->(?:\|({_LABEL})\|)? ({_ID})", line)
        assert m, f"not in the Mermaid subset: {line!r}"
        edges.append((m.group(1), m.group(3), m.group(2) and _unescape(m.group(2)[1:-1])))
    for a, b, _ in edges:
        assert a in nodes and b in nodes
    return nodes, edges


def _unescape(text: str) -> str:
    codes = {"quot": '"', "lt": "<", "gt": ">", "35": "#"}
    return re.sub(r"#(quot|lt|gt|35);", lambda m: codes[m.group(1)], text).replace("<br/>", "\n")


def _graph(kind: str, program: str, at: str, *extra: str) -> str:
    out = runner.invoke(app, ["grad" if "k =" not in program else "jacobian", program,
                              "--at", at, "--graph", kind, *extra]
                        + (["--weights", "[1,1,1]"] if "while" in program else [])
                        + (["--weights", "[1,1]"] if "where" in program else []))
    assert out.exit_code == 0, out.output
    return out.output


@pytest.mark.parametrize("program, at", PROGRAMS)
def test_dot_parses(program, at):
    nodes, edges = parse_dot(_graph("dot", program, at, "--explain"))
    assert any(attrs.get("peripheries") == "2" for attrs in nodes.values())
    assert all("label" in attrs for attrs in nodes.values())
    assert edges and all(e[2].get("label", "").startswith("grad ") for e in edges)


@pytest.mark.parametrize("program, at", PROGRAMS)
def test_mermaid_parses(program, at):
    nodes, edges = parse_mermaid(_graph("mermaid", program, at))
    assert edges and all(label is None for _, _, label in edges)


def test_the_graph_of_the_tutorial():
    nodes, edges = parse_dot(_graph("dot", "y = (a+b)*(b+c)", "a=1, b=2, c=3", "--explain"))
    labels = {n: a["label"] for n, a in nodes.items()}
    assert labels == {"s1": "a = 1\ngrad 5", "s2": "b = 2\ngrad 8", "s3": "c = 3\ngrad 3",
                      "s4": "add: a + b\n= 3\ngrad 5", "s5": "add: b + c\n= 5\ngrad 3",
                      "s6": "mul: (a + b) * (b + c)\ny = 15\ngrad 1"}
    assert [(a, b, e["label"]) for a, b, e in edges] == [
        ("s1", "s4", "grad 5"), ("s2", "s4", "grad 5"), ("s2", "s5", "grad 3"),
        ("s3", "s5", "grad 3"), ("s4", "s6", "grad 5"), ("s5", "s6", "grad 3")]
    mnodes, medges = parse_mermaid(_graph("mermaid", "y = (a+b)*(b+c)", "a=1, b=2, c=3",
                                          "--explain"))
    assert mnodes["s6"] == "mul: (a + b) * (b + c)\ny = 15\ngrad 1"
    assert len(medges) == 6 and medges[0] == ("s1", "s4", "grad 5")


def test_a_value_used_twice_has_two_edges():
    _, edges = parse_mermaid(_graph("mermaid", "y = x*x + x", "x=3", "--explain"))
    assert [(a, b, g) for a, b, g in edges] == [
        ("s1", "s2", "grad 3"), ("s1", "s2", "grad 3"), ("s2", "s3", "grad 1"),
        ("s1", "s3", "grad 1")]


def test_quotes_and_angle_brackets_are_escaped():
    from gradcalc.render.graph import _dot_label, _mermaid_text

    assert _mermaid_text('a "b" <c> #') == "a #quot;b#quot; #lt;c#gt; #35;"
    assert _dot_label(['say "hi"', "back\\slash"]) == '"say \\"hi\\"\\nback\\\\slash"'


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
@pytest.mark.parametrize("program, at", PROGRAMS)
def test_graphviz_accepts_the_dot(program, at, tmp_path):
    src = tmp_path / "g.dot"
    src.write_text(_graph("dot", program, at, "--explain"), encoding="utf-8")
    proc = subprocess.run(["dot", "-Tsvg", str(src)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0 and "<svg" in proc.stdout, proc.stderr
    assert "Warning" not in proc.stderr, proc.stderr


def test_too_many_steps_for_a_graph(capsys):
    from gradcalc.cli import main

    assert main(["grad", "y = x; for i in range(1000): y = y + x", "--at", "x=1",
                 "--graph", "dot"]) == 2
    assert "over the 400 a graph shows" in capsys.readouterr().err


def test_without_explain_the_nodes_have_no_gradient():
    nodes, _ = parse_dot(_graph("dot", "y = (a+b)*(b+c)", "a=1, b=2, c=3"))
    assert nodes["s1"]["label"] == "a = 1" and nodes["s4"]["label"] == "add: a + b\n= 3"


def test_torch_names_as_torchviz_draws_them():
    nodes, _ = parse_mermaid(_graph("mermaid", "y = (a+b)*(b+c)", "a=1, b=2, c=3",
                                    "--explain", "--names", "torch"))
    assert nodes["s1"] == "AccumulateGrad: a\na = 1\ngrad 5"
    assert nodes["s4"] == "AddBackward0: a + b\n= 3\ngrad 5"
    assert nodes["s6"] == "MulBackward0: (a + b) * (b + c)\ny = 15\ngrad 1"
    pow_nodes, _ = parse_dot(_graph("dot", "y = sin(x)**2", "x=1", "--names", "torch"))
    heads = sorted(a["label"].split(":")[0] for a in pow_nodes.values())
    assert heads == ["AccumulateGrad", "PowBackward0", "SinBackward0"]


JACOBIAN = ("k = [m[0]**2, m[0]*m[1]]", "m=[2,4]")


def test_a_jacobian_shows_every_rows_sweep_labelled():
    text = _graph("mermaid", *JACOBIAN, "--explain")
    nodes, edges = parse_mermaid(text)
    assert 'subgraph row0 ["row 0 of the Jacobian: one-hot weights [1, 0]"]' in text
    assert 'subgraph row1 ["row 1 of the Jacobian: one-hot weights [0, 1]"]' in text
    assert nodes["r0_s1"].endswith("grad [4, 0]") and nodes["r1_s1"].endswith("grad [4, 2]")
    dot_nodes, _ = parse_dot(_graph("dot", *JACOBIAN, "--explain"))
    assert {n.split("_")[0] for n in dot_nodes} == {"r0", "r1"}


def test_row_picks_one_sweep(capsys):
    from gradcalc.cli import main

    nodes, _ = parse_mermaid(_graph("mermaid", *JACOBIAN, "--explain", "--row", "1"))
    assert set(nodes) == {f"r1_s{i}" for i in range(1, 8)}
    assert main(["jacobian", JACOBIAN[0], "--at", JACOBIAN[1], "--graph", "dot", "--explain",
                 "--row", "2"]) == 2
    assert "--row 2: the explanation has rows 0 to 1" in capsys.readouterr().err


@pytest.mark.parametrize("extra, message", [
    (["--names", "torch"], "--names and --row go with --graph"),
    (["--graph", "dot", "--names", "jax"], "--names takes gradcalc or torch"),
])
def test_names_and_row_refusals(extra, message, capsys):
    from gradcalc.cli import main

    assert main(["grad", "y = x*2", "--at", "x=1", *extra]) == 2
    assert message in capsys.readouterr().err

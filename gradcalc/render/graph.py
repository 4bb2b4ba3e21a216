"""The computation graph of one run (`--graph dot|mermaid`): inputs, each recorded step
with its source text and value, the output; with --explain, the gradient that flows back
along each edge. The text is Graphviz or Mermaid source, for `dot -Tsvg` or a Markdown
page."""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.errors import LimitError
from gradcalc.render.numbers import literal, number

#: a graph of more steps than this is refused: no one reads it (use --explain's table)
MAX_GRAPH_STEPS = 400
#: values in node labels are cut to this many characters
VALUE_CHARS = 30


def _value(v: Any) -> str:
    a = np.asarray(v, dtype=np.float64)
    text = number(a) if a.ndim == 0 else literal(a)
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"


def _check_size(ex: Any) -> None:
    if len(ex.steps) > MAX_GRAPH_STEPS:
        raise LimitError(f"the run has {len(ex.steps):,} steps, over the {MAX_GRAPH_STEPS} "
                         "a graph shows: use --explain for the compressed table")


def _labels(step: Any, output: int) -> list[str]:
    if step.op == "input":
        return [f"{step.text} = {_value(step.value)}"]
    head = f"{step.op}: {step.text}"
    tail = f"= {_value(step.value)}"
    if step.name:
        tail = f"{step.name} {tail}"
    return [head, tail]


def _edges(ex: Any, gradients: bool) -> list[tuple[int, int, str | None]]:
    """(parent, child, gradient label) per argument edge, in evaluation order; the
    gradient is what the first sweep sends back along that edge (a step's flows are in
    the order of its inputs)."""
    flows = ex.sweeps[0].flows if gradients and ex.sweeps else {}
    out = []
    for step in ex.steps:
        sent = flows.get(step.id, [])
        for k, parent in enumerate(step.inputs):
            label = f"grad {_value(sent[k][1])}" if k < len(sent) else None
            out.append((parent, step.id, label))
    return out


def _dot_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dot(ex: Any, gradients: bool = False) -> str:
    """Graphviz source: inputs as ellipses, steps as boxes, the output doubled."""
    _check_size(ex)
    lines = ["digraph gradcalc {", "  rankdir=LR;",
             '  node [fontname="Helvetica", fontsize=11];',
             '  edge [fontname="Helvetica", fontsize=10];']
    for step in ex.steps:
        shape = "ellipse" if step.op == "input" else "box"
        extra = ", peripheries=2" if step.id == ex.output else ""
        lines.append(f"  s{step.id} [label={_dot_label(_labels(step, ex.output))}, "
                     f"shape={shape}{extra}];")
    for parent, child, label in _edges(ex, gradients):
        attr = f" [label={_dot_string(label)}]" if label else ""
        lines.append(f"  s{parent} -> s{child}{attr};")
    lines.append("}")
    return "\n".join(lines)


def _dot_label(parts: list[str]) -> str:
    """A double-quoted dot string whose lines are `parts` (\\n is dot's line break)."""
    escaped = [p.replace("\\", "\\\\").replace('"', '\\"') for p in parts]
    return '"' + "\\n".join(escaped) + '"'


def _mermaid_text(text: str) -> str:
    """Text inside a Mermaid quoted label: its entity codes for the characters that would
    end or break the label."""
    return (text.replace("#", "#35;").replace('"', "#quot;").replace("<", "#lt;")
            .replace(">", "#gt;"))


def mermaid(ex: Any, gradients: bool = False) -> str:
    """Mermaid flowchart source: inputs as stadiums, steps as boxes, the output with
    double sides (Mermaid's subroutine shape)."""
    _check_size(ex)
    lines = ["flowchart LR"]
    for step in ex.steps:
        label = "<br/>".join(_mermaid_text(p) for p in _labels(step, ex.output))
        if step.op == "input":
            lines.append(f'  s{step.id}(["{label}"])')
        elif step.id == ex.output:
            lines.append(f'  s{step.id}[["{label}"]]')
        else:
            lines.append(f'  s{step.id}["{label}"]')
    for parent, child, label in _edges(ex, gradients):
        if label:
            lines.append(f'  s{parent} -->|"{_mermaid_text(label)}"| s{child}')
        else:
            lines.append(f"  s{parent} --> s{child}")
    return "\n".join(lines)

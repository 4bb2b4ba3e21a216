"""The computation graph of one run (`--graph dot|mermaid`): inputs, each recorded step
with its source text and value, the output; with --explain, every node's gradient and the
gradient that flows back along each edge (a Jacobian: one labelled graph per row, or
--row K). `--names torch` names the nodes as PyTorch's grad_fn does (MulBackward0, and
AccumulateGrad for a leaf), as torchviz draws them. The text is Graphviz or Mermaid
source, for `dot -Tsvg` or a Markdown page."""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.engine.ops import PRIMITIVES
from gradcalc.errors import GradcalcError, LimitError
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


def _labels(step: Any, cotangent: Any = None, names: str = "gradcalc") -> list[str]:
    """A node's lines: what it is (gradcalc's operation, or PyTorch's grad_fn name and
    AccumulateGrad for a leaf), its value and, after a sweep, its gradient (micrograd's
    data and grad on every node)."""
    grad = [] if cotangent is None else [f"grad {_value(cotangent)}"]
    if step.op == "input":
        head = [f"AccumulateGrad: {step.text}"] if names == "torch" else []
        return head + [f"{step.text} = {_value(step.value)}"] + grad
    if names == "torch":
        prim = PRIMITIVES.get(step.op)
        op = getattr(prim, "grad_fn", None) or f"{step.op.title()}Backward0"
    else:
        op = step.op
    head = f"{op}: {step.text}{step.where}"
    tail = f"= {_value(step.value)}"
    if step.name:
        tail = f"{step.name} {tail}"
    return [head, tail] + grad


def _edges(ex: Any, sweep: Any) -> list[tuple[int, int, str | None]]:
    """(parent, child, gradient label) per argument edge, in evaluation order; the
    gradient is what the sweep sends back along that edge (a step's flows are in the
    order of its inputs)."""
    flows = sweep.flows if sweep is not None else {}
    out = []
    for step in ex.steps:
        sent = flows.get(step.id, [])
        for k, parent in enumerate(step.inputs):
            label = f"grad {_value(sent[k][1])}" if k < len(sent) else None
            out.append((parent, step.id, label))
    return out


def _sweeps(ex: Any, gradients: bool, row: int | None
            ) -> list[tuple[int, str | None, Any]]:
    """The graphs to draw: one without gradients, one per sweep with them (a Jacobian's
    rows, each labelled), or only row `row` (--row)."""
    if not gradients or not ex.sweeps:
        return [(0, None, None)]
    if row is not None:
        if not 0 <= row < len(ex.sweeps):
            raise GradcalcError(f"--row {row}: the explanation has rows 0 to "
                                f"{len(ex.sweeps) - 1}", kind="usage")
        return [(row, ex.sweeps[row].label, ex.sweeps[row])]
    if len(ex.sweeps) == 1:
        return [(0, None, ex.sweeps[0])]
    return [(k, s.label, s) for k, s in enumerate(ex.sweeps)]


def _dot_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dot(ex: Any, gradients: bool = False, names: str = "gradcalc",
        row: int | None = None) -> str:
    """Graphviz source: inputs as ellipses, steps as boxes, the output doubled; a
    Jacobian's sweeps as one labelled cluster per row."""
    _check_size(ex)
    lines = ["digraph gradcalc {", "  rankdir=LR;",
             '  node [fontname="Helvetica", fontsize=11];',
             '  edge [fontname="Helvetica", fontsize=10];']
    graphs = _sweeps(ex, gradients, row)
    for k, label, sweep in graphs:
        prefix, indent = (f"r{k}_", "    ") if label else ("", "  ")
        if label:
            lines.append(f"  subgraph cluster_{k} {{")
            lines.append(f"    label={_dot_string(label)};")
        for step in ex.steps:
            shape = "ellipse" if step.op == "input" else "box"
            extra = ", peripheries=2" if step.id == ex.output else ""
            cot = sweep.cotangent.get(step.id) if sweep is not None else None
            lines.append(f"{indent}{prefix}s{step.id} [label="
                         f"{_dot_label(_labels(step, cot, names))}, shape={shape}{extra}];")
        for parent, child, grad in _edges(ex, sweep):
            attr = f" [label={_dot_string(grad)}]" if grad else ""
            lines.append(f"{indent}{prefix}s{parent} -> {prefix}s{child}{attr};")
        if label:
            lines.append("  }")
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


def mermaid(ex: Any, gradients: bool = False, names: str = "gradcalc",
            row: int | None = None) -> str:
    """Mermaid flowchart source: inputs as stadiums, steps as boxes, the output with
    double sides (Mermaid's subroutine shape); a Jacobian's sweeps as one labelled
    subgraph per row."""
    _check_size(ex)
    lines = ["flowchart LR"]
    for k, label, sweep in _sweeps(ex, gradients, row):
        prefix, indent = (f"r{k}_", "    ") if label else ("", "  ")
        if label:
            lines.append(f'  subgraph row{k} ["{_mermaid_text(label)}"]')
            lines.append("    direction LR")
        for step in ex.steps:
            cot = sweep.cotangent.get(step.id) if sweep is not None else None
            text = "<br/>".join(_mermaid_text(p) for p in _labels(step, cot, names))
            node = f"{prefix}s{step.id}"
            if step.op == "input":
                lines.append(f'{indent}{node}(["{text}"])')
            elif step.id == ex.output:
                lines.append(f'{indent}{node}[["{text}"]]')
            else:
                lines.append(f'{indent}{node}["{text}"]')
        for parent, child, grad in _edges(ex, sweep):
            if grad:
                lines.append(f'{indent}{prefix}s{parent} -->|"{_mermaid_text(grad)}"| '
                             f"{prefix}s{child}")
            else:
                lines.append(f"{indent}{prefix}s{parent} --> {prefix}s{child}")
        if label:
            lines.append("  end")
    return "\n".join(lines)


#: --graph's notations, each by name: its writer of the graph's text
NOTATIONS = {"dot": dot, "mermaid": mermaid}

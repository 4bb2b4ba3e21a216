"""Showing what a derivative is made of: formulas (--symbolic, --latex), the tape and its
backward sweep (--explain), and the graph (--graph), for a terminal, JSON or plain rows."""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np

from gradcalc.commands.one_point import Result
from gradcalc.render.labels import derivative_label
from gradcalc.render.numbers import jsonable, literal, number

# --------------------------------------------------------------------------- formulas


def extras_json(result: Result) -> dict[str, Any]:
    """The "symbolic" and "explain" keys of the JSON object."""
    out: dict[str, Any] = {}
    if result.formulas is not None:
        out["symbolic"] = result.formulas.to_json()
    if result.explain is not None and result.view.get("explain", True):
        out["explain"] = result.explain.to_json(jsonable)
    if result.view.get("graph"):
        out["graph"] = graph_text(result, result.view["graph"])
    return out


def extras_plain(result: Result) -> list[str]:
    """--plain: each formula on a line (LaTeX with --latex), after the numbers; then with
    --explain the tape and each sweep as tab-separated rows (explanation_plain)."""
    lines = []
    if result.formulas is not None:
        latex = bool(result.view.get("latex"))
        lines += [f.latex if latex and f.latex else f.text
                  for f in result.formulas.items.values()]
    if result.explain is not None and result.view.get("explain", True):
        lines += explanation_plain(result.explain)
    return lines


#: --plain spells the rules in ASCII, for scripts and terminals without Unicode: the
#: cotangent ∂#3 is d#3, a product · or × is *
ASCII_RULE = str.maketrans({"∂": "d", "·": "*", "×": "*", "−": "-", "²": "^2", "³": "^3",
                            "ᵀ": "^T"})


def explanation_plain(ex: Any) -> list[str]:
    """The tape and the sweeps as plain columns, one tab-separated row per line, each
    starting with what it is, so `awk -F'\t' '$1 == "tape"'` picks a table:
        tape   STEP  OPERATION  SOURCE  INPUTS  NAME  VALUE
        sweep  SWEEP  STEP  COTANGENT  RULE (in ASCII)  FLOWS (to:value;...)
        label  SWEEP  what seeded it
        note   text
    Every step is listed (no repeated block is cut) and values are given in full."""
    lines = ["\t".join(["tape", str(s.id), s.op, s.text + s.where,
                         ",".join(map(str, s.inputs)), s.name or "",
                         literal(np.asarray(s.value))]) for s in ex.steps]
    for k, sweep in enumerate(ex.sweeps, start=1):
        lines.append(f"label\t{k}\t{sweep.label}")
        for step in reversed(ex.steps):
            if step.id not in sweep.cotangent:
                continue
            rule = "input: its gradient" if step.op == "input" else \
                step.rule.translate(ASCII_RULE)
            flows = ";".join(f"{p}:{literal(np.asarray(v))}"
                             for p, v in sweep.flows.get(step.id, []))
            lines.append("\t".join(["sweep", str(k), str(step.id),
                                     literal(np.asarray(sweep.cotangent[step.id])), rule,
                                     flows]))
    lines += [f"note\t{note}" for note in ex.notes]
    return lines


def show_formulas(result: Result, console: Any) -> None:
    from rich.text import Text

    formulas = result.formulas
    if formulas.reason:
        console.print(Text(f"formula: {formulas.reason}", style="yellow"))
        return
    latex = bool(result.view.get("latex"))
    for key, f in formulas.items.items():
        label = derivative_label(result, key)
        body = f.latex if latex and f.latex else f.pretty
        console.print(Text(f"{label} =", style="bold cyan"))
        console.print(Text(textwrap.indent(body, "  ")))
        if f.exact is not None:
            console.print(Text(f"  at the point, exactly: {f.exact}"))
        if not f.simplified:
            console.print(Text("  (not simplified: the time budget ran out; "
                               "raise --check-seconds)", style="yellow"))


# --------------------------------------------------------------------------- explain


def graph_text(result: Result, notation: str) -> str:
    """The computation graph in `notation` (one of `render.graph.NOTATIONS`: dot, mermaid)."""
    from gradcalc.render import graph

    if result.explain is None:  # pragma: no cover - the CLI asks for it with --graph
        raise ValueError("the graph needs the explanation's steps")
    gradients = bool(result.view.get("explain"))
    draw = graph.NOTATIONS[notation]
    return draw(result.explain, gradients, result.view.get("names") or "gradcalc",
                result.view.get("row"))


def show_explanation(result: Result, console: Any) -> None:
    from rich.text import Text

    for line in explanation_lines(result):
        console.print(Text(line), soft_wrap=True)


def value_text(v: Any, width: int = 40) -> str:
    a = np.asarray(v, dtype=np.float64)
    text = literal(a) if a.size <= 12 else \
        np.array2string(a, separator=", ", threshold=0, edgeitems=2,
                        formatter={"float_kind": number}, max_line_width=10_000)
    return text if len(text) <= width else text[: width - 1] + "…"


def explanation_lines(result: Result) -> list[str]:
    """The tape, then each sweep, as lines of text (the rich view prints them as they are)."""
    ex = result.explain
    lines = ["tape (forward, in evaluation order)"]
    lines += _table(["step", "operation", "source", "inputs", "value"], _step_rows(ex))
    for sweep in ex.sweeps:
        lines.append("")
        lines.append(f"backward sweep, {sweep.label}")
        lines += _table(["step", "cotangent", "rule", "flows to"], _sweep_rows(ex, sweep))
    if ex.weights_table is not None:
        lines.append("")
        lines += _weights_lines(ex.weights_table)
    if ex.notes:
        lines.append("")
    for note in ex.notes:
        lines.append(note)
    lines.append("")
    return lines


def _step_rows(ex: Any) -> list[list[str]]:
    rows = []
    for item in ex.shown():
        if isinstance(item, str):
            rows.append(f"…     {item}")
            continue
        step = item
        inputs = ", ".join(f"#{i}" for i in step.inputs)
        named = step.name and step.op != "input"
        source = step.text + (f"  → {step.name}" if named else "") + step.where
        rows.append([f"#{step.id}", step.op, source, inputs, value_text(step.value)])
    return rows


def _sweep_rows(ex: Any, sweep: Any) -> list[list[str]]:
    rows = []
    for item in ex.shown(reverse=True):
        if isinstance(item, str):
            rows.append(f"…     {item}")
            continue
        step = item
        if step.id not in sweep.cotangent:
            continue
        g = value_text(sweep.cotangent[step.id], 24)
        if sweep.adds.get(step.id, 0) > 1:
            g += f"  (sum of {sweep.adds[step.id]} paths)"
        flows = [f"#{p}: {value_text(v, 24)}" for p, v in sweep.flows.get(step.id, [])]
        rule = "input: its gradient" if step.op == "input" else step.rule
        rows.append([f"#{step.id}{step.where}", g, rule, "; ".join(flows)])
    return rows


def _weights_lines(table: Any) -> list[str]:
    """J beside wᵀJ: each output's row with its weight, and the weighted sum of the rows."""
    jac, w, wj, names = table
    rows = [[f"row {i}", number(wi), *(number(x) for x in row)]
            for i, (wi, row) in enumerate(zip(w, jac))]
    rows.append(["wᵀJ", "", *(number(x) for x in wj)])
    return ["weights pick rows of the Jacobian J: wᵀJ = Σ weight × row",
            *_table(["", "weight", *names], rows)]


def _table(header: list[str], rows: list[Any]) -> list[str]:
    """Aligned columns; a row that is a string is a note line across the table."""
    cells = [r for r in [header, *rows] if not isinstance(r, str)]
    widths = [max(len(str(r[i])) for r in cells) for i in range(len(header))]
    out = []
    for r in [header, *rows]:
        out.append(r if isinstance(r, str) else
                   "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    return out

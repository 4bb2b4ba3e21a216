"""Turning results into text: JSON for scripts, plain rows for awk, rich tables for people."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gradcalc.commands.derivatives import Result


def jsonable(x: Any) -> Any:
    """Nested lists of floats; nan and ±inf as the strings "nan", "inf", "-inf"."""
    if isinstance(x, np.ndarray) or isinstance(x, np.generic):
        return jsonable(np.asarray(x, dtype=np.float64).tolist())
    if isinstance(x, (list, tuple)):
        return [jsonable(i) for i in x]
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
    return x


def to_json(result: Result) -> dict[str, Any]:
    """The result as SPEC §3's object."""
    out: dict[str, Any] = {
        "command": result.command,
        "output": {"name": result.output_name, "shape": list(result.output.shape),
                   "value": jsonable(result.output)},
        "weights": None if result.weights is None else jsonable(result.weights),
        result.derivative_key: {k: jsonable(v) for k, v in result.derivative.items()},
        "check": result.check.to_json(),
    }
    if result.expect_ok is not None:
        out["expect"] = "match" if result.expect_ok else "mismatch"
    if result.warnings:
        out["warnings"] = list(result.warnings)
    if result.formulas is not None or result.explain is not None or result.view:
        from gradcalc.render.explain import extras_json

        out.update(extras_json(result))
    return out


def error_json(kind: str, message: str) -> dict[str, Any]:
    return {"error": {"kind": kind, "message": message}}


def number(v: float) -> str:
    """Shortest text that reads back as the same float64."""
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == int(v) and abs(v) < 1e16:
        return str(int(v)) if v != 0 or math.copysign(1, v) > 0 else "-0"
    return repr(v)


def rows(array: np.ndarray) -> list[str]:
    """An array as lines of space-separated numbers: one line per row of its last axis."""
    a = np.asarray(array, dtype=np.float64)
    if a.ndim == 0:
        return [number(a)]
    flat = a.reshape(-1, a.shape[-1]) if a.size else a.reshape(0, 0)
    return [" ".join(number(v) for v in row) for row in flat]


def plain(result: Result) -> str:
    """--plain: only numbers, each input's derivative in turn, one row per line."""
    lines: list[str] = []
    for value in result.derivative.values():
        lines.extend(rows(value))
    if result.formulas is not None or result.explain is not None:
        from gradcalc.render.explain import extras_plain

        lines.extend(extras_plain(result))
    return "\n".join(lines)


def literal(array: np.ndarray) -> str:
    """An array as a nested list literal, the syntax --at accepts."""
    a = np.asarray(array, dtype=np.float64)
    if a.ndim == 0:
        return number(a)
    return "[" + ", ".join(literal(sub) for sub in a) + "]"


def _check_line(check: Any) -> tuple[str, str]:
    style = {"pass": "green", "fail": "bold red", "skipped": "yellow"}[check.status]
    mark = {"pass": "✓", "fail": "✗", "skipped": "–"}[check.status]
    text = f"{mark} {check.status}"
    if check.method != "none":
        text += f" ({check.method}"
        if check.max_abs_error is not None:
            text += f", max |error| {check.max_abs_error:.3g}"
        text += ")"
    if check.detail:
        text += f": {check.detail}"
    return text, style


def show(result: Result, console: Any) -> None:
    """The rich rendering for a terminal."""
    from rich.table import Table
    from rich.text import Text

    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for name, value in result.inputs.items():
        role = "input" if name in result.wrt or not result.wrt else "constant"
        table.add_row(role, Text(f"{name} = {_inline(value)}"))
    if result.weights is not None:
        table.add_row("weights", Text(_inline(result.weights)))
    shape = "scalar" if result.output.shape == () else f"shape {result.output.shape}"
    output = _inline(result.output, f"   ({shape})")
    table.add_row("output", Text(f"{result.output_name} = {output}"))
    for name, value in result.derivative.items():
        table.add_row(Text(_label(result, name)), Text(_block(value)))
    text, style = _check_line(result.check)
    table.add_row("check", Text(text, style=style))
    if result.expect_ok is not None:
        table.add_row("expect", Text("✓ match" if result.expect_ok else "✗ mismatch",
                                     style="green" if result.expect_ok else "bold red"))
    for warning in result.warnings:
        table.add_row("warning", Text(warning, style="yellow"))
    if result.explain is not None:
        from gradcalc.render.explain import show_explanation

        show_explanation(result, console)
    console.print(table)
    if result.formulas is not None:
        from gradcalc.render.explain import show_formulas

        show_formulas(result, console)


def _label(result: Result, name: str) -> str:
    y = result.output_name
    if result.command == "hessian":
        a, _, b = name.partition(",")
        return f"∂²{y}/∂{a}∂{b or a}"
    if result.command == "jacobian":
        return f"∂{y}/∂{name}"
    if result.weights is not None:
        return f"wᵀ·∂{y}/∂{name}"
    return f"∂{y}/∂{name}"


#: the terminal rendering shows arrays up to this many entries in full; larger ones are
#: summarised (first and last entries), with a note that --json and --plain give them all
SHOW_MAX_ENTRIES = 400


def _summary(a: np.ndarray, suffix: str = "") -> str:
    text = np.array2string(a, separator=", ", threshold=0, edgeitems=3,
                           formatter={"float_kind": number}, max_line_width=78)
    return f"{text}{suffix}\n({a.size:,} entries; --json or --plain prints them all)"


def _inline(value: np.ndarray, suffix: str = "") -> str:
    """An array as a list literal (then `suffix`), or a summary when it is large."""
    a = np.asarray(value, dtype=np.float64)
    return literal(a) + suffix if a.size <= SHOW_MAX_ENTRIES else _summary(a, suffix)


def _block(value: np.ndarray) -> str:
    """A vector inline; a matrix as aligned rows; a large array as a summary."""
    a = np.asarray(value)
    if a.size > SHOW_MAX_ENTRIES:
        return _summary(np.asarray(a, dtype=np.float64))
    if a.ndim < 2:
        return literal(a)
    lines = rows(a)
    width = max((len(c) for line in lines for c in line.split()), default=1)
    return "\n".join(" ".join(c.rjust(width) for c in line.split()) for line in lines)

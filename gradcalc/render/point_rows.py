"""--points output: CSV (or space-separated rows for --plain) or one JSON object per point,
written a chunk of rows at a time so a large table streams."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from gradcalc.backends.batched import Progress, no_progress
from gradcalc.commands.points import PointsResult
from gradcalc.ingest.point_table import plural
from gradcalc.render.as_json import check_json
from gradcalc.render.numbers import exact, jsonable, number

#: rows formatted per chunk when writing (and per progress step)
CHUNK = 20_000


def _index_suffix(shape: tuple[int, ...]) -> list[str]:
    return ["[" + ",".join(str(i) for i in ix) + "]" for ix in np.ndindex(*shape)] \
        if shape else [""]


def header(result: PointsResult) -> list[str]:
    """Column names: the point's columns, the output's elements, then the derivative's
    (a Hessian's as d2y/da[i]db[j], block by block)."""
    y = result.output_name
    out_shape = result.output.shape[1:]
    jacobian = result.command == "jacobian"
    cols = list(result.table.columns)
    cols += [f"{y}{s}" for s in _index_suffix(out_shape)]
    if result.command == "hessian":
        for key, block in result.derivative.items():
            a, _, b = key.partition(",")
            b = b or a
            sa = result.derivative[f"{a},{a}" if "," in key else a].shape[1:]
            sa = sa[:len(sa) // 2]
            sb = block.shape[1 + len(sa):]
            cols += [f"d2{y}/d{a}{i}d{b}{j}" for i in _index_suffix(sa)
                     for j in _index_suffix(sb)]
        return cols + (["error"] if result.has_errors else [])
    for name in result.names:
        in_shape = result.derivative[name].shape[1 + (len(out_shape) if jacobian else 0):]
        if jacobian:
            cols += [f"d{y}{a}/d{name}{b}" for a in _index_suffix(out_shape)
                     for b in _index_suffix(in_shape)]
        else:
            cols += [f"d{y}/d{name}{b}" for b in _index_suffix(in_shape)]
    return cols + (["error"] if result.has_errors else [])



def header_text(result: PointsResult) -> str:
    """The header row as CSV text (a line)."""
    import csv
    import io

    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(header(result))
    return buffer.getvalue()

def _matrix(result: PointsResult, with_inputs: bool) -> np.ndarray:
    n = result.count
    parts = [result.table.data, result.output.reshape(n, -1)] if with_inputs else []
    parts += [v.reshape(n, -1) for v in result.derivative.values()]
    return np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]


def csv_lines(result: PointsResult, progress: Progress = no_progress,
              header_row: bool = True, sep: str = ",", first: bool = True) -> Iterator[str]:
    """CSV text, a chunk of rows at a time: a header, then one row per point (without the
    header, the point's columns and the output: --plain's derivative rows). `first`: this
    is the table's first chunk (the one that writes the header row)."""
    if header_row and first:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerow(header(result))
        yield buffer.getvalue()
    if header_row and (not result.table.plain or result.has_errors):
        yield from _text_rows(result, progress)
        return
    matrix = _matrix(result, with_inputs=header_row)
    total = matrix.shape[0]
    fmt = float.__repr__ if bool(np.isfinite(matrix).all()) else exact
    for start in range(0, total, CHUNK):
        rows = matrix[start:start + CHUNK].tolist()
        text = "".join(sep.join(map(fmt, row)) + "\n" for row in rows)
        # 2.0 -> 2, as numbers.number writes it (repr ends a number in ".0" only when whole)
        yield text.replace(".0" + sep, sep).replace(".0\n", "\n")
        progress("writing", min(start + CHUNK, total), total)


def _text_rows(result: PointsResult, progress: Progress) -> Iterator[str]:
    """CSV rows of a table with text columns or bad rows: each row's cells as given (the
    numbers as --points writes them), its results, and why a bad row was not computed."""
    table, rows = result.table, result.table.rows
    assert rows is not None
    results = _matrix(result, with_inputs=False)
    outputs = result.output.reshape(result.count, -1)
    others = [k for k in range(len(table.columns)) if k not in set(table.inputs)]
    width = len(table.columns)
    for start in range(0, result.count, CHUNK):
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        for k in range(start, min(start + CHUNK, result.count)):
            if k in rows.bad:
                cells = [_safe(c) for c in (rows.raw.get(k, []) + [""] * width)[:width]]
                writer.writerow(cells + [""] * (outputs.shape[1] + results.shape[1])
                                + [rows.reason(k)])
                continue
            cells = [""] * width
            for j, col in enumerate(table.inputs):
                cells[col] = number(table.data[k, j])
            for j, col in enumerate(others):
                cells[col] = _safe(rows.extra[k][j])
            writer.writerow(cells + [number(v) for v in outputs[k]]
                            + [number(v) for v in results[k]]
                            + ([""] if result.has_errors else []))
        yield buffer.getvalue()
        progress("writing", min(start + CHUNK, result.count), result.count)


def json_lines(result: PointsResult, progress: Progress = no_progress) -> Iterator[str]:
    """One JSON object per point; the sampled points carry their check, the others null."""
    checks = dict(result.checks)
    rows, bad, first = result.table.rows, result.table.bad, result.offset + 1
    out_shape = list(result.output.shape[1:])
    weights = None if result.weights is None else jsonable(result.weights)
    total = result.count
    for start in range(0, total, CHUNK):
        stop = min(start + CHUNK, total)
        outs = jsonable(result.output[start:stop])
        ders = {k: jsonable(v[start:stop]) for k, v in result.derivative.items()}
        ats = {k: jsonable(v[start:stop]) for k, v in result.table.values.items()}
        lines = []
        for j in range(stop - start):
            if start + j in bad:
                lines.append(json.dumps({"point": first + start + j, **_columns(result, start + j),
                                         "error": {"kind": "value",
                                                   "message": rows.reason(start + j)}}) + "\n")
                continue
            check = checks.get(start + j)
            lines.append(json.dumps({
                "point": first + start + j,
                "at": {k: v[j] for k, v in ats.items()}, **_columns(result, start + j),
                "command": result.command,
                "output": {"name": result.output_name, "shape": out_shape, "value": outs[j]},
                "weights": weights,
                result.derivative_key: {k: v[j] for k, v in ders.items()},
                "check": None if check is None else check_json(check),
            }) + "\n")
        yield "".join(lines)
        progress("writing", stop, total)


def _safe(text: str) -> str:
    """A cell as given, with control characters escaped (\\x1b): never a terminal sequence."""
    return text if text.isprintable() else text.encode("unicode_escape").decode("ascii")


def _columns(result: PointsResult, k: int) -> dict[str, dict[str, str]]:
    """{"columns": {name: text}} of row k's columns that are not inputs (none: {})."""
    table = result.table
    others = [c for i, c in enumerate(table.columns) if i not in set(table.inputs)]
    if not others or table.rows is None:
        return {}
    return {"columns": dict(zip(others, table.rows.extra[k]))}


def check_note(result: PointsResult) -> str:
    """The sample's check in a line (plus a line per sampled row that did not pass)."""
    return sample_note(result.checks, result.count)


def sample_note(checks: list[tuple[int, Any]], count: int) -> str:
    """The check of the sampled rows (indices in the whole table) of `count` points."""
    if not checks:
        return "check: skipped (--no-check)"
    statuses = [c.status for _, c in checks]
    rows = ", ".join(str(i + 1) for i, _ in checks)
    worst = "fail" if "fail" in statuses else "pass" if "pass" in statuses else "skipped"
    methods = sorted({c.method for _, c in checks if c.method != "none"})
    how = f" ({', '.join(methods)})" if methods else ""
    line = (f"check: {worst}{how} on a sample of {len(checks)} of "
            f"{plural(count, 'point')} (row{'s' if len(checks) > 1 else ''} "
            f"{rows})")
    details = [f"row {i + 1}: {c.status}: {c.detail}" for i, c in checks
               if c.detail and c.status != "pass"]
    return "\n".join([line, *details])

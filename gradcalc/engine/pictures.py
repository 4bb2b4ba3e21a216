"""A library tensor's graph and backward sweep as objects a notebook displays:
`gradcalc.graph(y)` (or `y.graph()`) and `gradcalc.explain(y)`.

The library's public face imports only the engine, so the pictures are drawn here from
the tape's nodes, with NumPy only: Graphviz's `dot` turns the graph into SVG where it is
installed (Jupyter's `_repr_svg_`), else Jupyter shows the Mermaid source as Markdown; as
text, both are tables. Every node shows its value and its gradient, as micrograd's
`draw_dot` does: a leaf's `.grad`; after `backward()` every other node its own output
(kept when backward frees the saved values, as a PyTorch tensor keeps its data) and the
cotangent the sweeps brought it; before any backward, the cotangent of a sweep from `y`
seeded with ones. What each node sends to each input needs its saved values: it is
shown before backward and after `backward(retain_graph=True)`."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.engine import tape

#: a picture of more nodes than this is refused: no one reads it
MAX_NODES = 400
VALUE_CHARS = 30


def _text(v: Any) -> str:
    if v is None:
        return "?"
    a = np.asarray(v, dtype=np.float64)
    s = f"{float(a):.6g}" if a.ndim == 0 else np.array2string(
        a, precision=6, separator=", ", threshold=12, edgeitems=2).replace("\n", "")
    return s if len(s) <= VALUE_CHARS else s[: VALUE_CHARS - 1] + "…"


@dataclass
class Row:
    id: int
    name: str  # grad_fn name, or AccumulateGrad for a leaf
    inputs: list[int]
    value: Any
    grad: Any
    flows: list[tuple[int, Any]] = field(default_factory=list)  # (input id, what it gets)


def _nodes(root: Any) -> list[Any]:
    """The nodes `root` depends on, parents before children."""
    from gradcalc.engine.tape import postorder

    order = postorder(root)
    if len(order) > MAX_NODES:
        raise ValueError(f"the graph has more than {MAX_NODES} nodes: too many to draw")
    return order


def _rows(t: Any) -> list[Row]:
    root = getattr(t, "node", None)
    if root is None:
        raise ValueError("the tensor has no graph: it does not require grad")
    nodes = _nodes(root)
    ids = {id(n): k + 1 for k, n in enumerate(nodes)}
    rows = []
    for n in nodes:
        if n.prim is None:
            leaf = n.leaf() if n.leaf is not None else None
            value = getattr(leaf, "value", None)
            grad = getattr(getattr(leaf, "grad", None), "value", None)
        else:  # its own output: kept when backward freed what it saved
            value = getattr(n, "output", None)
            if value is None and n.saved is not None:
                value = n.saved[1]
            grad = getattr(n, "cotangent", None)
        rows.append(Row(ids[id(n)], n.name(), [ids[id(p)] for p in n.parents
                                                 if p is not None], value, grad))
    rows[-1].value = t.value
    if getattr(root, "cotangent", None) is not None:
        _flows(nodes, rows, ids)  # after a backward through y: what it brought each node
    else:  # before: the sweep backward() would do, seeded with ones
        _sweep(nodes, rows, ids, np.ones(np.shape(t.value)))
    return rows


def _flows(nodes: list[Any], rows: list[Row], ids: dict[int, int]) -> None:
    """What each node sent to each input in the sweeps backward() made (their summed
    cotangent through the node's rule), where the node still has its saved values."""
    with tape.hot():
        for n in nodes:
            row = rows[ids[id(n)] - 1]
            if n.prim is None or n.saved is None or row.grad is None:
                continue
            values, ans = n.saved
            for i, parent in enumerate(n.parents):
                if parent is not None:
                    row.flows.append((ids[id(parent)], np.asarray(
                        n.prim.vjp(i, row.grad, ans, values, n.params), dtype=np.float64)))


def _sweep(nodes: list[Any], rows: list[Row], ids: dict[int, int], seed: np.ndarray) -> None:
    """Before any backward: each node's cotangent in a sweep from the output seeded with
    `seed`, and what it sends to each input (the leaves keep their own .grad when they
    have one)."""
    if rows[-1].grad is None:
        rows[-1].grad = seed  # d y / d y
    if any(n.prim is not None and n.saved is None for n in nodes):
        return
    cot: dict[int, np.ndarray] = {ids[id(nodes[-1])]: seed}
    with tape.hot():
        for n in reversed(nodes):
            k = ids[id(n)]
            g = cot.get(k)
            row = rows[k - 1]
            if n.prim is None:
                if row.grad is None:
                    row.grad = g
                continue
            row.grad = g
            if g is None:
                continue
            values, ans = n.saved
            for i, parent in enumerate(n.parents):
                if parent is None:
                    continue
                gi = np.asarray(n.prim.vjp(i, g, ans, values, n.params), dtype=np.float64)
                p = ids[id(parent)]
                row.flows.append((p, gi))
                cot[p] = gi if p not in cot else cot[p] + gi


class Graph:
    """The graph of a tensor, for a notebook: SVG where Graphviz is installed, else
    Mermaid (as Markdown); `str()` is a text table. `.dot()` and `.mermaid()` give the
    sources."""

    def __init__(self, rows: list[Row]) -> None:
        self.rows = rows

    def _label(self, r: Row) -> list[str]:
        return [f"{r.name} #{r.id}", f"value {_text(r.value)}", f"grad {_text(r.grad)}"]

    def dot(self) -> str:
        lines = ["digraph gradcalc {", "  rankdir=LR;", '  node [fontname="Helvetica"];']
        for r in self.rows:
            shape = "ellipse" if r.name == "AccumulateGrad" else "box"
            label = "\\n".join(self._label(r)).replace('"', '\\"')
            lines.append(f'  n{r.id} [label="{label}", shape={shape}];')
        for r in self.rows:
            lines += [f"  n{p} -> n{r.id};" for p in r.inputs]
        return "\n".join(lines + ["}"])

    def mermaid(self) -> str:
        lines = ["flowchart LR"]
        for r in self.rows:
            label = "<br/>".join(self._label(r)).replace("#", "#35;").replace('"', "#quot;")
            lines.append(f'  n{r.id}(["{label}"])' if r.name == "AccumulateGrad"
                         else f'  n{r.id}["{label}"]')
        for r in self.rows:
            lines += [f"  n{p} --> n{r.id}" for p in r.inputs]
        return "\n".join(lines)

    def _repr_svg_(self) -> str | None:
        dot = shutil.which("dot")
        if dot is None:
            return None  # Jupyter then shows the Markdown (Mermaid)
        proc = subprocess.run([dot, "-Tsvg"], input=self.dot(), capture_output=True,
                              text=True, timeout=60)
        return proc.stdout if proc.returncode == 0 else None

    def _repr_markdown_(self) -> str:
        return "```mermaid\n" + self.mermaid() + "\n```"

    def __str__(self) -> str:
        return _table(["node", "operation", "inputs", "value", "grad"],
                      [[f"#{r.id}", r.name, ", ".join(f"#{p}" for p in r.inputs),
                        _text(r.value), _text(r.grad)] for r in self.rows])

    __repr__ = __str__


class Explanation:
    """The tape and the backward sweep of a tensor, as a table object: `.tape` and
    `.sweep` are lists of rows (dicts); a notebook shows HTML tables, `str()` text."""

    def __init__(self, rows: list[Row]) -> None:
        self.tape = [{"node": r.id, "operation": r.name, "inputs": r.inputs,
                      "value": r.value} for r in rows]
        self.sweep = [{"node": r.id, "grad": r.grad,
                       "flows to": {p: v for p, v in r.flows}} for r in reversed(rows)
                      if r.grad is not None]

    def _cells(self) -> tuple[list[str], list[list[str]], list[str], list[list[str]]]:
        tape_rows = [[f"#{r['node']}", r["operation"],
                      ", ".join(f"#{p}" for p in r["inputs"]), _text(r["value"])]
                     for r in self.tape]
        sweep_rows = [[f"#{r['node']}", _text(r["grad"]),
                       "; ".join(f"#{p}: {_text(v)}" for p, v in r["flows to"].items())]
                      for r in self.sweep]
        return (["node", "operation", "inputs", "value"], tape_rows,
                ["node", "grad", "flows to"], sweep_rows)

    def __str__(self) -> str:
        th, tr, sh, sr = self._cells()
        return ("tape (forward)\n" + _table(th, tr) + "\n\nbackward sweep\n"
                + _table(sh, sr))

    __repr__ = __str__

    def _repr_html_(self) -> str:
        import html

        th, tr, sh, sr = self._cells()

        def table(head: list[str], rows: list[list[str]]) -> str:
            cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
            body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row)
                           + "</tr>" for row in rows)
            return f"<table><tr>{cells}</tr>{body}</table>"

        return ("<p>tape (forward)</p>" + table(th, tr) + "<p>backward sweep</p>"
                + table(sh, sr))


def _table(head: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
                     for r in [head, *rows])


def graph(t: Any) -> Graph:
    """The graph of `t` (a tensor that requires grad), with values and gradients."""
    return Graph(_rows(t))


def explain(t: Any) -> Explanation:
    """The tape and the backward sweep of `t`, as a table object."""
    return Explanation(_rows(t))

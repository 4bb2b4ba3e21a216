"""The class picture as one static HTML page: no script, no font, no link off the page.

Per problem: the share of correct, incorrect, undetermined and unreadable answers as a
bar, and the commonest mistakes with the students who made them and example answers (for
a parametrised problem, its parameters, an example variant, and the variant each example
answered), and a link to its worked solution further down the page; then every
student's scores (against a roster: the students not on it and those without a
submission), and the worked solutions, every step checked. How long rows took is not
the teacher's business: it is in the benchmarks, not on the page. Every text
from the files is escaped; styles are inline in the page, so it opens from disk in any
browser, offline.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from gradcalc.grading.gradebook import Picture, ProblemPicture
from gradcalc.grading.worksheets import answer_formula_of, formula_of
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.read_as import text_read
from gradcalc.render.classview import points_text
from gradcalc.render.math_markup import math_or_code

_DECIMAL = re.compile(r"\d?\.\d")
_COLOURS = {"correct": "#2e7d32", "incorrect": "#c62828", "undetermined": "#f9a825",
            "unreadable": "#6a1b9a"}
_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
h3 { font-size: 1.05em; margin-bottom: .3em; }
code { background: #f3f3f3; padding: 0 .2em; }
math { font-size: 1.15em; } h3 math { font-size: 1.2em; }
h3 a { font-size: .85em; font-weight: normal; margin-left: .6em; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { border-bottom: 1px solid #ddd; padding: .25em .6em; text-align: left;
         vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.bar { display: flex; height: 1.2em; width: 100%; max-width: 40em; background: #eee;
       border-radius: 3px; overflow: hidden; }
.bar span { display: block; height: 100%; }
.legend span { display: inline-block; margin-right: 1.2em; }
.swatch { display: inline-block; width: .8em; height: .8em; margin-right: .3em; }
"""


def _bar(counts: dict[str, int]) -> str:
    total = sum(counts.values()) or 1
    parts = "".join(
        f'<span class="{s}" style="width:{100 * n / total:.2f}%;background:{_COLOURS[s]}" '
        f'title="{s}: {n}"></span>' for s, n in counts.items() if n)
    legend = "".join(f'<span><i class="swatch" style="background:{_COLOURS[s]}"></i>'
                     f"{s} {n}</span>" for s, n in counts.items())
    return f'<div class="bar">{parts}</div><p class="legend">{legend}</p>'


def _function(text: str, kind: Kind, constants: list[str] | tuple[str, ...] = ()) -> str:
    """A function of the key or a variant as MathML, by the sheets' renderer (its text,
    as read, where it has no formula)."""
    return math_or_code(formula_of(text, kind), text_read(text), constants=constants)


def _answer(text: str, kind: Kind) -> str:
    """A student's answer as MathML where it reads as a formula, else its text as
    submitted; a decimal too (as MathML it would be the fraction it was read as, 1/20
    for 0.05: not what the student wrote)."""
    if _DECIMAL.search(text):
        return f"<code>{escape(text)}</code>"
    return math_or_code(answer_formula_of(text, kind), text)


def _constants(p: ProblemPicture) -> list[str]:
    return [n for n, _ in p.example.values] if p.example is not None else []


def _variants(p: ProblemPicture) -> str:
    """A parametrised problem's parameters and one student's variant."""
    count = f"{p.variants:,} variant{'s' * (p.variants != 1)}"
    text = f'<p class="params">Parameters <code>{escape(p.params)}</code> ({count})'
    if p.example is not None:
        text += (f"; e.g. {escape(p.example.student)}: {escape(p.example.shown)}, "
                 f"{_function(p.example.function, p.example.kind)}")
    return text + ".</p>"


def _examples(p: ProblemPicture, m: Any) -> str:
    """A mistake's example answers, each with the variant it answered."""
    return "<br>".join(
        _answer(e, p.kind) + (f" on {_function(m.variants[k], p.kind)}"
                              if k < len(m.variants) else "")
        for k, e in enumerate(m.examples))


def _anchor(k: int) -> str:
    return f"problem-{k + 1}"


def _solution_anchor(k: int) -> str:
    return f"solution-{k + 1}"


def _labelled(text: str, kind: Kind, answer: bool = False) -> str:
    """`f(x) = ...` (or an equation) as MathML, its label kept."""
    label, sep, rest = text.partition(" = ")
    if not sep or "(" not in label and not answer:  # an equation: both sides one formula
        return math_or_code(formula_of(text, kind), text)
    formula = answer_formula_of(rest, kind) if answer else formula_of(rest, kind)
    return math_or_code(formula, rest, label)


def _worked(k: int, p: ProblemPicture, solution: Any) -> list[str]:
    """One problem's worked solution: its steps in order, each rule named."""
    out = [f'<section id="{_solution_anchor(k)}"><h3>{escape(p.name)}: '
           f"{_labelled(solution.problem, p.kind)}</h3>"]
    numbered = solution.steps
    for j, part in enumerate(solution.parts):
        out.append(f"<p><code>{escape(part.title)}</code> from "
                   f"<code>{escape(part.start)}</code></p><ol>")
        for n, part_of, step in numbered:
            if part_of == j:
                note = f" ({escape(step.note)})" if step.note else ""
                out.append(f'<li value="{n}"><b>{escape(step.name)}</b>{note}: '
                           f"<code>{escape(step.text)}</code></li>")
        out.append("</ol>")
    if solution.answer:
        out.append(f"<p>Answer: {_labelled(solution.answer, p.kind, answer=True)}</p>")
    elif solution.note:
        out.append(f"<p>{escape(solution.note)}</p>")
    out.append("</section>")
    return out


def _roll(book: Any) -> list[str]:
    """Against a roster: the students not on it (not graded) and those who submitted
    nothing."""
    out = []
    if book.unknown:
        out += ['<h2 id="unknown">Not on the roster (not graded)</h2>', "<table><tr><th>"
                "student as submitted</th><th>lines</th></tr>"]
        out += [f"<tr><td>{escape(s)}</td><td>{', '.join(map(str, lines))}</td></tr>"
                for s, lines in book.unknown.items()]
        out.append("</table>")
    missing = book.missing if book.known else []
    if missing:
        out += ['<h2 id="missing">No submission</h2>', "<ul>"]
        out += [f"<li>{escape(book.known[s].name or s)} ({escape(s)})</li>"
                for s in missing]
        out.append("</ul>")
    return out


def report_html(pic: Picture, title: str = "gradcalc: the class picture",
                solutions: dict[str, Any] | None = None) -> str:
    """The whole page as text; `solutions`: each problem's worked solution, by name."""
    solutions = solutions or {}
    book = pic.book
    total = sum(pic.counts.values())
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{escape(title)}</title>", f"<style>{_CSS}</style>", "</head>", "<body>",
           f"<h1>{escape(title)}</h1>",
           f"<p>{total} answers from {len(book.students)} students to "
           f"{len(pic.problems)} problems.</p>", _bar(pic.counts),
           "<nav><p>Problems: " + ", ".join(
               f'<a href="#{_anchor(k)}">{escape(p.name)}</a>'
               for k, p in enumerate(pic.problems)) +
           ' · <a href="#students">students</a></p>'
           "</nav>", "<h2>Problems</h2>"]
    for k, p in enumerate(pic.problems):
        link = (f' <a href="#{_solution_anchor(k)}">worked solution</a>'
                if p.name in solutions else "")
        out.append(f'<section id="{_anchor(k)}"><h3>{escape(p.name)}: '
                   f"{_function(p.function, p.kind, _constants(p))}{link}</h3>")
        if p.params:
            out.append(_variants(p))
        out.append(_bar(p.counts))
        if p.mistakes:
            out.append('<table class="mistakes"><tr><th>mistake</th><th class="n">students'
                       "</th><th>example answers</th></tr>")
            for m in p.mistakes:
                examples = _examples(p, m)
                out.append(f"<tr><td>{escape(m.label)}</td><td class=\"n\">{m.count}</td>"
                           f"<td>{examples}</td></tr>")
            out.append("</table>")
        else:
            out.append("<p>No incorrect answers.</p>")
        out.append("</section>")
    out += ['<h2 id="students">Students</h2>', "<table><tr><th>student</th>" + "".join(
        f'<th class="n">{escape(p)}</th>' for p in book.problems) +
        f'<th class="n">total (of {points_text(book.max_total)})</th></tr>']
    for student, scores in book.students.items():
        cells = "".join(f'<td class="n">{points_text(round(scores.get(p, 0.0), 3))}</td>'
                        for p in book.problems)
        out.append(f"<tr><td>{escape(student)}</td>{cells}"
                   f'<td class="n">{points_text(round(book.total(student), 3))}</td></tr>')
    out.append("</table>")
    out += _roll(book)
    if solutions:
        out.append('<h2 id="solutions">Worked solutions</h2>')
        for k, p in enumerate(pic.problems):
            if p.name in solutions:
                out += _worked(k, p, solutions[p.name])
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"

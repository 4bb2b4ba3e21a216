"""The sheets handed out, written: a printable HTML page per student, the CSV for a mail
merge or an LMS import, the teacher's copy with every variant and its answer, and one
student's sheet in the terminal, as plain lines or as JSON lines.

The pages are static: no script, no font, nothing fetched. The math is MathML, from
sympy's presentation printer, which a browser draws by itself (Chromium, Firefox,
Safari); every text from the files is escaped. A function that is a program (a tensor
loss) is shown as its text.
"""

from __future__ import annotations

import csv
import io
import json
from html import escape
from typing import Any

from gradcalc.grading.params import json_of, shown
from gradcalc.grading.worksheets import Item, Sheet, formula_of
from gradcalc.homework.kinds.registry import PLAIN, Kind
from gradcalc.render.classview import points_text
from gradcalc.render.classview import shown as one_line
from gradcalc.render.math_markup import latex, math_or_code

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 48em;
       padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { font-size: 1.15em; margin: 1.6em 0 .3em; }
.who { color: #555; margin-top: 0; }
section.problem { break-inside: avoid; border-top: 1px solid #ddd; padding: .4em 0 1.2em; }
math[display="block"] { font-size: 1.25em; margin: .6em 0; }
td math, td math[display="block"] { math-style: normal; font-size: 1.15em; margin: 0; }
h2 math { font-size: 1.15em; }
code { background: #f3f3f3; padding: 0 .2em; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { border-bottom: 1px solid #ddd; padding: .25em .6em; text-align: left;
         vertical-align: top; }
.space { height: 6em; }
@page { margin: 2cm; }
@media print { body { margin: 0; max-width: none; } .space { height: 10em; } }
"""
#: CSV columns of the mail merge
CSV_COLUMNS = ("student", "problem", "params", "prompt", "function", "latex")


# --------------------------------------------------------------------------- formulas


def function_html(it: Item) -> str:
    """The item's function as the page shows it: MathML, or its text where it has no
    formula."""
    if it.formula is None:
        return f"<p><code>{escape(it.read)}</code></p>"
    return math_or_code(it.formula, it.read, it.label, block=True)


def function_text(it: Item) -> str:
    """The item's function as plain text, as gradcalc reads it (`e^(-6)·x`; the
    variant's text judged may say `exp((-6))*x`)."""
    head = f"{it.label} = "
    return it.read[len(head):] if it.label and it.read.startswith(head) else it.read


def answer_html(it: Item) -> str:
    return math_or_code(it.answer_formula, it.answer)


def function_latex(it: Item) -> str:
    if it.formula is None:
        return ""
    return (f"{it.label} = " if it.label else "") + latex(it.formula)


# --------------------------------------------------------------------------- pages


def _page(title: str, body: list[str]) -> str:
    return "\n".join(["<!DOCTYPE html>", '<html lang="en">', "<head>",
                      '<meta charset="utf-8">', f"<title>{escape(title)}</title>",
                      f"<style>{_CSS}</style>", "</head>", "<body>", *body, "</body>",
                      "</html>"]) + "\n"


def sheet_html(sheet: Sheet, title: str) -> str:
    """One student's printable page: each problem, what is asked and the function."""
    who = ", ".join([sheet.student, *(v for _, v in sheet.columns if v.strip())])
    body = [f"<h1>{escape(title)}</h1>", f'<p class="who">{escape(who)}</p>']
    for it in sheet.items:
        worth = f" ({points_text(it.points)} point{'s' * (it.points != 1)})"
        body += [f'<section class="problem"><h2>Problem {escape(it.problem)}{worth}</h2>',
                 f"<p>{escape(it.prompt)}</p>", function_html(it),
                 '<div class="space"></div></section>']
    return _page(f"{title}: {sheet.student}", body + submit_html(sheet))


def submit_html(sheet: Sheet) -> list[str]:
    """What to submit, and in what form (as the autograder reads it)."""
    first = sheet.items[0].problem if sheet.items else "1"
    return ['<section class="submit"><h2>What to submit</h2>',
            "<p>One text file, <code>answers.txt</code>, with one line per problem: the "
            f"problem, a colon and your answer, e.g. <code>{escape(first)}: 3x^2 cos(x)"
            "</code>. Write a product with a space or <code>*</code>, a power with "
            "<code>^</code>, a gradient as a list: <code>[2x y, x^2]</code>.</p>",
            "</section>"]


def teacher_html(sheets: list[Sheet], title: str,
                 templates: dict[str, tuple[str, str, Kind]]) -> str:
    """The teacher's copy: per problem (its template and parameters), every variant
    handed out with its answer and the students who have it."""
    body = [f"<h1>{escape(title)}: the teacher's copy</h1>",
            f"<p>{len(sheets)} students.</p>"]
    for k, first in enumerate(sheets[0].items if sheets else ()):
        function, params, kind = templates.get(first.problem, (first.function, "", PLAIN))
        names = [n for n, _ in first.values]
        shown_function = (math_or_code(formula_of(function, kind), function,
                                       constants=names) if params
                          else math_or_code(first.formula, first.read))
        body.append(f"<section><h2>Problem {escape(first.problem)}: {shown_function}</h2>")
        if params:
            body.append(f"<p>Parameters <code>{escape(params)}</code></p>")
        groups: dict[str, tuple[Item, list[str]]] = {}
        for sheet in sheets:
            it = sheet.items[k]
            groups.setdefault(it.function, (it, []))[1].append(sheet.student)
        body.append(f"<p>{escape(first.prompt)} {len(groups)} variant"
                    f"{'s' * (len(groups) != 1)} handed out.</p>")
        body.append("<table><tr><th>values</th><th>function</th><th>answer</th>"
                    "<th>students</th></tr>")
        for it, students in groups.values():
            body.append(f"<tr><td>{escape(shown(it.values)) or '—'}</td>"
                        f"<td>{function_html(it)}</td><td>{answer_html(it)}</td>"
                        f"<td>{escape(', '.join(students))}</td></tr>")
        body.append("</table></section>")
    return _page(f"{title}: the teacher's copy", body)


def sheets_csv(sheets: list[Sheet]) -> str:
    """One row per student and problem: the variant's values, what is asked, the function
    as judged and as LaTeX."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for sheet in sheets:
        for it in sheet.items:
            writer.writerow([sheet.student, it.problem, shown(it.values), it.prompt,
                             function_text(it), function_latex(it)])
    return out.getvalue()


# --------------------------------------------------------------------------- one student


def sheet_json(sheet: Sheet, answers: bool) -> str:
    """JSON lines, one per problem."""
    lines = []
    for it in sheet.items:
        obj: dict[str, Any] = {"student": sheet.student, "problem": it.problem,
                               "params": {n: json_of(v) for n, v in it.values},
                               "prompt": it.prompt, "function": it.function,
                               "read": it.read, "latex": function_latex(it) or None}
        if answers:
            obj["answer"] = it.answer
        lines.append(json.dumps(obj) + "\n")
    return "".join(lines)


def sheet_plain(sheet: Sheet, answers: bool) -> str:
    """Tab-separated: student, problem, values, what is asked, the function (as read)
    and, if asked, the answer."""
    return "".join("\t".join(one_line(c) for c in [
        sheet.student, it.problem, shown(it.values), it.prompt, it.read,
        *([it.answer] if answers else [])]) + "\n" for it in sheet.items)


def show_sheet(sheet: Sheet, answers: bool, console: Any) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"{one_line(sheet.student)}", show_edge=False, header_style="bold")
    for name in ("problem", "values", "asked", "function", *(["answer"] if answers else [])):
        table.add_column(name, overflow="fold")
    for it in sheet.items:
        table.add_row(*(Text(one_line(c)) for c in [
            it.problem, shown(it.values), it.prompt, it.read,
            *([it.answer] if answers else [])]))
    console.print(table)



#: the files beside the students' pages in sheets' --out folder
CSV_NAME, TEACHER_NAME = "sheets.csv", "teacher.html"


def written_line(count: int, folder: str, names: list[str]) -> str:
    """What a text view says once the sheets are written to `folder`."""
    pages = ", ".join(names) if len(names) <= 2 else f"{names[0]} ... {names[-1]}"
    return (f"{count} sheet{'s' * (count != 1)} written to {folder}: "
            f"{pages}, {CSV_NAME}, {TEACHER_NAME}")

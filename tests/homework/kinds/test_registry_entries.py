"""The problem-kind registry is the one place a kind is described: no module outside
gradcalc/homework/kinds/ compares a kind's name, and `Kind` is built from its settings."""

from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path

import gradcalc
from gradcalc.homework.kinds import catalog, registry
from gradcalc.homework.kinds.catalog import MODULES
from gradcalc.homework.kinds.registry import KINDS, SETTINGS, Kind, variables

ROOT = Path(gradcalc.__file__).parent
#: comparisons with "derivative" that mean a problem's shape (a one-input derivative,
#: against a gradient or a Jacobian: `Problem.kind`, `Claim.kind`) or a solution's mode,
#: not the kind of problem
OTHER_MEANING = {("homework/problem.py", "claim.kind"), ("homework/judge.py", "problem.kind"),
                 ("homework/solutions/differentiating.py", "problem.kind"),
                 ("homework/solutions/verified.py", "raw.mode")}


def kind_name_comparisons(tree: ast.AST, where: str) -> list[str]:
    """Each comparison in `tree` with a kind's name as a literal, as 'file:line: text'."""
    names = {k.name for k in KINDS}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        literals = {c.value for c in ast.walk(node) if isinstance(c, ast.Constant)}
        if not literals & names:
            continue
        if (where, ast.unparse(node.left)) in OTHER_MEANING and literals & names == {
                "derivative"}:
            continue
        found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_nothing_outside_the_kinds_package_compares_a_kinds_name() -> None:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        if not where.startswith("homework/kinds/"):
            found += kind_name_comparisons(ast.parse(path.read_text()), where)
    assert found == []


def test_the_scan_finds_a_comparison_with_a_kinds_name() -> None:
    code = 'if verdict.kind == "antiderivative":\n    pass\nok = kind in ("tensor", "x")\n'
    assert len(kind_name_comparisons(ast.parse(code), "grading/x.py")) == 2
    allowed = ast.parse('a = problem.kind == "derivative"')
    assert kind_name_comparisons(allowed, "homework/judge.py") == []
    assert kind_name_comparisons(allowed, "grading/x.py") != []


def test_kind_has_one_field_per_setting_with_its_default() -> None:
    assert [(f.name, f.default) for f in fields(Kind)] == [(s.name, s.default)
                                                             for s in SETTINGS]
    assert Kind().plain and Kind.read().plain


def test_every_kind_has_its_module_and_every_setting_its_reader() -> None:
    assert set(MODULES) == {k.name for k in KINDS}
    for module in MODULES.values():
        assert callable(module.judge) and callable(module.solve) and callable(module.prompt)
    assert Kind.read(order="2").order == 2
    assert variables(Kind.read(partial="x,y", at="z=1")) == {"x", "y", "z"}


def imported(module: object) -> set[str]:
    """The modules a module's source imports, at any level (function-level too)."""
    tree = ast.parse(Path(str(getattr(module, "__file__", ""))).read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
    return out


def test_each_kinds_module_imports_no_other_kind_nor_the_catalog_above_it() -> None:
    kinds = {m.__name__ for m in MODULES.values()}
    above = {"gradcalc.homework.kinds.catalog", "gradcalc.homework.dispatch",
             "gradcalc.homework.answer"}
    for module in MODULES.values():
        assert imported(module) & (kinds - {module.__name__} | above) == set(), module
    assert imported(registry) & (kinds | above) == set()
    assert kinds <= imported(catalog)  # the scan sees `from package import module`

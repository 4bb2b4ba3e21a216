"""The problem-kind registry is the one place a kind is described: no module outside
gradcalc/homework/kinds/ compares a kind's name, and `Kind` is built from its settings."""

from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path

import gradcalc
from gradcalc.homework.kinds import catalog, registry
from gradcalc.homework.kinds.catalog import MODULES, module_of
from gradcalc.homework.kinds.registry import KINDS, SETTINGS, Kind, variables

ROOT = Path(gradcalc.__file__).parent
#: comparisons with "derivative" that mean a problem's shape (a one-input derivative,
#: against a gradient or a Jacobian: `Problem.kind`) or a solution's mode,
#: not the kind of problem
OTHER_MEANING = {("homework/judge.py", "problem.kind"),
                 ("homework/solutions/differentiating.py", "problem.kind"),
                 ("homework/solutions/verified.py", "raw.mode")}
#: an answer's prefix names a derivative in a form whose words a kind may share
#: (`∫ f dx =` is written as an antiderivative): `Claim.form`, not a kind of problem
PREFIX_FORMS = {"claim.form", "self.form"}


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
        if where.startswith(("homework/reading/claims.py", "homework/problem.py")) and \
                ast.unparse(node.left) in PREFIX_FORMS:
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
    for module in map(module_of, KINDS):
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
    kinds = {m.__name__ for m in map(module_of, KINDS)}
    above = {"gradcalc.homework.kinds.catalog", "gradcalc.homework.dispatch",
             "gradcalc.homework.answer"}
    for module in map(module_of, KINDS):
        assert imported(module) & (kinds - {module.__name__} | above) == set(), module
    assert imported(registry) & (kinds | above) == set()
    assert imported(catalog) & kinds == set()  # each kind's module is imported by name


#: the settings read by name outside gradcalc/homework/kinds/, and why each stays: both
#: are shared settings, taken by more than one kind, so reading one says nothing of a
#: particular kind (a kind-specific setting, its marker, one it owns or its own, is asked
#: of the registry or the kind's module instead: `registry.input_shapes`, `ProblemKind`)
SHARED_READS = {
    # the inputs a problem holds at values (any kind that takes `at`) are held when
    # `undefined` looks for a point where a variant's function is a real number
    ("grading/variants.py", "at"),
    # a sheet says where the answer is judged ("for x > 0") whatever the kind
    ("grading/worksheets.py", "domain"),
}


def setting_reads(tree: ast.AST, where: str) -> list[tuple[str, str, int]]:
    """Each read of a setting by name from a kind (`kind.shape`, `problem.kind.at`,
    `getattr(kind, "tangent")`) in `tree`, as (file, setting, line)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            base, name = node.value, node.attr
        elif (isinstance(node, ast.Call) and ast.unparse(node.func) == "getattr"
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)):
            base, name = node.args[0], node.args[1].value
        else:
            continue
        if name in registry.SETTING and ast.unparse(base).split(".")[-1].endswith("kind"):
            found.append((where, name, node.lineno))
    return found


def test_nothing_outside_the_kinds_package_reads_a_kind_specific_setting() -> None:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        if not where.startswith("homework/kinds/"):
            found += [r for r in setting_reads(ast.parse(path.read_text()), where)
                      if r[:2] not in SHARED_READS]
    assert found == []


def test_the_allowed_reads_are_of_shared_settings_and_still_there() -> None:
    specific = ({k.marker for k in KINDS} | {s.name for k in KINDS for s in k.settings}
                | {s.name for s in SETTINGS if s.owner})
    for where, name in SHARED_READS:
        assert name not in specific
        assert name in {r[1] for r in setting_reads(ast.parse((ROOT / where).read_text()),
                                                     where)}


def test_the_scan_finds_a_read_of_a_setting() -> None:
    tree = ast.parse("def f(problem, kind):\n    return problem.kind.shape or "
                     "getattr(kind, 'tangent') or kind.implicit or shape.dims")
    assert [r[1] for r in setting_reads(tree, "x.py")] == ["shape", "tangent", "implicit"]


def test_a_batch_lines_json_value_becomes_its_column_by_its_setting() -> None:
    assert registry.json_text("order", 2) == "2"
    assert registry.json_text("at", {"x": 2}) == "x=2"
    assert registry.json_text("shape", {"W": [3, 2], "s": []}) == "W=3x2;s=scalar"
    assert registry.json_text("integers", True) == "true"
    assert registry.json_text("tangent", "x=1") == "x=1"
    assert registry.json_text("order", True) is None  # not a whole number
    assert registry.json_text("tangent", {"x": 1}) is None  # a text only
    assert registry.json_text("kind", 3) is None


def test_a_tensor_problems_shapes_come_from_its_settings() -> None:
    assert registry.input_shapes(Kind(shape="W=3x2, x=2")) == {"W": (3, 2), "x": (2,)}
    assert registry.input_shapes(Kind(implicit="y")) == {}

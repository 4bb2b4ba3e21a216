"""The layering contract: packages by pipeline stage import only downward.

cli > render > commands > verify > backends > language > engine > errors, limits, as
stated in pyproject.toml's import-linter contract (docs/architecture.md). Imports inside
functions count too: a lazy import is still a dependency.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _lint_imports() -> list[str]:
    script = shutil.which("lint-imports")
    if script:
        return [script]
    return [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command;"
            " sys.exit(lint_imports_command())"]


def test_packages_import_only_downward():
    pytest.importorskip("importlinter")
    proc = subprocess.run([*_lint_imports(), "--no-cache"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert re.search(r"Contracts: \d+ kept, 0 broken", proc.stdout)


#: the library's public face: it imports from the engine only, and nothing imports it
#: (the package's __init__ takes the library's names from gradcalc.api on first use)
PUBLIC = {"gradcalc.__init__", "gradcalc.__main__", "gradcalc.autograd", "gradcalc.api"}


def test_the_contract_lists_every_package_and_module():
    """A new package or top-level module must take its place in the layers (or the
    contract says nothing about it)."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"]
                   if c["type"] == "layers" and not c.get("containers")]
    named = {m.strip() for layer in contract["layers"] for m in layer.split("|")}
    found = {f"gradcalc.{p.name}" for p in (ROOT / "gradcalc").iterdir()
             if p.is_dir() and (p / "__init__.py").exists()}
    found |= {f"gradcalc.{p.stem}" for p in (ROOT / "gradcalc").glob("*.py")} - PUBLIC
    assert found <= named, found - named


def test_the_public_face_imports_only_the_engine():
    import ast

    for name in PUBLIC:
        path = ROOT / (name.replace(".", "/") + ".py")
        tree = ast.parse(path.read_text())
        imported = {f"{node.module}.{alias.name}" if node.module == "gradcalc" else node.module
                    for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                    for alias in node.names if node.module}
        inner = {m for m in imported if m.startswith("gradcalc.")} - {"gradcalc.autograd"}
        allowed = {"gradcalc.__main__": ("gradcalc.engine", "gradcalc.cli"),
                   "gradcalc.__init__": ("gradcalc.api",)}.get(name, ("gradcalc.engine",))
        assert inner and all(m.startswith(allowed) for m in inner), (name, inner)


def test_imports_for_types_count_too():
    """An import under `if TYPE_CHECKING:` is still a dependency of the design: the
    contracts see it (no circle hides behind one)."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert not config.get("exclude_type_checking_imports", False)
    names = {c["name"] for c in config["contracts"]}
    assert any("registry.py imports no other homework module" in n for n in names)

"""One meaning per name (docs/architecture.md, Names): a module's name is used once in the
package tree (a plural apart counts as the same name), no import gives a module another
module's name, and one class is called Tape."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "gradcalc"
#: the same idea on purpose: PyTorch's module names (docs/architecture.md, Names)
ON_PURPOSE = {"__init__", "autograd", "functional"}


def _names() -> Counter[str]:
    found = [p.stem for p in PACKAGE.rglob("*.py")]
    found += [p.name for p in PACKAGE.rglob("*") if p.is_dir() and p.name != "__pycache__"]
    return Counter(re.sub(r"s$", "", name) for name in found)


def test_a_module_name_is_used_once():
    repeated = sorted(n for n, count in _names().items() if count > 1 and n not in ON_PURPOSE)
    assert repeated == []


def test_no_import_gives_a_module_another_modules_name():
    modules = set(_names())
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gradcalc"):
                found += [f"{path.relative_to(PACKAGE)}: {a.name} as {a.asname}"
                          for a in node.names
                          if a.asname and re.sub(r"s$", "", a.asname) in modules]
    assert found == []


def test_one_class_is_called_tape():
    tapes = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
             if re.search(r"^class Tape\b", p.read_text(encoding="utf-8"), re.M)]
    assert tapes == ["engine/tape.py"]

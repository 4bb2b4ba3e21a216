"""docs/architecture.md names real things: every path it mentions exists, every dotted
name imports (a module) or resolves (an attribute of one), and it names every package."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"
TEXT = PAGE.read_text(encoding="utf-8")
PATHS = sorted(set(re.findall(r"`((?:gradcalc|tests|docs)/[\w/.]*)`", TEXT)))
PATHS += sorted(set(re.findall(r"`(pyproject\.toml|README\.md)`", TEXT)))
NAMES = sorted(set(re.findall(r"`(gradcalc(?:\.\w+)+)`", TEXT)))


def test_the_page_has_references_to_check():
    assert len(PATHS) >= 20 and len(NAMES) >= 10


@pytest.mark.parametrize("path", PATHS)
def test_every_path_exists(path):
    assert (ROOT / path).exists(), path


def resolve(dotted: str) -> object:
    """The module of that name, or the attribute reached from its longest module prefix."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


@pytest.mark.parametrize("name", NAMES)
def test_every_dotted_name_resolves(name):
    assert resolve(name) is not None


def test_every_package_has_its_paragraph():
    packages = [p.name for p in (ROOT / "gradcalc").iterdir()
                if p.is_dir() and (p / "__init__.py").exists()]
    for package in packages:
        assert f"**`gradcalc/{package}/`" in TEXT, package


def test_the_readme_links_the_page():
    assert "(docs/architecture.md)" in (ROOT / "README.md").read_text(encoding="utf-8")

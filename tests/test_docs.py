"""Every shell example in the README and docs/ runs and prints what the page says."""

from __future__ import annotations

import pytest

from docs_examples import ROOT, examples, run_segment, segments

PAGES = ["README.md", "docs/getting-started.md", "docs/language.md", "docs/checking.md",
         "docs/homework.md", "docs/teaching-with-gradcalc.md",
         "docs/security.md", "docs/index.md", "docs/understanding-backward.md",
         "docs/scaling.md"]
#: every README example, as a user types it, through the installed command
INSTALLED_PAGES = {"README.md"}


def _cases() -> list:
    cases = []
    for page in PAGES:
        path = ROOT / page
        found = examples(path) if path.exists() else []
        for part in segments(found):
            label = f"{page}:{part.start + 1}" + (f"-{part.stop}" if len(part) > 1 else "")
            cases.append(pytest.param(page, part, id=label))
    return cases


@pytest.mark.parametrize("page", PAGES)
def test_page_has_examples(page):
    path = ROOT / page
    assert path.exists(), f"{page} is missing"
    assert examples(path), f"{page} has no console examples"


@pytest.mark.parametrize(("page", "part"), _cases())
def test_page_examples(page, part, tmp_path):
    """Examples `part` of the page, in order, in a scratch folder of their own (the first
    example of every page, and the README's, through the installed command)."""
    found = examples(ROOT / page)
    installed = set(range(len(found))) if page in INSTALLED_PAGES else {0}
    run_segment(found, part, tmp_path, installed)


def test_every_docs_page_is_tested():
    """A page with shell examples is listed here or has a test of its own."""
    own_tests = {"pytorch.md": "test_docs_pytorch.py", "scripting.md": "test_docs_scripting.py",
                 "performance.md": None, "architecture.md": "test_docs_architecture.py",
                 "commands.md": "test_docs_commands.py", "notebooks.md": "test_notebooks.py"}
    for path in sorted((ROOT / "docs").glob("*.md")):
        rel = f"docs/{path.name}"
        if rel in PAGES:
            continue
        assert path.name in own_tests, f"{rel} is not run by any test"
        test = own_tests[path.name]
        if test is not None:
            assert (ROOT / "tests" / test).exists(), f"{rel}: {test} is missing"


def test_readme_python_examples(capsys):
    """```python blocks: each `print(...)  # text` must print `text`."""
    import re

    from docs_examples import ROOT as root

    text = (root / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for block in blocks:
        expected = [m.group(1) for m in re.finditer(r"print\(.*\)\s+# (.*)", block)]
        exec(compile(block, "README.md", "exec"), {})  # the README's own code, not user input
        assert capsys.readouterr().out.splitlines() == expected

"""Every shell example in the README and docs/ runs and prints what the page says."""

from __future__ import annotations

import pytest

from docs_examples import ROOT, Example, examples, in_process_argv, run_segment, segments

PAGES = ["README.md", "docs/getting-started.md", "docs/language.md", "docs/checking.md",
         "docs/homework.md", "docs/worked-solutions.md", "docs/teaching-with-gradcalc.md",
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


def _page(*commands: str) -> list[Example]:
    return [Example("page.md", c, [], 0) for c in commands]


def test_examples_that_name_the_same_file_stay_in_one_segment():
    found = _page("printf 'x\\n1\\n' > pts.csv", 'gradcalc grad "y = x" --at x=1',
                  'gradcalc grad "y = x" --points pts.csv', "gradcalc grad \"__import__('os')"
                  ".system('touch pwned')\" --at x=1", "ls pwned", "mkdir parts",
                  "gradcalc grad y=x --points parts")
    assert segments(found) == [range(0, 3), range(3, 5), range(5, 7)]


def test_a_file_made_in_one_segment_and_named_in_another_fails_the_cut(tmp_path):
    """The cut is checked after the run: a file made without being named as one
    (`sh -c '...'`) and read by a later example breaks the page's segments."""
    found = _page("sh -c 'touch made'", "test -e made")
    assert segments(found) == [range(0, 1), range(1, 2)]
    with pytest.raises(AssertionError, match="names made"):
        run_segment(found, range(0, 1), tmp_path)


@pytest.mark.parametrize(("command", "argv"), [
    ('gradcalc grad "y = x[0]*2" --at \'x=[1]\' --plain',
     ["grad", "y = x[0]*2", "--at", "x=[1]", "--plain"]),
    ('gradcalc grad "y = x" --at x=1 | cut -c1-9', None),
    ('gradcalc grad "y = x" --at x=1 > out.txt', None),
    ('gradcalc grad "$HOME" --at x=1', None),
    ("gradcalc grad $'y = x' --at x=1", None),
    ("gradcalc grad y=x --at x=[1]", None),
    ("echo y=x | gradcalc grad - --at x=1", None),
    ("gradcalc grad - --at x=1", None),
    ('gradcalc grad "y = x" --points p.csv --jobs 2', None),
    ('cat "gradcalc"', None),
])
def test_only_a_plain_gradcalc_command_runs_in_process(command, argv):
    assert in_process_argv(command) == argv


def test_every_docs_page_is_tested():
    """A page with shell examples is listed here or has a test of its own."""
    own_tests = {"pytorch.md": "docs/test_pytorch.py", "scripting.md": "docs/test_scripting.py",
                 "performance.md": None, "architecture.md": "docs/test_architecture.py",
                 "commands.md": "docs/test_commands.py", "notebooks.md": "docs/test_notebooks.py"}
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

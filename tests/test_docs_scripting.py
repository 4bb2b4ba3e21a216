"""Every shell example of docs/scripting.md runs and prints what the page says."""

from __future__ import annotations

import pytest

from docs_examples import ROOT, examples, run

PAGE = ROOT / "docs" / "scripting.md"
EXAMPLES = examples(PAGE)
#: later examples read files earlier ones made: the page runs in order on one worker
pytestmark = pytest.mark.xdist_group("scripting-page")


def test_the_page_has_examples():
    assert len(EXAMPLES) >= 10


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """One scratch folder for the whole page: later examples read files earlier ones made."""
    return tmp_path_factory.mktemp("scripting")


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_example(example, folder):
    lines, code = run(example, folder)
    assert lines == example.expected, f"{example.id}\n" + "\n".join(lines)
    assert code == example.exit_code, f"{example.id}: exit {code}"

"""The documentation site: mkdocs.yml's nav names every page, the Mermaid graphs are
gradcalc's output, the seed lessons each have an --explain example, and `mkdocs build
--strict` passes where the docs extra is installed."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys

import pytest

from docs_examples import ROOT, Example, examples, run

sys.path.insert(0, str(ROOT / "tools"))
import mkdocs_hooks  # noqa: E402 - the hooks file lives in tools/, outside the package

MKDOCS = ROOT / "mkdocs.yml"
GRAPH = re.compile(r"<!-- graph: (.*?) -->\n```mermaid\n(.*?)```", re.S)


def _nav_files() -> list[str]:
    return re.findall(r"^\s*- [^:]+: (\S+\.md)\s*$", MKDOCS.read_text(encoding="utf-8"), re.M)


def test_every_page_is_in_the_nav():
    nav = _nav_files()
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    missing = [p for p in pages if p not in nav]
    assert not missing, f"docs pages not in mkdocs.yml's nav: {missing}"
    assert len(nav) == len(set(nav))


def test_nav_leaves_out_pages_not_written_yet(tmp_path):
    (tmp_path / "a.md").write_text("# a\n")
    nav = [{"A": "a.md"}, {"B": "b.md"}, {"Group": [{"A": "a.md"}, {"C": "c.md"}]}, "a.md"]
    assert mkdocs_hooks._existing(nav, tmp_path) == [{"A": "a.md"}, {"Group": [{"A": "a.md"}]},
                                                     "a.md"]


def test_mermaid_graphs_are_gradcalcs_output(tmp_path):
    page = ROOT / "docs" / "understanding-backward.md"
    graphs = GRAPH.findall(page.read_text(encoding="utf-8"))
    assert graphs
    for command, graph in graphs:
        lines, code = run(Example(page.name, command, [], 0), tmp_path)
        assert code == 0 and lines == graph.rstrip("\n").splitlines(), command


#: the seed lessons the page must explain with --explain (SEED_CASES.md: grad_tensors,
#: mean as weights, the while loop, the Jacobian row by row; and the graph of (a+b)(b+c))
LESSONS = {
    "grad_tensors": '--weights "[0.1, 1.0, 0.001]" --explain',
    "mean = weights": 'out = mean(c)" --at "a=[2,3]" --explain',
    "while loop": "while norm(y) < 1000",
    "Jacobian row by row": 'gradcalc jacobian "k = [m[0]**2 + 3*m[1], m[1]**2 + 2*m[0]]"',
    "the graph": 'gradcalc grad "y = (a+b)*(b+c)" --at "a=1, b=2, c=3" --explain',
}


@pytest.mark.parametrize("lesson", LESSONS)
def test_each_seed_lesson_has_an_explain_example(lesson):
    found = [e for e in examples(ROOT / "docs" / "understanding-backward.md")
             if LESSONS[lesson] in e.command]
    assert found and all("--explain" in e.command for e in found), lesson
    assert any(line.startswith("backward sweep") for e in found for line in e.expected)


def test_the_graph_example_shows_values_sweep_and_gradients():
    (example,) = [e for e in examples(ROOT / "docs" / "understanding-backward.md")
                  if e.command.endswith('--at "a=1, b=2, c=3" --explain')]
    text = "\n".join(example.expected)
    forward = text[: text.index("backward sweep")]
    assert [line.split()[-1] for line in forward.splitlines()[5:8]] == ["3", "5", "15"]
    tail = text[text.index("backward sweep"):]
    assert "∂y/∂a   5" in tail and "∂y/∂b   8" in tail and "∂y/∂c   3" in tail


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None
                    or importlib.util.find_spec("material") is None,
                    reason="the docs extra (mkdocs, mkdocs-material) is not installed")
def test_site_builds_strict(tmp_path):
    site = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(site)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    html = (site / "understanding-backward" / "index.html").read_text(encoding="utf-8")
    assert html.count('class="mermaid"') >= 1 and "flowchart LR" in html
    reference = (site / "commands" / "index.html").read_text(encoding="utf-8")
    assert "Usage: gradcalc plot [OPTIONS]" in reference and "<!-- help:" not in reference

"""Output formats by name (render/formats.py): --format NAME on every command that prints,
its aliases, the formats each command takes, and a new format as one registry entry."""

from __future__ import annotations

import json

import pytest

from gradcalc.render import formats
from gradcalc.render.formats import FORMATS, Format


def test_format_json_is_the_json_flag(invoke):
    by_name = invoke("grad", "x^2", "--at", "x=3", "--format", "json")
    by_flag = invoke("grad", "x^2", "--at", "x=3", "--json")
    assert by_name.code == by_flag.code == 0
    assert by_name.out == by_flag.out and json.loads(by_name.out)["gradient"] == {"x": 6.0}


def test_format_plain_is_the_plain_flag(invoke):
    by_name = invoke("check", "x^3", "--answer", "3x^2", "--format=plain")
    assert by_name.out == invoke("check", "x^3", "--answer", "3x^2", "--plain").out


def test_format_latex_is_derives_latex_flag(invoke):
    by_name = invoke("derive", "x^2 sin(x)", "--format", "latex")
    assert by_name.code == 0 and by_name.out.startswith("\\documentclass")
    assert by_name.out == invoke("derive", "x^2 sin(x)", "--latex").out


def test_format_and_the_same_alias_agree(invoke):
    assert invoke("grad", "x^2", "--at", "x=3", "--format", "json", "--json").code == 0


def test_format_and_another_alias_are_refused(invoke):
    run = invoke("grad", "x^2", "--at", "x=3", "--format", "json", "--plain")
    assert run.code == 2
    assert run.err == "error: --format json and --plain cannot be used together\n"


@pytest.mark.parametrize(("args", "takes"), [
    (("grad", "x^2", "--at", "x=1"), "rich, json, plain, csv, parquet"),
    (("check", "x^2", "--answer", "2x"), "rich, json, plain"),
    (("derive", "x^2"), "rich, json, plain, latex"),
    (("plot", "x^2", "--over", "x=-1:1"), "rich, json"),
    (("batch", "-"), "json"),
])
def test_an_unknown_format_lists_what_the_command_takes(invoke, args, takes):
    run = invoke(*args, "--format", "yaml")
    assert run.code == 2
    assert run.err == f"error: --format takes {takes}, not 'yaml'\n"


def test_a_format_without_the_writer_says_so(invoke):
    run = invoke("grad", "x^2", "--at", "x=3", "--format", "csv")
    assert run.code == 2
    assert run.err == "error: --format csv does not write a derivative at a point\n"


def test_errors_are_json_with_format_json(invoke):
    run = invoke("grad", "x^^2", "--at", "x=3", "--format", "json")
    assert run.code == 2 and json.loads(run.out)["error"]["kind"] == "parse"


def test_the_graph_notation_is_a_registry(invoke):
    from gradcalc.render.graph import NOTATIONS

    assert set(NOTATIONS) == {"dot", "mermaid"}
    run = invoke("grad", "x^2", "--at", "x=3", "--graph", "svg")
    assert run.err == "error: --graph takes dot or mermaid, not 'svg'\n"


# ---------------------------------------------------------------- a toy format, registered

def _toy_verdict(verdict, out) -> None:
    out.write(f"TOY {'yes' if verdict.ok else 'no'}\n")


def _toy_result(result, numbers, out) -> None:
    out.write(f"TOY {result.failed}\n")


@pytest.fixture
def toy(monkeypatch):
    """A format named toy, in a registry that is the real one plus it, for this test."""
    monkeypatch.setattr(formats, "FORMATS", {**FORMATS, "toy": Format(
        "toy", verdict=_toy_verdict, result=_toy_result)})


def test_a_registered_format_prints_a_check(toy, invoke):
    right = invoke("check", "x^3", "--answer", "3x^2", "--format", "toy")
    assert (right.code, right.out) == (0, "TOY yes\n")
    wrong = invoke("check", "x^3", "--answer", "3x", "--format", "toy")
    assert (wrong.code, wrong.out) == (1, "TOY no\n")


def test_a_registered_format_prints_a_derivative(toy, invoke):
    run = invoke("grad", "x^2", "--at", "x=3", "--format", "toy")
    assert (run.code, run.out) == (0, "TOY False\n")


def test_a_registered_format_is_listed_only_where_it_writes(toy, invoke):
    assert "toy" in invoke("check", "x^2", "--answer", "2x", "--format", "yaml").err
    run = invoke("derive", "x^2", "--format", "toy")
    assert run.err == "error: --format takes rich, json, plain, latex, not 'toy'\n"


def test_the_registry_is_gone_with_the_test():
    assert "toy" not in formats.FORMATS


def _toy_row(result, keyed) -> str:
    return f"TOY {result.task.student} {result.status}\n"


def _toy_class_end(summary, students, out, err) -> None:
    out.write(f"TOY {students} students\n")


def _toy_class(sink):
    from gradcalc.render.class_views import ClassLines

    return ClassLines(sink, _toy_class_end)


def test_a_registered_format_writes_a_class(monkeypatch, invoke, tmp_path):
    monkeypatch.setattr(formats, "FORMATS", {**FORMATS, "toy": Format(
        "toy", row=_toy_row, class_view=_toy_class, class_end=_toy_class_end)})
    answers = tmp_path / "answers.csv"
    answers.write_text("id,function,answer\nann,x^2,2x\nbob,x^3,3x\n")
    run = invoke("grade", str(answers), "--format", "toy")
    assert run.code == 1
    assert run.out == "TOY ann correct\nTOY bob incorrect\nTOY 2 students\n"


def test_parquet_rows_go_to_a_file(invoke, tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("x\n1\n2\n")
    run = invoke("grad", "x^2", "--points", str(table), "--format", "parquet")
    assert run.code == 2
    assert run.err == "error: --format parquet is written to a file: give --output FILE\n"


@pytest.mark.parametrize("command", [
    ("grad", "x^2", "--points", "t.csv"), ("grade", "answers.csv")])
def test_an_unknown_engine_is_named(invoke, command):
    run = invoke(*command, "--engine", "spark")
    assert run.code == 2
    assert run.err == "error: --engine takes local or dask, not 'spark'\n"

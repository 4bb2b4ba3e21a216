"""A row format's writer (`render.rows_writer`): what it tells a run, the files it opens
and how a cluster's parts are joined."""

from __future__ import annotations

import pickle

import pytest

from gradcalc.errors import GradcalcError
from gradcalc.render.formats import FORMATS, rows_for
from gradcalc.render.rows_writer import ArrowRows, TextRows


def test_each_view_gives_the_writer_of_its_rows():
    assert type(rows_for(FORMATS["rich"], None)) is TextRows
    assert rows_for(FORMATS["rich"], None).name == "csv"
    assert rows_for(FORMATS["plain"], "out.csv").name == "plain"
    assert type(rows_for(FORMATS["json"], "out.parquet")) is ArrowRows


def test_what_a_writer_tells_a_run():
    csv, json, parquet = (FORMATS[n].rows_writer for n in ("csv", "json", "parquet"))
    assert (csv.quick(True), csv.quick(False), json.quick(True)) == (True, False, False)
    assert (csv.reads_columnar(True), json.reads_columnar(True)) == (True, False)
    assert (csv.checks_inline, json.checks_inline) == (False, True)
    assert (csv.by_ranges(), parquet.by_ranges()) == (True, False)
    assert (csv.printable(), parquet.printable()) == (True, False)
    assert (csv.ending, parquet.ending) == (".part", ".parquet")
    csv.require(False)
    parquet.require(True)
    with pytest.raises(GradcalcError, match="needs the fast extra"):
        parquet.require(False)


def test_a_writer_goes_to_workers():
    csv = FORMATS["csv"].rows_writer
    assert pickle.loads(pickle.dumps(csv)) == csv


def test_a_text_file_is_whole_or_absent(tmp_path):
    rows = FORMATS["csv"].rows_writer
    kept = rows.open(str(tmp_path / ".a.part"))
    kept.write("x,y\n")
    kept.write(b"1,2\n")
    kept.commit(str(tmp_path / "a.csv"))
    assert (tmp_path / "a.csv").read_text() == "x,y\n1,2\n"
    dropped = rows.open(str(tmp_path / ".b.part"))
    dropped.write("x\n")
    dropped.abandon()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]


def test_text_parts_are_joined_in_order(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    parts = []
    for k, text in enumerate(("a\n", "b\n", "c\n")):
        (work / f"part-{k}.part").write_text(text)
        parts.append(str(work / f"part-{k}.part"))
    FORMATS["csv"].rows_writer.join_parts(str(work), list(reversed(parts)),
                                          str(tmp_path / "out.csv"))
    assert (tmp_path / "out.csv").read_text() == "c\nb\na\n"
    assert not work.exists()

"""--points --jobs over a plain table: workers read their own byte ranges and write their
own parts; the ranges cover the table exactly, row numbers and all, and nothing but a
range's address is sent to a worker."""

from __future__ import annotations

import numpy as np
import pytest
from test_stream import answer, fast, numbers_table  # noqa: F401 - the fixture

from gradcalc.commands import parallel
from gradcalc.commands import stream as chunking
from gradcalc.commands.jobs import Job
from gradcalc.errors import GradcalcError
from gradcalc.render import ranges, stream


@pytest.mark.parametrize("ending", ["\n", ""])
@pytest.mark.parametrize("rows", [1, 3, 7, 10, 11, 50])
def test_ranges_cover_the_table_in_rows(tmp_path, monkeypatch, rows, ending):
    monkeypatch.setattr(ranges, "BLOCK", 16)  # many blocks, cuts across them
    path = tmp_path / "t.csv"
    lines = [f"{k},{k * 2}" for k in range(10)]
    path.write_text("x,y\n" + "\n".join(lines) + ending)
    header = chunking.csv_header([str(path)], {"x", "y"})
    got = list(ranges.ranges([str(path)], header, rows))
    data = path.read_bytes()
    assert b"".join(data[r.start:r.end] for r in got) == data[4:]
    assert [r.offset for r in got] == list(range(0, 10, rows))
    assert sum(r.rows for r in got) == 10
    for r in got:
        text = data[r.start:r.end].decode()
        assert text.count("\n") + (not text.endswith("\n")) == r.rows
        assert text.split(",")[0] == str(r.offset) and r.line == r.offset + 2


def test_workers_get_addresses_not_rows(tmp_path, fast, monkeypatch):  # noqa: F811
    path = numbers_table(tmp_path, rows=120)
    sent = []
    real = parallel.ordered_map

    def spy(fn, items, jobs=1, preload=(), workers=None):
        items = list(items)
        sent.extend(items)
        return real(fn, items, 1)

    one, first = answer(path, "z = x*y + sin(x)", chunk_rows=25, check=True)
    monkeypatch.setattr(parallel, "ordered_map", spy)
    two, second = answer(path, "z = x*y + sin(x)", chunk_rows=25, check=True, jobs=2)
    assert one == two and first.note == second.note
    assert len(sent) == 5 and all(isinstance(r, ranges.Range) for r in sent)
    assert not any(isinstance(v, np.ndarray) for r in sent for v in vars(r).values())


def test_parts_go_to_an_output_file_and_leave_nothing_behind(tmp_path, fast):  # noqa: F811
    path = numbers_table(tmp_path, rows=90)
    out = tmp_path / "out" / "g.csv"
    out.parent.mkdir()
    one, _ = answer(path, "z = x*y", chunk_rows=20)
    job = Job(command="grad", program="z = x*y", at=[], check=False)
    stream.run(job, str(path), "csv", output=str(out), chunk_rows=20, jobs=2)
    assert out.read_text() == one and os_listdir(out.parent) == ["g.csv"]


def os_listdir(path):
    import os

    return sorted(os.listdir(path))


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_cell_that_only_looks_like_a_number_gets_its_error_cell(tmp_path, fast, jobs):  # noqa: F811
    path = tmp_path / "p.csv"
    path.write_text("x,y\n1,2\n1e,3\n4,5\n")
    text, outcome = answer(path, "z = x*y", jobs=jobs)
    assert text.splitlines() == ["x,y,z,dz/dx,dz/dy,error", "1,2,2,2,1,",
                                 "1e,3,,,,row 2 (line 3): '1e' is not a number (column x)",
                                 "4,5,20,5,4,"]
    assert "1 of 3 rows could not be read" in outcome.error


def test_a_late_such_cell_after_rows_went_out_is_a_clear_error(tmp_path, fast):  # noqa: F811
    path = tmp_path / "p.csv"
    path.write_text("x,y\n" + "".join(f"{k},2\n" for k in range(1, 9)) + "1.2.3,4\n")
    if fast:  # polars parses 8 MiB of lines at a time: found before any row goes out
        assert answer(path, "z = x*y", chunk_rows=3)[0].splitlines()[-1].endswith(
            "'1.2.3' is not a number (column x)")
    else:
        with pytest.raises(GradcalcError, match="looks like a number but is not one"):
            answer(path, "z = x*y", chunk_rows=3)
    out = tmp_path / "g.csv"
    job = Job(command="grad", program="z = x*y", at=[], check=False)
    stream.run(job, str(path), "csv", output=str(out), chunk_rows=3)
    assert out.read_text().splitlines()[-1].endswith("'1.2.3' is not a number (column x)")

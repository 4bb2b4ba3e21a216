"""--points --jobs over a plain table: workers read their own byte ranges and write their
text into the output file at its place (or their own parts, for standard output); the
ranges cover the table exactly, row numbers and all, and nothing but a range's address
is sent to a worker."""

from __future__ import annotations

import numpy as np
import pytest
from run.test_stream import answer, fast, numbers_table  # noqa: F401 - the fixture

from gradcalc.commands.jobs import Job
from gradcalc.errors import GradcalcError
from gradcalc.ingest import scan as chunking
from gradcalc.run import ranges, stream
from gradcalc.run import workers as parallel


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


def test_workers_write_their_ranges_into_the_output_in_place(tmp_path, fast, monkeypatch):  # noqa: F811
    path = numbers_table(tmp_path, rows=150)
    one, _ = answer(path, "z = x*y + sin(x)", chunk_rows=1000)
    monkeypatch.setattr(ranges, "copy_part", lambda *a: pytest.fail("a part was joined"))
    out = tmp_path / "out" / "g.csv"
    out.parent.mkdir()
    job = Job(command="grad", program="z = x*y + sin(x)", at=[], check=False)
    stream.run(job, str(path), "csv", output=str(out), chunk_rows=7, jobs=2)
    assert out.read_text() == one and os_listdir(out.parent) == ["g.csv"]


def test_a_range_waits_for_the_one_before_it_to_publish_where_it_ends(tmp_path):
    import threading

    chain = ranges.Chain.create(str(tmp_path))
    assert chain.start_of(0) == 0
    got = []
    waiting = threading.Thread(target=lambda: got.append(chain.start_of(1)))
    waiting.start()
    waiting.join(0.2)
    assert waiting.is_alive() and not got  # range 0 has not said where it ends
    chain.publish(1, 12345)
    waiting.join(5)
    assert got == [12345]


def test_a_slot_left_by_a_range_a_ring_ago_is_not_taken_for_this_ones(tmp_path):
    import pickle
    import threading

    chain = pickle.loads(pickle.dumps(ranges.Chain.create(str(tmp_path))))  # as a worker's
    chain.publish(3, 77)
    got = []
    later = threading.Thread(target=lambda: got.append(chain.start_of(3 + chain.SLOTS)))
    later.start()
    later.join(0.2)
    assert later.is_alive() and not got
    chain.publish(3 + chain.SLOTS, 88)
    later.join(5)
    assert got == [88]


def test_a_range_after_one_that_failed_fails_instead_of_waiting(tmp_path):
    chain = ranges.Chain.create(str(tmp_path))
    chain.publish(5, None)
    with pytest.raises(GradcalcError, match="earlier range"):
        chain.start_of(5)


def test_a_worker_sees_what_another_process_publishes(tmp_path):
    import multiprocessing

    chain = ranges.Chain.create(str(tmp_path))
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        waiting = pool.apply_async(ranges.Chain.start_of, (chain, 2))
        chain.publish(2, 4096)
        assert waiting.get(timeout=60) == 4096



def test_a_worker_that_dies_mid_range_ends_the_run_and_leaves_no_file(tmp_path, fast,  # noqa: F811
                                                                      monkeypatch):
    """The range after the dead one waits for where to write; the run still ends, with
    the clear error, and no output file that looks whole."""
    import os

    if parallel._context(None, ()).get_start_method() != "fork":
        pytest.skip("the patched reader reaches only forked workers")
    path = numbers_table(tmp_path, rows=100)
    real = ranges.piece_of

    def dying(r, *args, **kwargs):
        if r.index == 1:
            os._exit(3)
        return real(r, *args, **kwargs)

    monkeypatch.setattr(ranges, "piece_of", dying)
    out = tmp_path / "out" / "g.csv"
    out.parent.mkdir()
    job = Job(command="grad", program="z = x*y", at=[], check=False)
    with pytest.raises(GradcalcError, match="ended unexpectedly"):
        stream.run(job, str(path), "csv", output=str(out), chunk_rows=10, jobs=2)
    assert os_listdir(out.parent) == []

"""--points in chunks (run/stream.py, commands/chunks.py, tables/scan.py): any chunk size,
any number of processes, with or without the fast extra, gives the same bytes as one
chunk; memory is the chunk's; an output file appears whole or not at all."""

from __future__ import annotations

import io
import os
import tracemalloc

import numpy as np
import pytest

from gradcalc.commands.jobs import Job
from gradcalc.errors import GradcalcError
from gradcalc.ingest import scan as chunking
from gradcalc.render.numbers import number
from gradcalc.run import stream

from conftest import run_cli


class Out(io.StringIO):
    """Standard output as the command line's: text and bytes."""

    takes_bytes = True

    def write(self, text):  # type: ignore[override]
        return super().write(text.decode() if isinstance(text, bytes) else text)


def answer(path, program, command="grad", kind="csv", check=False, **options):
    out = Out()
    job = Job(command=command, program=program, at=[], check=check)
    outcome = stream.run(job, str(path), kind, stdout=out, **options)
    return out.getvalue(), outcome


@pytest.fixture(params=[True, False], ids=["fast", "default"])
def fast(request, monkeypatch):
    """Each test with the fast extra's reader and writer, and without them."""
    if request.param and not stream.fast_available():
        pytest.skip("the fast extra (polars, pyarrow) is not installed")
    if not request.param:
        monkeypatch.setattr(stream, "fast_available", lambda: False)
    monkeypatch.setattr(stream, "FAST_BYTES", 0)  # the tests' small tables too
    return request.param


def table(tmp_path, text, name="p.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def numbers_table(tmp_path, rows=57, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(rows, 2)) * 10.0 ** rng.integers(-8, 12, size=(rows, 2))
    a[3] = [2.0, -0.0]
    a[5] = [1e15, 3.0]
    text = "x,y\n" + "".join(f"{number(u)},{number(v)}\n" for u, v in a)
    return table(tmp_path, text)


PROGRAMS = [
    ("grad", "z = x*y + sin(x)*exp(-y**2)"),
    ("grad", "if x > 0: z = x*y\nelse: z = -x**2"),
    ("jacobian", "k = [x*y, x + y, log(abs(x))]"),
    ("hessian", "z = x*x*y + y**3"),
]


@pytest.mark.parametrize("command,program", PROGRAMS)
@pytest.mark.parametrize("kind", ["csv", "plain", "json"])
def test_every_chunk_size_writes_the_same_bytes(tmp_path, fast, command, program, kind):
    path = numbers_table(tmp_path)
    whole, _ = answer(path, program, command, kind, chunk_rows=1000)
    assert whole.count("\n") == 57 + (kind == "csv")
    for rows in (1, 2, 10, 56, 57):
        assert answer(path, program, command, kind, chunk_rows=rows)[0] == whole


def test_the_fast_extra_writes_the_default_writers_bytes(tmp_path, monkeypatch):
    if not stream.fast_available():
        pytest.skip("the fast extra is not installed")
    monkeypatch.setattr(stream, "FAST_BYTES", 0)
    path = numbers_table(tmp_path, rows=300, seed=4)
    with_it, _ = answer(path, "z = x*y + exp(x/1e9)", chunk_rows=64)
    monkeypatch.setattr(stream, "fast_available", lambda: False)
    assert answer(path, "z = x*y + exp(x/1e9)", chunk_rows=64)[0] == with_it


def test_fast_cells_are_numbers_text_for_every_magnitude():
    pytest.importorskip("polars")
    from gradcalc.commands.points import PointsResult
    from gradcalc.ingest.point_table import PointTable as Table
    from gradcalc.render import fast_rows as tabular

    rng = np.random.default_rng(7)
    values = np.concatenate([rng.normal(size=3000) * 10.0 ** rng.integers(-320, 308, 3000),
                             10.0 ** np.arange(-12, 20), np.round(rng.normal(size=50) * 1e6),
                             [np.nan, np.inf, -np.inf, -0.0, 0.0, 5e-324, 2.0 ** 53]])
    data = values.reshape(-1, 1)
    result = PointsResult("grad", "y", Table(["x"], data, {"x": values}, [0]), ["x"],
                          values, {"x": values})
    lines = bytes(tabular.csv_text(result)).decode().splitlines()
    assert lines == [",".join([number(v)] * 3) for v in values]


def test_bad_rows_in_any_chunk_are_answered_in_place(tmp_path, fast):
    text = "x,y\n1,2\n3,4\nabc,1\n5,6\n7\n8,9\n\n10,11\n"
    path = table(tmp_path, text)
    whole, outcome = answer(path, "z = x*y", chunk_rows=100)
    assert whole.splitlines()[0] == "x,y,z,dz/dx,dz/dy,error"
    assert "row 3 (line 4): 'abc' is not a number" in outcome.error
    assert "row 5 (line 6): 1 value" in outcome.error
    assert outcome.error.startswith("--points: 2 of 7 rows could not be read")
    for rows in (1, 2, 3):
        again, other = answer(path, "z = x*y", chunk_rows=rows)
        assert again == whole and other.error == outcome.error


def test_a_chunk_of_bad_rows_only(tmp_path, fast):
    path = table(tmp_path, "x,y\n1,2\nno,1\nno,2\n3,4\n")
    text, outcome = answer(path, "z = [x*y, x]", "jacobian", chunk_rows=1)
    assert text == answer(path, "z = [x*y, x]", "jacobian", chunk_rows=10)[0]
    assert text.splitlines()[2].startswith("no,1,,,,,,,row 2 (line 3)")
    assert outcome.totals.count == 4 and outcome.totals.bad == 2


def test_text_columns_are_carried_through_chunks(tmp_path, fast):
    path = table(tmp_path, 'id,x,label\na,1,"p, q"\nb,2,r\nc,3,s\n')
    whole, _ = answer(path, "y = x**2", chunk_rows=10)
    assert whole.splitlines()[1] == 'a,1,"p, q",1,2'
    assert answer(path, "y = x**2", chunk_rows=1)[0] == whole


def test_the_check_samples_the_whole_table_across_chunks(tmp_path, fast):
    path = numbers_table(tmp_path, rows=40)
    _, one = answer(path, "z = x*y", check=True, chunk_rows=100)
    _, many = answer(path, "z = x*y", check=True, chunk_rows=7)
    assert [r for r, _ in one.totals.checks] == [r for r, _ in many.totals.checks] \
        == [0, 10, 20, 29, 39]
    assert one.note == many.note
    assert "sample of 5 of 40 points" in many.note


def test_non_finite_warnings_count_the_whole_table(tmp_path, fast):
    path = table(tmp_path, "x\n1\n0\n2\n-1\n")
    _, outcome = answer(path, "y = log(x)", chunk_rows=1)
    assert outcome.warnings == [
        "the output 'y' has non-finite values at 2 points (first: row 2)",
        "the derivative with respect to x has non-finite values at 1 point (first: row 2)"]


def test_jobs_write_the_same_bytes_as_one_process(tmp_path, fast):
    path = numbers_table(tmp_path, rows=200)
    one, first = answer(path, "if x > 0: z = x*y\nelse: z = sin(y)", chunk_rows=17,
                        check=True)
    two, second = answer(path, "if x > 0: z = x*y\nelse: z = sin(y)", chunk_rows=17,
                         check=True, jobs=2)
    assert one == two and first.note == second.note and first.warnings == second.warnings


def test_a_glob_or_a_directory_of_parts_is_one_table(tmp_path, fast):
    whole = numbers_table(tmp_path, rows=30)
    lines = whole.read_text().splitlines()
    parts = tmp_path / "parts"
    parts.mkdir()
    for k in range(3):
        (parts / f"part-{k}.csv").write_text("\n".join([lines[0]] + lines[1 + 10 * k:
                                                                        11 + 10 * k]) + "\n")
    expected, _ = answer(whole, "z = x - y")
    assert answer(parts, "z = x - y", chunk_rows=4)[0] == expected
    assert answer(str(parts / "part-*.csv"), "z = x - y")[0] == expected
    (parts / "part-3.csv").write_text("y,x\n1,2\n")
    with pytest.raises(GradcalcError, match="has the columns y,x"):
        answer(parts, "z = x - y")


def test_output_file_appears_only_when_whole(tmp_path, fast):
    path = table(tmp_path, "x\n1\n2\n-1\n")
    target = tmp_path / "out.csv"
    _, outcome = answer(path, "y = x*2", output=str(target), chunk_rows=1)
    assert target.read_text() == "x,y,dy/dx\n1,2,2\n2,4,2\n-1,-2,2\n"
    with pytest.raises(GradcalcError, match="different shapes"):
        answer(path, "if x > 0: y = [x, x]\nelse: y = x", "jacobian",
               output=str(tmp_path / "bad.csv"), chunk_rows=1)
    assert sorted(os.listdir(tmp_path)) == ["out.csv", "p.csv"]


def test_parquet_in_and_out(tmp_path):
    pytest.importorskip("pyarrow")
    pl = pytest.importorskip("polars")
    path = numbers_table(tmp_path, rows=25)
    csv_text, _ = answer(path, "z = x*y", chunk_rows=7)
    target = tmp_path / "out.parquet"
    answer(path, "z = x*y", output=str(target), chunk_rows=7)
    frame = pl.read_parquet(target)
    assert frame.columns == ["x", "y", "z", "dz/dx", "dz/dy"]
    again = pl.read_csv(io.StringIO(csv_text))
    assert np.array_equal(frame.to_numpy(), again.to_numpy())
    pl.read_csv(path).write_parquet(tmp_path / "in.parquet")
    assert answer(tmp_path / "in.parquet", "z = x*y", chunk_rows=6)[0] == csv_text


def chunk_peak(tmp_path, rows: int) -> int:
    rng = np.random.default_rng(1)
    text = "a,b,c\n" + "".join(f"{u!r},{v!r},{w!r}\n" for u, v, w in rng.normal(size=(rows, 3)))
    path = table(tmp_path, text, f"t{rows}.csv")
    out = Out()

    class Sink:  # keeps no output: only the run's own memory is measured
        takes_bytes = True

        def write(self, text):
            out.truncate(0)

        def flush(self):
            pass

    tracemalloc.start()
    stream.run(Job(command="grad", program="y = a*b*sin(c)", at=[], check=False),
               str(path), "csv", stdout=Sink(), chunk_rows=500)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_memory_is_the_chunks_not_the_tables(tmp_path, monkeypatch):
    monkeypatch.setattr(stream, "fast_available", lambda: False)
    monkeypatch.setattr(chunking, "SCAN_BYTES", 1 << 15)  # the scan's block, held once
    small, large = chunk_peak(tmp_path, 2_000), chunk_peak(tmp_path, 16_000)
    assert large < 1.3 * small  # eight times the rows, not eight times the bytes


def test_pieces_hold_at_most_chunk_rows(tmp_path, fast):
    path = numbers_table(tmp_path, rows=57)
    header = chunking.csv_header([str(path)], {"x", "y"})
    assert chunking.scan([str(path)], header) == (57, True)
    sizes = [p.rows for p in chunking.csv_pieces([str(path)], header, 10)]
    assert sizes == [10] * 5 + [7]


@pytest.mark.parametrize("text,plain", [
    ("x,y\n1,2\n", True), ("x,y\n1,2", True), ("x,y\r\n1,2\r\n", True),
    ("x,y\n1,\n", False), ("x,y\n1,2\n\n3,4\n", False), ("x,y\n,2\n", False),
    ("x,y\n1,nan\n", False), ('x,y\n"1",2\n', False), ("x,y\n1,2,3\n", False),
])
def test_the_byte_scan_tells_plain_numbers(tmp_path, text, plain):
    path = table(tmp_path, text)
    header = chunking.csv_header([str(path)], {"x", "y"})
    assert chunking.scan([str(path)], header)[1] is plain


def test_cli_chunks_jobs_and_output(tmp_path):
    path = table(tmp_path, "x,y\n1,2\n3,4\n0.5,-1\n")
    run = run_cli("grad", "z = x*y", "--points", str(path), "--chunk-rows", "1", "--jobs",
                  "2", "--output", str(tmp_path / "o.csv"))
    assert run.code == 0, run.err
    assert run.out == ""
    assert (tmp_path / "o.csv").read_text() == "x,y,z,dz/dx,dz/dy\n1,2,2,2,1\n3,4,12,4,3\n" \
        "0.5,-1,-0.5,-1,0.5\n"
    assert run_cli("grad", "z = x", "--at", "x=1", "--jobs", "2").err.startswith(
        "error: --jobs goes with --points")
    assert "--jobs takes" in run_cli("grad", "z = x", "--points", str(path), "--jobs",
                                     "many").err


LATE_ODDITIES = ["1e", "", '"7"', "nan", "1,2", "\n"]  # a non-number, an empty cell, a
# quoted cell, a word, one cell too many, a blank line


@pytest.mark.parametrize("oddity", LATE_ODDITIES)
@pytest.mark.parametrize("jobs", [1, 2])
def test_an_output_file_is_read_unscanned_and_read_again_when_a_late_row_is_odd(
        tmp_path, fast, monkeypatch, oddity, jobs):
    from gradcalc.ingest import columnar as tabular

    rows = [f"{k},{k % 7 - 3}" for k in range(300)]
    rows[250] = f"{oddity},5" if oddity != "\n" else ""  # past the first blocks and chunks
    path = table(tmp_path, "x,y\n" + "\n".join(rows) + "\n")
    expected, want = answer(path, "z = x*y", chunk_rows=1000)  # standard output: scanned
    monkeypatch.setattr(tabular, "BLOCK_BYTES", 256)  # many blocks: the odd one is late
    out = tmp_path / "z.csv"
    got = answer(path, "z = x*y", chunk_rows=40, jobs=jobs, output=str(out))[1]
    assert out.read_text() == expected
    assert got.error == want.error and got.totals.count == want.totals.count


def test_an_output_file_of_plain_numbers_is_not_scanned_first(tmp_path, fast, monkeypatch):
    path = numbers_table(tmp_path, rows=120)
    expected, _ = answer(path, "z = x*y", chunk_rows=1000)
    calls = []
    for name in ("scan", "count_lines"):
        real = getattr(chunking, name)
        monkeypatch.setattr(chunking, name, lambda *a, real=real, name=name:
                            calls.append(name) or real(*a))
    for jobs in (1, 2):
        out = tmp_path / f"z{jobs}.csv"
        outcome = answer(path, "z = x*y", chunk_rows=25, jobs=jobs, output=str(out),
                         check=True)[1]
        assert out.read_text() == expected and outcome.note and not outcome.failed
    # one job reads through polars (the fast extra) or Python's reader, which needs the
    # scan; --jobs workers check their own ranges either way, counted as they are cut
    assert calls == (["count_lines"] if fast else ["scan"])


@pytest.mark.parametrize("text,plain", [
    (b"1,2\n3,4\n", True), (b"1,2\n3,4", True), (b"1,2\r\n3,4\r\n", True), (b"", True),
    (b"1,\n", False), (b"1,2\n\n3,4\n", False), (b",2\n", False), (b"1,nan\n", False),
    (b'"1",2\n', False), (b"1,2,3\n4,5\n", False), (b"1,2\r3,4\n", False),
])
def test_a_block_is_plain_as_the_scan_tells_a_table(text, plain):
    assert chunking.plain_block(text, 2) is plain


def test_count_lines_counts_a_last_line_without_a_break(tmp_path):
    header = chunking.csv_header([str(table(tmp_path, "x,y\n1,2\n3,4"))], {"x", "y"})
    assert chunking.count_lines([str(tmp_path / "p.csv")], header) == 2
    assert chunking.count_lines([str(table(tmp_path, "x,y\n1,2\n", "q.csv"))], header) == 1


def test_a_small_table_is_read_and_written_without_the_fast_extra(tmp_path, monkeypatch):
    """Below FAST_BYTES the run is Python's (polars' import would cost more than it saves);
    from it, the fast extra's: the same bytes either way. Parquet output needs it at any
    size."""
    if not stream.fast_available():
        pytest.skip("the fast extra is not installed")
    from gradcalc.ingest import columnar as tabular

    path = numbers_table(tmp_path, rows=300, seed=4)
    used = []
    real = tabular.csv_pieces
    monkeypatch.setattr(tabular, "csv_pieces", lambda *a: used.append(1) or real(*a))
    out = tmp_path / "z.csv"
    size = path.stat().st_size
    texts = []
    for limit in (size + 1, size):
        monkeypatch.setattr(stream, "FAST_BYTES", limit)
        answer(path, "z = x*y", output=str(out))
        texts.append(out.read_bytes())
    assert used == [1] and texts[0] == texts[1]
    monkeypatch.setattr(stream, "FAST_BYTES", size + 1)
    answer(path, "z = x*y", output=str(tmp_path / "z.parquet"))
    assert (tmp_path / "z.parquet").exists()

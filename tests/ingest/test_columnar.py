"""The fast extra's CSV reader (ingest/columnar.py): a block checked as it is read takes
exactly what the byte scan takes, in one pass over its bytes."""

from __future__ import annotations

import numpy as np
import pytest

from gradcalc.errors import GradcalcError
from gradcalc.ingest import columnar, scan

pytest.importorskip("polars")

ODD_BLOCKS = [b"1,\n", b"1,2\n\n3,4\n", b",2\n", b"1,nan\n", b'"1",2\n', b"1,2,3\n4,5\n",
              b"1,2\r3,4\n", b"1,2\n3\n", b"1,2\n3,4,\n", b"\n1,2\n", b"1,2\n3,4\n\n",
              b"1,2\n,\n", b"1e,2\n", b"1, 2\n", b"1\t2\n", b"1,2\n\r\n", b"1,2\r\n\r\n"]


@pytest.mark.parametrize("block", ODD_BLOCKS)
def test_a_block_the_scan_refuses_is_not_plain(block):
    assert not scan.plain_block(block, 2) or block == b"1e,2\n"  # 1e: only polars tells
    with pytest.raises(GradcalcError) as info:
        columnar.parse_lines(block, 2, verify=True)
    assert info.value.kind == scan.NOT_PLAIN


@pytest.mark.parametrize("block,rows", [
    (b"1,2\n3,4\n", [[1, 2], [3, 4]]), (b"1,2\n3,4", [[1, 2], [3, 4]]),
    (b"1,2\r\n3.5e-3,-4\r\n", [[1, 2], [3.5e-3, -4]]), (b"+1.,.5E+2\n", [[1, 50]]),
])
def test_a_plain_block_is_read_as_its_numbers(block, rows):
    assert scan.plain_block(block, 2)
    got = columnar.parse_lines(block, 2, verify=True)
    assert got.tolist() == rows and got.dtype == np.float64


def test_a_block_without_carriage_returns_is_not_scanned_again(monkeypatch):
    """The empty cells, blank lines and ragged rows the scan looks for are polars' nulls
    and errors: the block's bytes are passed over once, not once more by the scan."""
    calls = []
    monkeypatch.setattr(columnar, "plain_block", lambda *a: calls.append(a) or True)
    columnar.parse_lines(b"1,2\n3,4\n", 2, verify=True)
    assert calls == []
    columnar.parse_lines(b"1,2\r\n3,4\r\n", 2, verify=True)
    assert len(calls) == 1


def test_polars_is_imported_with_the_collector_paused():
    import subprocess
    import sys

    pytest.importorskip("polars")
    code = ("import gc, sys\nfrom gradcalc.ingest import columnar\nruns = []\n"
            "gc.callbacks.append(lambda phase, info: runs.append(phase))\n"
            "pl = columnar.polars()\n"
            "print(len(runs), gc.isenabled(), pl is sys.modules['polars'])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.stdout.split() == ["0", "True", "True"], proc.stderr


def table_file(tmp_path, rows: int):
    """A plain-number table of `rows` rows (a, b, c), its path, header and numbers."""
    from gradcalc.ingest.scan import csv_header

    numbers = np.arange(rows * 3, dtype=float).reshape(rows, 3) / 8
    path = tmp_path / "t.csv"
    path.write_text("a,b,c\n" + "".join(f"{a},{b},{c}\n" for a, b, c in numbers.tolist()))
    return str(path), csv_header([str(path)], {"a", "b", "c"}), numbers


@pytest.mark.parametrize("block_bytes", [40, 100, 1 << 23])
def test_chunks_cut_across_blocks_hold_the_tables_rows(tmp_path, monkeypatch, block_bytes):
    """Blocks that end mid-line, chunks that span several blocks: each chunk's rows in
    order, its numbers column-major (each column contiguous)."""
    path, header, numbers = table_file(tmp_path, 23)
    monkeypatch.setattr(columnar, "BLOCK_BYTES", block_bytes)
    pieces = list(columnar.csv_pieces([path], header, 5, verify=True))
    assert [(p.offset, p.rows) for p in pieces] == [(0, 5), (5, 5), (10, 5), (15, 5), (20, 3)]
    assert np.concatenate([p.data for p in pieces]).tolist() == numbers.tolist()
    assert all(p.data.flags.f_contiguous for p in pieces)


def test_inputs_reach_the_engine_as_views_of_the_chunk(tmp_path, monkeypatch):
    """Each scalar input the engine is given is a view of the chunk's numbers (no gather,
    no copy between polars' parse and the engine but the chunk's one)."""
    from gradcalc.commands import chunks, points
    from gradcalc.commands.jobs import Job

    path, header, _ = table_file(tmp_path, 12)
    job = Job("grad", "y = a*b + sin(c)", check=False)
    plan = chunks.plan(job, header, 12, False, 5)
    given = []
    real = points.evaluate
    monkeypatch.setattr(points, "evaluate", lambda program, values, *a: given.append(values)
                        or real(program, values, *a))
    for piece in columnar.csv_pieces([path], header, 5):
        chunks.compute(plan, piece)
        assert all(np.shares_memory(given[-1][name], piece.data) for name in "abc")
    assert len(given) == 3


class Watched(bytes):
    """A block that counts the searches made in it (`in`)."""

    searches = 0

    def __contains__(self, part):
        Watched.searches += 1
        return super().__contains__(part)


def test_a_checked_block_is_passed_over_once_for_bytes_and_carriage_returns():
    """The byte check's one pass (`bytes.translate`) also finds carriage returns: no
    search of the block of its own."""
    Watched.searches = 0
    numbers = columnar.parse_lines(Watched(b"1,2\n3,4\n"), 2, verify=True)
    assert numbers.tolist() == [[1, 2], [3, 4]] and Watched.searches == 0
    with pytest.raises(GradcalcError):
        columnar.parse_lines(Watched(b"1,2\r3,4\n"), 2, verify=True)

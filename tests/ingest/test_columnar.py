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

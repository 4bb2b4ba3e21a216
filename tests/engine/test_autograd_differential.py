"""Differential test: generated autograd scripts run on PyTorch and on gradcalc agree.

Each script (tests/differential_scripts.py) runs twice, with `lib` bound to torch (float64)
and to gradcalc; after every statement the two records must agree on every tensor's
values, shape, requires_grad, is_leaf and .grad (None included), on NumPy results, and
on which exception, if any, the statement raised.

Runs only where torch is installed (it is never a dependency of gradcalc). The number of
scripts is GRADCALC_DIFF_SCRIPTS (default 1000), starting at seed GRADCALC_DIFF_SEED
(default 0).
`PYTHONPATH=tests python tests/engine/test_autograd_differential.py N START` runs N scripts
from the command line and prints the agreement.
"""

from __future__ import annotations

import os
import sys
import warnings

import pytest
from differential_library import generate
from differential_scripts import first_difference, run_script

COUNT = int(os.environ.get("GRADCALC_DIFF_SCRIPTS", "1000"))
START = int(os.environ.get("GRADCALC_DIFF_SEED", "0"))


def compare(seed: int) -> str | None:
    """None when torch and gradcalc agree on script `seed`, else the first difference."""
    lines = generate(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = run_script(lines, "torch")
    actual = run_script(lines, "gradcalc")
    difference = first_difference(expected, actual)
    if difference is None:
        return None
    return f"seed {seed}:\n" + "\n".join(lines) + f"\n--- {difference}"


@pytest.mark.parametrize("block", range(10))
def test_scripts_agree_with_pytorch(block):
    pytest.importorskip("torch", reason="the differential test needs PyTorch installed")
    seeds = range(START + block, START + COUNT, 10)
    failures = [f for f in (compare(s) for s in seeds) if f is not None]
    assert not failures, f"{len(failures)} of {len(seeds)} scripts differ; first:\n{failures[0]}"


def test_generator_is_seeded_and_varied():
    assert generate(7) == generate(7)
    scripts = {tuple(generate(s)) for s in range(50)}
    assert len(scripts) == 50


def main(argv: list[str]) -> int:
    count = int(argv[1]) if len(argv) > 1 else COUNT
    start = int(argv[2]) if len(argv) > 2 else START
    failures = [f for f in (compare(s) for s in range(start, start + count)) if f is not None]
    for f in failures[:int(os.environ.get("GRADCALC_DIFF_SHOW", "3"))]:
        print(f, end="\n\n")
    agreed = count - len(failures)
    print(f"{agreed}/{count} scripts agree ({100 * agreed / count:.2f} %), seeds "
          f"{start}..{start + count - 1}")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

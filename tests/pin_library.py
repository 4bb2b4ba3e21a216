"""Writes tests/library_pinned.py: every case of tests/library_cases.py as PyTorch gives it.

Run by hand where torch is installed (never a dependency of gradcalc or its tests):
`python tests/pin_library.py`. The file it writes holds literals only.
"""

from __future__ import annotations

import pprint
import warnings
from pathlib import Path

from library_cases import CASES, observe

HEAD = '''"""PyTorch's answers to tests/library_cases.py, written by tests/pin_library.py with
torch {version} (CPU, float64). Literals only: the tests need no torch."""

nan = float("nan")
inf = float("inf")

PINNED = '''


def main() -> None:
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pinned = {name: observe("torch", name) for name in CASES}
    text = HEAD.format(version=torch.__version__) + pprint.pformat(pinned, width=96) + "\n"
    Path(__file__).with_name("library_pinned.py").write_text(text)
    print(f"{len(pinned)} cases pinned")


if __name__ == "__main__":
    main()

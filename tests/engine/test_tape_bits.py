"""The engine's numbers stay bit for bit what they were before its speed work
(tests/engine_cases.py pinned them): gradients, Hessians, Jacobians, --points and the
library's backward, nan, inf and signed zeros included; and a lean recording (nodes
keeping only what their rules read) gives the bits a full one gives."""

from __future__ import annotations

import engine_cases
import numpy as np
import pytest
from engine_cases import observe
from engine_pinned import PINNED

from gradcalc.engine import functional
from gradcalc.engine.diagonal import Diagonal
from gradcalc.engine.fused import fusion
from gradcalc.engine.tensor import Tensor


@pytest.fixture(scope="module")
def observed() -> dict:
    return observe()


def test_the_same_cases(observed: dict) -> None:
    assert sorted(observed) == sorted(PINNED)


@pytest.mark.parametrize("case", sorted(PINNED))
def test_bit_for_bit(observed: dict, case: str) -> None:
    assert observed[case] == PINNED[case]


def _gradients(program: str, lean: bool) -> list[str]:
    """The gradient (or, for a vector output, the Jacobian) of `program` at inputs past the
    size a lean node replaces by a stand-in, from a recording `lean` or not."""
    f, values = engine_cases._function(program)
    leaves = [Tensor(np.tile(v, 8), requires_grad=True) for v in values]
    with fusion(False):
        out, t = functional.record(f, leaves, lean=lean)
        shape = out.shape
        seed = np.ones(shape) if shape == () else Diagonal.identity(shape[0])
        grads = functional.sweep(out, seed, leaves, retain_graph=False, on=t)
    return [engine_cases._hex(out.value), *(engine_cases._hex(g) for g in grads)]


@pytest.mark.parametrize("program", [*engine_cases.PROGRAMS.values(),
                                     *engine_cases.VECTORS.values()])
def test_a_lean_recording_gives_the_same_bits(program: str) -> None:
    assert _gradients(program, lean=True) == _gradients(program, lean=False)

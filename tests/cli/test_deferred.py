"""sympy's tensor module deferred: sums built without it, tensors as before once used.
Each case runs in a fresh interpreter, as the script's process would."""

from __future__ import annotations

import subprocess
import sys

import pytest

DEFERRED = ("import sys\nfrom gradcalc.cli.deferred import defer_sympy_tensors\n"
            "defer_sympy_tensors()\nimport sympy\nx = sympy.Symbol('x')\n")


def _printed(code: str) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_sums_and_derivatives_need_not_load_the_tensor_module():
    code = DEFERRED + ("print(sympy.diff(x**2 + x*sympy.sin(x) + 3, x))\n"
                       "print(any(m.startswith('sympy.combinatorics') for m in sys.modules))\n"
                       "print(hasattr(sys.modules['sympy.tensor.tensor'], 'TensorHead'))")
    assert _printed(code) == ["x*cos(x) + 2*x + sin(x)", "False", "True"]


@pytest.mark.parametrize("use", [
    "from sympy.tensor.tensor import TensorIndexType, tensor_indices, tensor_heads as heads",
    "import sympy.tensor.tensor\nTensorIndexType = sympy.tensor.tensor.TensorIndexType\n"
    "tensor_indices, heads = sympy.tensor.tensor.tensor_indices, sympy.tensor.tensor.tensor_heads",
    "import sympy.tensor.tensor as t\nTensorIndexType, tensor_indices, heads = "
    "t.TensorIndexType, t.tensor_indices, t.tensor_heads",
])
def test_tensors_after_a_sum_are_sympys_own(use):
    """After sums made without it, the module's first use loads sympy's own: a sum of
    tensors is a TensAdd, and a tensor term in an Add is seen as one."""
    code = DEFERRED + (f"print(x + 1)\n{use}\nL = TensorIndexType('L')\n"
                       "i = tensor_indices('i', L)\nA, B = heads('A B', [L])\n"
                       "print(type(A(i) + B(i)).__name__, A(i) + B(i))\n"
                       "from sympy.tensor.tensor import TensExpr\n"
                       "print(sys.modules['sympy.tensor.tensor'].TensExpr is TensExpr,\n"
                       "      type(sympy.Add(A(i), B(i))).__name__)")
    assert _printed(code) == ["x + 1", "TensAdd A(i) + B(i)", "True TensAdd"]


def test_a_tensor_module_loaded_already_is_left_alone():
    code = ("import sys, sympy.tensor.tensor as real\nfinders = len(sys.meta_path)\n"
            "from gradcalc.cli.deferred import defer_sympy_tensors\ndefer_sympy_tensors()\n"
            "print(sys.modules['sympy.tensor.tensor'] is real, len(sys.meta_path) == finders)")
    assert _printed(code) == ["True True"]

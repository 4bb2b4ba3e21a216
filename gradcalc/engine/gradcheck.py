"""PyTorch's `gradcheck` and `gradgradcheck`: the tape's gradients against central finite
differences, for functions of tensors (custom Functions above all).

For each output and each input that requires grad, the numerical Jacobian (each input
element moved by ±eps) is compared with the analytical one (one backward sweep per output
element) by `allclose(analytical, numerical, rtol, atol)`; the Jacobians are (input
elements, output elements), as PyTorch's. A mismatch raises `GradcheckError` (a
RuntimeError) with PyTorch's message, or returns False with `raise_exception=False`.
The backward is run twice to check that it is reentrant (gives the same numbers).
`gradgradcheck` runs `gradcheck` on the function that returns the first gradients
(recorded with create_graph), for seeded random `grad_outputs` unless given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gradcalc.engine import autograd
from gradcalc.engine.tensor import Tensor

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """A gradient that does not match its finite differences (PyTorch's class name)."""


def _tuple(x: Any) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(func: Callable[..., Any], inputs: tuple) -> tuple:
    return tuple(o for o in _tuple(func(*inputs)) if isinstance(o, Tensor))


def _numerical(func: Callable[..., Any], inputs: tuple, j: int, eps: float) -> list:
    """d outputs / d inputs[j] by central differences: one (n_in, n_out) array per output."""
    x = inputs[j]
    base = np.array(x.value, dtype=np.float64)
    cols: list[list[np.ndarray]] = []
    for k in range(base.size):  # recording stays on: func may itself differentiate
        values = []
        for step in (eps, -eps):
            moved = base.copy()
            moved.reshape(-1)[k] += step
            x.value = moved
            try:
                values.append([np.array(o.value, dtype=np.float64).reshape(-1)
                               for o in _outputs(func, inputs)])
            finally:
                x.value = base
        cols.append([(p - m) / (2 * eps) for p, m in zip(*values, strict=True)])
    n_out = len(cols[0]) if cols else len(_outputs(func, inputs))
    return [np.stack([c[i] for c in cols]) if cols else np.zeros((0, 0)) for i in range(n_out)]


def _analytical(outputs: tuple, inputs: tuple, j: int) -> list:
    """d outputs / d inputs[j] from the tape: one backward per output element."""
    out = []
    x = inputs[j]
    for o in outputs:
        jac = np.zeros((x.numel(), o.numel()))
        if o.requires_grad:
            for k in range(o.numel()):
                seed = np.zeros(o.numel())
                seed[k] = 1.0
                (g,) = autograd.grad(o, x, Tensor.wrap(seed.reshape(o.shape), None),
                                     retain_graph=True, allow_unused=True)
                if g is not None:
                    jac[:, k] = np.asarray(g.value, dtype=np.float64).reshape(-1)
        out.append(jac)
    return out


def _fail(message: str, raise_exception: bool) -> bool:
    if raise_exception:
        raise GradcheckError(message)
    return False


def gradcheck(func: Callable[..., Any], inputs: Any, *, eps: float = 1e-6,
              atol: float = 1e-5, rtol: float = 1e-3, raise_exception: bool = True,
              nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False,
              masked: Any = None) -> bool:
    """True if every gradient of `func` at `inputs` matches central differences."""
    inputs = _tuple(inputs)
    wanted = [j for j, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not wanted:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    outputs = _outputs(func, inputs)
    if not check_backward_ad:
        return True
    for j in wanted:
        numerical = _numerical(func, inputs, j, eps)
        analytical = _analytical(outputs, inputs, j)
        for i, (a, n) in enumerate(zip(analytical, numerical, strict=True)):
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                return _fail(
                    f"Jacobian mismatch for output {i} with respect to input {j},\n"
                    f"numerical:{Tensor.wrap(n, None)!r}\nanalytical:{Tensor.wrap(a, None)!r}\n",
                    raise_exception)
        again = _analytical(outputs, inputs, j)
        if any(np.max(np.abs(a - b), initial=0.0) > nondet_tol
               for a, b in zip(analytical, again, strict=True)):
            return _fail(
                "Backward is not reentrant, i.e., running backward with same input and "
                "grad_output multiple times gives different values, although analytical "
                "gradient matches numerical gradient.The tolerance for nondeterminism was "
                f"{nondet_tol}.", raise_exception)
    return True


def gradgradcheck(func: Callable[..., Any], inputs: Any, grad_outputs: Any = None, *,
                  eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True,
                  fast_mode: bool = False, masked: Any = None) -> bool:
    """gradcheck of the first gradients (recorded with create_graph) as functions of the
    inputs and of the grad_outputs."""
    inputs = _tuple(inputs)
    outputs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(Tensor.wrap(rng.uniform(-1.0, 1.0, o.shape), None)
                             .requires_grad_(True) for o in outputs)
    grad_outputs = _tuple(grad_outputs)
    n = len(inputs)
    diff = [j for j, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def first_gradients(*args: Any) -> tuple:
        xs, gs = args[:n], args[n:]
        outs = [o for o in _outputs(func, xs) if o.requires_grad]
        grads = autograd.grad(outs, [xs[j] for j in diff], gs[:len(outs)], create_graph=True,
                              allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_gradients, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_backward_ad=check_rev_over_rev)

"""check_backward: a student's NumPy backward against the tape's exact VJP.

The forward is written with gradcalc's operations, so its VJP is exact (no step size, no
"relative error 1e-8 is probably fine"): a correct backward agrees to rounding, a wrong
one is named wrong, with its largest error and where it is. Shape mistakes are recognised
by their shape: the transpose of the gradient, or a per-sample gradient that misses the
sum over the batch. Value mistakes with the right shape are compared against the usual
suspects: the transpose, the wrong sign, a factor of the batch size (a mean for a sum).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.engine import autograd
from gradcalc.engine.tensor import Tensor, as_array

__all__ = ["check_backward", "BackwardReport", "InputVerdict"]


@dataclass
class InputVerdict:
    """The judgement for one input: `status` is 'correct', 'incorrect', 'wrong shape' or
    'missing' (the backward returned nothing for it)."""

    name: str
    status: str
    expected_shape: tuple[int, ...]
    got_shape: tuple[int, ...] | None = None
    max_error: float = 0.0
    relative_error: float = 0.0
    where: tuple[int, ...] | None = None
    expected_value: float | None = None
    got_value: float | None = None
    diagnosis: str = ""
    point: str = "the given inputs"

    @property
    def correct(self) -> bool:
        return self.status == "correct"

    def __str__(self) -> str:
        if self.correct:
            return (f"{self.name}: correct (largest difference {self.max_error:.1e}, "
                    f"at {self.point})")
        if self.status == "missing":
            return f"{self.name}: missing (the backward returned no gradient for it)"
        if self.status == "wrong shape":
            text = (f"{self.name}: wrong shape {self.got_shape}, expected "
                    f"{self.expected_shape}")
            return text + (f": {self.diagnosis}" if self.diagnosis else "")
        text = (f"{self.name}: incorrect at {self.point}: largest error {self.max_error:.3g} "
                f"at index {self.where} (expected {self.expected_value:.6g}, got "
                f"{self.got_value:.6g})")
        return text + (f"; {self.diagnosis}" if self.diagnosis else "")


@dataclass
class BackwardReport:
    """One verdict per differentiated input, at the first point where any was wrong (or
    at the given inputs when all are right everywhere); `points` were tried in all."""

    verdicts: list[InputVerdict] = field(default_factory=list)
    points: int = 0

    @property
    def ok(self) -> bool:
        return all(v.correct for v in self.verdicts)

    def __bool__(self) -> bool:
        return self.ok

    def __getitem__(self, name: str) -> InputVerdict:
        for v in self.verdicts:
            if v.name == name:
                return v
        raise KeyError(name)

    def __str__(self) -> str:
        head = (f"backward correct at {self.points} points" if self.ok
                else "backward incorrect")
        return "\n".join([head, *(f"  {v}" for v in self.verdicts)])


def _names(inputs: Any) -> tuple[list[str], list[np.ndarray], bool]:
    if isinstance(inputs, Mapping):
        return list(inputs), [np.asarray(v) for v in inputs.values()], True
    if isinstance(inputs, np.ndarray) or not isinstance(inputs, Sequence):
        inputs = (inputs,)
    return [f"input {i}" for i in range(len(inputs))], [np.asarray(v) for v in inputs], False


def _shape_diagnosis(expected: tuple, got: tuple, batch: int | None) -> str:
    if len(got) == 2 and got == expected[::-1]:
        return "the transpose of the gradient (a missing or extra .T)"
    if batch is not None and got == (batch,) + expected:
        return "one gradient per sample: missing the sum over the batch (axis 0)"
    if batch is not None and len(got) == len(expected) + 1 and got[0] == batch and \
            got[1:] == expected:
        return "missing the sum over the batch (axis 0)"
    if np.prod(got, dtype=np.int64) == np.prod(expected, dtype=np.int64):
        return "the right number of elements in the wrong shape (a missing reshape)"
    return ""


def _value_diagnosis(expected: np.ndarray, got: np.ndarray, batch: int | None,
                     close: Callable[[np.ndarray, np.ndarray], bool]) -> str:
    if expected.ndim == 2 and expected.shape[0] == expected.shape[1] and close(got, expected.T):
        return "it is the transpose of the right gradient"
    if close(got, -expected):
        return "it is the right gradient with the wrong sign"
    if batch and batch > 1:
        if close(got, expected * batch):
            return f"it is {batch} times the right gradient (a sum where a mean is meant)"
        if close(got, expected / batch):
            return f"it is the right gradient divided by {batch} (a mean where a sum is meant)"
    wrong = ~np.isclose(got, expected, rtol=1e-7, atol=1e-9 * max(1.0, np.abs(expected).max()))
    share = int(wrong.sum())
    return f"{share} of {expected.size} elements differ"


def _judge(name: str, expected: np.ndarray, got: Any, batch: int | None, point: str,
           rtol: float, atol: float) -> InputVerdict:
    exp_shape = tuple(expected.shape)
    if got is None:
        return InputVerdict(name, "missing", exp_shape, point=point)
    got = np.asarray(got, dtype=np.float64)
    if got.shape != expected.shape:
        return InputVerdict(name, "wrong shape", exp_shape, tuple(got.shape),
                            diagnosis=_shape_diagnosis(exp_shape, tuple(got.shape), batch),
                            point=point)
    scale = max(1.0, float(np.abs(expected).max(initial=0.0)))

    def close(a: np.ndarray, b: np.ndarray) -> bool:
        return bool(np.allclose(a, b, rtol=rtol, atol=atol * scale))

    diff = np.abs(got - expected)
    worst = np.unravel_index(int(np.nanargmax(np.where(np.isnan(diff), np.inf, diff))),
                             diff.shape) if diff.size else ()
    max_error = float(diff[worst]) if diff.size else 0.0
    relative = max_error / max(float(np.abs(expected[worst]) + np.abs(got[worst])), 1e-300) \
        if diff.size else 0.0
    verdict = InputVerdict(name, "correct", exp_shape, tuple(got.shape), max_error, relative,
                           tuple(int(i) for i in worst),
                           float(expected[worst]) if diff.size else None,
                           float(got[worst]) if diff.size else None, point=point)
    if not close(got, expected):
        verdict.status = "incorrect"
        verdict.diagnosis = _value_diagnosis(expected, got, batch, close)
    return verdict


def _exact(forward: Callable[..., Any], arrays: list[np.ndarray], names: list[str],
           keyword: bool, wrt: list[int], grad_output: Any, rng: np.random.Generator
           ) -> tuple[list[np.ndarray], np.ndarray]:
    tensors = [Tensor.wrap(as_array(a), None).requires_grad_(i in wrt) if i in wrt
               else Tensor.wrap(np.asarray(a), None) for i, a in enumerate(arrays)]
    out = forward(**dict(zip(names, tensors, strict=True))) if keyword else forward(*tensors)
    out = out if isinstance(out, Tensor) else Tensor.wrap(as_array(out), None)
    if grad_output is None:
        dout = np.ones(out.shape) if out.ndim == 0 else rng.standard_normal(out.shape)
    else:
        dout = np.asarray(grad_output, dtype=np.float64).reshape(out.shape)
    grads = autograd.grad(out, [tensors[i] for i in wrt], Tensor.wrap(dout, None),
                          allow_unused=True)
    return [np.zeros(arrays[i].shape) if g is None else np.asarray(g.value)
            for i, g in zip(wrt, grads, strict=True)], dout


def check_backward(forward: Callable[..., Any], backward: Callable[..., Any], inputs: Any,
                   grad_output: Any = None, *, wrt: Sequence[str] | None = None,
                   trials: int = 2, seed: int = 0, rtol: float = 1e-7,
                   atol: float = 1e-9) -> BackwardReport:
    """Judge `backward(dout, *inputs)` (or `backward(dout, **inputs)` when `inputs` is a
    dict) -- NumPy arrays in, one gradient array per differentiated input out -- against
    the exact VJP of `forward(*inputs)` written with gradcalc's operations.

    The check runs at the given inputs and at `trials` seeded random inputs (normal values
    of the same shapes; inputs outside `wrt`, such as labels, are kept). `wrt` names the
    inputs the backward returns gradients for (default: all of them, in order).
    `grad_output` is the upstream gradient dout (default: 1 for a scalar output, seeded
    normal values otherwise). A report is returned; it is true when every gradient agrees
    to `rtol`/`atol` (relative to the gradient's largest element) at every point.
    """
    names, arrays, keyword = _names(inputs)
    wanted = list(names) if wrt is None else list(wrt)
    unknown = [w for w in wanted if w not in names]
    if unknown:
        raise ValueError(f"wrt names inputs that do not exist: {unknown}; inputs: {names}")
    index = [names.index(w) for w in wanted]
    rng = np.random.default_rng(seed)
    batch = int(arrays[index[0]].shape[0]) if arrays[index[0]].ndim else None
    report = BackwardReport()
    for trial in range(trials + 1):
        point = "the given inputs" if trial == 0 else f"random inputs #{trial} (seed {seed})"
        current = [a.copy() for a in arrays]
        if trial:
            for i in index:
                current[i] = rng.standard_normal(arrays[i].shape)
        expected, dout = _exact(forward, current, names, keyword, index,
                                grad_output if trial == 0 else None, rng)
        call = [c.copy() for c in current]
        got = (backward(dout.copy(), **dict(zip(names, call, strict=True))) if keyword
               else backward(dout.copy(), *call))
        got = list(got) if isinstance(got, (tuple, list)) else [got]
        got += [None] * (len(index) - len(got))
        verdicts = [_judge(wanted[k], expected[k], got[k], batch, point, rtol, atol)
                    for k in range(len(index))]
        report.points = trial + 1
        if trial == 0 or not all(v.correct for v in verdicts):
            report.verdicts = verdicts
        if not all(v.correct for v in verdicts):
            break
    return report

"""`gradcalc.testing`: judging hand-written gradients against the tape's exact ones.

`check_backward(forward, backward, inputs, grad_output=None)` runs a student's NumPy
backward (CS231n's `affine_backward`, `relu_backward`, `conv_backward_naive`, ...) against
the exact vector-Jacobian product of `forward` written with gradcalc's operations, at the
given inputs and at seeded random ones, and says per input whether it is correct, and if
not, how far off, where, and what the shape or value mistake looks like. Imported only when
used.
"""

from gradcalc.testing.backward import BackwardReport, InputVerdict, check_backward

__all__ = ["check_backward", "BackwardReport", "InputVerdict"]

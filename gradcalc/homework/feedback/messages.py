"""The feedback texts that several kinds of problem say alike, each written once: a sign
error, a constant factor, the function itself, a derivative for an antiderivative and back.
`of` is what the answer should have been (`the derivative`, `the gradient`, `dy/dx`);
`why` is a kind's own reminder, printed in brackets or after a colon."""

from __future__ import annotations


def sign_error(of: str, subject: str = "the answer", why: str = "") -> str:
    """`sign error: the answer is the negative of the derivative`."""
    return f"sign error: {subject} is the negative of {of}" + (f" ({why})" if why else "")


def times(factor: str, of: str, subject: str = "the answer") -> str:
    """`the answer is 2 times the derivative`."""
    return f"{subject} is {factor} times {of}"


def constant_factor(factor: str, of: str, why: str = "") -> str:
    """`off by a constant factor: the answer is 2 times the derivative`."""
    return f"off by a constant factor: {times(factor, of)}" + (f" ({why})" if why else "")


def the_function_itself(then: str) -> str:
    """`the answer is the function itself` and what to do instead."""
    return f"the answer is the function itself{then}"


#: a derivative asked, an antiderivative given
ANTIDERIVATIVE_FOR_DERIVATIVE = ("an antiderivative of the function (its derivative is the "
                                 "function): differentiate, don't integrate")
#: an antiderivative asked, the derivative given
DERIVATIVE_FOR_ANTIDERIVATIVE = ("the answer is the derivative of the function: "
                                 "integrate, don't differentiate")

"""One exception hierarchy; the CLI maps it to `error:` lines and exit codes."""

from __future__ import annotations


class GradcalcError(Exception):
    """Bad input or usage: exit code 2. `kind` names the class of problem for JSON."""

    kind = "input"

    def __init__(self, message: str, *, kind: str | None = None) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind

    @property
    def message(self) -> str:
        return str(self.args[0])


class ParseError(GradcalcError):
    """The program text is not valid gradcalc (syntax or a forbidden construct)."""

    kind = "parse"


class LimitError(GradcalcError):
    """An input exceeds a resource limit (size, depth, iterations, time)."""

    kind = "limit"


class EvalError(GradcalcError):
    """The program is valid but cannot be evaluated (unknown name, shape mismatch, ...)."""

    kind = "eval"


class ShapeError(GradcalcError):
    """Weights, outputs or values have shapes that do not fit together."""

    kind = "shape"

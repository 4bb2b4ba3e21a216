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


def failure(exc: Exception, report: str = "please report it") -> tuple[str, str]:
    """(kind, message) for whatever ended a run: the one mapping of exceptions to errors
    that the command line and batch share. Anything not a GradcalcError, a too-deep
    program or memory exhaustion is a bug: an "internal" error asking for a report."""
    if isinstance(exc, GradcalcError):
        return exc.kind, exc.message
    if isinstance(exc, RecursionError):
        return "limit", "the program is nested too deeply to evaluate"
    if isinstance(exc, MemoryError):
        return "limit", "out of memory: the program's arrays are too large"
    return "internal", f"internal error ({type(exc).__name__}): {exc}; {report}"

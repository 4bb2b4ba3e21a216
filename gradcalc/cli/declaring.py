"""The typer application every command is declared on, and `declare`: a command from its
parameters as data (name, option alias, default) and one function that takes them all,
so a command's options are a list to read, not a signature to parse."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

app = typer.Typer(
    name="gradcalc",
    help="Gradients, vector-Jacobian products, Jacobians and Hessians of small programs, "
    "computed on gradcalc's own autograd tape and checked against sympy.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

#: one parameter of a command: its name, its typer alias and its default
Parameter = tuple[str, Any, Any]
REQUIRED = inspect.Parameter.empty


def _version(value: bool) -> None:
    if value:
        from gradcalc import __version__

        sys.stdout.write(f"gradcalc {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _options(
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True,
        help="Print gradcalc's version and exit.")] = False,
) -> None:
    """Gradients, vector-Jacobian products, Jacobians and Hessians of small programs,
    computed on gradcalc's own autograd tape and checked against sympy."""


def declare(name: str, doc: str, parameters: list[Parameter],
            run: Callable[[dict[str, Any]], None]) -> None:
    """Register command `name`: --help lists `parameters` in order, and `run` gets every
    value as one dict keyed by the parameters' names."""
    params = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=default,
                                annotation=alias) for n, alias, default in parameters]

    def command(**options: Any) -> None:
        run(options)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    command.__doc__ = doc
    command.__name__ = name
    app.command(name=name)(command)

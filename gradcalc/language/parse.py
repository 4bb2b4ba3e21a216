"""Program text -> Program (gradcalc/language/program.py): the parser's stages in order.

Nothing is ever evaluated: the text is normalised (gradcalc/language/text.py), student
notation is rewritten (notation.py), statements are split (statements.py), Python's
`ast.parse` reads the result within bounds, and the whitelist converter (convert.py)
builds the IR or rejects the construct with its position.

Positions (`Pos`) are 1-based lines and columns (code points) of the user's original
text. A node's position is where it starts, except binary operators, whose position is
the operator's. Inside a superscript exponent (`x⁻¹`) columns point at its start.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Collection
from dataclasses import replace

from gradcalc.errors import LimitError, ParseError
from gradcalc.language.convert import Converter
from gradcalc.language.forms import Trap, prepare
from gradcalc.language.glued import unglue
from gradcalc.language.notation import rewrite, superscript_test
from gradcalc.language.program import Program
from gradcalc.language.statements import split_statements
from gradcalc.language.text import (  # noqa: F401 - the parser's public helpers
    LineIndex,
    Where,
    codepoint,
    escape,
    normalize,
    normalize_with_origin,
    quote,
)
from gradcalc.limits import DEFAULT_LIMITS, Limits

# --------------------------------------------------------------------------- bounds

_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?")


def long_literal(text: str, max_digits: int) -> tuple[int, str] | None:
    """(offset, literal) of the first number literal with more than `max_digits` digits
    outside comments, or None."""
    start = 0
    for line in text.split("\n"):
        for m in _NUMBER.finditer(line.split("#", 1)[0]):
            if sum(c.isdigit() for c in m.group()) > max_digits:
                return start + m.start(), m.group()
        start += len(line) + 1
    return None


def _measure(tree: ast.AST, limits: Limits, where: Where) -> None:
    """Bound the node count and nesting depth, iteratively (before any recursion)."""
    count = 0
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (ast.expr, ast.stmt)):
            count += 1
            depth += 1
            if count > limits.max_nodes:
                raise LimitError(
                    f"program has more than {limits.max_nodes:,} syntax nodes "
                    f"(the limit is {limits.max_nodes:,})"
                )
            if depth > limits.max_depth:
                raise LimitError(
                    f"program nests deeper than {limits.max_depth} levels at "
                    f"{where.of(node)} (the limit is {limits.max_depth})"
                )
        stack.extend((child, depth) for child in ast.iter_child_nodes(node))


def _ast_parse(text: str, where: Where, limits: Limits) -> ast.Module:
    try:
        with warnings.catch_warnings():  # e.g. SyntaxWarning "invalid decimal literal"
            warnings.simplefilter("ignore")
            return ast.parse(text, mode="exec")
    except SyntaxError as e:
        line, col = e.lineno or 1, (e.offset or 1) - 1
        pos = where.at(where.offset(line, col))
        msg = re.sub(r"on line (\d+)", lambda m: f"on line {where.line(int(m[1]))}", e.msg)
        if any(s in msg for s in ("too many nested", "too many levels", "too complex")):
            raise LimitError(
                f"program nests too deeply at {pos}: {escape(msg, quotes=False)} "
                f"(gradcalc's limit is {limits.max_depth} levels)"
            ) from None
        raise ParseError(f"syntax error at {pos}: {escape(msg, quotes=False)}") from None
    except (RecursionError, MemoryError):
        raise LimitError(
            f"program nests too deeply for Python's parser (gradcalc's limit is "
            f"{limits.max_depth} levels)"
        ) from None


# --------------------------------------------------------------------------- entry point


def _located(trap: Trap, origin: list[int]) -> Trap:
    """The trap with its offsets in the text the stage's offsets came from."""
    if trap.start < 0 or trap.end <= trap.start:
        return trap
    return replace(trap, start=origin[trap.start], end=origin[trap.end - 1] + 1)


def parse(
    text: str,
    *,
    functions: Collection[str] | None = None,
    limits: Limits = DEFAULT_LIMITS,
    notation: bool = True,
    applied: Collection[str] = (),
    variables: Collection[str] = (),
    given: Collection[str] = (),
    remainder: bool = False,
) -> Program:
    """Parse a gradcalc program; raise ParseError (bad text) or LimitError (too big).

    `functions`: the callable names (default: the keys of ops.FUNCTIONS). `notation`:
    read student notation (`2x`, `sin²(x)`, `f(x) = ...`, LaTeX, `|x|`); False reads the
    plain language only (the two agree on every program the plain language accepts).
    `applied`: names to read as a function of one letter (`sint` as sin(t)), for a caller
    that knows the letter is a variable and the name is none (see names.applied).
    `variables`: names the caller knows are variables, so that another name written
    wholly as functions, digits and these (`xsinx`, `cos2x`, `xy`) is read apart
    (gradcalc/language/glued.py). `given`: names the caller gives values (a command's
    `--at` names): variables that the notation pass never reads another way, so that a
    valid program keeps its meaning (`xe^x` with xe given is xe^x, not x·e^x).
    `remainder`: read `a % b` (a key's parameters), refused elsewhere.
    """
    return parse_with_traps(text, functions=functions, limits=limits, notation=notation,
                            applied=applied, variables=variables, given=given,
                            remainder=remainder)[0]


def parse_with_traps(
    text: str,
    *,
    functions: Collection[str] | None = None,
    limits: Limits = DEFAULT_LIMITS,
    notation: bool = True,
    applied: Collection[str] = (),
    variables: Collection[str] = (),
    given: Collection[str] = (),
    remainder: bool = False,
) -> tuple[Program, tuple[Trap, ...]]:
    """`parse`, and the conventional readings it took where another reading of the same
    text exists (`sin x^2` as sin(x²), `1/2x` as (1/2)·x, `sin^-1 x` as asin(x): see
    gradcalc/language/forms.py `Trap`), in the order of the text, so a caller can show
    "read as ..." and judge the other reading too (each `Trap.other` parses alone)."""
    if functions is None:
        from gradcalc.engine.ops import FUNCTIONS

        functions = FUNCTIONS
    if len(text) > limits.max_source_chars:
        raise LimitError(
            f"program is {len(text):,} characters; the limit is {limits.max_source_chars:,}"
        )
    original = text.removeprefix("\ufeff")
    normalized, norm_origin = normalize_with_origin(original)
    lines = LineIndex(original)
    if notation:
        normalized, step = prepare(normalized, functions, lambda k: lines.pos(norm_origin[k]),
                                   limits.max_depth)
        norm_origin = [norm_origin[k] for k in step]
        normalized, step, glued = unglue(normalized, functions, variables,
                                         lambda k: lines.pos(norm_origin[k]), given)
        glued = tuple(_located(t, norm_origin) for t in glued)
        norm_origin = [norm_origin[k] for k in step]
        student = rewrite(normalized, functions, lambda k: lines.pos(norm_origin[k]),
                          superscript_test(original, norm_origin), applied, variables, given)
        rewritten, inputs, tokens = student.text, student.inputs, student.tokens
        traps = glued + tuple(_located(t, norm_origin) for t in student.traps)
        if tokens is None:
            norm_origin = [norm_origin[k] for k in student.origin]
    else:
        rewritten, inputs, tokens, traps = normalized, (), None, ()
    parsed, split_origin = split_statements(rewritten, tokens)
    where = Where(original, parsed, [norm_origin[k] for k in split_origin])
    found = long_literal(parsed, limits.max_literal_digits)
    if found:
        offset, literal = found
        raise LimitError(
            f"number {quote(literal)} at {where.at(offset)} has more than "
            f"{limits.max_literal_digits} digits (the limit is {limits.max_literal_digits})"
        )
    tree = _ast_parse(parsed, where, limits)
    if not tree.body:
        raise ParseError("the program is empty")
    _measure(tree, limits, where)
    try:
        body = Converter(frozenset(functions), where, remainder).block(tree.body)
    except RecursionError:
        raise LimitError(
            f"program nests too deeply (limit {limits.max_depth} levels)"
        ) from None
    return Program(body, source=text, inputs=inputs), traps

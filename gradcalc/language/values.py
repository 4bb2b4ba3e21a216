"""Value literals for --at, --weights and --expect, read through an ast whitelist.

A value is a number, `pi`, `E` (or `e`), `nan`, `inf`, a nested list, `ones(n)`,
`ones(n, m)`, `zeros(...)`, a function of a value (`sqrt exp log sin cos tan`, `abs`,
the other trig and hyperbolic functions and their inverses: every elementwise function
of one argument in the table of primitives; and `log(x, b)`), or arithmetic
`+ - * / **` (and unary minus) of those, computed in float64 with NumPy broadcasting.
Student notation reads as in programs (`2pi`, `√2`, `π/4`, `e^2`, `|-2|`, `\\frac{\\pi}{4}`,
`sin 2`); names may be Greek.
Overflow (`1e999`, `10**10**10`), division by zero, invalid
operations, ragged or empty arrays, booleans and anything else are errors (kind "value").
Hexadecimal, octal and binary literals are rejected, as in programs.
"""

from __future__ import annotations

import ast
import math
import re
import reprlib
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

from gradcalc.engine.primitive import PRIMITIVES, derived
from gradcalc.errors import GradcalcError, LimitError
from gradcalc.language.forms import prepare
from gradcalc.language.notation import rewrite
from gradcalc.language.parse import LineIndex, long_literal, normalize, quote
from gradcalc.language.program import Pos
from gradcalc.language.text import GREEK_NAMES
from gradcalc.limits import DEFAULT_LIMITS, Limits

_CONSTANTS = {"pi": math.pi, "E": math.e, "e": math.e, "nan": math.nan, "inf": math.inf}
#: constants that cannot be names (`e` can: a value given to `e` makes it an input)
_RESERVED = frozenset(_CONSTANTS) - {"e"}


def _functions() -> dict[str, Any]:
    """The functions a value may use, besides ones() and zeros() (`x=|-2|`,
    `x=\\sec(\\pi/3)`, `x=arcsin(1/2)`): every elementwise function of one argument in
    the table of primitives, by each of its names, as its NumPy forward."""
    return derived("value functions", lambda: {
        name: p.forward for p in PRIMITIVES.values()
        if p.elementwise and p.arity == (1, 1) and p.call is None for name in p.names})


_GREEK = "".join(sorted(GREEK_NAMES))
_OPS = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply,
        ast.Div: np.divide, ast.Pow: np.power}
_FP_ERRORS = {"overflow": "overflows float64",  # "invalid" before "divide": 0/0 is both
              "invalid": "invalid operation (the result is not a number)",
              "divide": "division by zero"}
_IDENTIFIER = re.compile(rf"[A-Za-z_{_GREEK}][A-Za-z0-9_{_GREEK}]*")


class _Bad(Exception):
    """A problem with one value; the caller adds which option and text it came from."""


def parse_assignments(
    texts: Iterable[str] | str,
    *,
    option: str = "--at",
    limits: Limits = DEFAULT_LIMITS,
) -> dict[str, np.ndarray]:
    """`["x=1", "a=[1,2], b=ones(3)"]` -> {name: float64 array (0-d for scalars)}.

    Several assignments in one text are separated by top-level commas; a name given
    twice (in one text or across texts) is an error.
    """
    result: dict[str, np.ndarray] = {}
    for text in [texts] if isinstance(texts, str) else texts:
        pieces = [p for p in split_top_level(_normalized(text, option, limits)) if p.strip()]
        if not pieces:
            raise _error(option, text, "expected NAME=VALUE, e.g. x=[1,2]")
        for piece in pieces:
            name, sep, value = piece.partition("=")
            name = name.strip()
            if not sep or value.startswith("="):
                raise _error(option, text, f"expected NAME=VALUE in {quote(piece.strip())}")
            _check_name(name, option, text)
            if name in result:
                raise _error(option, text, f"{quote(name)} is given more than once")
            result[name] = _evaluate(value, option, text, limits)
    return result


def parse_value(
    text: str, *, option: str = "--weights", limits: Limits = DEFAULT_LIMITS
) -> np.ndarray:
    """One value literal (no `name=`), e.g. `[0.1, 1.0, 0.001]` -> float64 array."""
    return _evaluate(_normalized(text, option, limits), option, text, limits)


def value_from_data(
    data: Any, *, what: str = "value", limits: Limits = DEFAULT_LIMITS
) -> np.ndarray:
    """A value given as data (e.g. from JSON): a number, nested lists of numbers, or a
    literal string such as "ones(3)"; the same checks as literals."""
    if isinstance(data, str):
        return parse_value(data, option=what, limits=limits)
    shown = reprlib.repr(data)  # short, and bounded however deep `data` nests
    stack: list[tuple[Any, int]] = [(data, 0)]
    numbers = 0
    while stack:  # iterative: the data may nest deeply
        item, depth = stack.pop()
        if depth > limits.max_depth:
            raise _error(what, shown, f"nested deeper than {limits.max_depth} levels")
        if isinstance(item, list):
            if not item:
                raise _error(what, shown, "empty array")
            stack.extend((x, depth + 1) for x in item)
        elif isinstance(item, bool) or not isinstance(item, (int, float)):
            raise _error(what, shown, f"{quote(repr(item))} is not a number")
        elif isinstance(item, float) and not math.isfinite(item):
            # JSON has no nan or infinity; Python's reader turns NaN, Infinity and 1e999
            # into them: say so rather than compute with an overflow
            raise _error(what, shown, f"{item!r} is not a finite number (JSON numbers are "
                         "finite; 1e999 overflows float64; for a nan or inf value write the "
                         'literal as a string, e.g. "nan")')
        else:
            numbers += 1
            if numbers > limits.max_array_elements:
                raise _error(what, shown, f"more than {limits.max_array_elements:,} elements")
    try:
        array = np.array(data, dtype=np.float64)
    except OverflowError:
        raise _error(what, shown, "a number overflows float64") from None
    except ValueError:
        raise _error(what, shown, "ragged array (rows of different lengths)") from None
    if array.size > limits.max_array_elements:
        raise _error(what, shown, f"more than {limits.max_array_elements:,} elements")
    return array


# --------------------------------------------------------------------------- internals


def _error(option: str, text: str, problem: str) -> GradcalcError:
    return GradcalcError(f"{option} {quote(text)}: {problem}", kind="value")


def _normalized(text: str, option: str, limits: Limits) -> str:
    if len(text) > limits.max_source_chars:
        raise LimitError(
            f"{option} value is {len(text):,} characters; the limit is "
            f"{limits.max_source_chars:,}"
        )
    try:
        return normalize(text)
    except GradcalcError as e:
        raise _error(option, text, e.message) from None


def _notation(value: str, option: str, text: str) -> str:
    """A value's student notation (`2pi`, `√2`) rewritten, as in programs."""
    names = ["ones", "zeros", *_functions()]
    try:
        value, _ = prepare(value, names, lambda k: Pos(1, k + 1))
        return rewrite(value, names, lambda k: Pos(1, k + 1)).text
    except GradcalcError as e:
        raise _error(option, text, e.message) from None


def split_top_level(text: str) -> list[str]:
    """Split at commas outside brackets (NAME=VALUE, NAME=VALUE)."""
    pieces, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        depth += (ch in "([{") - (ch in ")]}")
        if ch == "," and depth == 0:
            pieces.append(text[start:k])
            start = k + 1
    pieces.append(text[start:])
    return pieces


def _check_name(name: str, option: str, text: str) -> None:
    if not _IDENTIFIER.fullmatch(name):
        raise _error(option, text, f"{quote(name)} is not a name (letters, digits, '_')")
    if name.startswith("_"):
        raise _error(option, text, f"{quote(name)}: names starting with '_' are not allowed")
    if name in _RESERVED:
        raise _error(option, text, f"{quote(name)} is a constant and cannot be given a value")


def _evaluate(value: str, option: str, text: str, limits: Limits) -> np.ndarray:
    value = _notation(value.strip(), option, text)
    if not value:
        raise _error(option, text, "the value is missing")
    found = long_literal(value, limits.max_literal_digits)
    if found:
        raise _error(option, text, f"number {quote(found[1])} has more than "
                     f"{limits.max_literal_digits} digits")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(value, mode="eval")
    except SyntaxError as e:
        raise _error(option, text, f"syntax error: {e.msg}") from None
    except (RecursionError, MemoryError):
        raise _error(option, text, "nested too deeply") from None
    try:
        _check_depth(tree, limits)
        with np.errstate(over="raise", divide="raise", invalid="raise", under="ignore"):
            return np.asarray(_Evaluator(value, limits).evaluate(tree.body), dtype=np.float64)
    except _Bad as e:
        raise _error(option, text, str(e)) from None
    except FloatingPointError as e:
        kind = next((v for k, v in _FP_ERRORS.items() if k in str(e)), "arithmetic error")
        raise _error(option, text, kind) from None


def _check_depth(tree: ast.AST, limits: Limits) -> None:
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limits.max_depth:
            raise _Bad(f"nested deeper than {limits.max_depth} levels")
        stack.extend((c, depth + 1) for c in ast.iter_child_nodes(node))


class _Evaluator:
    """Evaluates a whitelisted value ast to a float64 array (recursion is depth-bounded)."""

    def __init__(self, source: str, limits: Limits) -> None:
        self.source = source
        self.lines = LineIndex(source)
        self.limits = limits

    def segment(self, node: ast.AST) -> str:
        return self.lines.segment(self.source, node)

    def evaluate(self, node: ast.expr) -> np.ndarray:
        if isinstance(node, ast.Constant):
            return self.number(node)
        if isinstance(node, ast.Name):
            if node.id not in _CONSTANTS:
                raise _Bad(f"unknown name {quote(node.id)}: a value is made of numbers, "
                           "lists, pi, e, nan, inf, ones(...), zeros(...) and sqrt, exp, "
                           "log, sin, cos, tan")
            return np.asarray(_CONSTANTS[node.id])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.evaluate(node.operand)
            return np.asarray(-operand if isinstance(node.op, ast.USub) else operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            left, right = self.evaluate(node.left), self.evaluate(node.right)
            try:
                shape = np.broadcast_shapes(left.shape, right.shape)
            except ValueError:
                raise _Bad(f"shapes {left.shape} and {right.shape} do not match") from None
            self.check_size(shape)
            return np.asarray(_OPS[type(node.op)](left, right), dtype=np.float64)
        if isinstance(node, ast.List):
            return self.array(node)
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else None
            functions = _functions()
            if name in functions and len(node.args) == 1 and not node.keywords:
                return np.asarray(functions[name](self.evaluate(node.args[0])))
            if name == "log" and len(node.args) == 2 and not node.keywords:  # log(x, base)
                x, base = (self.evaluate(a) for a in node.args)
                return np.asarray(np.log(x) / np.log(base))
            return self.filled(node)
        segment = self.segment(node) or type(node).__name__
        raise _Bad(f"{quote(segment)} is not allowed in a value; a value is made of "
                   "numbers, lists, pi, E, nan, inf, ones(...), zeros(...) and + - * / **")

    def number(self, node: ast.Constant) -> np.ndarray:
        v = node.value
        if isinstance(v, bool):
            raise _Bad(f"{v} is not a number (use 1 or 0)")
        if not isinstance(v, (int, float)):
            raise _Bad(f"{quote(repr(v))} is not a number")
        literal = self.segment(node)
        if literal[:2].lower() in ("0x", "0o", "0b"):
            raise _Bad(f"{quote(literal)}: write numbers in decimal")
        try:
            value = float(v)
        except OverflowError:
            value = math.inf
        if math.isinf(value):
            raise _Bad(f"{quote(literal)} overflows float64")
        return np.asarray(value)

    def array(self, node: ast.List) -> np.ndarray:
        if not node.elts:
            raise _Bad("empty array")
        items = [self.evaluate(x) for x in node.elts]
        if any(item.shape != items[0].shape for item in items):
            raise _Bad("ragged array (rows of different lengths)")
        self.check_size((len(items), *items[0].shape))
        return np.stack(items)

    def filled(self, node: ast.Call) -> np.ndarray:
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name not in ("ones", "zeros") or node.keywords or not 1 <= len(node.args) <= 2:
            segment = self.segment(node) or "call"
            raise _Bad(f"{quote(segment)} is not allowed; the only calls in a value are "
                       "ones(n), ones(n, m), zeros(n), zeros(n, m) and sqrt, exp, log, sin, "
                       "cos, tan of a value")
        shape = tuple(self.count(a) for a in node.args)
        self.check_size(shape)
        return np.ones(shape) if name == "ones" else np.zeros(shape)

    def count(self, node: ast.expr) -> int:
        v = self.evaluate(node)
        if v.shape or not math.isfinite(float(v)) or float(v) != int(v) or v < 1:
            raise _Bad("ones()/zeros() take positive whole numbers")
        if float(v) > self.limits.max_array_elements:
            self.check_size((float(v),))
        return int(v)

    def check_size(self, shape: tuple) -> None:
        if math.prod(shape) > self.limits.max_array_elements:
            raise _Bad(f"an array of shape {tuple(int(s) for s in shape)} has more than "
                       f"{self.limits.max_array_elements:,} elements")

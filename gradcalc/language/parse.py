"""Program text -> Program (gradcalc/language/program.py): normalise, split, whitelist Python's ast.

Nothing is ever evaluated: the text goes through `ast.parse` only, and every ast node is
converted by hand or rejected with a ParseError that names the construct and its position.

Decisions:
- Number literals are decimal (`1_000` is fine); hexadecimal, octal and binary literals
  are rejected. A literal that overflows float64 (`1e999`) is rejected.
- Positions (`Pos`) are 1-based lines and columns (code points) of the user's original
  text. A node's position is where it starts, except binary operators, whose position
  is the operator's. Inside a superscript exponent (`x⁻¹`) columns point at its start.
- Beyond Python, a compound statement may follow `;` or another header's `:` on one line:
  `y = x; while c: y = y*2; z = y` puts everything after `while c:` into the loop body
  (as Python does for `while c: a; b`); `elif`/`else` after `;` belong to the innermost
  open `if`.
"""

from __future__ import annotations

import ast
import io
import math
import re
import tokenize
import unicodedata
import warnings
from bisect import bisect_right
from collections.abc import Collection, Iterator

from gradcalc.errors import LimitError, ParseError
from gradcalc.language.program import (
    Assign,
    Binary,
    BoolOp,
    Call,
    Compare,
    Expr,
    ExprStmt,
    For,
    If,
    Index,
    ListLit,
    Name,
    Not,
    Num,
    Pos,
    Program,
    Slice,
    Stmt,
    Unary,
    While,
)
from gradcalc.limits import DEFAULT_LIMITS, Limits

# --------------------------------------------------------------------------- safe quoting

_SHORT_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\", "'": "\\'"}


def _escape(text: str, quotes: bool = True) -> str:
    """`text` with non-printable characters escaped (and quotes/backslashes if `quotes`)."""
    out = []
    for ch in text:
        if ch in _SHORT_ESCAPES and (quotes or ch not in "'\\"):
            out.append(_SHORT_ESCAPES[ch])
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return "".join(out)


def quote(text: str, limit: int = 40) -> str:
    """A repr-like, single-quoted snippet of user text that is safe to print.

    Non-printable characters (controls, ESC, bidi, zero-width) become \\uXXXX escapes;
    text longer than `limit` characters is cut and ends in '...'.
    """
    cut = text[:limit]
    return "'" + _escape(cut) + ("..." if len(text) > limit else "") + "'"


def codepoint(ch: str, brackets: bool = True) -> str:
    """'U+202E (RIGHT-TO-LEFT OVERRIDE)' for a character."""
    name = unicodedata.name(ch, "")
    if not name:
        return f"U+{ord(ch):04X}"
    return f"U+{ord(ch):04X} ({name})" if brackets else f"U+{ord(ch):04X}, {name}"


# --------------------------------------------------------------------------- positions


class LineIndex:
    """Offsets -> 1-based (line, column) in one text; '\\r\\n', '\\r' and '\\n' end lines."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def pos(self, index: int) -> Pos:
        line = bisect_right(self.starts, index)
        return Pos(line, index - self.starts[line - 1] + 1)

    def offset(self, line: int, col: int) -> int:
        """Offset of 0-based `col` on 1-based `line` (clamped to the text)."""
        line = min(max(line, 1), len(self.starts))
        return self.starts[line - 1] + max(col, 0)

    def segment(self, text: str, node: ast.AST) -> str:
        """The source of an ast node of `text` (ASCII code, so byte columns are characters);
        unlike ast.get_source_segment, it does not re-split the text on every call."""
        end_line = getattr(node, "end_lineno", None) or node.lineno
        end_col = getattr(node, "end_col_offset", None) or node.col_offset
        return text[self.offset(node.lineno, node.col_offset) : self.offset(end_line, end_col)]


class _Where:
    """Maps positions in the parsed text (normalised and rewritten) back to the user's."""

    def __init__(self, original: str, parsed: str, origin: list[int]) -> None:
        self.original = LineIndex(original)
        self.parsed_lines = LineIndex(parsed)
        self.parsed = parsed
        self.origin = origin  # len(parsed) + 1 entries: parsed offset -> original offset

    def offset(self, line: int, col: int) -> int:
        return min(self.parsed_lines.offset(line, col), len(self.parsed))

    def at(self, offset: int) -> Pos:
        return self.original.pos(self.origin[min(max(offset, 0), len(self.parsed))])

    def of(self, node: ast.AST) -> Pos:
        return self.at(self.offset(node.lineno, node.col_offset))

    def line(self, parsed_line: int) -> int:
        return self.at(self.offset(parsed_line, 0)).line


# --------------------------------------------------------------------------- normalisation

_SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁽⁾ⁿⁱ", "0123456789+-()ni", strict=True))
_REPLACE = {
    "^": "**",
    **dict.fromkeys("×·⋅∙∗", "*"),
    **dict.fromkeys("÷∕⁄", "/"),
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d", "-"),
}
_BAD_CATEGORIES = {"Cc": "control", "Cf": "invisible formatting", "Cs": "surrogate",
                   "Zl": "line separator", "Zp": "paragraph separator"}
_BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_ZERO_WIDTH = set("\u200b\u200c\u200d\u2060\ufeff")


def _bad_char(ch: str) -> str | None:
    """Why `ch` may not appear anywhere in a program (None if it may)."""
    if ch in "\n\t\r":
        return None
    if ch == "\0":
        return "NUL character"
    if ch in _BIDI:
        return "bidirectional control character"
    if ch in _ZERO_WIDTH:
        return "zero-width character"
    category = _BAD_CATEGORIES.get(unicodedata.category(ch))
    return f"{category} character" if category else None


def _normalize(text: str) -> tuple[str, list[int]]:
    """Normalised text (BOM already stripped) and, per character plus one end entry, its
    offset in `text`."""
    lines = LineIndex(text)
    out: list[str] = []
    origin: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        why = _bad_char(ch)
        if why:
            raise ParseError(f"{why} {codepoint(ch)} at {lines.pos(i)} is not allowed")
        if ch in _SUPERSCRIPTS:
            j = i
            while j < n and text[j] in _SUPERSCRIPTS:
                j += 1
            power = "".join(_SUPERSCRIPTS[c] for c in text[i:j])
            rep = "**" + (power if re.fullmatch(r"[+-]?\d+", power) else f"({power})")
        elif ch == "\r":
            rep, j = "\n", i + (2 if text[i + 1 : i + 2] == "\n" else 1)
        else:
            j = i + 1
            rep = ch if ch.isascii() else unicodedata.normalize("NFKC", ch)
            rep = "".join(_REPLACE.get(c, c) for c in rep)
        out.append(rep)
        origin.extend([i] * len(rep))
        i = j
    origin.append(n)
    result = "".join(out)
    _check_ascii(result, origin, text, lines)
    return result, origin


def _check_ascii(result: str, origin: list[int], text: str, lines: LineIndex) -> None:
    """Outside comments, normalised text must be ASCII (so lookalike names cannot exist)."""
    start = 0
    for line in result.split("\n"):
        code = line.split("#", 1)[0]
        if not code.isascii():
            k = next(k for k, c in enumerate(code) if not c.isascii())
            at = origin[start + k]
            ch = text[at]
            raise ParseError(
                f"character {quote(ch)} ({codepoint(ch, brackets=False)}) at {lines.pos(at)} "
                "is not allowed: names and operators are ASCII "
                "(letters, digits, '_' and + - * / ** @ ( ) [ ] , : ; = < >)"
            )
        start += len(line) + 1


def normalize(text: str) -> str:
    """Program or value text as gradcalc reads it: NFKC, `x²` -> `x**2`, `×·⋅` -> `*`,
    `÷` -> `/`, dashes and U+2212 -> `-`, `^` -> `**`, line ends -> '\\n'.

    Raises ParseError for NUL, control, bidi, zero-width and other invisible characters,
    and for non-ASCII characters left outside comments, naming them as U+XXXX.
    """
    return _normalize(text.removeprefix("\ufeff"))[0]


# --------------------------------------------------------------------------- `;` splitting

_COMPOUND = {"if", "elif", "else", "while", "for", "def", "class", "with", "try",
             "except", "finally", "async"}
_CONTINUATION = {"elif", "else", "except", "finally"}
_SKIP = {tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT}


def _logical_lines(tokens: list[tokenize.TokenInfo]) -> list[list[tokenize.TokenInfo]]:
    lines: list[list[tokenize.TokenInfo]] = []
    line: list[tokenize.TokenInfo] = []
    for tok in tokens:
        if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if line:
                lines.append(line)
            line = []
        elif tok.type not in _SKIP:
            line.append(tok)
    return lines


def _pieces(line: list[tokenize.TokenInfo]) -> list[tuple[str | None, int, int]] | None:
    """(compound keyword or None, first token, last token) per statement or header;
    None if Python accepts the line as it is (no header except possibly the first)."""
    if any(tok.type == tokenize.ERRORTOKEN for tok in line):
        return None
    ends = [k for k in _top_level(line, 0, len(line)) if line[k].string == ";"]
    pieces: list[tuple[str | None, int, int]] = []
    seg_start = 0
    for seg_end in [*ends, len(line)]:
        i = seg_start
        while i < seg_end:
            kw = line[i].string if line[i].type == tokenize.NAME else None
            colon = None
            if kw in _COMPOUND:
                colon = next((k for k in _top_level(line, i, seg_end)
                              if line[k].string == ":"), None)
            if colon is None:
                pieces.append((None, i, seg_end - 1))
                break
            pieces.append((kw, i, colon))
            i = colon + 1
        seg_start = seg_end + 1
    heads = [p for p in pieces[1:] if p[0] is not None]
    return pieces if heads else None


def _top_level(line: list[tokenize.TokenInfo], start: int, stop: int) -> Iterator[int]:
    """Indices of operator tokens outside brackets in line[start:stop]."""
    depth = 0
    for k in range(start, stop):
        tok = line[k]
        if tok.type == tokenize.OP:
            depth += (tok.string in "([{") - (tok.string in ")]}")
            if depth == 0:
                yield k


def _split_statements(text: str) -> tuple[str, list[int]]:
    """Rewrite lines such as `a; while c: b` into indented lines Python accepts.

    Returns the new text and, per character (plus an end entry), its offset in `text`.
    Lines the tokenizer cannot read are left as they are, for ast.parse to report.
    """
    tokens: list[tokenize.TokenInfo] = []
    try:
        tokens.extend(tokenize.generate_tokens(io.StringIO(text).readline))
    except Exception:  # the lines read so far are still rewritten; ast.parse reports this
        pass
    lines = LineIndex(text)
    out: list[str] = []
    origin: list[int] = []
    cursor = 0

    def copy(a: int, b: int) -> None:
        out.append(text[a:b])
        origin.extend(range(a, b))

    for line in _logical_lines(tokens):
        pieces = _pieces(line)
        if pieces is None:
            continue
        first = lines.offset(*line[0].start)
        line_start = lines.offset(line[0].start[0], 0)
        indent = text[line_start:first]
        step = "\t" if "\t" in indent else "    "
        copy(cursor, line_start)
        levels = [[indent, False]]  # [indentation, last statement was a header]
        for n, (kw, a, b) in enumerate(pieces):
            if kw in _CONTINUATION:
                while len(levels) > 1 and not levels[-1][1]:
                    levels.pop()
            start, end = lines.offset(*line[a].start), lines.offset(*line[b].end)
            if n:
                out.append("\n")
                origin.append(start)
            out.append(levels[-1][0])
            origin.extend([start] * len(levels[-1][0]))
            copy(start, end)
            levels[-1][1] = kw is not None
            if kw is not None:
                levels.append([levels[-1][0] + step, False])
        cursor = lines.offset(*line[-1].end)
    copy(cursor, len(text))
    origin.append(len(text))
    return "".join(out), origin


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


def _measure(tree: ast.AST, limits: Limits, where: _Where) -> None:
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


def _ast_parse(text: str, where: _Where, limits: Limits) -> ast.Module:
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
                f"program nests too deeply at {pos}: {_escape(msg, quotes=False)} "
                f"(gradcalc's limit is {limits.max_depth} levels)"
            ) from None
        raise ParseError(f"syntax error at {pos}: {_escape(msg, quotes=False)}") from None
    except (RecursionError, MemoryError):
        raise LimitError(
            f"program nests too deeply for Python's parser (gradcalc's limit is "
            f"{limits.max_depth} levels)"
        ) from None


# --------------------------------------------------------------------------- ast -> IR

_CONSTANTS = {"pi": math.pi, "E": math.e}
_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**",
           ast.MatMult: "@"}
_BAD_BINOPS = {
    ast.Mod: ("%", "'%' (remainder)"),
    ast.FloorDiv: ("//", "'//' (floor division)"),
    ast.LShift: ("<<", "bitwise operator '<<'"),
    ast.RShift: (">>", "bitwise operator '>>'"),
    ast.BitOr: ("|", "bitwise operator '|'"),
    ast.BitAnd: ("&", "bitwise operator '&'"),
    ast.BitXor: ("^", "bitwise operator '^'"),
}
_COMPARE = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
            ast.NotEq: "!="}
_STMT_NAMES: dict[type, str] = {
    ast.FunctionDef: "function definition (def)",
    ast.AsyncFunctionDef: "function definition (async def)",
    ast.ClassDef: "class definition",
    ast.Return: "'return'",
    ast.Delete: "'del'",
    ast.Import: "import",
    ast.ImportFrom: "import",
    ast.Global: "'global'",
    ast.Nonlocal: "'nonlocal'",
    ast.With: "'with'",
    ast.AsyncWith: "'async with'",
    ast.AsyncFor: "'async for'",
    ast.Try: "'try'",
    ast.Raise: "'raise'",
    ast.Assert: "'assert'",
    ast.Pass: "'pass'",
    ast.Break: "'break'",
    ast.Continue: "'continue'",
    ast.AnnAssign: "type annotation",
    **{getattr(ast, n): w for n, w in [("TryStar", "'try'"), ("Match", "'match'")]
       if hasattr(ast, n)},
}
_EXPR_NAMES: dict[type, str] = {
    ast.Attribute: "attribute access",
    ast.Lambda: "lambda",
    ast.ListComp: "list comprehension",
    ast.SetComp: "set comprehension",
    ast.DictComp: "dict comprehension",
    ast.GeneratorExp: "generator expression",
    ast.Dict: "dict display {...}",
    ast.Set: "set display {...}",
    ast.Tuple: "tuple (a, b)",
    ast.Starred: "starred expression (*x)",
    ast.NamedExpr: "assignment expression (:=)",
    ast.IfExp: "conditional expression (a if c else b)",
    ast.JoinedStr: "f-string",
    ast.FormattedValue: "f-string",
    ast.Await: "'await'",
    ast.Yield: "'yield'",
    ast.YieldFrom: "'yield from'",
}
_HINTS = {
    "attribute access": "call a function instead, e.g. sum(x) rather than x.sum()",
    "tuple (a, b)": "write a vector as a list [a, b]",
    "'break'": "a loop ends by its condition or its range",
    "'continue'": "a loop ends by its condition or its range",
    "'//' (floor division)": "use '/'",
}


class _Converter:
    """Converts a whitelisted Python ast into the IR; rejects everything else."""

    def __init__(self, functions: frozenset[str], where: _Where) -> None:
        self.functions = functions
        self.where = where

    # helpers --------------------------------------------------------------------------
    def segment(self, node: ast.AST) -> str:
        return self.where.parsed_lines.segment(self.where.parsed, node)

    def reject(self, node: ast.AST, what: str, hint: str = "") -> ParseError:
        """'<what> '<the text's first line>' at line L, column C is not allowed: <hint>'."""
        text = self.segment(node).split("\n")[0]
        snippet = "" if quote(text) == what else " " + quote(text)
        hint = hint or _HINTS.get(what, "")
        return ParseError(
            f"{what}{snippet} at {self.where.of(node)} is not allowed"
            + (f": {hint}" if hint else "")
        )

    def op_pos(self, left: ast.AST, right: ast.AST, symbol: str) -> Pos:
        """Position of the operator `symbol` between two operands."""
        w = self.where
        a = w.offset(left.end_lineno or 1, left.end_col_offset or 0)
        b = w.offset(right.lineno, right.col_offset)
        k = w.parsed.find(symbol, a, b)
        return w.at(k if k >= 0 else a)

    def check_name(self, node: ast.AST, name: str) -> None:
        if name.startswith("_"):
            raise ParseError(
                f"name {quote(name)} at {self.where.of(node)} is not allowed: "
                "names starting with '_' are not allowed"
            )

    def target(self, node: ast.expr) -> str:
        if not isinstance(node, ast.Name):
            what = {
                ast.Subscript: "assignment to an element (x[i] = ...)",
                ast.Tuple: "assignment to several names (a, b = ...)",
                ast.List: "assignment to several names ([a, b] = ...)",
            }.get(type(node), _EXPR_NAMES.get(type(node), "assignment to an expression"))
            raise self.reject(node, what, "assign to a single name, e.g. y = ...")
        self.check_name(node, node.id)
        pos = self.where.of(node)
        if node.id in _CONSTANTS:
            raise ParseError(f"cannot assign to the constant {quote(node.id)} at {pos}")
        if node.id in self.functions or node.id == "range":
            raise ParseError(
                f"cannot assign to {quote(node.id)} at {pos}: it is a function's name"
            )
        return node.id

    # statements -----------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt]) -> tuple[Stmt, ...]:
        return tuple(self.stmt(s) for s in stmts)

    def stmt(self, s: ast.stmt) -> Stmt:
        pos = self.where.of(s)
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                raise self.reject(s, "chained assignment (a = b = ...)")
            return Assign(self.target(s.targets[0]), self.expr(s.value), pos)
        if isinstance(s, ast.AugAssign):
            name = self.target(s.target)
            op = self.binop(s.op, s.target, s.value)
            left = Name(name, self.where.of(s.target))
            value = Binary(op, left, self.expr(s.value), self.op_pos(s.target, s.value, op))
            return Assign(name, value, pos)
        if isinstance(s, ast.Expr):
            return ExprStmt(self.expr(s.value), pos)
        if isinstance(s, ast.If):
            return If(self.expr(s.test), self.block(s.body), self.block(s.orelse), pos)
        if isinstance(s, ast.While):
            if s.orelse:
                raise self.reject(s, "'else' after a while loop")
            return While(self.expr(s.test), self.block(s.body), pos)
        if isinstance(s, ast.For):
            return self.for_loop(s, pos)
        raise self.reject(s, _STMT_NAMES.get(type(s), f"statement {type(s).__name__}"))

    def for_loop(self, s: ast.For, pos: Pos) -> For:
        if s.orelse:
            raise self.reject(s, "'else' after a for loop")
        var = self.target(s.target)
        it = s.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and it.func.id == "range"):
            raise self.reject(it, "a for loop over something other than range()",
                              "write for i in range(n), range(a, b) or range(a, b, step)")
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise ParseError(
                f"range() at {self.where.of(it)} takes 1 to 3 arguments by position"
            )
        args = [self.expr(a) for a in it.args]
        if len(args) == 1:
            args = [Num(0.0, args[0].pos), args[0]]
        if len(args) == 2:
            args.append(Num(1.0, args[1].pos))
        return For(var, args[0], args[1], args[2], self.block(s.body), pos)

    # expressions ----------------------------------------------------------------------
    def binop(self, op: ast.operator, left: ast.AST, right: ast.AST) -> str:
        if type(op) in _BINOPS:
            return _BINOPS[type(op)]
        symbol, what = _BAD_BINOPS.get(type(op), ("", f"operator {type(op).__name__}"))
        raise ParseError(
            f"{what} at {self.op_pos(left, right, symbol)} is not allowed"
            + (f": {_HINTS[what]}" if what in _HINTS else "")
        )

    def expr(self, e: ast.expr) -> Expr:
        pos = self.where.of(e)
        if isinstance(e, ast.Constant):
            return self.number(e, pos)
        if isinstance(e, ast.Name):
            return self.name(e, pos)
        if isinstance(e, ast.BinOp):
            op = self.binop(e.op, e.left, e.right)
            return Binary(op, self.expr(e.left), self.expr(e.right),
                          self.op_pos(e.left, e.right, op))
        if isinstance(e, ast.UnaryOp):
            if isinstance(e.op, ast.Not):
                return Not(self.expr(e.operand), pos)
            if isinstance(e.op, ast.Invert):
                raise self.reject(e, "'~' (bitwise not)")
            return Unary("-" if isinstance(e.op, ast.USub) else "+", self.expr(e.operand), pos)
        if isinstance(e, ast.BoolOp):
            op = "and" if isinstance(e.op, ast.And) else "or"
            return BoolOp(op, tuple(self.expr(v) for v in e.values), pos)
        if isinstance(e, ast.Compare):
            for op in e.ops:
                if type(op) not in _COMPARE:
                    word = {ast.Is: "is", ast.IsNot: "is not", ast.In: "in",
                            ast.NotIn: "not in"}[type(op)]
                    raise self.reject(e, f"'{word}' comparison", "compare numbers with < <= "
                                      "> >= == !=")
            operands = tuple(self.expr(x) for x in [e.left, *e.comparators])
            return Compare(tuple(_COMPARE[type(op)] for op in e.ops), operands, pos)
        if isinstance(e, ast.Call):
            return self.call(e, pos)
        if isinstance(e, ast.List):
            if not e.elts:
                raise self.reject(e, "empty list", "a vector needs at least one element")
            return ListLit(tuple(self.expr(x) for x in e.elts), pos)
        if isinstance(e, ast.Subscript):
            return Index(self.expr(e.value), self.index_items(e.slice), pos)
        raise self.reject(e, _EXPR_NAMES.get(type(e), f"expression {type(e).__name__}"))

    def number(self, e: ast.Constant, pos: Pos) -> Num:
        v = e.value
        if isinstance(v, bool) or v is None:
            raise self.reject(e, f"'{v}'", "use numbers, e.g. 1 or 0")
        if isinstance(v, (str, bytes)):
            kind = "string literal" if isinstance(v, str) else "bytes literal"
            raise self.reject(e, kind, "gradcalc computes with numbers only")
        if isinstance(v, complex):
            raise self.reject(e, "complex number", "gradcalc computes with real numbers")
        if not isinstance(v, (int, float)):
            raise self.reject(e, f"literal {type(v).__name__}")
        text = self.segment(e)
        prefix = text[:2].lower()
        if prefix in ("0x", "0o", "0b"):
            kind = {"0x": "hexadecimal", "0o": "octal", "0b": "binary"}[prefix]
            raise self.reject(e, f"{kind} literal", "write numbers in decimal")
        try:
            value = float(v)
        except OverflowError:
            value = math.inf
        if not math.isfinite(value):
            raise ParseError(f"number {quote(text)} at {pos} overflows float64")
        return Num(value, pos)

    def name(self, e: ast.Name, pos: Pos) -> Expr:
        self.check_name(e, e.id)
        if e.id in _CONSTANTS:
            return Num(_CONSTANTS[e.id], pos)
        if e.id in self.functions or e.id == "range":
            raise ParseError(
                f"{quote(e.id)} at {pos} is a function; call it, e.g. {e.id}(x)"
            )
        return Name(e.id, pos)

    def call(self, e: ast.Call, pos: Pos) -> Call:
        f = e.func
        if isinstance(f, ast.Attribute):
            raise self.reject(f, "attribute access")
        if not isinstance(f, ast.Name):
            raise self.reject(e, "calling the result of an expression",
                              "only functions gradcalc knows can be called, by name")
        self.check_name(f, f.id)
        if f.id == "range":
            raise ParseError(
                f"range() at {pos} is only allowed as a for loop's range: for i in range(n)"
            )
        if f.id not in self.functions:
            raise ParseError(
                f"{quote(f.id)} at {pos} is not a function gradcalc knows; functions: "
                + ", ".join(sorted(self.functions))
            )
        if e.keywords:
            k = e.keywords[0]
            word = f"{k.arg}=" if k.arg else "**"
            raise ParseError(
                f"keyword argument {quote(word)} at {self.where.of(k)} is not allowed: "
                "pass arguments by position"
            )
        return Call(f.id, tuple(self.expr(a) for a in e.args), pos)

    def index_items(self, s: ast.expr) -> tuple[Expr | Slice, ...]:
        elts = s.elts if isinstance(s, ast.Tuple) else [s]
        if not elts:
            raise self.reject(s, "empty index")
        return tuple(self.index_item(x) for x in elts)

    def index_item(self, x: ast.expr) -> Expr | Slice:
        if isinstance(x, ast.Slice):
            parts = [None if p is None else self.expr(p) for p in (x.lower, x.upper, x.step)]
            return Slice(parts[0], parts[1], parts[2], self.where.of(x))
        return self.expr(x)


# --------------------------------------------------------------------------- entry point


def parse(
    text: str,
    *,
    functions: Collection[str] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Program:
    """Parse a gradcalc program; raise ParseError (bad text) or LimitError (too big).

    `functions`: the callable names (default: the keys of ops.FUNCTIONS).
    """
    if functions is None:
        from gradcalc.engine.ops import FUNCTIONS

        functions = FUNCTIONS
    if len(text) > limits.max_source_chars:
        raise LimitError(
            f"program is {len(text):,} characters; the limit is {limits.max_source_chars:,}"
        )
    original = text.removeprefix("\ufeff")
    normalized, norm_origin = _normalize(original)
    parsed, split_origin = _split_statements(normalized)
    where = _Where(original, parsed, [norm_origin[k] for k in split_origin])
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
        body = _Converter(frozenset(functions), where).block(tree.body)
    except RecursionError:
        raise LimitError(
            f"program nests too deeply (limit {limits.max_depth} levels)"
        ) from None
    return Program(body, source=text)

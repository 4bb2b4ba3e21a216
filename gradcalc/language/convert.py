"""The ast converter: a whitelisted Python ast into gradcalc's Program IR; all else refused.

Every ast node is converted by hand or rejected with a ParseError that names the
construct and its position in the user's text. Number literals are decimal (`1_000` is
fine); hexadecimal, octal and binary literals are rejected, as is a literal that
overflows float64 (`1e999`).
"""

from __future__ import annotations

import ast
import math

from gradcalc.errors import ParseError
from gradcalc.language.names import instead
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
    Slice,
    Stmt,
    Unary,
    While,
)
from gradcalc.language.text import Where, quote

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


def takes_axis(name: str) -> bool:
    """Whether the function `name` takes `axis` (second argument, or `axis=`)."""
    from gradcalc.engine.ops import takes_axis as engine_takes_axis

    return engine_takes_axis(name)


def takes_keepdims(name: str) -> bool:
    """Whether `name` takes `keepdims=True` after its axis (a third argument: sum, mean)."""
    from gradcalc.engine.ops import FUNCTIONS

    return takes_axis(name) and FUNCTIONS[name][1][1] == 3


class Converter:
    """Converts a whitelisted Python ast into the IR; rejects everything else."""

    def __init__(self, functions: frozenset[str], where: Where, remainder: bool = False
                 ) -> None:
        self.functions = functions
        self.where = where
        self.remainder = remainder  # `a % b` read (a key's parameters), else refused

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
        if self.remainder and isinstance(op, ast.Mod):
            return "%"
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
        if isinstance(e, ast.Attribute) and e.attr == "T":  # X.T, the transpose (NumPy's)
            return Call("transpose", (self.expr(e.value),), pos)
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
                f"{quote(f.id)} at {pos} is not a function gradcalc knows; "
                + instead(f.id, self.functions)
                + "functions: " + ", ".join(sorted(self.functions))
                + (f" (for a product, write {f.id}*(...))" if len(f.id) == 1 else "")
            )
        args = tuple(self.expr(a) for a in e.args)
        keep: Expr | None = None
        for k in e.keywords:
            word = f"{k.arg}=" if k.arg else "**"
            where = self.where.of(k)
            if k.arg == "keepdims" and takes_keepdims(f.id):
                keep = self.keepdims(k, where)
                continue
            if k.arg != "axis" or not takes_axis(f.id):
                raise ParseError(
                    f"keyword argument {quote(word)} at {where} is not allowed: pass "
                    "arguments by position" + (" (axis= goes with sum, mean, prod, norm, max, "
                                               "min, softmax, logsumexp)"
                                               if k.arg == "axis" else
                                               " (keepdims= goes with sum and mean)"
                                               if k.arg == "keepdims" else ""))
            if len(args) != 1:
                raise ParseError(f"{f.id}() at {pos} takes one array before axis=")
            args += (self.expr(k.value),)  # the axis is the second argument
        if keep is not None:
            if len(args) != 2:
                raise ParseError(f"keepdims= in {f.id}() at {pos} goes with an axis, e.g. "
                                 f"{f.id}(x, axis=1, keepdims=True)")
            args += (keep,)  # keepdims is the third argument
        if f.id == "log" and len(args) == 2 and not e.keywords and "logb" in self.functions:
            return Call("logb", args, pos)  # log(x, b): the log to base b
        return Call(f.id, args, pos)

    def keepdims(self, k: ast.keyword, where: Pos) -> Expr | None:
        """keepdims=True as the number 1 (False: None, the default)."""
        if not (isinstance(k.value, ast.Constant) and isinstance(k.value.value, bool)):
            raise ParseError(f"keepdims= at {where} takes True or False")
        return Num(1.0, where) if k.value.value else None

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

"""gradcalc.parse: every accepted construct builds the right IR; everything else is refused
with a ParseError/LimitError naming the construct and a position; never a crash."""

from __future__ import annotations

import math
import re
import time
import warnings

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gradcalc.errors import GradcalcError, LimitError, ParseError
from gradcalc.language.parse import normalize, parse, quote
from gradcalc.language.program import (
    Assign,
    Binary,
    BoolOp,
    Call,
    Compare,
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
    Unary,
    While,
)
from gradcalc.limits import DEFAULT_LIMITS, Limits

from conftest import BACKSTOP_SECONDS, examples

FUNCTIONS = (
    "sin cos tan asin acos atan atan2 sinh cosh tanh exp log log2 log10 sqrt abs sign relu "
    "sigmoid softplus maximum minimum clamp where sum mean prod norm dot transpose ones zeros"
).split()
POSITION = re.compile(r"line \d+, column \d+")


def p(text: str, **kw) -> Program:
    return parse(text, functions=FUNCTIONS, **kw)


def sx(node):
    """The IR as nested tuples, without positions, for compact expectations."""
    if isinstance(node, tuple):
        return [sx(n) for n in node]
    if node is None:
        return None
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Name):
        return node.id
    if isinstance(node, Unary):
        return ("u" + node.op, sx(node.operand))
    if isinstance(node, Binary):
        return (node.op, sx(node.left), sx(node.right))
    if isinstance(node, Call):
        return ("call", node.func, *sx(node.args))
    if isinstance(node, ListLit):
        return sx(node.items)
    if isinstance(node, Index):
        return ("index", sx(node.target), *sx(node.items))
    if isinstance(node, Slice):
        return ("slice", sx(node.start), sx(node.stop), sx(node.step))
    if isinstance(node, Compare):
        return ("cmp", node.ops, *sx(node.operands))
    if isinstance(node, BoolOp):
        return (node.op, *sx(node.values))
    if isinstance(node, Not):
        return ("not", sx(node.operand))
    if isinstance(node, Assign):
        return ("=", node.target, sx(node.value))
    if isinstance(node, ExprStmt):
        return ("expr", sx(node.value))
    if isinstance(node, If):
        return ("if", sx(node.test), sx(node.body), sx(node.orelse))
    if isinstance(node, While):
        return ("while", sx(node.test), sx(node.body))
    if isinstance(node, For):
        return ("for", node.var, sx(node.start), sx(node.stop), sx(node.step), sx(node.body))
    raise AssertionError(f"unknown node {node!r}")


def body(text: str) -> list:
    return sx(p(text).body)


# --------------------------------------------------------------------------- accepted

ACCEPTED = [
    ("y = 2*x**2", [("=", "y", ("*", 2.0, ("**", "x", 2.0)))]),
    ("2*x[0]**3 + 2*x[1]**3",
     [("expr", ("+", ("*", 2.0, ("**", ("index", "x", 0.0), 3.0)),
                ("*", 2.0, ("**", ("index", "x", 1.0), 3.0))))]),
    ("y = -x + +z", [("=", "y", ("+", ("u-", "x"), ("u+", "z")))]),
    ("y = a @ b / c - d", [("=", "y", ("-", ("/", ("@", "a", "b"), "c"), "d"))]),
    ("y = pi * E", [("=", "y", ("*", math.pi, math.e))]),
    ("y = 1_000 + 1.5e3 + .5 + 2.", [("=", "y", ("+", ("+", ("+", 1000.0, 1500.0), 0.5), 2.0))]),
    ("y += 2", [("=", "y", ("+", "y", 2.0))]),
    ("y -= 2", [("=", "y", ("-", "y", 2.0))]),
    ("y *= x", [("=", "y", ("*", "y", "x"))]),
    ("y /= x", [("=", "y", ("/", "y", "x"))]),
    ("y **= 2", [("=", "y", ("**", "y", 2.0))]),
    ("y @= A", [("=", "y", ("@", "y", "A"))]),
    ("y = x[0]", [("=", "y", ("index", "x", 0.0))]),
    ("y = A[1, 0]", [("=", "y", ("index", "A", 1.0, 0.0))]),
    ("y = x[-1]", [("=", "y", ("index", "x", ("u-", 1.0)))]),
    ("y = x[1:3]", [("=", "y", ("index", "x", ("slice", 1.0, 3.0, None)))]),
    ("y = x[::2]", [("=", "y", ("index", "x", ("slice", None, None, 2.0)))]),
    ("y = A[:, 0]", [("=", "y", ("index", "A", ("slice", None, None, None), 0.0))]),
    ("y = A[0][1]", [("=", "y", ("index", ("index", "A", 0.0), 1.0))]),
    ("y = [[1, 2], [3, x]]", [("=", "y", [[1.0, 2.0], [3.0, "x"]])]),
    ("y = sin(x) + atan2(x, 1)",
     [("=", "y", ("+", ("call", "sin", "x"), ("call", "atan2", "x", 1.0)))]),
    ("y = sum(x)[0]", [("=", "y", ("index", ("call", "sum", "x"), 0.0))]),
    ("if 0 < x <= 1: y = x",
     [("if", ("cmp", ("<", "<="), 0.0, "x", 1.0), [("=", "y", "x")], [])]),
    ("if x > 0 and not x > 5 or x == 3: y = 1",
     [("if", ("or", ("and", ("cmp", (">",), "x", 0.0), ("not", ("cmp", (">",), "x", 5.0))),
              ("cmp", ("==",), "x", 3.0)), [("=", "y", 1.0)], [])]),
    ("if x != 0: y = 1\nelif x >= 2: y = 2\nelse: y = 3",
     [("if", ("cmp", ("!=",), "x", 0.0), [("=", "y", 1.0)],
       [("if", ("cmp", (">=",), "x", 2.0), [("=", "y", 2.0)], [("=", "y", 3.0)])])]),
    ("while x < 10:\n    x = x*2",
     [("while", ("cmp", ("<",), "x", 10.0), [("=", "x", ("*", "x", 2.0))])]),
    ("for i in range(3): s = s + x[i]",
     [("for", "i", 0.0, 3.0, 1.0, [("=", "s", ("+", "s", ("index", "x", "i")))])]),
    ("for i in range(1, n): s = i", [("for", "i", 1.0, "n", 1.0, [("=", "s", "i")])]),
    ("for i in range(5, 0, -1): s = i", [("for", "i", 5.0, 0.0, ("u-", 1.0), [("=", "s", "i")])]),
    ("a = 1; b = 2", [("=", "a", 1.0), ("=", "b", 2.0)]),
    ("a = 1; b = 2;", [("=", "a", 1.0), ("=", "b", 2.0)]),
    ("a = 1\n\n# comment\nb = a  # trailing comment", [("=", "a", 1.0), ("=", "b", "a")]),
    ("a = (1 +\n     2)", [("=", "a", ("+", 1.0, 2.0))]),
]


@pytest.mark.parametrize("text,expected", ACCEPTED, ids=[t for t, _ in ACCEPTED])
def test_accepted(text, expected):
    assert body(text) == expected


def test_program_keeps_source():
    assert p("y = x").source == "y = x"


# --------------------------------------------------------------------------- `;` and compound


def test_while_after_semicolon():
    assert body("y = x*2; while norm(y) < 1000: y = y*2") == [
        ("=", "y", ("*", "x", 2.0)),
        ("while", ("cmp", ("<",), ("call", "norm", "y"), 1000.0), [("=", "y", ("*", "y", 2.0))]),
    ]


def test_for_after_semicolon():
    assert body("s = 0; for i in range(3): s = s + x[i]") == [
        ("=", "s", 0.0),
        ("for", "i", 0.0, 3.0, 1.0, [("=", "s", ("+", "s", ("index", "x", "i")))]),
    ]


def test_rest_of_line_belongs_to_the_loop_body():
    # as in Python's `while c: a; b`
    assert body("s = 0; for i in range(3): s = s + i; t = s") == [
        ("=", "s", 0.0),
        ("for", "i", 0.0, 3.0, 1.0, [("=", "s", ("+", "s", "i")), ("=", "t", "s")]),
    ]
    assert body("while x < 3: x = x + 1; y = x") == [
        ("while", ("cmp", ("<",), "x", 3.0), [("=", "x", ("+", "x", 1.0)), ("=", "y", "x")])
    ]


def test_if_else_multiline():
    assert body("if x > 0: y = x\nelse: y = -x") == [
        ("if", ("cmp", (">",), "x", 0.0), [("=", "y", "x")], [("=", "y", ("u-", "x"))])
    ]


def test_if_else_on_one_line():
    assert body("if x > 0: y = x; else: y = -x") == body("if x > 0: y = x\nelse: y = -x")
    assert body("y = 0; if x > 0: y = x; elif x < -1: y = 1; else: y = 2") == [
        ("=", "y", 0.0),
        ("if", ("cmp", (">",), "x", 0.0), [("=", "y", "x")],
         [("if", ("cmp", ("<",), "x", ("u-", 1.0)), [("=", "y", 1.0)], [("=", "y", 2.0)])]),
    ]


def test_nested_headers_on_one_line():
    assert body("a = 1; if a: if b: c = 1; else: c = 2; d = 3") == [
        ("=", "a", 1.0),
        ("if", "a", [("if", "b", [("=", "c", 1.0)], [("=", "c", 2.0), ("=", "d", 3.0)])], []),
    ]
    assert body("while a: for i in range(2): b = i") == [
        ("while", "a", [("for", "i", 0.0, 2.0, 1.0, [("=", "b", "i")])])
    ]


def test_header_at_end_of_line_takes_the_indented_block():
    assert body("x = 1; while x < 3:  # loop\n    x = x + 1\ny = x") == [
        ("=", "x", 1.0),
        ("while", ("cmp", ("<",), "x", 3.0), [("=", "x", ("+", "x", 1.0))]),
        ("=", "y", "x"),
    ]


def test_semicolon_compound_inside_a_block():
    assert body("if a:\n    y = 1; while y < 3: y = y + 1\nz = y") == [
        ("if", "a", [("=", "y", 1.0), ("while", ("cmp", ("<",), "y", 3.0),
                                         [("=", "y", ("+", "y", 1.0))])], []),
        ("=", "z", "y"),
    ]


def test_multiline_indented_program():
    text = (
        "s = 0\n"
        "for i in range(4):\n"
        "    if i > 1:\n"
        "        s = s + x[i]\n"
        "    else:\n"
        "        s = s - 1\n"
        "out = s\n"
    )
    assert body(text) == [
        ("=", "s", 0.0),
        ("for", "i", 0.0, 4.0, 1.0, [
            ("if", ("cmp", (">",), "i", 1.0), [("=", "s", ("+", "s", ("index", "x", "i")))],
             [("=", "s", ("-", "s", 1.0))])]),
        ("=", "out", "s"),
    ]


def test_semicolons_inside_brackets_or_strings_do_not_split():
    with pytest.raises(ParseError, match="string literal"):
        p('y = "a; while x: b"')
    with pytest.raises(ParseError, match="syntax error"):
        p("y = [1; while x: 2]")


def test_seed_programs_parse():
    seeds = [
        "y = 2*x[0]**3 + 2*x[1]**3",
        "y = 2*x**2",
        "y = x*2; while norm(y) < 1000: y = y*2",
        "y = x**2",
        "b = a + 3; c = b*b*3; out = mean(c)",
        "n = [[m[0]**2, m[1]**3]]",
        "n = [[m[0]**2, m[1]**3]]; s = sum(n)",
        "n = [[m[0]**2, m[1]**3]]; s = mean(n)",
        "k = [m[0]**2 + 3*m[1], m[1]**2 + 2*m[0]]",
        "y = relu(x)",
        "y = (a+b)*(b+c)",
    ]
    for text in seeds:
        assert isinstance(p(text), Program)
    prog = p("b = a + 3; c = b*b*3; out = mean(c)")
    assert prog.default_output() == "out"
    assert prog.names_used() == {"a", "b", "c"}


# --------------------------------------------------------------------------- positions


def test_positions_are_one_based_in_the_original_text():
    (stmt,) = p("y = x + 1").body
    assert stmt.pos == Pos(1, 1)
    assert stmt.value.pos == Pos(1, 7)  # a binary operator's position is the operator's
    assert stmt.value.left.pos == Pos(1, 5)
    assert stmt.value.right.pos == Pos(1, 9)


def test_positions_across_lines_and_rewrites():
    prog = p("a = 1\nb = 2; while b < 9: b = b*a")
    assert prog.body[1].pos == Pos(2, 1)
    loop = prog.body[2]
    assert loop.pos == Pos(2, 8)
    assert loop.body[0].value.pos == Pos(2, 26)


def test_positions_after_normalisation_point_at_the_original():
    (stmt,) = p("y = x² + z").body
    assert stmt.value.right.pos == Pos(1, 10)
    (stmt,) = p("y = x^2 + z").body
    assert stmt.value.right.pos == Pos(1, 11)
    (stmt,) = p("\ufeffy = ｘ").body
    assert stmt.value.pos == Pos(1, 5)
    prog = p("a = 1\r\nb = a")
    assert prog.body[1].value.pos == Pos(2, 5)


# --------------------------------------------------------------------------- rejected

REJECTED = [
    ("y = x.sum()", "attribute access"),
    ("y = x.shape", "attribute access"),
    ("x.y = 1", "attribute access"),
    ("import os", "import"),
    ("from os import path", "import"),
    ("y = lambda: 1", "lambda"),
    ("y = [i for i in x]", "list comprehension"),
    ("y = {i: i for i in x}", "dict comprehension"),
    ("y = {i for i in x}", "set comprehension"),
    ("y = sum(i for i in x)", "generator expression"),
    ('y = "abc"', "string literal"),
    ("y = b'abc'", "bytes literal"),
    ('y = f"{x}"', "f-string"),
    ("y = {1: 2}", "dict display"),
    ("y = {1, 2}", "set display"),
    ("y = (1, 2)", "tuple"),
    ("a, b", "tuple"),
    ("y = [*x]", "starred"),
    ("y = (z := 3)", "assignment expression (:=)"),
    ("y = 1 if x else 2", "conditional expression"),
    ('y = open("f")', "'open' at line 1, column 5 is not a function gradcalc knows; functions: "),
    ('y = eval("1")', "'eval' at line 1, column 5 is not a function gradcalc knows"),
    ('exec("1")', "'exec' at line 1, column 1 is not a function gradcalc knows"),
    ('y = __import__("os")', "names starting with '_' are not allowed"),
    ("y = x.__class__", "attribute access"),
    ("__builtins__", "names starting with '_' are not allowed"),
    ("_x = 1", "names starting with '_' are not allowed"),
    ("y = x[0](1)", "calling the result of an expression"),
    ("y = x[0](1)", "calling the result of an expression"),
    ("def f(x): return x", "function definition (def)"),
    ("async def f(): pass", "function definition (async def)"),
    ("class A: pass", "class definition"),
    ("return 1", "'return'"),
    ("del x", "'del'"),
    ("global x", "'global'"),
    ("with x: pass", "'with'"),
    ("try: y = 1\nexcept: y = 2", "'try'"),
    ("raise x", "'raise'"),
    ("assert x", "'assert'"),
    ("pass", "'pass'"),
    ("while x: break", "'break'"),
    ("while x: continue", "'continue'"),
    ("y = await x", "'await'"),
    ("y = yield 1", "'yield'"),
    ("match x:\n    case 1: y = 1", "'match'"),
    ("y: float = 1", "type annotation"),
    ("x[0] = 1", "assignment to an element"),
    ("a = b = 1", "chained assignment"),
    ("a, b = 1, 2", "assignment to several names"),
    ("y = x % 2", "'%' (remainder) at line 1, column 7"),
    ("y = x // 2", "'//' (floor division) at line 1, column 7"),
    ("y %= 2", "'%' (remainder)"),
    ("y = x | 2", "'|' at line 1, column 7 has no partner"),  # |...| is abs
    ("y = x << 2", "bitwise operator '<<'"),
    ("y = ~x", "'~' (bitwise not)"),
    ("y = 1j", "complex number"),
    ("y = True", "'True'"),
    ("y = None", "'None'"),
    ("y = ...", "literal ellipsis"),
    ("y = x is z", "'is' comparison"),
    ("y = x in z", "'in' comparison"),
    ("y = sin(x, out=z)", "keyword argument 'out='"),
    ("y = sin(**k)", "keyword argument '**'"),
    ("y = range(3)", "range() at line 1, column 5 is only allowed as a for loop's range"),
    ("for i in x: y = i", "a for loop over something other than range()"),
    ("for i in range(1, 2, 3, 4): y = i", "range() at line 1, column 10 takes 1 to 3"),
    ("for i in range(n=3): y = i", "takes 1 to 3 arguments"),
    ("for a, b in range(3): y = a", "assignment to several names"),
    ("while x: y = 1\nelse: y = 2", "'else' after a while loop"),
    ("for i in range(3): y = 1\nelse: y = 2", "'else' after a for loop"),
    ("y = 0x10", "hexadecimal literal"),
    ("y = 0o7", "octal literal"),
    ("y = 0b1", "binary literal"),
    ("y = 1e999", "overflows float64"),
    ("pi = 3", "cannot assign to the constant 'pi'"),
    ("sin = 3", "cannot assign to 'sin'"),
    ("for sum in range(3): y = sum", "cannot assign to 'sum'"),
    ("y = sin", "'sin' at line 1, column 5 is a function"),
    ("y = []", "empty list"),
    ("y = x[()]", "empty index"),
]


@pytest.mark.parametrize("text,fragment", REJECTED, ids=[t for t, _ in REJECTED])
def test_rejected(text, fragment):
    with pytest.raises(ParseError) as info:
        p(text)
    message = info.value.message
    assert fragment in message
    assert POSITION.search(message), message
    assert info.value.kind == "parse"


def test_unknown_function_lists_the_functions():
    with pytest.raises(ParseError) as info:
        p("y = open(1)")
    assert "functions: abs, acos, asin" in info.value.message
    assert "zeros" in info.value.message


def test_only_given_functions_are_callable():
    prog = parse("y = myfun(x)", functions=["myfun"])
    assert sx(prog.body) == [("=", "y", ("call", "myfun", "x"))]
    with pytest.raises(ParseError, match="'sin' at line 1, column 5 is not a function"):
        parse("y = sin(x)", functions=["myfun"])


@pytest.mark.parametrize("text,where", [
    ("y = 2 +", "syntax error at line 1, column 8: invalid syntax"),
    ("y = (1,\n  2", "syntax error at line 1, column 5: '(' was never closed"),
    ("y = x\n  z = 1", "syntax error at line 2"),
    ("if x:\ny = 1", "expected an indented block after 'if' statement on line 1"),
    ("y = 2 3", "syntax error at line 1"),
])
def test_syntax_errors(text, where):
    with pytest.raises(ParseError) as info:
        p(text)
    assert where in info.value.message


def test_syntax_error_line_numbers_refer_to_the_users_lines():
    with pytest.raises(ParseError, match="line 2"):
        p("a = 1; while a < 2: a = a + 1\ny = (")


@pytest.mark.parametrize("text", ["", "   ", "\n\n", "# only a comment", "\ufeff"])
def test_empty_program(text):
    with pytest.raises(ParseError, match="empty"):
        p(text)


# --------------------------------------------------------------------------- Unicode


@pytest.mark.parametrize("text,expected", [
    ("x²", "x**2"),
    ("x³", "x**3"),
    ("x⁻¹", "x**-1"),
    ("x²³", "x**23"),
    ("(a+b)²", "(a+b)**2"),
    ("xⁿ", "x**(n)"),
    ("x^2", "x**2"),
    ("ｘ＋１", "x+1"),
    ("x［0］，y（1）", "x[0],y(1)"),
    ("2×x·y⋅z", "2*x*y*z"),
    ("x÷2", "x/2"),
    ("x − 1 – 2 — 3", "x - 1 - 2 - 3"),
    ("x₁", "x1"),
    ("\ufeffx", "x"),
    ("a\r\nb\rc", "a\nb\nc"),
    ("x  # 注释", "x  # 注释"),
])
def test_normalize(text, expected):
    assert normalize(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("y = x［0］ + x［1］", [("=", "y", ("+", ("index", "x", 0.0), ("index", "x", 1.0)))]),
    ("y = maximum(x，1)", [("=", "y", ("call", "maximum", "x", 1.0))]),
    ("y = 2×x", [("=", "y", ("*", 2.0, "x"))]),
    ("y = 2·x", [("=", "y", ("*", 2.0, "x"))]),
    ("y = x÷2", [("=", "y", ("/", "x", 2.0))]),
    ("y = x − 1", [("=", "y", ("-", "x", 1.0))]),
    ("y = x²", [("=", "y", ("**", "x", 2.0))]),
    ("y = -x²", [("=", "y", ("u-", ("**", "x", 2.0)))]),
    ("y = x⁻¹", [("=", "y", ("**", "x", ("u-", 1.0)))]),
    ("ｙ ＝ ｘ ＊ ２", [("=", "y", ("*", "x", 2.0))]),
    ("y = x  # 平方 ²", [("=", "y", "x")]),
])
def test_unicode_programs(text, expected):
    assert body(text) == expected


@pytest.mark.parametrize("char", [
    "\u202e", "\u202a", "\u2066", "\u2069", "\u200e", "\u200f",  # bidi controls
    "\u200b", "\u200c", "\u200d", "\ufeff",  # zero-width (a BOM not at the start)
    "\0", "\x1b", "\x07", "\x7f", "\x0c", "\x85", "\u2028",
])
def test_invisible_and_control_characters_are_rejected(char):
    with pytest.raises(ParseError) as info:
        p(f"y = x +{char} 1")
    message = info.value.message
    assert f"U+{ord(char):04X}" in message
    assert "line 1, column 8" in message
    assert char not in message


def test_bidi_controls_are_rejected_in_comments_too():
    with pytest.raises(ParseError, match=r"U\+2067"):
        p("y = x  # \u2067 hidden")


def test_invisible_character_position_on_later_line():
    with pytest.raises(ParseError, match="line 2, column 3"):
        p("a = 1\nb \u200b= 2")


@pytest.mark.parametrize("text,code", [
    ("y = __ｉｍｐｏｒｔ__('os')", None),
    ("y = \u0445 + 1", "U+0445"),  # Cyrillic small ha, looks like x
    ("ο = 1", "U+03BF"),  # Greek omicron, looks like o
    ("y = ρ", "U+03C1"),  # Greek rho, looks like p
    ("y = x → 1", "U+2192"),
    ("y = é", "U+00E9"),
])
def test_lookalikes_and_non_ascii_are_rejected(text, code):
    with pytest.raises(ParseError) as info:
        p(text)
    if code is None:
        assert "names starting with '_' are not allowed" in info.value.message
    else:
        assert code in info.value.message
        assert POSITION.search(info.value.message)


def test_quote_escapes_what_it_must():
    assert quote("abc") == "'abc'"
    assert quote("a\x1b[31mred") == "'a\\u001b[31mred'"
    assert quote("\u202eevil") == "'\\u202eevil'"
    assert quote("a\nb\tc") == "'a\\nb\\tc'"
    assert quote("it's") == "'it\\'s'"
    assert quote("x" * 100, limit=10) == "'" + "x" * 10 + "...'"
    assert quote("[bold]x[/bold]") == "'[bold]x[/bold]'"


def test_error_messages_never_echo_control_characters():
    for text in ["y = '\x1b[2J'", "y = \"\u202e\"", "y = (\x1b"]:
        with pytest.raises(ParseError) as info:
            p(text)
        assert "\x1b" not in info.value.message and "\u202e" not in info.value.message


# --------------------------------------------------------------------------- limits


def test_source_length_limit():
    text = "y = " + "1" * 10 + " + x" * 25_000
    assert len(text) > DEFAULT_LIMITS.max_source_chars
    with pytest.raises(LimitError) as info:
        p(text)
    assert f"program is {len(text):,} characters; the limit is 100,000" in info.value.message
    with pytest.raises(LimitError, match="the limit is 10"):
        p("y = x + 12345", limits=Limits(max_source_chars=10))


@pytest.mark.parametrize("text", [
    "(" * 10_000 + "x" + ")" * 10_000,
    "y = " + "[" * 10_000 + "1" + "]" * 10_000,
    "y = " + "-" * 50_000 + "x",
    "y = " + "not " * 20_000 + "x",
    "y = " + "+".join(["x"] * 40_000),
    "y = " + "**".join(["x"] * 30_000),
    "y = x" + "[0]" * 25_000,
    "y = " + "sin(" * 5_000 + "x" + ")" * 5_000,
    "".join(" " * i + "if x:\n" for i in range(150)) + " " * 150 + "y = 1\n",
])
def test_deep_nesting_is_a_limit_error_and_fast(text):
    start = time.perf_counter()
    with pytest.raises(LimitError, match="nest"):
        p(text)
    assert time.perf_counter() - start < BACKSTOP_SECONDS  # a hang, not a slow machine


def test_depth_limit_is_exact_enough():
    ok = "y = " + "+".join(["x"] * 50)
    assert isinstance(p(ok), Program)
    with pytest.raises(LimitError, match="deeper than 100 levels"):
        p("y = " + "+".join(["x"] * 150))
    with pytest.raises(LimitError, match="deeper than 5 levels"):
        p("y = sin(sin(sin(sin(sin(x)))))", limits=Limits(max_depth=5))


def test_node_limit():
    text = "y = [" + ", ".join(["1"] * 100) + "]"
    assert isinstance(p(text), Program)
    with pytest.raises(LimitError, match="more than 50 syntax nodes"):
        p(text, limits=Limits(max_nodes=50))


def test_literal_digit_limit():
    assert body("y = " + "1" * 30) == [("=", "y", float("1" * 30))]
    with pytest.raises(LimitError, match="more than 30 digits"):
        p("y = " + "1" * 31)
    with pytest.raises(LimitError, match="line 1, column 5"):
        p("y = 1." + "0" * 40)
    with pytest.raises(LimitError, match="digits"):
        p("y = " + "9" * 90_000)
    # digits in names and comments do not count
    assert isinstance(p("x" + "1" * 40 + " = 1  # " + "2" * 40), Program)


# --------------------------------------------------------------------------- never crashes

PROGRAM_ALPHABET = st.sampled_from(
    list("xyab01239.()[],:;=+-*/<>!@%^ \n\t#_")
    + ["if ", "elif ", "else", "while ", "for ", " in ", "range(", "and", "or", "not",
       "sin(", "norm(", "pi", "E", "²", "⁻", "ｘ", "［", "，", "×", "−", "\u202e", "'", '"',
       "lambda", "import ", ".sum", "1e999", "    "]
)


@settings(max_examples=examples(300), deadline=None)
@given(st.text())
def test_arbitrary_text_parses_or_raises_gradcalc_error(text):
    _parses_or_refuses(text)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(PROGRAM_ALPHABET, max_size=40).map("".join))
@example(text="x(.sum-")  # a function's name, then a sign that ends the text
def test_program_like_text_parses_or_raises_gradcalc_error(text):
    _parses_or_refuses(text)


def _parses_or_refuses(text: str) -> None:
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no warning may leak to the user's terminal
            result = p(text)
    except GradcalcError as e:
        # a refusal is a parse or limit error of one line that says where or what
        assert e.kind in ("parse", "limit"), (e.kind, e.message)
        assert e.message and "\n" not in e.message, e.message
        assert "Traceback" not in e.message
    else:
        # a program: statements, an output to differentiate, and the same program again
        # from the same text (parsing is a function of the text)
        assert isinstance(result, Program) and result.body
        assert result.default_output()
        assert p(text) == result
    assert time.perf_counter() - start < BACKSTOP_SECONDS  # a hang, not a slow machine

"""A corpus of hostile inputs, each through the real command line (docs/security.md).

Every case states the exit code and a piece of the message, and is held to leaving the
working folder as it was (no file created: code injection would show up there). Most cases
run in-process through `gradcalc.cli.main` (fast), where every run's counted work is held
to its limits: no numeric run goes past `max_operations`, no interpreter past
`max_iterations`, and a case refused for operations or iterations stopped exactly one step
past the bound (the limit counted the work and fired on it). SUBPROCESS_CASES also run
through the installed `gradcalc` script in a fresh temporary folder, as an unattended
script would run them.

Time is not what a case is judged by (a busy machine runs anything slowly): the only clock
is a generous backstop, BACKSTOP_SECONDS (stretched by GRADCALC_TIME_SCALE), that tells a
hang from an answer.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field

import pytest

from conftest import BACKSTOP_SECONDS, entry_point

FUNCTIONS_LISTED = "is not a function gradcalc knows"


@dataclass
class Case:
    id: str
    args: list[str]
    code: int
    message: str  # a regular expression searched in stderr (exit 2) or in stdout + stderr
    stdin: bytes | None = None
    files: dict[str, bytes] = field(default_factory=dict)  # created before the run

    def __post_init__(self) -> None:
        self.pattern = re.compile(self.message)


def grad(program: str, *rest: str, code: int = 2, message: str, at: str = "x=1",
         stdin: bytes | None = None, files: dict[str, bytes] | None = None,
         id: str | None = None, command: str = "grad") -> Case:
    args = [command, program, "--at", at, *rest] if at else [command, program, *rest]
    if id is None:
        id = (f"{command} " if command != "grad" else "") + program[:50]
        id += "".join(f" {r}" for r in rest)[:40] + (f" @ {at[:30]}" if at != "x=1" else "")
    return Case(id, args, code, message, stdin, files or {})


def value(option_text: str, message: str, *, code: int = 2, program: str = "y = x",
          option: str = "--at", id: str | None = None) -> Case:
    args = ["grad", program, option, option_text] if option == "--at" else \
        ["grad", program, "--at", "x=[1,2]", option, option_text]
    return Case(id or f"{option} {option_text[:50]}" + (f" ({len(option_text)} chars)" if len(
        option_text) > 50 else ""), args, code, message)


NOT_ALLOWED = "is not allowed"
NO_VALUE = "has no value; give it one with --at"

# --------------------------------------------------------------------------- code injection
# every Python escape hatch; the parser converts a whitelisted ast by hand, so each is
# refused by construct (attribute, import, ...) or as an unknown function or name

INJECTION = [
    grad("__import__('os').system('touch pwned')", message=r"attribute access .* is not"),
    grad("y = __import__('os')", message=r"name '__import__' .* names starting with '_'"),
    grad("y = eval('1')", message=FUNCTIONS_LISTED),
    grad("y = exec('open(\"pwned\", \"w\")')", message=FUNCTIONS_LISTED),
    grad("y = open('pwned', 'w')", message=FUNCTIONS_LISTED),
    grad("y = getattr(x, '__class__')", message=FUNCTIONS_LISTED),
    grad("y = globals()", message=FUNCTIONS_LISTED),
    grad("y = locals()", message=FUNCTIONS_LISTED),
    grad("y = vars()", message=FUNCTIONS_LISTED),
    grad("y = dir()", message=FUNCTIONS_LISTED),
    grad("y = compile('1', 'f', 'eval')", message=FUNCTIONS_LISTED),
    grad("y = breakpoint()", message=FUNCTIONS_LISTED),
    grad("y = input()", message=FUNCTIONS_LISTED),
    grad("y = print(x)", message=FUNCTIONS_LISTED),
    grad("y = help()", message=FUNCTIONS_LISTED),
    grad("y = exit()", message=FUNCTIONS_LISTED),
    grad("y = type(x)", message=FUNCTIONS_LISTED),
    grad("y = exec", message=NO_VALUE),
    grad("y = ().__class__.__bases__[0].__subclasses__()", message="attribute access"),
    grad("y = [].__class__", message="attribute access"),
    grad("y = x.__class__", message="attribute access"),
    grad("y = sin.__globals__", message="attribute access"),
    grad("y = (sin)(x).real", message="'sin' at line 1, column 6 is a function"),
    grad("y = sin(x).real", message="attribute access"),
    grad("y = (lambda: 1)()", message="calling the result of an expression"),
    grad("y = x[0](x)", at="x=[1]", message="calling the result of an expression"),
    grad("y = lambda: 1", message=r"lambda .* is not allowed"),
    grad("y = [t for t in x]", message="list comprehension"),
    grad("y = sum(t for t in x)", message="generator expression"),
    grad("y = {t: t for t in x}", message="dict comprehension"),
    grad("y = {1: 2}", message="dict display"),
    grad("y = f'{x}'", message="f-string"),
    grad("y = 'x'", message="string literal"),
    grad("y = b'x'", message="bytes literal"),
    grad("y = '\\N{LATIN SMALL LETTER X}'", message="string literal"),
    grad("y = (z := x)", message=r"assignment expression \(:=\)"),
    grad("y = [*x]", message=r"starred expression"),
    grad("import os", message=r"import 'import os' .* is not allowed"),
    grad("from os import system", message="import"),
    grad("def f(): return 1", message="function definition"),
    grad("class A: pass", message="class definition"),
    grad("with x: y = 1", message="'with'"),
    grad("try:\n    y = x\nexcept: y = 1", message="'try'"),
    grad("raise SystemExit", message="'raise'"),
    grad("assert x", message="'assert'"),
    grad("del x", message="'del'"),
    grad("global x", message="'global'"),
    grad("y: int = x", message="type annotation"),
    grad("async def f(): pass", message="function definition"),
    grad("y = x\n@sin\ndef f(): pass", message="function definition"),
    grad("match x:\n    case 1: y = 1", message="'match'"),
    grad("y = sum(x, axis=__import__('os'))", message=r"names starting with '_' are not allowed"),
    grad("y = sum(x, **{})", message=r"keyword argument '\*\*'"),
    grad("y = x; x.y = 1", message="assignment to an expression|attribute access"),
    grad("y = x if x else 1", message="conditional expression"),
    grad("y = ｅｘｅｃ('1')", message=FUNCTIONS_LISTED, id="full-width exec"),
    grad("y = __ｉｍｐｏｒｔ__('os')", message="names starting with '_'",
         id="full-width __import__"),
    grad("y = 𝐞𝐯𝐚𝐥('1')", message=FUNCTIONS_LISTED, id="math-bold eval"),
    grad("# coding: rot13\ny = k", message=NO_VALUE, id="coding declaration is a comment"),
    grad("y = range", message="is a function; call it"),
    grad("for i in open('f'): y = x", message="a for loop over something other than range"),
]

# --------------------------------------------------------------------------- sympy's names
# sympy is never given text: its names mean nothing to gradcalc

SYMPY = [
    grad(f"y = {name}('x')", message=FUNCTIONS_LISTED, id=f"sympy {name}()")
    for name in ("Symbol", "sympify", "Function", "lambdify", "N", "S", "parse_expr",
                 "simplify", "Matrix", "Integer", "Piecewise", "Heaviside", "DiracDelta")
] + [
    grad(f"y = x + {name}", message=rf"name '{name}' .* {NO_VALUE}", id=f"sympy {name}")
    for name in ("I", "oo", "zoo", "nan", "S", "Rational", "evalf")
]

# --------------------------------------------------------------------------- resources

LIMITS = [
    grad("y = " + "(" * 5000 + "x" + ")" * 5000, message="nests too deeply",
         id="5000 nested parentheses"),
    grad("y = " + "[" * 200 + "x" + "]" * 200, message="nests deeper than 100 levels",
         id="200 nested lists"),
    grad("y = " + "sin(" * 150 + "x" + ")" * 150, message="nests deeper than 100 levels",
         id="150 nested calls"),
    grad("y = " + "-" * 10000 + "x", message="nests too deeply", id="10000 unary minus"),
    grad("y = x" + "+x" * 30000, message=r"program is 90,005 characters|nests too deeply",
         id="x followed by 30000 +x"),
    grad("-", message="program is 200,005 characters; the limit is 100,000",
         stdin=("y = x" + "+x" * 100000).encode(), id="x followed by 10^5 +x (stdin)"),
    grad("@big.txt", message="over 1,000,000 bytes", files={"big.txt": b"#" * 1_000_001},
         id="1 MB program file"),
    grad("@long.txt", message="program is 999,006 characters; the limit is 100,000",
         files={"long.txt": b"y = x\n" + b"#" * 999_000}, id="999 kB program file"),
    grad("@/dev/zero", message="over 1,000,000 bytes", id="/dev/zero"),
    grad("y = 0\n" + "y = y + x\n" * 9000, message="program has more than 20,000 syntax nodes",
         id="27000 syntax nodes"),
    grad("y = 1" + "0" * 40 + "*x", message="has more than 30 digits", id="40-digit literal"),
    grad("y = x*0." + "0" * 60 + "1", message="has more than 30 digits", id="61-digit fraction"),
    grad("y = x; while 1: y = y", message=r"exceeded 1,000,000 iterations .*--max-iterations"),
    grad("y = x; for i in range(10**12): y = y", message="exceeded 1,000,000 iterations"),
    grad("y = x; for i in range(1e300): y = y", message="exceeded 1,000,000 iterations"),
    grad("y = x; while 1: y = y*1.0000001 + sin(y)*0",
         message=r"more than 300,000 operations .*--max-operations"),
    grad("y = x; while x > 0: y = -y", message="more than 300,000 operations"),
    grad("y = x; for i in range(1000000): y = y + x", "--max-iterations", "5000000",
         message="more than 300,000 operations"),
    grad("y = ones(10000000)*x; for i in range(50): y = y*1.0000001",
         message=r"more than 50,000,000 array elements in all"),
    grad("y = ones(3000, 3000) @ ones(3000, 3000) * x",
         message=r"more than 50,000,000 array elements .*multiply-adds"),
    grad("y = ones(30000) + transpose([ones(30000)])",
         message=r"would make an array of 900,000,000 elements"),
    grad("y = maximum(ones(30000), transpose([ones(30000)]))",
         message=r"maximum\(\) at .* would make an array of 900,000,000 elements"),
    grad("y = [ones(10000000)*x, ones(10000000)]",
         message="would make an array of 20,000,000 elements"),
    grad("y = ones(1e300)*x", message=r"ones\(1e\+300\) at .* exceeds the limit of 10,000,000"),
    grad("y = zeros(100000, 100000)*x", message="exceeds the limit of 10,000,000 elements"),
    grad("y = ones(-1)*x", message="whole numbers >= 0"),
    grad("y = x**9**9**9", at="x=2", code=0,
         message=r"y = inf.*\n(.*\n)*warning +the output 'y' has non",
         id="x**9**9**9 folds to inf"),
    grad("y = 9**9**9*x", code=0, message="warning +the output 'y' has non-finite",
         id="9**9**9 folds to inf"),
    grad("y = 10**400*x", "--json", code=0, message=r'"value": "inf"'),
    grad("y = 1e308*1e308*x", "--plain", code=0, message=r"^inf\n"),
    grad("y = x**1e308", at="x=2", code=0, message="non-finite"),
    grad("y = (2*x)**1000000", "--json", code=0, message=r'"gradient": \{"x": "inf"\}'),
    grad("y = x; for i in range(40): y = y*y + 1", "--json", code=0, message='"value": "inf"',
         id="repeated squaring"),
    grad("y = x*2", command="jacobian", at="x=ones(5000)",
         message=r"Jacobian would have 25,000,000 entries .*--wrt.*--weights"),
    grad("y = ones(10000000)*x", command="jacobian",
         message="Jacobian would have 10,000,000 entries"),
    grad("y = sum(x**2)", command="hessian", at="x=ones(5000)",
         message="Hessian would have 25,000,000 entries"),
    grad("y = x; for i in range(300): y = A @ y", "--wrt", "x", command="jacobian",
         at="x=ones(400), A=ones(400, 400)/400", message="reverse sweep would carry"),
    grad("y = sum(x*2)", "--weights", "ones(10**9)", at="x=ones(3)",
         message="more than 10,000,000 elements"),
    grad("y = x; for i in range(300): y = sin(y)*1.0001\ny = sum(y)", "--json",
         "--check-seconds", "1", at="x=ones(200)", code=0,
         message=r'"status": "pass", "method": "finite-difference"',
         id="symbolic check of a big program falls back in time"),
]

# --------------------------------------------------------------------------- parse errors

PARSE = [
    grad("y = (x", message="syntax error at line 1"),
    grad("y = x)", message="syntax error"),
    grad("y = ", message="syntax error"),
    grad("", message="the program is empty"),
    grad("   \n# only a comment\n", message="the program is empty"),
    grad("y = = x", message="syntax error"),
    grad("if x > 0:\ny = 1", message="syntax error at line 2"),
    grad("if x > 0:\n\ty = x\n        z = 1", message="inconsistent use of tabs"),
    grad("y = x % 2", message=r"'%' \(remainder\)"),
    grad("y = x // 2", message=r"'//' \(floor division\) .* use '/'"),
    grad("y = x << 2", message="bitwise operator '<<'"),
    grad("y = ~x", message="bitwise not"),
    grad("y = x is x", message="'is' comparison"),
    grad("y = x in x", message="'in' comparison"),
    grad("a = b = x", message="chained assignment"),
    grad("y = x, x", message=r"tuple \(a, b\)"),
    grad("a, b = x", message="assignment to several names"),
    grad("y = 0x10*x", message="hexadecimal literal"),
    grad("y = 0o17*x", message="octal literal"),
    grad("y = 0b101*x", message="binary literal"),
    grad("y = 1j*x", message="complex number"),
    grad("y = True*x", message="'True'"),
    grad("y = None", message="'None'"),
    grad("y = 1e999*x", message="overflows float64"),
    grad("while x > 0: break", message="'break'"),
    grad("y = []", message="empty list"),
    grad("pi = 3", message="cannot assign to the constant 'pi'"),
    grad("sin = x", message="it is a function's name"),
    grad("y = x[]", message="syntax error"),
]

# --------------------------------------------------------------------------- names, shapes

NAMES_SHAPES = [
    grad("y = z", message=r"name 'z' at line 1, column 5 has no value"),
    grad("y = x", "--of", "z", message=r"--of 'z': the program never assigns it"),
    grad("y = x", "--wrt", "z", message=r"--wrt z: no value given with --at"),
    grad("y = x", at="", message="no inputs: give values with --at"),
    grad("y = [1, 2] + [1, 2, 3]*x", message=r"'\+' at line 1, column 12 failed"),
    grad("y = A @ v", at="A=[[1,2],[3,4]], v=[1,2,3]", message=r"'@' at .* failed"),
    grad("y = x @ x", message="'@' needs vectors or matrices, not scalars"),
    grad("y = x*2", at="x=[1,2]", message=r"shape \(2,\), so its gradient needs weights"),
    grad("y = x*2", "--weights", "[1,2,3]", at="x=[1,2]",
         message=r"--weights has shape \(3,\) but 'y' has shape \(2,\)"),
    grad("y = x; while x > 0: y = y", at="x=[1,2]", message="not a single value"),
    grad("y = [x, [x, x]]", message="mixes elements of different shapes"),
    grad("y = x[5]", at="x=[1,2]", message="index at line 1, column 5 failed"),
    grad("y = x[0.5]", at="x=[1,2]", message="expected a whole number"),
    grad("y = x[::0]", at="x=[1,2]", message="slice step cannot be zero"),
    grad("y = x**2", command="hessian", at="x=[1,2]", message="hessian needs a scalar output"),
    grad("y = sin(x, x)", message=r"sin\(\) takes 1 arguments, not 2"),
    grad("y = x; for i in range(0, 10, 0): y = y", message="range\\(\\) step is zero"),
    grad("y = x", "--weights", "[1]", command="jacobian",
         message="No such option|--weights"),
]

# --------------------------------------------------------------------------- bad values

VALUES = [
    value("x=1e999", "'1e999' overflows float64"),
    value("x=10**10**10", "overflows float64"),
    value("x=9**9**9", "overflows float64"),
    value("x=2**1023*2", "overflows float64"),
    value("x=1/0", "division by zero"),
    value("x=0/0", r"invalid operation \(the result is not a number\)"),
    value("x=True", r"True is not a number \(use 1 or 0\)"),
    value("x=None", "is not a number"),
    value("x=0x10", "write numbers in decimal"),
    value("x=1j", "'1j' is not a number"),
    value("x='1'", "is not a number"),
    value("x=[]", "empty array"),
    value("x=[[1],[1,2]]", r"ragged array \(rows of different lengths\)"),
    value("x=[1,[2]]", "ragged array"),
    value("x=" + "[" * 200 + "1" + "]" * 200, "nested deeper than 100 levels"),
    value("x=" + "[" * 50000 + "1" + "]" * 50000, "--at value is 100,003 characters"),
    value("x=ones(10**9)", "more than 10,000,000 elements"),
    value("x=__import__('os')", "the only calls in a value are ones"),
    value("x=(1).__class__", "is not allowed in a value"),
    value("x=[t for t in [1]]", "is not allowed in a value"),
    value("x=٣", r"U\+0663, ARABIC-INDIC DIGIT THREE"),
    value("x=1, x=2", "'x' is given more than once"),
    value("pi=1", "is a constant and cannot be given a value"),
    value("_x=1", "names starting with '_' are not allowed"),
    value("x=", "the value is missing"),
    value("x", "expected NAME=VALUE"),
    value("x==1", "expected NAME=VALUE"),
    value("[nan, 1]", "--weights must be finite numbers", option="--weights", program="y = x*2"),
    value("[inf, 1]", "--weights must be finite numbers", option="--weights", program="y = x*2"),
    value("[[1,2],[3]]", "ragged array", option="--weights", program="y = x*2"),
    value("x=nan", r"y = nan(.*\n)*warning +the output 'y' has non-finite values", code=0),
    value("x=inf", "warning +the output 'y' has non-finite values", code=0),
    value("x=-inf", "non-finite", code=0),
    value("ｘ=１", r"input +x = 1\b", code=0, id="full-width name and digit are accepted"),
    value("x=１.５", r"x = 1\.5", code=0, id="full-width digits are accepted"),
    value("x=1_000", r"x = 1000\b", code=0),
    value("x=-0", r"x = -0\b", code=0),
    value("x=[2, 3]", r"expect +✗ mismatch", option="--expect", code=1,
          program="y = sum(x*2)", id="expect mismatch exits 1"),
]

# --------------------------------------------------------------------------- domain errors

DOMAIN = [
    grad("y = log(x)", at="x=-1", code=0, message=r"y = nan(.*\n)*warning"),
    grad("y = sqrt(x)", "--json", at="x=-1", code=0, message=r'"value": "nan"'),
    grad("y = x/x", "--plain", at="x=0", code=0, message=r"^nan\n(.*\n)*warning: the output"),
    grad("y = 1/x", "--json", at="x=0", code=0, message=r'"gradient": \{"x": "-inf"\}'),
    grad("y = x/0", "--json", code=0, message=r'"value": "inf"'),
    grad("y = 0/0*x", "--json", code=0, message=r'"value": "nan"'),
    grad("y = acos(x)", "--json", at="x=2", code=0, message='"nan"'),
    grad("y = exp(x)", "--json", at="x=1000", code=0, message=r'"warnings": \['),
]

# --------------------------------------------------------------------------- Unicode and text

UNICODE = [
    grad("y = ｘ*２", "--plain", code=0, message=r"^2\n", id="full-width x is x"),
    grad("y = 𝐱", "--plain", code=0, message=r"^1\n", id="math-bold x is x"),
    grad("y = х", message=r"U\+0445, CYRILLIC SMALL LETTER HA\) .* names and operators "
         "are ASCII", id="Cyrillic x"),
    grad("y = ο", message=r"GREEK SMALL LETTER OMICRON", id="Greek omicron"),
    grad("y = x\u0301", message=r"U\+0301, COMBINING ACUTE ACCENT", id="combining accent"),
    grad("y = x\u202e", message=r"bidirectional control character U\+202E", id="bidi RLO"),
    grad("y = x # \u202e evil", message="bidirectional control character",
         id="bidi in a comment"),
    grad("y = x\u2066", message=r"U\+2066", id="bidi isolate"),
    grad("y = x\u200b", message=r"zero-width character U\+200B", id="zero-width space"),
    grad("y = x\u200d*2", message=r"zero-width character U\+200D", id="zero-width joiner"),
    grad("y = x\u2028z = 1", message=r"line separator character U\+2028", id="U+2028"),
    grad("y = x\x1b[31m", message=r"control character U\+001B", id="ESC sequence"),
    grad("y = x\x07", message=r"control character U\+0007", id="BEL"),
    grad("y = x\x0cz = y", message=r"control character U\+000C", id="form feed"),
    grad("-", stdin=b"y = x\x00", message=r"NUL character U\+0000", id="NUL byte (stdin)"),
    grad("-", stdin=b"y = x\xff", message=r"standard input is not UTF-8 text \(byte 5\)",
         id="undecodable byte (stdin)"),
    grad("-", stdin=b"y = x\xed\xb3\xbf", message="not UTF-8 text",
         id="surrogate escape bytes (stdin)"),
    grad("@bad.txt", files={"bad.txt": b"y = x\xc3"}, message=r"'bad.txt' is not UTF-8 text",
         id="undecodable byte (file)"),
    grad("y = \udcff", message=r"surrogate character U\+DCFF", id="lone surrogate"),
    grad("\ufeffy = x", "--plain", code=0, message=r"^1\n", id="BOM is dropped"),
    grad("y = x\r\nz = y*2\r\n", "--plain", code=0, message=r"^2\n", id="CRLF"),
    grad("y = x\rz = y*3", "--plain", code=0, message=r"^3\n", id="CR"),
    grad("if x > 0:\n\ty = x*4", "--plain", code=0, message=r"^4\n", id="tab indent"),
    grad("y = x［0］×x［1］", "--plain", at="x=[2,5]", code=0, message=r"^5 2\n",
         id="full-width brackets and times"),
    grad("y = 3·x² − x^3", "--plain", at="x=2", code=0, message=r"^0\n", id="web text"),
    grad("y = [bold red]x", message="syntax error", id="rich markup in a program"),
    grad("y = x", "--of", "[bold red]z\x1b[2J",
         message=r"--of '\[bold red\]z\\u001b\[2J'", id="ESC and markup in --of are escaped"),
    grad("y = x", "--wrt", "\u202ez", message=r"--wrt '\\u202ez'", id="bidi in --wrt escaped"),
    grad("y = x*2", "--of", "ｙ", "--wrt", "ｘ", "--plain", code=0, message=r"^2\n",
         id="full-width --of and --wrt are the ASCII names"),
    Case("ESC in --at is escaped", ["grad", "y = x", "--at", "\x1b[31mx=1"], 2,
         r"--at '\\u001b\[31mx=1': control character U\+001B"),
    Case("markup in an --at name", ["grad", "y = x", "--at", "[bold red]x=1"], 2,
         r"'\[bold red\]x' is not a name"),
    Case("directory as program file", ["grad", "@.", "--at", "x=1"], 2,
         r"cannot read program file '\.': Is a directory"),
    Case("missing program file", ["grad", "@nope.txt", "--at", "x=1"], 2,
         r"cannot read program file 'nope.txt': No such file"),
]

# --------------------------------------------------------------------------- batch and CSV
# each batch line is a job like a command line's; errors are JSON lines on stdout


def batch(lines: list[str], message: str, id: str) -> Case:
    return Case(id, ["batch", "-"], 2, message, stdin="\n".join(lines).encode() + b"\n")


BATCH_CSV = [
    batch(['{"command": "grad", "program": "__import__(\'os\').system(\'touch pwned\')", '
           '"at": "x=1"}'], r'"kind": "parse", "message": "attribute access',
          id="batch: code injection"),
    batch(['{"command": "grad", "program": "y = x; while 1: y = y", "at": {"x": 1}}',
           '{"command": "grad", "program": "y = x*2", "at": {"x": 1}}'],
          r'"kind": "limit".*\n.*"gradient": \{"x": 2\.0\}', id="batch: a hang, then a job"),
    batch(['{"command": "grad", "program": "y = x", "at": {"x": 1e999}}'],
          "inf is not a finite number", id="batch: 1e999 in JSON"),
    batch(['{"command": "grad", "program": "y = x", "at": {"x": [NaN, 1]}}'],
          "nan is not a finite number", id="batch: NaN in JSON"),
    batch(['{"command": "grad", "program": "y = x", "at": {"x": true}}'], "is not a number",
          id="batch: boolean in JSON"),
    batch(['{"command": "grad", "program": "y = x\\u202e", "at": "x=1"}'],
          r"bidirectional control character U\+202E", id="batch: bidi in a program"),
    batch(["[" * 100_000 + "]" * 100_000], r'"line": 1, "error"', id="batch: deep JSON"),
    grad("y = x*2", "--points", "p.csv", "--no-check", files={"p.csv": b"x\n1\n0x10\n"},
         at="", message="'0x10' is not a number", id="CSV point in hexadecimal"),
    grad("y = x*2", "--points", "p.csv", files={"p.csv": b"x,\x1b[31my\n1,2\n"},
         message=r"header column '\\x1b\[31my' is not an input name",
         id="CSV header with an ESC sequence"),
]

# --------------------------------------------------------------------------- read forms
# LaTeX, braces and |...| are translated before the whitelist: deep or huge ones meet the
# same limits, and nothing in them reaches anything but the parser

READING = [
    grad("|" * 5000 + "x" + "|" * 5000, message=r"'\|' bars in one bracket group",
         id="5000 nested bars"),
    grad("|" * 150 + "x" + "|" * 150, message=r"'\|' nests deeper than 100 levels",
         id="150 nested bars"),
    grad("\\frac{" * 3000 + "1" + "}{2}" * 3000, message="nests too deeply",
         id="3000 nested \\frac"),
    grad("{" * 5000 + "x" + "}" * 5000, message="nests too deeply", id="5000 nested braces"),
    grad("\\sqrt{" * 4000 + "x" + "}" * 4000, message="nests too deeply",
         id="4000 nested \\sqrt"),
    grad("\\frac{x}{2}+" * 8000 + "x", message="nests", id="8000 \\frac terms"),
    grad("\\input{/etc/passwd}", message=r"the LaTeX command \\input is not one gradcalc",
         id="\\input"),
    grad("\\frac{__import__('os').system('touch pwned')}{1}",
         message="attribute access", id="injection inside \\frac"),
    grad("|__import__('os')|", message="names starting with '_'", id="injection inside bars"),
    grad("\\N{LATIN SMALL LETTER X}", message="LaTeX command", id="\\N{...}"),
    value("x=" + "\\frac{" * 3000 + "1" + "}{2}" * 3000, "nested",
          id="--at 3000 nested \\frac"),
    value("x=" + "|" * 3000 + "1" + "|" * 3000, "bars in one bracket group",
          id="--at 3000 nested bars"),
]

CORPUS = (INJECTION + SYMPY + LIMITS + PARSE + NAMES_SHAPES + VALUES + DOMAIN + UNICODE
          + BATCH_CSV + READING)

#: run again through the installed script in a subprocess (the expensive ones included)
SUBPROCESS_CASES = [
    "__import__('os').system('touch pwned')",
    "y = open('pwned', 'w')",
    "y = ().__class__.__bases__[0].__subclasses__()",
    "y = exec('open(\"pwned\", \"w\")')",
    "sympy sympify()",
    "full-width __import__",
    "5000 nested parentheses",
    "x followed by 10^5 +x (stdin)",
    "/dev/zero",
    "y = x; for i in range(10**12): y = y",
    "y = x; while 1: y = y*1.0000001 + sin(y)*0",
    "y = ones(30000) + transpose([ones(30000)])",
    "x**9**9**9 folds to inf",
    "--at x=10**10**10",
    "--at x=[[1],[1,2]]",
    "NUL byte (stdin)",
    "undecodable byte (stdin)",
    "ESC and markup in --of are escaped",
    "bidi RLO",
    "import os",
    "jacobian y = x*2 @ x=ones(5000)",
    "5000 nested bars",
    "3000 nested \\frac",
    "injection inside \\frac",
]


def test_the_corpus_is_large_and_ids_are_unique():
    assert len(CORPUS) >= 100
    ids = [c.id for c in CORPUS]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    assert set(SUBPROCESS_CASES) <= set(ids)
    assert len(SUBPROCESS_CASES) >= 15


@pytest.fixture(scope="module", autouse=True)
def warm():
    """Import everything once (sympy included), so no case pays for the imports."""
    from gradcalc.cli import main

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sys, "stdout", io.StringIO())
        mp.setattr(sys, "stderr", io.StringIO())
        main(["grad", "y = sin(x)", "--at", "x=1"])


class _Stdin(io.TextIOWrapper):
    def isatty(self) -> bool:
        return False


@pytest.fixture
def counted(monkeypatch):
    """Every numeric backend and interpreter that a case creates, to read their counts."""
    from gradcalc.backends.numeric import NumericBackend
    from gradcalc.language.program import Interpreter

    made: dict[str, list] = {"backends": [], "interpreters": []}
    for cls, key in ((NumericBackend, "backends"), (Interpreter, "interpreters")):
        def init(self, *args, _init=cls.__init__, _key=key, **kwargs):
            _init(self, *args, **kwargs)
            made[_key].append(self)

        monkeypatch.setattr(cls, "__init__", init)
    return made


def _check_counts(case: Case, made: dict[str, list]) -> None:
    """Each run stayed within the work its limits count; a refusal for operations or
    iterations came exactly one step past the bound."""
    backends, interpreters = made["backends"], made["interpreters"]
    assert backends and interpreters or case.code == 2
    for b in backends:
        assert b.operations <= b.limits.max_operations + 1, b.operations
    for i in interpreters:
        assert i.iterations_left >= -1, i.iterations_left
    if case.code == 2 and re.search(r"more than [\d,]+ operations", case.message):
        assert any(b.operations == b.limits.max_operations + 1 for b in backends)
    if case.code == 2 and "iterations" in case.message:
        assert any(i.iterations_left == -1 for i in interpreters)


def _check_outcome(case: Case, code: int, out: str, err: str, took: float) -> None:
    assert "Traceback" not in out + err
    assert "internal error" not in err, err
    assert code == case.code, f"exit {code}\nstdout: {out[:500]}\nstderr: {err[:500]}"
    if case.args[0] == "batch":  # errors are JSON lines on stdout, one per bad job
        assert case.pattern.search(out), out[:2000]
        assert all(json.loads(line) for line in out.splitlines())
    elif code == 2:
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), err
        assert case.pattern.search(err), err
        assert all(ch == "\n" or ch.isprintable() for ch in err), repr(err)
    else:
        assert case.pattern.search(out + err), out[:2000] + err[:500]
    assert took < BACKSTOP_SECONDS, f"took {took:.2f} s: a hang"


@pytest.mark.parametrize("case", CORPUS, ids=[c.id for c in CORPUS])
def test_hostile_input_in_process(case, tmp_path, monkeypatch, capsys, counted):
    from gradcalc.cli import main

    monkeypatch.chdir(tmp_path)
    for name, data in case.files.items():
        (tmp_path / name).write_bytes(data)
    before = sorted(os.listdir(tmp_path))
    if case.stdin is not None:
        monkeypatch.setattr(sys, "stdin", _Stdin(io.BytesIO(case.stdin)))
    started = time.monotonic()
    code = main(list(case.args))
    took = time.monotonic() - started
    captured = capsys.readouterr()
    _check_outcome(case, code, captured.out, captured.err, took)
    _check_counts(case, counted)
    assert sorted(os.listdir(tmp_path)) == before, "a file was created"


BY_ID = {c.id: c for c in CORPUS}


@pytest.mark.parametrize("case_id", SUBPROCESS_CASES)
def test_hostile_input_through_the_installed_script(case_id, tmp_path):
    case = BY_ID[case_id]
    for name, data in case.files.items():
        (tmp_path / name).write_bytes(data)
    before = sorted(os.listdir(tmp_path))
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    env.pop("GRADCALC_DEBUG", None)
    started = time.monotonic()
    proc = subprocess.run([*entry_point(), *case.args], input=case.stdin or b"",
                          capture_output=True, cwd=tmp_path, env=env,
                          timeout=2 * BACKSTOP_SECONDS)
    took = time.monotonic() - started
    out = proc.stdout.decode("utf-8", "replace")
    err = proc.stderr.decode("utf-8", "replace")
    _check_outcome(case, proc.returncode, out, err, took)
    assert sorted(os.listdir(tmp_path)) == before, "a file was created"


def test_errors_in_json_mode_are_one_object_with_escaped_text(invoke):
    run = invoke("grad", "y = x", "--at", "x=1", "--of", "\x1b[2Jz", "--json")
    assert run.code == 2
    data = json.loads(run.out)
    assert data["error"]["kind"] == "usage"
    assert "\x1b" not in data["error"]["message"]
    assert "\\u001b[2Jz" in data["error"]["message"]


def test_rich_markup_in_values_is_shown_literally(invoke):
    # names can only be ASCII identifiers, so markup can only arrive as an error snippet;
    # the terminal rendering prints Text objects, never markup strings
    run = invoke("grad", "y = x", "--at", "x=[1,2]", "--of", "[red]y[/red]")
    assert run.code == 2 and "[red]y[/red]" in run.err


def test_a_huge_result_is_summarised_on_a_terminal(invoke):
    run = invoke("jacobian", "y = x*2", "--at", "x=ones(450)")
    assert run.code == 0
    assert "202,500 entries; --json or --plain prints them all" in run.out
    assert len(run.out) < 5000

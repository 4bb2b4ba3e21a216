"""The notation students type, rewritten into the language before Python's parser sees it.

A token pass over the normalised text (Python's own tokenizer) that only touches token
sequences no valid program contains, so the meaning of a valid program never changes:

- implicit multiplication: `2x`, `2 x`, `3(x+1)`, `(x+1)(x-1)`, `x sin(x)`, `2pi`, `x y`
  get a `*`; a name followed by `(` is a product only when the caller names it a
  variable (`r(s+1)`; else `x (0)` stays an error);
- `sin^2(x)` / `sin²(x)` is `(sin(x)^2)`, and so are `sin^n(x)`, `sin^(n-1)(x)`;
  `2[z-(x+1)]` is `2*(z-(x+1))` (a number is never indexed);
  `√x`, `√(x+1)`, `√sin(x)` are `sqrt(...)`;
  `ln(...)` is `log(...)`; the name `π` is `pi`;
- `f(x, y) = EXPR` at the start of a statement assigns `f` and declares its inputs;
- functions without parentheses (`sin x`, `sin 2x`, `cos^2 x`, `sin^-1 x`), `log_2 x`,
  `xcos(x)`, `xe^x`, `x^2e^x`, `cos x(x+1)`, and `sint` where the caller says t is a
  variable: applying.py; `x^x(1+ln x)` is a product (WeBWorK's reading);
- a number after a bracket is a product: `(ln 2) 2^t`; so is a variable the caller names
  before a bracket (`r(2s^2 + 3t^3)`, recorded), and a number after a space (`x 5^x`);
- what stays ambiguous is an error that shows the reading to type: `e^2x`, `2^3x` (a
  bare exponent of `e` or a number followed at once by a variable), `√2x`, `√x^2`,
  `√2(x+1)`, `sin^-2 x`.

Where a reading has another that a reader could take (`sin x^2`, `1/2x`, `sin^-1 x`), it
is recorded as a `forms.Trap` in `Rewritten.traps` (parse.parse_with_traps returns them).
The forms before this pass (whitespace, LaTeX, braces, `|...|`) are read by forms.py.

A space ends a bare exponent or radicand: `x^2 y` is x²·y and `√2 x` is √2·x; without
one, a number exponent ends before a function's name, `e^` or (after a power of a
variable) any name: `x^2e^x`, `x^3ln x`, `x^2y` (recorded), while `e^2x` and `√2x` are
refused. A superscript ends itself: `x²y` is x²·y.
"""

from __future__ import annotations

import io
import keyword
import re
import tokenize
from collections.abc import Callable, Collection
from dataclasses import dataclass

from gradcalc.errors import ParseError
from gradcalc.language import applying
from gradcalc.language.forms import Trap
from gradcalc.language.program import Pos
from gradcalc.language.text import SUPERSCRIPTS, LineIndex, escape, quote

#: spellings of functions that are not the function table's names
ALIASES = {"ln": "log"}
#: names that are the table's constants under another spelling
CONSTANT_SPELLINGS = {"π": "pi"}
_STATEMENT_START = (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT)
#: a superset of the places a rule can apply (two tokens that may be adjacent operands, a
#: call or definition, `π`, `√`); text without one is left alone without tokenizing it
_TRIGGER = re.compile(r"\d[^\W\d]|[\w.)]\s+[^\W\d]|\)[^\W\d]|[\w.)]\s*\(|[^\W\d]\s+\d|[π√]|\)\s*\d"
                      r"|[^\W\d]e\*\*|\*\*-|\*\*\d+\s|log_|\d\s*\[|/\s*\d+\s+\d|[^\W\d]\s+-\w|[^\W\d]\s*\[")


@dataclass(frozen=True)
class Rewritten:
    """The rewritten text, per character (plus an end entry) its offset in the input, and
    the inputs declared by `f(x, y) = ...` definitions, in order."""

    text: str
    origin: list[int]
    inputs: tuple[str, ...] = ()
    #: the tokens of `text` when nothing was rewritten (for the next stage to reuse)
    tokens: list[tokenize.TokenInfo] | None = None
    #: the conventional readings taken where another reading exists (forms.Trap)
    traps: tuple[Trap, ...] = ()


@dataclass
class _Edit:
    start: int
    end: int
    text: str
    origin: int
    order: int = 0


def rewrite(text: str, functions: Collection[str], at: Callable[[int], Pos],
            superscript: Callable[[int], bool] = lambda offset: False,
            applied: Collection[str] = (), variables: Collection[str] = (),
            given: Collection[str] = ()) -> Rewritten:
    """Rewrite student notation in normalised `text`.

    `functions`: the callable names; `at(offset)`: the user's position of an offset, for
    errors; `superscript(offset)`: whether the character there came from a superscript;
    `applied`: names to read as a function of one letter (`sint` as sin(t): names.applied),
    which the caller knows are no variables; `variables`: names the caller knows are
    variables, so that one before a parenthesis is a product (`r(2s+1)`); `given`: names
    the caller gives values, never read another way (`xe^x` with xe given). Text the
    tokenizer cannot read is rewritten up to that point; ast reports the rest.
    """
    if not _TRIGGER.search(text) and not (applied and any(a in text for a in applied)):
        return Rewritten(text, list(range(len(text) + 1)))
    tokens, complete = _tokens(text)
    if not tokens:
        return Rewritten(text, list(range(len(text) + 1)))
    rewriter = _Pass(text, [t for t in tokens if not _blank(t)], frozenset(functions), at,
                     superscript)
    rewriter.applied = frozenset(applied)
    rewriter.variables = frozenset(variables)
    rewriter.given = frozenset(given)
    rewriter.complete = complete
    result = rewriter.run()
    if result.tokens is not None:
        result = Rewritten(result.text, result.origin, result.inputs, tokens, result.traps)
    return result


def _blank(tok: tokenize.TokenInfo) -> bool:
    return tok.type == tokenize.ERRORTOKEN and tok.string.isspace()


def _tokens(text: str) -> tuple[list[tokenize.TokenInfo], bool]:
    """The tokens of `text`, and whether the tokenizer read all of it."""
    tokens: list[tokenize.TokenInfo] = []
    try:
        tokens.extend(tokenize.generate_tokens(io.StringIO(text).readline))
    except Exception:  # noqa: BLE001 - unreadable rest: ast.parse names the problem
        return tokens, False
    return tokens, True


class _Pass:
    """One left-to-right pass collecting edits; `run` applies them."""

    def __init__(self, text: str, tokens: list[tokenize.TokenInfo], functions: frozenset[str],
                 at: Callable[[int], Pos], superscript: Callable[[int], bool]) -> None:
        self.text = text
        self.toks = tokens
        self.functions = functions | set(ALIASES)
        self.at = at
        self.superscript = superscript
        starts = LineIndex(text).starts
        last = len(starts)
        self.starts = [min(starts[min(t.start[0], last) - 1] + t.start[1], len(text))
                       for t in tokens]
        self.ends = [min(starts[min(t.end[0], last) - 1] + t.end[1], len(text)) for t in tokens]
        self.strs = [t.string for t in tokens] + [""]
        self.types = [t.type for t in tokens] + [tokenize.ENDMARKER]
        self.match = _matching(tokens)
        self.closers = {v: k for k, v in self.match.items()}
        self.edits: list[_Edit] = []
        self.inputs: list[str] = []
        #: token index -> what it ends bare ("exponent" or "radicand")
        self.bare: dict[int, str] = {}
        #: token indices after which no `*` goes (the power in `sin**2(x)`)
        self.no_product: set[int] = set()
        #: token indices that end a bare argument followed by a bracket (`cos x(x+1)`)
        self.argument_ends: set[int] = set()
        self.complete = False
        self.traps: list[Trap] = []
        self.applied: frozenset[str] = frozenset()
        self.variables: frozenset[str] = frozenset()
        self.given: frozenset[str] = frozenset()
        self._assigned: frozenset[str] | None = None

    @property
    def assigned(self) -> frozenset[str]:
        if self._assigned is None:
            self._assigned = applying.assigned_names(self)
        return self._assigned

    def spelled(self, i: int) -> str:
        """A function's name as the table spells it (`ln` is `log`)."""
        word = self.s(i)
        return ALIASES[word] if word in ALIASES and word not in self.functions - set(
            ALIASES) else word

    # token classes --------------------------------------------------------------------
    def s(self, i: int) -> str:
        return self.strs[i] if 0 <= i < len(self.strs) else ""

    def kind(self, i: int) -> int:
        return self.types[i] if 0 <= i < len(self.types) else tokenize.ENDMARKER

    def is_name(self, i: int) -> bool:
        word = self.s(i)
        return (self.kind(i) == tokenize.NAME and not keyword.iskeyword(word)
                and not keyword.issoftkeyword(word))

    def is_function(self, i: int) -> bool:
        return self.is_name(i) and self.s(i) in self.functions

    def is_value(self, i: int) -> bool:
        """A name that is not a function (a variable or a constant)."""
        return self.is_name(i) and self.s(i) not in self.functions

    def is_root(self, i: int) -> bool:
        return self.kind(i) == tokenize.ERRORTOKEN and self.s(i) == "√"

    def edit(self, start: int, end: int, text: str, origin: int | None = None) -> None:
        self.edits.append(_Edit(start, end, text, start if origin is None else origin,
                                len(self.edits)))

    def error(self, i: int, message: str) -> ParseError:
        return ParseError(f"{escape(message, quotes=False)} (at {self.at(self.starts[i])})")

    # the pass -------------------------------------------------------------------------
    def run(self) -> Rewritten:
        """One look at each token; the rules run only where their first token is."""
        name, number, root = tokenize.NAME, tokenize.NUMBER, tokenize.ERRORTOKEN
        types, strs = self.types, self.strs
        special = self.functions | set(CONSTANT_SPELLINGS)
        for i in range(len(self.toks)):
            t, word = types[i], strs[i]
            if t == name:
                if i == 0 or types[i - 1] in _STATEMENT_START or strs[i - 1] == ";":
                    self.definition(i)
                if word in special:
                    self.spelling(i)
                    self.function_power(i)
                elif word.startswith("log_"):
                    applying.log_base(self, i)
                elif word in self.applied and strs[i + 1] != "(":
                    applying.applied_name(self, i)
                elif i not in self.no_product and strs[i + 1] in ("(", "**"):
                    applying.split(self, i)
            elif t == root:
                self.root(i)
            elif word == "[" and i and types[i - 1] == number:
                self.number_bracket(i)
            if (t == number or t == name) and i not in self.no_product \
                    and strs[i - 1] in ("**", "-", "+"):
                self.bare_exponent(i)
            if i and (t == name or word == "(" or word == "√") and (
                    types[i - 1] in (number, name) or strs[i - 1] == ")") or (
                    t == number and (strs[i - 1] == ")" or types[i - 1] in (name, number)
                                     and self.starts[i] > self.ends[i - 1])):
                self.product(i - 1, i)
        return self.apply()

    def spelling(self, i: int) -> None:
        word = self.s(i)
        if self.kind(i) != tokenize.NAME:
            return
        if word in CONSTANT_SPELLINGS:
            self.edit(self.starts[i], self.ends[i], CONSTANT_SPELLINGS[word])
        elif word in ALIASES and word not in self.functions - set(ALIASES) \
                and self.s(i + 1) == "(":
            self.edit(self.starts[i], self.ends[i], ALIASES[word])
        if self.is_function(i) and self.s(i + 1) == "[" and applying.bracket_argument(self, i):
            return
        if self.is_function(i) and (self.is_name(i + 1) or self.kind(i + 1) == tokenize.NUMBER
                                    or self.is_root(i + 1) or applying.signed(self, i)):
            if self.is_function(i + 1) and (applying.call_argument(self, i)
                                            or applying.bare_chain(self, i)):
                return
            if self.is_function(i + 1) or not applying.bare_call(self, i, self.spelled(i)):
                raise self.error(i, f"{quote(word)} needs parentheses: write "
                                 f"{word}({self.s(i + 1)}) rather than {word} {self.s(i + 1)}")
        if word == "log":
            applying.log_ten(self, i)

    def definition(self, i: int) -> None:
        """`f(x, y) = ...` at a statement's start: `f = ...`, with inputs x, y."""
        if not self.is_value(i) or self.s(i + 1) != "(":
            return
        close = self.match.get(i + 1)
        if close is None or self.s(close + 1) != "=" or self.kind(close + 1) != tokenize.OP:
            return
        params = [k for k in range(i + 2, close) if self.s(k) != ","]
        if not params or not all(self.is_value(k) for k in params) or any(
                self.s(k) != "," for k in range(i + 3, close, 2)):
            return
        self.edit(self.starts[i + 1], self.ends[close], "")
        self.inputs.extend(self.s(k) for k in params if self.s(k) not in self.inputs)

    def function_power(self, i: int) -> None:
        """`sin**2(x)` (from `sin^2(x)` or `sin²(x)`): the square of sin(x); also a
        power that is a name or a bracket, `sin^n(x)`, `sin^(n-1)(x)`."""
        if not self.is_function(i) or self.s(i + 1) != "**":
            return
        word, j = self.s(i), i + 2
        if applying.function_power(self, i, word):
            return
        if self.kind(j) == tokenize.NUMBER:
            last = j
        elif self.is_value(j) or self.s(j) == "(" and j in self.match:
            last = self.match.get(j, j)
            if self.s(last + 1) != "(":
                return
        else:
            return
        power = applying.span(self, j, last)
        close = self.match.get(last + 1) if self.s(last + 1) == "(" else None
        if close is None:
            if self.is_name(j + 1) or self.kind(j + 1) == tokenize.NUMBER:
                raise self.error(i, f"write {word}({self.s(j + 1)})^{power} rather than "
                                 f"{word}^{power} {self.s(j + 1)}")
            return
        self.edit(self.starts[i], self.ends[last], f"({self.spelled(i)}", self.starts[i])
        self.edit(self.ends[close], self.ends[close], f"**{power})", self.starts[j])
        self.no_product.add(last)

    def number_bracket(self, i: int) -> None:
        """`2[z-(x+1)]`: a square bracket after a number groups (no number is indexed)."""
        close = self.match.get(i)
        if close is None or self.s(close) != "]":
            return
        self.edit(self.starts[i], self.ends[i], "*(")
        self.edit(self.starts[close], self.ends[close], ")")

    def root(self, i: int) -> None:
        """`√x`, `√2`, `√(x+1)`, `√sin(x)`: sqrt of what follows."""
        if not self.is_root(i):
            return
        start, nxt = self.starts[i], i + 1
        if self.s(nxt) == "(":
            self.edit(start, self.ends[i], "sqrt")
            return
        if self.is_function(nxt) and self.s(nxt + 1) == "(":
            last = self.match.get(nxt + 1)
        elif self.is_value(nxt) or self.kind(nxt) == tokenize.NUMBER:
            last = nxt
            while self.s(last + 1) == "[" and self.match.get(last + 1) is not None:
                last = self.match[last + 1]
            if self.s(last + 1) == "**":
                radicand = self.text[self.starts[nxt]:self.ends[last]]
                raise self.error(i, f"√{radicand}^... is ambiguous: write sqrt({radicand})^... "
                                 f"or sqrt({radicand}^...)")
            self.bare[last] = "radicand"
        else:
            last = None
        if last is None:
            raise self.error(i, "√ needs what it takes the root of: write √x, √(x+1) or "
                             "sqrt(...)")
        self.edit(start, self.ends[i], "sqrt(")
        self.edit(self.ends[last], self.ends[last], ")", start)

    def bare_exponent(self, i: int) -> None:
        """Mark a bare exponent's last token (`2` in `e**2`, `x` in `e**-x`)."""
        if self.kind(i) != tokenize.NUMBER and not self.is_value(i):
            return
        before = i - 1
        if self.s(before) in ("-", "+"):
            before -= 1
        if self.s(before) == "**" and not self.superscript(self.starts[i]):
            self.bare[i] = "exponent"

    def product(self, left: int, right: int) -> None:
        """Insert `*` between two adjacent tokens that can only mean a product."""
        starts_operand = (self.is_name(right) or self.s(right) == "("
                          or self.is_root(right) or self.kind(right) == tokenize.NUMBER
                          and (self.s(left) == ")" or self.is_value(left)
                               or self._fraction_end(left)
                               or self.bare.get(left) == "exponent"))  # `(ln 2) 2^t`,
        # `x 5^(x-1)`, `1/2 1/2`, `2x^2 3^x` (a number after a space: the run only gets
        # here then)
        if not starts_operand or left in self.no_product or (
                self.s(right) == "(" and self.s(right + 1) == ")"):
            return
        if self.kind(left) == tokenize.NUMBER or self.s(left) == ")":
            pass
        elif self.is_value(left) and (self.is_name(right) or self.is_root(right)
                                      or self.kind(right) == tokenize.NUMBER):
            pass
        elif not (self.is_value(left) and self.s(right) == "(" and (
                left in self.bare or left in self.argument_ends
                or self.kind(left - 1) == tokenize.NUMBER
                and self.ends[left - 1] == self.starts[left]
                or applying.variable_then_bracket(self, left, right))):
            return  # a name followed by `(` is a call, unless it ends a bare exponent or
            # a product with a number (`2x(x+1)`), or is a variable the caller named
        if left in self.bare and self.ends[left] == self.starts[right]:
            bracket = self.s(right) == "(" and right in self.match
            if bracket and self.bare[left] == "exponent":
                self.power_then_bracket(left, right)
            elif bracket and self.is_value(left):  # `√x(x+1)`: √x times the bracket
                applying.radicand_then_bracket(self, left, right)
            elif self.bare[left] == "exponent" and applying.new_factor(self, left, right):
                applying.power_then_factor(self, left, right)
            else:
                raise self.ambiguous(left, right)
        elif self.s(left - 1) == "/" and (self.kind(left) == tokenize.NUMBER or (
                self.is_value(left) and left not in self.bare)):
            self.division_then_product(left, right)
        self.edit(self.starts[right], self.starts[right], "*")

    def _fraction_end(self, left: int) -> bool:
        """Whether token `left` is a number that ends a fraction `a/b` (`1/2 1/2`)."""
        return self.kind(left) == tokenize.NUMBER and self.s(left - 1) == "/"

    def power_then_bracket(self, left: int, right: int) -> None:
        """`x**x(1+ln x)`: a product, as WeBWorK reads it (recorded: the other reading
        puts the bracket in the exponent)."""
        power = left - 1 if self.s(left - 1) == "**" else left - 2
        base = power - 1
        if self.s(base) == ")" and base in self.closers:
            base = self.closers[base]
        close = self.match[right]
        b, e, g = (applying.span(self, base, power - 1), applying.span(self, power + 1, left),
                   applying.span(self, right, close))
        applying.record(self, "power then parenthesis", base, close, f"{b}**{e}*{g}",
                        f"{b}**({e}*{g})")

    def division_then_product(self, left: int, right: int) -> None:
        """`1/2x`, `1/2√x`: (1/2)·x, as Python's precedence says (recorded: the other
        reading divides by the product)."""
        num = applying.run_start(self, left - 2)
        if num is None:
            return
        end = applying.run_end(self, right)
        if end is None or any(t.kind == "division then product" and t.start == self.starts[num]
                              for t in self.traps):
            return
        n, d, r = (applying.span(self, num, left - 2), self.s(left),
                   applying.span(self, right, end))
        applying.record(self, "division then product", num, end, f"({n}/{d})*{r}",
                        f"{n}/({d}*{r})")

    def ambiguous(self, left: int, right: int) -> ParseError:
        a, b = self.s(left), self.s(right)
        if b == "(" and right in self.match:
            b = self.text[self.starts[right]:self.ends[self.match[right]]]
        if self.bare[left] == "radicand":
            return self.error(left, f"√{a}{b} is ambiguous: write sqrt({a})*{b} or "
                              f"sqrt({a}*{b})")
        base = self.s(left - 2) if self.s(left - 1) == "**" else self.s(left - 3)
        sign = "" if self.s(left - 1) == "**" else self.s(left - 1)
        return self.error(left, f"{base}^{sign}{a}{b} is ambiguous: write {base}^{sign}{a}*{b} "
                          f"or {base}^({sign}{a}*{b}) (a space also ends the exponent: "
                          f"{base}^{sign}{a} {b})")

    def apply(self) -> Rewritten:
        out: list[str] = []
        origin: list[int] = []
        cursor = 0
        for e in sorted(self.edits, key=lambda e: (e.start, e.end, e.order)):
            if e.start < cursor:
                continue  # overlapping edits: the first wins (cannot happen for valid text)
            out.append(self.text[cursor:e.start])
            origin.extend(range(cursor, e.start))
            out.append(e.text)
            origin.extend([e.origin] * len(e.text))
            cursor = e.end
        out.append(self.text[cursor:])
        origin.extend(range(cursor, len(self.text) + 1))
        reuse = self.toks if not self.edits and self.complete else None
        return Rewritten("".join(out), origin, tuple(self.inputs), reuse, tuple(self.traps))


def _matching(tokens: list[tokenize.TokenInfo]) -> dict[int, int]:
    """Index of each opening bracket -> index of its closing bracket."""
    match: dict[int, int] = {}
    stack: list[int] = []
    for k, tok in enumerate(tokens):
        if tok.type != tokenize.OP:
            continue
        if tok.string in "([{":
            stack.append(k)
        elif tok.string in ")]}" and stack:
            match[stack.pop()] = k
    return match


def superscript_test(original: str, origin: list[int]) -> Callable[[int], bool]:
    """`superscript(offset)` for normalised text whose characters came from `original`."""
    def test(offset: int) -> bool:
        k = origin[offset] if offset < len(origin) else len(original)
        return k < len(original) and original[k] in SUPERSCRIPTS
    return test

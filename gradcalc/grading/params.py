"""A problem's parameters as a teacher declares them (a key's `params` cell), and their draw
for one student: the same values on any machine, in any process, with any --jobs.

Declarations, separated by `;` or line breaks, each read by gradcalc's own parser:

    a = 2..9                 the integers 2 to 9
    b = 2..5 except 3        a range without some values
    c = 1/2..5/2 step 1/2    a range with a step (rationals too)
    d = a+1..9               a range that depends on earlier parameters
    n = choice(2, 3, 4)      one of these values
    k = 2a + 1               a derived value: exact arithmetic on earlier parameters
                             (+ - * / ^, % and mod, gcd, floor, int, abs)
    a != b                   a condition (== != < <= > >=, and, or, not): the whole try
                             is drawn again until every condition holds
    redraw b until b != a    only b is drawn again until the condition holds (WeBWorK's
                             do { $b = ... } until (...), with its odds)
    f = formula(sin(x)^2, cos(x)^2)   one formula of a list (WeBWorK's list_random of
                             formulas), put into the function where it names f
    v = variable(t, x, u)    the variable's name: the function, wrt and kind cells use v

Values are exact rationals (`fractions.Fraction`); the draw is `gradcalc.grading.draws`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.language.ir import (
    Binary,
    BoolOp,
    Call,
    Compare,
    Expr,
    ExprStmt,
    Name,
    Not,
    Num,
    Unary,
    walk,
)

#: the most values a parameter may take, and the largest numerator or denominator
MAX_VALUES, MAX_MAGNITUDE = 10_000, 10**12
#: the largest exponent of a power in a parameter's arithmetic
MAX_EXPONENT = 64
#: names a parameter cannot have (the language's constants)
RESERVED = frozenset({"e", "E", "pi", "π", "tau", "inf", "nan"})

_NAME = re.compile(r"[^\W\d]\w*")
_RANGE = re.compile(r"^(?P<lo>.+?)\.\.(?P<hi>.+?)(?:\s+step\s+(?P<step>.+?))?"
                    r"(?:\s+except\s+(?P<ex>.+))?$", re.S)
_CHOICE = re.compile(r"^choice\s*\((?P<args>.*)\)(?:\s+except\s+(?P<ex>.+))?$", re.S)
_REDRAW = re.compile(r"^redraw\s+(?P<name>[^\W\d]\w*)\s+until\s+(?P<cond>.+)$", re.S)
_TEXTS = re.compile(r"^(?P<what>formula|variable)\s*\((?P<args>.*)\)$", re.S)
_EXCEPT = re.compile(r"^(?P<expr>.+?)\s+except\s+(?P<ex>.+)$", re.S)
#: '=' that is not part of ==, <=, >=, !=
_EQUALS = re.compile(r"(?<![=<>!])=(?!=)")
_SPELLED = {"≠": "!=", "≤": "<=", "≥": ">=", "…": "..", "−": "-"}


@dataclass(frozen=True)
class Condition:
    text: str
    expr: Expr


@dataclass(frozen=True)
class Drawn:
    """A parameter drawn from a list: a range (lo..hi, its step) or a choice, without
    the excepted values; bounds may use earlier parameters."""

    name: str
    text: str
    lo: Expr | None = None
    hi: Expr | None = None
    step: Expr | None = None
    choices: tuple[Expr, ...] = ()
    excepted: tuple[Expr, ...] = ()
    #: `redraw NAME until C`: the conditions its own draw is repeated until
    until: tuple[Condition, ...] = ()
    #: a list of formulas or of variable's names (`formula(...)`, `variable(...)`)
    texts: tuple[str, ...] = ()
    variable: bool = False

    @property
    def number(self) -> bool:
        """Whether its values are numbers (not formulas nor names)."""
        return not self.texts


@dataclass(frozen=True)
class Formula:
    """A value that is a text: one formula of a `formula(...)` list (its variables'
    names drawn put in), or a drawn variable's name (`variable`)."""

    text: str
    variable: bool = False


@dataclass(frozen=True)
class Derived:
    """A parameter computed from earlier ones (exact arithmetic)."""

    name: str
    text: str
    expr: Expr


@dataclass(frozen=True)
class Params:
    """A parsed `params` cell: its declarations in order and its conditions."""

    text: str
    decls: tuple[Drawn | Derived, ...]
    conditions: tuple[Condition, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.decls)


Value = Fraction | Formula
Values = tuple[tuple[str, Value], ...]


# --------------------------------------------------------------------------- reading


def read(text: str, where: str, forbidden: frozenset[str] = frozenset()) -> Params:
    """The parameters of a `params` cell; GradcalcError naming WHERE (the key's line) when
    a declaration cannot be read. `forbidden`: names that cannot be parameters (the
    problem's variables)."""
    decls: list[Drawn | Derived] = []
    conditions: list[Condition] = []
    for piece in _pieces(text):
        at = f"{where}, column params, {piece!r}"
        redraw = _REDRAW.match(piece)
        if redraw:
            _add_redraw(decls, redraw["name"], Condition(piece, _expression(redraw["cond"],
                                                                            at)), at)
            continue
        m = _EQUALS.search(piece)
        if m is None:
            expr = _expression(piece, at)
            if not isinstance(expr, (Compare, BoolOp, Not)):
                raise GradcalcError(f"{at}: neither a parameter (NAME = ...) nor a condition "
                                    "(such as a != b)", kind="usage")
            _check_names(expr, decls, at)
            conditions.append(Condition(piece, expr))
            continue
        name, body = piece[:m.start()].strip(), piece[m.end():].strip()
        texts = _TEXTS.match(body)
        decl = _texts(name, texts, piece, decls, at) if texts else \
            _declaration(name, body, piece, at)
        _check_name(name, [d.name for d in decls], forbidden, at,
                    isinstance(decl, Drawn) and decl.variable)
        for part in _parts(decl):
            _check_names(part, decls, at)
        decls.append(decl)
    _check_formulas_before(decls, where)
    if not decls:
        raise GradcalcError(f"{where}, column params: no parameter is declared (e.g. "
                            "a = 2..9; b = choice(2, 3))", kind="usage")
    return Params(text.strip(), tuple(decls), tuple(conditions))


def _add_redraw(decls: list[Drawn | Derived], name: str, until: Condition, at: str) -> None:
    """`redraw NAME until C` joined to NAME's declaration: C may name NAME and the
    parameters declared before it."""
    k = next((k for k, d in enumerate(decls) if d.name == name), None)
    drawn = k is not None and isinstance(decls[k], Drawn)
    if not drawn or not decls[k].number:  # type: ignore[index,union-attr]
        what = "a parameter declared before it" if k is None else \
            "drawn from numbers" if drawn else "drawn (it is computed)"
        raise GradcalcError(f"{at}: {name!r} is not {what}: redraw NAME until CONDITION "
                            "comes after NAME = RANGE or NAME = choice(...)", kind="usage")
    if not isinstance(until.expr, (Compare, BoolOp, Not)):
        raise GradcalcError(f"{at}: after until comes a condition (such as {name} != a)",
                            kind="usage")
    _check_names(until.expr, decls[:k + 1], at, f" or {name!r} itself")
    decls[k] = replace(decls[k], until=(*decls[k].until, until))  # type: ignore[union-attr]


def _texts(name: str, m: re.Match[str], piece: str, before: list[Drawn | Derived],
           at: str) -> Drawn:
    """`formula(F, G, ...)`: formulas read by gradcalc's parser (a name in one is a
    parameter declared before, else a variable of the function); `variable(t, x)`:
    names, none a parameter's."""
    texts = tuple(_split_commas(m["args"]))
    if not texts:
        raise GradcalcError(f"{at}: {m['what']}() needs at least one "
                            f"{m['what']}", kind="usage")
    if m["what"] == "variable":
        taken = {d.name for d in before} | {name}
        for t in texts:
            _check_name(t, [], frozenset(), at, variable=True)
            if t in taken or texts.count(t) > 1:
                why = "a parameter" if t in taken else "twice in the list"
                raise GradcalcError(f"{at}: {t!r} is {why}: a variable's names are others",
                                    kind="usage")
        return Drawn(name, piece, texts=texts, variable=True)
    for t in texts:
        _check_formula(name, t, before, at)
    return Drawn(name, piece, texts=texts)


def _check_formulas_before(decls: list[Drawn | Derived], where: str) -> None:
    """A formula names only parameters declared before it (a later one would be a
    variable of the formula when drawn, a parameter when put in)."""
    for k, decl in enumerate(decls):
        later = {d.name for d in decls[k + 1:]}
        for text in decl.texts if isinstance(decl, Drawn) and not decl.variable else ():
            clash = sorted(_identifiers(text) & later)
            if clash:
                raise GradcalcError(f"{where}, column params, {decl.text!r}: {clash[0]!r} "
                                    "is a parameter declared after it: declare it before",
                                    kind="usage")


def _check_formula(name: str, text: str, before: list[Drawn | Derived], at: str) -> None:
    from gradcalc.language.parse import parse

    try:
        program = parse(text)
    except GradcalcError as exc:
        raise GradcalcError(f"{at}: {text!r}: {exc.message}", kind="usage") from None
    if len(program.body) != 1 or not isinstance(program.body[0], ExprStmt):
        raise GradcalcError(f"{at}: {text!r} is not one formula", kind="usage")
    if name in _names(program.body[0].value):
        raise GradcalcError(f"{at}: the formula {text!r} names {name!r} itself",
                            kind="usage")


def _pieces(text: str) -> list[str]:
    for word, plain in _SPELLED.items():
        text = text.replace(word, plain)
    return [p.strip() for p in re.split(r"[;\n]", text) if p.strip()]


def _declaration(name: str, body: str, piece: str, at: str) -> Drawn | Derived:
    if not body:
        raise GradcalcError(f"{at}: give {name} a range, a choice or a value", kind="usage")
    m = _CHOICE.match(body)
    if m:
        choices = tuple(_expression(a, at) for a in _split_commas(m["args"]))
        if not choices:
            raise GradcalcError(f"{at}: choice() needs at least one value", kind="usage")
        return Drawn(name, piece, choices=choices, excepted=_excepted(m["ex"], at))
    m = _RANGE.match(body)
    if m:
        return Drawn(name, piece, _expression(m["lo"], at), _expression(m["hi"], at),
                     _expression(m["step"], at) if m["step"] else None,
                     excepted=_excepted(m["ex"], at))
    if _EXCEPT.match(body):
        raise GradcalcError(f"{at}: 'except' goes with a range (2..9 except 5) or a "
                            "choice", kind="usage")
    return Derived(name, piece, _expression(body, at))


def _excepted(text: str | None, at: str) -> tuple[Expr, ...]:
    return tuple(_expression(v, at) for v in _split_commas(text)) if text else ()


def _split_commas(text: str) -> list[str]:
    out, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        depth += ch in "(["
        depth -= ch in ")]"
        if ch == "," and depth == 0:
            out.append(text[start:k])
            start = k + 1
    out.append(text[start:])
    return [p.strip() for p in out if p.strip()]


def expression(text: str) -> Expr:
    """One number expression of parameters (`2a + 1`), for `value`; GradcalcError when the
    text is not one."""
    return _expression(text, "the expression")


def _expression(text: str, at: str) -> Expr:
    """One number expression (or condition), read by gradcalc's parser (never eval)."""
    from gradcalc.language.parse import parse

    try:
        program = parse(text.strip(), functions=tuple(ARITHMETIC), remainder=True)
    except GradcalcError as exc:
        raise GradcalcError(f"{at}: {exc.message}", kind="usage") from None
    if len(program.body) != 1 or not isinstance(program.body[0], ExprStmt):
        raise GradcalcError(f"{at}: {text.strip()!r} is not one expression", kind="usage")
    return program.body[0].value


def _check_name(name: str, before: list[str], forbidden: frozenset[str], at: str,
                variable: bool = False) -> None:
    from gradcalc.engine.ops import FUNCTIONS

    if not _NAME.fullmatch(name):
        raise GradcalcError(f"{at}: {name!r} is not a parameter's name (a letter, then "
                            "letters or digits)", kind="usage")
    if name in RESERVED or name in FUNCTIONS or name in ARITHMETIC:
        raise GradcalcError(f"{at}: {name!r} is a constant or a function of the language, "
                            "not a free name for a parameter", kind="usage")
    if name in forbidden and not variable:
        raise GradcalcError(f"{at}: {name!r} is a variable of the problem (its wrt), not a "
                            "parameter", kind="usage")
    if name in before:
        raise GradcalcError(f"{at}: the parameter {name!r} is declared twice", kind="usage")


def _parts(decl: Drawn | Derived) -> Iterator[Expr]:
    if isinstance(decl, Derived):
        yield decl.expr
        return
    yield from (e for e in (decl.lo, decl.hi, decl.step) if e is not None)
    yield from decl.choices
    yield from decl.excepted


def _check_names(expr: Expr, before: list[Drawn | Derived], at: str, itself: str = ""
                 ) -> None:
    """Every name of a number expression is a number parameter declared before it."""
    _check_calls(expr, at)
    texts = {d.name: d for d in before if isinstance(d, Drawn) and not d.number}
    numbers = {d.name for d in before} - set(texts)
    for name in sorted(_names(expr)):
        if name in texts:
            what = "a variable's name" if texts[name].variable else "a formula"
            raise GradcalcError(f"{at}: {name!r} is {what}, not a number", kind="usage")
        if name not in numbers:
            raise GradcalcError(f"{at}: {name!r} is not a parameter declared before it"
                                f"{itself}", kind="usage")


def _check_calls(e: Any, at: str) -> None:
    """Each function of the arithmetic given its number of values (`gcd(a)` refused)."""
    for node in walk(e):
        if isinstance(node, Call) and len(node.args) != ARITHMETIC[node.func][0]:
            arity = ARITHMETIC[node.func][0]
            raise GradcalcError(f"{at}: {node.func} takes {arity} value{'s' * (arity > 1)}, "
                                f"not {len(node.args)}", kind="usage")


def _names(e: Any) -> set[str]:
    return {node.id for node in walk(e) if isinstance(node, Name)}


# --------------------------------------------------------------------------- exact values


def value(e: Any, env: dict[str, Fraction]) -> Any:
    """An expression's exact value (a Fraction; a bool for a condition); GradcalcError
    for what exact arithmetic cannot do."""
    if isinstance(e, Num):
        return _number(e.value)
    if isinstance(e, Name):
        v = env[e.id]
        if v.__class__ is Formula:
            raise GradcalcError(f"{e.id!r} is {v.text!r}, not a number", kind="usage")
        return v
    if isinstance(e, Unary):
        v = value(e.operand, env)
        return -v if e.op == "-" else v
    if isinstance(e, Binary):
        return _binary(e.op, value(e.left, env), value(e.right, env))
    if isinstance(e, Call):
        return _call(e, env)
    if isinstance(e, Compare):
        items = [value(x, env) for x in e.operands]
        return all(_compare(op, a, b) for op, a, b in zip(e.ops, items, items[1:],
                                                           strict=False))
    if isinstance(e, BoolOp):
        truths = (bool(value(v, env)) for v in e.values)
        return all(truths) if e.op == "and" else any(truths)
    if isinstance(e, Not):
        return not value(e.operand, env)
    raise GradcalcError("only numbers, + - * / ^ %, abs, gcd, mod, floor and int go into a "
                        "parameter", kind="usage")


def _call(e: Call, env: dict[str, Fraction]) -> Fraction:
    return ARITHMETIC[e.func][1](*(value(a, env) for a in e.args))


def _whole(name: str, *args: Fraction) -> tuple[int, ...]:
    if any(a.denominator != 1 for a in args):
        raise GradcalcError(f"{name} takes whole numbers, not "
                            f"{', '.join(text_of(a) for a in args)}", kind="usage")
    return tuple(int(a) for a in args)


def _gcd(a: Fraction, b: Fraction) -> Fraction:
    return Fraction(math.gcd(*_whole("gcd", a, b)))


def _mod(a: Fraction, b: Fraction) -> Fraction:
    """a mod b, as Perl's % (WeBWorK's) gives it for whole numbers: the sign of b."""
    m, n = _whole("mod", a, b)
    if n == 0:
        raise GradcalcError("mod by zero", kind="usage")
    return Fraction(m % n)


#: the functions of a parameter's arithmetic: their number of values and their rule;
#: int cuts toward zero (Perl's int, as WeBWorK writes it), floor goes down
ARITHMETIC: dict[str, tuple[int, Callable[..., Fraction]]] = {
    "abs": (1, abs),
    "gcd": (2, _gcd),
    "mod": (2, _mod),
    "floor": (1, lambda a: Fraction(math.floor(a))),
    "int": (1, lambda a: Fraction(math.trunc(a))),
}


@lru_cache(maxsize=4096)
def _number(v: float) -> Fraction:
    """A literal's exact value: the decimal it was written as (0.1 is 1/10)."""
    if not math.isfinite(v):
        raise GradcalcError(f"{v} is not a finite number", kind="usage")
    return _bounded(Fraction(repr(v)))


def _binary(op: str, a: Fraction, b: Fraction) -> Fraction:
    if op == "**":
        if b.denominator != 1 or abs(b) > MAX_EXPONENT:
            raise GradcalcError(f"a power's exponent is a whole number up to {MAX_EXPONENT} "
                                "(exact arithmetic)", kind="usage")
        if a == 0 and b < 0:
            raise GradcalcError("a division by zero", kind="usage")
        return _bounded(a ** int(b))
    if op == "/":
        if b == 0:
            raise GradcalcError("a division by zero", kind="usage")
        return _bounded(a / b)
    if op == "%":
        return _mod(a, b)
    if op not in ("+", "-", "*"):
        raise GradcalcError(f"{op!r} does not go into a parameter", kind="usage")
    return _bounded(a + b if op == "+" else a - b if op == "-" else a * b)


def _bounded(v: Fraction) -> Fraction:
    if abs(v.numerator) > MAX_MAGNITUDE or v.denominator > MAX_MAGNITUDE:
        raise GradcalcError(f"a parameter's value is over {MAX_MAGNITUDE:.0e} (numerator or "
                            "denominator)", kind="limit")
    return v


def _compare(op: str, a: Fraction, b: Fraction) -> bool:
    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
            ">=": a >= b}[op]


def choices_of(decl: Drawn, env: dict[str, Fraction]) -> list[Fraction]:
    """The values a drawn parameter takes, in order (a range from lo up, then a choice as
    listed), the excepted ones left out."""
    if decl.choices:
        values = [value(c, env) for c in decl.choices]
    else:
        assert decl.lo is not None and decl.hi is not None
        lo, hi = value(decl.lo, env), value(decl.hi, env)
        step = value(decl.step, env) if decl.step is not None else Fraction(1)
        if step <= 0:
            raise GradcalcError(f"the step of {decl.name} is not above 0", kind="usage")
        count = math.floor((hi - lo) / step) + 1
        if count > MAX_VALUES:
            raise GradcalcError(f"{decl.name} takes over {MAX_VALUES:,} values: give a "
                                "narrower range or a larger step", kind="limit")
        values = [lo + k * step for k in range(max(count, 0))]
    left_out = {value(x, env) for x in decl.excepted}
    out = [v for v in values if v not in left_out]
    if not out:
        raise GradcalcError(f"{decl.name} has no value: the range or choice is empty"
                            + (" once the excepted values are left out" if values else ""),
                            kind="usage")
    return out


def text_of(v: Value) -> str:
    """A value as the key writes it: 3, -3, 1/2, -1/2 (a formula or a name as it is)."""
    if isinstance(v, Formula):
        return v.text
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def json_of(v: Value) -> int | str:
    """A value in JSON: a whole number as a number, a fraction as its text ("1/2"), a
    formula or a name as its text."""
    return v.numerator if isinstance(v, Fraction) and v.denominator == 1 else text_of(v)


def shown(values: Values) -> str:
    """`a = 3, b = 1/2`."""
    return ", ".join(f"{n} = {text_of(v)}" for n, v in values)


def holds(decl: Drawn, v: Fraction, env: dict[str, Fraction]) -> bool:
    """Whether the value V of a drawn parameter stays (its `redraw ... until` conditions
    hold with it; an error names the redraw)."""
    if not decl.until:
        return True
    with_it = {**env, decl.name: v}
    for c in decl.until:
        try:
            if not value(c.expr, with_it):
                return False
        except GradcalcError as exc:
            when = f" when {shown(tuple(with_it.items()))}"
            raise GradcalcError(f"{c.text!r}: {exc.message}{when}", kind=exc.kind) from None
    return True


def derived(decl: Derived, env: dict[str, Fraction]) -> Fraction:
    """A derived parameter's value from the earlier ones (an error names it)."""
    try:
        return value(decl.expr, env)
    except GradcalcError as exc:
        raise with_values(decl, env, exc) from None


def values_of(decl: Drawn, env: dict[str, Any]) -> Sequence[Value]:
    """A drawn parameter's values given the earlier ones (an error names it)."""
    if decl.texts:
        return [Formula(_named(t, env), decl.variable) for t in decl.texts]
    try:
        if not depends(decl):
            return fixed_values(decl)
        return choices_of(decl, env)
    except GradcalcError as exc:
        raise with_values(decl, env, exc) from None


#: a name in a formula (not inside another, nor a LaTeX command)
_IDENTIFIER = re.compile(r"(?<!\\)(?<![^\W\d])[^\W\d]\w*")


def _identifiers(text: str) -> set[str]:
    return set(_IDENTIFIER.findall(text))


def _named(text: str, env: dict[str, Any]) -> str:
    """A formula with the drawn variables' names put in."""
    def name(m: re.Match[str]) -> str:
        v = env.get(m.group())
        return v.text if isinstance(v, Formula) and v.variable else m.group()

    return _IDENTIFIER.sub(name, text)


@lru_cache(maxsize=1024)
def depends(decl: Drawn) -> bool:
    return any(_names(part) for part in _parts(decl))


@lru_cache(maxsize=1024)
def fixed_values(decl: Drawn) -> tuple[Fraction, ...]:
    """The values of a parameter whose range or choice uses no other parameter: the same
    list for every draw, made once."""
    return tuple(choices_of(decl, {}))


def with_values(decl: Drawn | Derived, env: dict[str, Fraction],
                exc: GradcalcError) -> GradcalcError:
    """The error of one declaration, naming it and the earlier values it was computed
    with."""
    when = f" when {shown(tuple(env.items()))}" if env else ""
    return GradcalcError(f"{decl.text!r}: {exc.message}{when}", kind=exc.kind)

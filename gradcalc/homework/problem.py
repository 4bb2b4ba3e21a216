"""A homework problem read into scalar entries: the function's outputs and the answer's.

The function and the answer are untrusted text read by the same whitelist parser as every
program (student notation included). Each side ends in an expression; a list literal
there is split into entries (a vector function's outputs; an answer's gradient entries or
Jacobian rows), each entry a small program of its own: the side's earlier statements,
then that one expression. The inputs are the function's free names: `--wrt`, else those
of a definition `f(x, y) = ...`, else every free name in order of first appearance.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from gradcalc.engine.ops import FUNCTIONS
from gradcalc.errors import GradcalcError
from gradcalc.homework.reading import claims, wording
from gradcalc.language.forms import Trap
from gradcalc.language.glued import variables_in
from gradcalc.language.ir import walk
from gradcalc.language.names import applied, split_name
from gradcalc.language.parse import parse_with_traps, quote
from gradcalc.language.program import (
    EULER,
    RESULT_NAME,
    Assign,
    Expr,
    ExprStmt,
    For,
    If,
    ListLit,
    Name,
    Program,
    Stmt,
    While,
)
from gradcalc.limits import DEFAULT_LIMITS, Limits

_WORDS = re.compile(r"[^\W\d]\w*")
_DEFINITION = re.compile(r"\s*[^\W\d]\w*\s*\(([^()=]*)\)\s*=(?!=)")

@dataclass(frozen=True)
class Entry:
    """One scalar entry: a program whose value (RESULT_NAME) is the entry."""

    program: Program
    expr: Expr | None  # the entry's expression (None when the side ends in control flow)

    @property
    def text(self) -> str:
        """The entry as typed in the language (powers as ^)."""
        if self.expr is None:
            return "(the program)"
        from gradcalc.homework.reading.student import expression

        return expression(self.expr)


@dataclass(frozen=True)
class Side:
    """The function or the answer: its program, entries (row-major) and their shape."""

    program: Program
    entries: tuple[Entry, ...]
    shape: tuple[int, ...]
    #: the readings the notation pass chose where another exists (forms.Trap), with
    #: their offsets in `program.source`
    traps: tuple[Trap, ...] = ()

    @property
    def straight(self) -> bool:
        """No control flow: one formula, the same at every point."""
        return not any(isinstance(s, (If, While, For)) for s in self.program.body)


@dataclass(frozen=True)
class Problem:
    function: Side
    answer: Side
    inputs: tuple[str, ...]  # every free name of the function: wrt first, then parameters
    wrt: tuple[str, ...]  # the inputs differentiated, in the answer's order
    kind: str  # 'derivative' | 'gradient' | 'jacobian' (the kinds' modules add others)
    shape: tuple[int, ...]  # the true derivative's shape: (), (n,) or (m, n)
    #: higher or mixed derivatives: one path of inputs per column (None: d/d each wrt)
    paths: tuple[tuple[str, ...], ...] | None = None
    #: inputs held at given values (`--at`): the answer is judged there only
    pinned: tuple[tuple[str, float], ...] = ()
    #: an antiderivative's problem turned round: the student's formula is the function
    #: side, and its derivative is compared with the true function (the answer side)
    turned: bool = False
    #: the answer's constants (a derivative's `+ C`): inputs drawn at random like the
    #: others, never differentiated
    constants: tuple[str, ...] = ()

    @property
    def student(self) -> Side:
        """The side the student wrote."""
        return self.function if self.turned else self.answer


def read_side(text: str, what: str, max_rank: int, limits: Limits = DEFAULT_LIMITS,
              variables: tuple[str, ...] | None = None) -> Side:
    """Parse one side and split its final expression into entries. `variables`: the
    names known to be variables, so that names glued to them are read apart (`xsinx`,
    `cosx`, `xy`) and one before a bracket is a product (`r(s+1)`); None: those the text
    itself shows (glued.variables_in). An answer's prefix (`dy/dx =`, `... = (dy)/(dx)`)
    is dropped: a kind that reads the answer alone has no use for it."""
    if what == "answer" and "=" in text:
        text = claims.split_prefix(text)[0]
    if variables is None:
        variables = variables_in([text], FUNCTIONS)
    try:
        program, traps = parse_with_traps(text, limits=limits, variables=variables)
    except GradcalcError as exc:
        if wording.prose(text, (), FUNCTIONS):
            raise GradcalcError(wording.not_a_formula(what, text), kind="parse") from None
        raise GradcalcError(f"the {what}: {wording.plain(exc.message)}",
                            kind=exc.kind) from None
    body, last = program.body[:-1], program.body[-1]
    if not isinstance(last, (Assign, ExprStmt)):
        out = program.default_output()
        whole = Program((*program.body, ExprStmt(Name(out, last.pos), last.pos)),
                        program.source, program.inputs)
        return Side(program, (Entry(whole, None),), (), traps)
    rows, shape = _grid(last.value, what, max_rank)
    entries = tuple(Entry(Program((*body, ExprStmt(e, e.pos)), program.source,
                                  program.inputs), e) for e in rows)
    return Side(program, entries, shape, traps)


@lru_cache(maxsize=512)
def function_side(text: str, limits: Limits = DEFAULT_LIMITS,
                  variables: tuple[str, ...] | None = None) -> Side:
    """The function read as a side, once per text, limits and variables: a class file
    repeats few functions over many rows (the Side is immutable; a text that cannot be
    read raises each time)."""
    return read_side(claims.vector(text), "function", 1, limits, variables)


def answer_variables(answer: str, function: Side, wrt: list[str] | None = None
                     ) -> tuple[str, ...]:
    """The variables an answer to `function` may be written with: the function's names,
    those asked for, and those the answer's text shows (for names glued to them)."""
    known = [*free_names(function.program), *function.program.inputs, *(wrt or ())]
    return variables_in([answer], FUNCTIONS, [n for n in known if n != EULER])


def forget_functions() -> int:
    """Empty the cache of functions read (a benchmark's cold start); how many were kept."""
    kept = function_side.cache_info().currsize
    function_side.cache_clear()
    return kept


def _grid(e: Expr, what: str, max_rank: int) -> tuple[list[Expr], tuple[int, ...]]:
    if not isinstance(e, ListLit):
        return [e], ()
    if max_rank < 1:
        raise GradcalcError(f"the {what} is a list; it should be one expression", kind="input")
    if not any(isinstance(i, ListLit) for i in e.items):
        return list(e.items), (len(e.items),)
    if max_rank < 2:
        raise GradcalcError(f"the {what} is a nested list; it should be a number or a flat "
                            "list", kind="input")
    if not all(isinstance(i, ListLit) for i in e.items) or len(
            {len(i.items) for i in e.items}) != 1:
        raise GradcalcError(f"the {what}'s rows have different lengths", kind="input")
    if any(isinstance(x, ListLit) for row in e.items for x in row.items):
        raise GradcalcError(f"the {what} nests lists deeper than rows of a matrix",
                            kind="input")
    flat = [x for row in e.items for x in row.items]
    return flat, (len(e.items), len(e.items[0].items))


def free_names(program: Program) -> list[str]:
    """Names read before any assignment, in order of first appearance."""
    out: list[str] = []
    _block(program.body, set(), out)
    return out


def _block(body: tuple[Stmt, ...], assigned: set[str], out: list[str]) -> None:
    for s in body:
        if isinstance(s, Assign):
            _reads(s.value, assigned, out)
            assigned.add(s.target)
        elif isinstance(s, ExprStmt):
            _reads(s.value, assigned, out)
        elif isinstance(s, If):
            _reads(s.test, assigned, out)
            _block(s.body, assigned, out)
            _block(s.orelse, assigned, out)
        elif isinstance(s, While):
            _reads(s.test, assigned, out)
            _block(s.body, assigned, out)
        elif isinstance(s, For):
            for e in (s.start, s.stop, s.step):
                _reads(e, assigned, out)
            assigned.add(s.var)
            _block(s.body, assigned, out)


def _reads(e: Expr, assigned: set[str], out: list[str]) -> None:
    for n in walk(e):
        if isinstance(n, Name) and n.id not in assigned and n.id not in out:
            out.append(n.id)


def read_problem(function: str, answer: str, wrt: list[str] | None = None,
                 limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt",
                 constants: tuple[str, ...] = (), order: int = 1,
                 partial: tuple[str, ...] = ()) -> Problem:
    """Both sides read, the inputs chosen and every name of the answer accounted for.

    The answer's prefix (`f'(x) =`, `∂f/∂y =`, `∇f =`: reading/claims.py) is stripped and must
    agree with what is asked; `wrt_from` names where `wrt` came from in errors (the
    option, or a class file's column); `constants` are names of the answer alone that
    are its constants (inputs after the function's own); `order` and `partial`: the
    derivative asked (`--order 2`, `--partial x,y`), which the prefix must name."""
    body, claim = claims.split_prefix(answer)
    typed = list(dict.fromkeys(wrt or ()))
    known = _function_variables(function, body, tuple(typed))
    f = function_side(function, limits, known)
    names = free_names(f.program)
    a = read_side(claims.vector(body), "answer", 2, limits, variables_in(
        [body], FUNCTIONS, [*known, *names, *f.program.inputs]))
    declared = list(f.program.inputs)
    names += [n for n in declared if n not in names]  # f(x, y) = 3x^2: y is an input
    chosen = typed or _claimed(claim, declared or [n for n in names if n != EULER]) \
        or declared
    names = [n for n in names if n != EULER or n in chosen]
    if not names and not chosen:  # a constant: by the answer's variable, else x
        chosen = [n for n in free_names(a.program) if n != EULER][:1] or ["x"]
    for n in typed:
        if n not in names and n != RESULT_NAME and names:
            raise GradcalcError(f"{wrt_from} {quote(n)}: the function does not use it (its "
                                f"inputs: {', '.join(names)})", kind="usage")
    for n in names:
        parts = split_name(n, [m for m in names if m != n])
        if parts and n not in chosen:
            raise GradcalcError(f"the function: name {quote(n)} is {' and '.join(parts)} "
                                f"written together; did you mean {'*'.join(parts)}?",
                                kind="parse")
    wrt_names = chosen or names
    inputs = tuple(wrt_names + [n for n in names if n not in wrt_names])
    inputs += tuple(c for c in constants if c not in inputs)
    if claim is not None and not _asked(claim, tuple(wrt_names), order, partial):
        _agrees(claim, tuple(wrt_names), inputs, bool(typed), wrt_from)
    _check_answer_names(a, inputs)
    n = len(wrt_names)
    if f.shape:
        kind, shape = "jacobian", (f.shape[0], n)
    else:
        kind, shape = ("derivative", ()) if n == 1 else ("gradient", (n,))
    return Problem(f, a, inputs, tuple(wrt_names), kind, shape,
                   constants=tuple(c for c in constants if c in inputs))


@lru_cache(maxsize=1024)
def _own_variables(function: str, known: tuple[str, ...]) -> tuple[str, ...]:
    return variables_in([function], FUNCTIONS, known)


def _function_variables(function: str, answer: str, typed: tuple[str, ...]
                        ) -> tuple[str, ...]:
    """The function's variables: those its text shows (with those asked for and
    declared), and a letter a function's name is written against (`sint`) that the
    answer shows to be a variable too (`cost`); the same for every answer to one
    function, mostly, so its reading is kept once (function_side)."""
    named = (*typed, *_declared(function))
    own = _own_variables(function, (*named, *_glued_constants(function, named)))
    letters = {call[1] for w in _WORDS.findall(function) if (call := applied(w))}
    if not letters - set(own):
        return own
    extra = letters & set(variables_in([function, answer], FUNCTIONS, own))
    return _own_variables(function, (*named, *_glued_constants(function, named),
                                     *sorted(extra)))


def function_variables(function: str, typed: tuple[str, ...]) -> tuple[str, ...]:
    """The variables a function is read with when `typed` are asked for: a letter glued
    to one of them is a constant read apart (`xy` by x is x·y)."""
    return _function_variables(function, "", typed)


def _glued_constants(function: str, named: tuple[str, ...]) -> tuple[str, ...]:
    """The letters written against a variable the problem names, before it (`kx` in
    `ln(kx)` with x asked for or declared) or after it (`xy` with x asked for):
    constants, so that the name reads as a product (the reading is said)."""
    out = set()
    for w in _WORDS.findall(function):
        if len(w) != 2 or w in named or w in _RESERVED:
            continue
        for var, other in ((w[1], w[0]), (w[0], w[1])):
            if var in named and other not in named and other.isalpha() and other != EULER:
                out.add(other)
    return tuple(sorted(out))


#: two-letter words that are never a variable and a constant written together
_RESERVED = frozenset({"pi", "ln", "lg", "dx", "dy", "dt"})


def _declared(function: str) -> list[str]:
    """The inputs a definition `f(x, y) = ...` declares, read from the text alone."""
    m = _DEFINITION.match(function)
    return [n.strip() for n in m[1].split(",")] if m else []


def _claimed(claim: claims.Claim | None, pool: list[str]) -> list[str]:
    """The variable an answer's prefix names, when nothing typed says which: `∂f/∂y =`
    picks y, `dy/dt = 0` gives a constant its variable. A prime's `(x)` only names the
    argument: `f'(x)` of a function of t alone is its derivative."""
    if claim is None or not claim.wrt:
        return []
    v = claim.wrt[0]
    if v in pool or not pool:
        return [v]
    if claim.form == "derivative" and "(" in claim.prefix and not claim.prefix.startswith(
            ("d", "∂")) and len(pool) == 1:
        return pool
    raise GradcalcError(f"the answer is written as {claim.describe()}, but the function has "
                        f"no variable {v} (its variables: {', '.join(pool)})", kind="input")


def _asked(claim: claims.Claim, wrt: tuple[str, ...], order: int,
           partial: tuple[str, ...]) -> bool:
    """True when the prefix names the N-th derivative or the mixed partial asked
    (`f''(x) =` with --order 2, `f_xy =` or `∂²f/∂x∂y =` with --partial x,y; the order of
    a mixed partial's variables aside, as Clairaut's theorem allows); an error naming
    both when it names another order; False for a first derivative (`_agrees` judges)."""
    path = partial or (wrt[:1] * order if order > 1 and len(wrt) == 1 else ())
    if not path:
        return False
    said = claim.wrt * claim.order if len(claim.wrt) == 1 else claim.wrt
    asked = (f"the mixed partial by {', '.join(partial)} (--partial {','.join(partial)})"
             if partial else f"the derivative of order {order} (--order {order})")
    if claim.form in ("derivative", "partial") and claim.order == len(path) and (
            not said or sorted(said) == sorted(path)
            or claim.form == "derivative" and not claim.prefix.startswith(("d", "∂"))):
        return True
    raise GradcalcError(f"the answer is written as {claim.describe()}, but the check asks "
                        f"for {asked}", kind="input")


def _agrees(claim: claims.Claim, wrt: tuple[str, ...], inputs: tuple[str, ...],
            typed: bool, wrt_from: str) -> None:
    """An error when the answer's prefix claims another derivative than the one asked."""
    asked = (f"the derivative with respect to {wrt[0]}" if len(wrt) == 1 else
             f"the derivatives with respect to {', '.join(wrt)}")
    if typed:
        asked += f" ({wrt_from} {', '.join(wrt)})"
    if claim.form == "antiderivative":
        raise GradcalcError(f"the answer is written as {claim.describe()}; the check asks "
                            f"for {asked} (--antiderivative asks for an antiderivative)",
                            kind="input")
    if claim.order != 1:
        raise GradcalcError(f"the answer is written as {claim.prefix}, a derivative of order "
                            f"{claim.order}; the check asks for {asked}", kind="input")
    prime = claim.form == "derivative" and not claim.prefix.startswith(("d", "∂"))
    if claim.wrt and claim.wrt[0] not in wrt and not (prime and len(inputs) == 1):
        raise GradcalcError(f"the answer is written as {claim.describe()}, but the check "
                            f"asks for {asked}", kind="input")
    if claim.wrt and len(wrt) > 1:
        raise GradcalcError(f"the answer is written as {claim.describe()}, but the check "
                            f"asks for {asked}: write the gradient as [d/d{wrt[0]}, ...], "
                            f"or choose one variable", kind="input")
    if claim.form == "gradient" and len(wrt) == 1 and len(inputs) > 1:
        raise GradcalcError(f"the answer is written as {claim.describe()}, but the check "
                            f"asks for {asked} only", kind="input")


def _check_answer_names(answer: Side, inputs: tuple[str, ...]) -> None:
    for n in free_names(answer.program):
        if n in inputs or n == EULER:
            continue
        if wording.prose(answer.program.source, inputs, FUNCTIONS):
            raise GradcalcError(wording.not_a_formula("answer", answer.program.source),
                                kind="parse")
        parts = split_name(n, inputs)
        if parts:
            raise GradcalcError(f"the answer: name {quote(n)} is not an input; did you mean "
                                f"{'*'.join(parts)}?", kind="parse")
        raise GradcalcError(f"the answer uses {quote(n)}, which the function does not have "
                            f"(its inputs: {', '.join(inputs)})", kind="input")

"""A problem's variant for one student: the parameters drawn (`params`), put into the key's
texts as exact numbers, checked to read as the teacher's template, and to be defined
somewhere.

The numbers go into the text itself (`put_in`): each parameter's name becomes its value,
a whole number as it is (`3`, written `2·3` after a number or a name), any other value
in parentheses (`(-3)`, `(1/2)`). The result is read by gradcalc's parser and must be the
template's own reading with each parameter replaced by its number, node for node; where
it is not (a value against a function's name, `sin a`), every value is parenthesised,
then also multiplied; a template that no form reads alike is an error naming the key's
line. So the variant is the teacher's text with numbers in it, judged like any function,
and a receipt's function text is all a replay needs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, is_dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.grading import draws, params
from gradcalc.grading.params import Formula, Params, Values, json_of, text_of
from gradcalc.homework.kinds.registry import PLAIN, SETTINGS, Kind, input_shapes
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: variants of each problem tried when the key is read: their texts must read as the
#: template's, and each function must be defined somewhere
CHECKED = 24
#: a name: not inside another, nor a LaTeX command (after a digit it is: 2a is 2·a)
_IDENTIFIER = re.compile(r"(?<!\\)(?<![^\W\d])[^\W\d]\w*")
#: how a value is written into the text, tried in order
FORMS = ("tidy", "grouped", "multiplied")


@dataclass(frozen=True)
class Template:
    """A problem of the key written with parameters: its texts, what to draw, the term's
    seed, and where it was read (errors name the key's line)."""

    name: str
    function: str
    params: Params
    term: str
    where: str
    kind: Kind = PLAIN
    #: the kind cells when the `at` cell uses parameters (the kind is read per variant)
    cells: tuple[tuple[str, str], ...] = ()
    wrt: str = ""  # the key's wrt cell (a drawn variable's parameter is put in)

    @property
    def equation(self) -> bool:
        return equation(self.kind)


@dataclass(frozen=True)
class Variant:
    """One student's problem: the values drawn and the texts judged."""

    problem: str
    student: str
    term: str
    values: Values
    function: str  # the variant's function text, as judged
    template: str  # the key's function text
    params: str  # the key's params cell
    kind: Kind = PLAIN
    wrt: str = ""  # the variant's wrt (a drawn variable's name put in)

    @property
    def shown(self) -> str:
        return params.shown(self.values)

    def as_json(self) -> dict[str, Any]:
        """The variant as a verdict's row and receipt record it."""
        return {"problem": self.problem, "student": self.student, "term": self.term,
                "params": {n: json_of(v) for n, v in self.values},
                "template": self.template, "spec": self.params}


# --------------------------------------------------------------------------- texts


def substitute(text: str, values: Values, form: str = "tidy") -> str:
    """TEXT with each parameter's name replaced by its value, written in FORM."""
    numbers = dict(values)
    out, last = [], 0
    for m in _IDENTIFIER.finditer(text):
        if m.group() not in numbers:
            continue
        before, after = text[:m.start()].rstrip(), text[m.end():].lstrip()
        out += [text[last:m.start()], _written(numbers[m.group()], before[-1:], after[:1],
                                               form)]
        last = m.end()
    return "".join(out) + text[last:]


def _written(v: Any, before: str, after: str, form: str) -> str:
    against = bool(before) and (before.isalnum() or before in ")]")
    if isinstance(v, Formula):
        core = v.text if v.variable or form == "tidy" else f"({v.text})"
        return "·" + core if against and (form == "multiplied" or not v.variable) else core
    plain = v.denominator == 1 and v >= 0
    core = text_of(v) if plain and form == "tidy" and not (after.isdigit() or after == ".") \
        else f"({text_of(v)})"
    if against and (form == "multiplied" or (form == "tidy" and not core.startswith("("))):
        return "·" + core
    return core


def names_in(text: str) -> set[str]:
    """The names a text uses (LaTeX commands aside)."""
    return {m.group() for m in _IDENTIFIER.finditer(text)}


def at_text(cell: str, values: Values) -> str:
    """An `at` cell with its parameters' values put in (`x=a` -> `x=(3)`), as the values'
    reader takes it (products written with *)."""
    return substitute(cell, values, "multiplied").replace("·", "*")


#: what separates a domain's bounds: comparisons, `in`, `and`, brackets, commas
_DOMAIN_PARTS = re.compile(r"(<=|>=|≤|≥|<|>|\bin\b|\band\b|[\[\],;])")


def domain_text(cell: str, values: Values) -> str:
    """A `domain` cell with each bound made of parameters worked out exactly, as a student
    reads it (`x in [a, 2a]` -> `x in [4, 8]`, `x > -a` -> `x > 3`); another piece gets the
    values put in."""
    env = dict(values)
    out = []
    for piece in _DOMAIN_PARTS.split(cell):
        names = names_in(piece)
        if piece.strip() and names and names <= set(env):
            try:
                worked = text_of(params.value(params.expression(piece), env))
                lead, trail = piece[:len(piece) - len(piece.lstrip())], piece[len(
                    piece.rstrip()):]
                out.append(f"{lead}{worked}{trail}")
                continue
            except GradcalcError:
                pass
        out.append(substitute(piece, values, "multiplied").replace("·", "*")
                   if names & set(env) else piece)
    return "".join(out)


#: how a parameter's value is put in a kind column, by the setting's `drawn` form
PUT_IN = {"assignments": at_text, "conditions": domain_text, "expression": substitute}
#: the kind columns a parameter may be used in (the settings with a `drawn` form), and
#: how its value is put in there
PARAMETRISED = {s.name: PUT_IN[s.drawn] for s in SETTINGS if s.drawn}


def _tree(node: Any, numbers: dict[str, Any]) -> Any:
    """A program's nodes as nested tuples without their positions, each parameter's name
    replaced by its value's own reading."""
    from gradcalc.language.ir import Name, Pos

    if isinstance(node, Name) and node.id in numbers:
        return numbers[node.id]
    if isinstance(node, Pos):
        return None
    if isinstance(node, tuple):
        return tuple(_tree(x, numbers) for x in node)
    if is_dataclass(node):
        return (type(node).__name__, *(_tree(getattr(node, f.name), numbers)
                                       for f in fields(node)
                                       if f.name not in ("pos", "source")))
    return node


def _sides(text: str, equation: bool) -> list[str]:
    from gradcalc.homework.kinds.implicit import split_equation
    from gradcalc.homework.reading.claims import vector

    return list(split_equation(text)) if equation else [vector(text)]


def _read(text: str, limits: Limits = DEFAULT_LIMITS) -> Any:
    from gradcalc.language.parse import parse

    return parse(text, limits=limits)


@lru_cache(maxsize=4096)
def _value_tree(v: Any) -> Any:
    return _tree(_read(f"({text_of(v)})").body[0].value, {})


def expanded(text: str, values: Values, limits: Limits = DEFAULT_LIMITS) -> str:
    """TEXT with each drawn formula put in where its parameter is named (`a*f` with
    f = sin(x)^2 is a*sin(x)^2): as it is where that reads as in parentheses, else in
    parentheses; a formula naming an earlier one is put in too."""
    formulas = tuple((n, v) for n, v in values if isinstance(v, Formula) and not v.variable)
    for _ in formulas:
        if not names_in(text) & {n for n, _ in formulas}:
            break
        grouped = substitute(text, formulas, "grouped")
        tidy = substitute(text, formulas, "tidy")
        try:
            alike = _tree(_read(tidy, limits).body, {}) == _tree(_read(grouped, limits).body, {})
            text = tidy if alike else grouped
        except GradcalcError:
            text = grouped
    return text


def put_in(template: Template, values: Values, limits: Limits = DEFAULT_LIMITS) -> str:
    """The template's function with the values in it (`written`)."""
    return written(template.function, values, template.where, "function",
                   template.equation, limits)


@lru_cache(maxsize=16384)
def written(text: str, values: Values, where: str, what: str = "function",
            equation: bool = False, limits: Limits = DEFAULT_LIMITS) -> str:
    """TEXT with the values in it, in the first form that reads as TEXT does with the
    parameters' names; GradcalcError naming WHERE (the key's line) when none does."""
    if not values:
        return text
    numbers = {n: _value_tree(v) for n, v in values}
    try:
        text = expanded(text, values, limits)
        sides = _sides(text, equation)
        wanted = [_tree(_read(s, limits).body, numbers) for s in sides]
    except GradcalcError as exc:
        raise GradcalcError(f"{where}: with {params.shown(values)} the {what} {text!r}: "
                            f"{exc.message}", kind="usage") from None
    for form in FORMS:
        texts = [substitute(s, values, form) for s in sides]
        try:
            got = [_tree(_read(t, limits).body, {}) for t in texts]
        except GradcalcError:
            continue
        if got == wanted:
            return " = ".join(texts) if equation else substitute(text, values, form)
    raise GradcalcError(f"{where}: with {params.shown(values)} the {what} {text!r} does not "
                        "read as it does with the parameters' names: write each product "
                        "with a parameter with * (e.g. 2*a*x)", kind="usage")


# --------------------------------------------------------------------------- variants


@lru_cache(maxsize=65536)
def variant_of(template: Template, student: str, limits: Limits = DEFAULT_LIMITS) -> Variant:
    """STUDENT's variant of the problem (the same on every run, in every process)."""
    try:
        values = draws.draw(template.params, template.term, student, template.name)
    except GradcalcError as exc:
        raise GradcalcError(f"{template.where}: {exc.message}", kind=exc.kind) from None
    return _variant(template, student, values, limits)


def redrawn(saved: dict[str, Any], function: str, kind: Kind) -> list[str]:
    """What differs between a receipt's variant and a new draw from its own texts (the
    term's seed, the student, the problem, the params): the values, then the function
    text judged."""
    where = "the receipt's variant"
    try:
        texts = [str(saved[k]) for k in ("spec", "term", "student", "problem", "template")]
        spec = params.read(texts[0], where)
        values = draws.draw(spec, *texts[1:4])
        now = written(texts[4], values, where, "function", equation(kind))
    except (KeyError, GradcalcError) as exc:
        return [f"variant: cannot be drawn again ({getattr(exc, 'message', exc)})"]
    out = []
    fresh = {n: json_of(v) for n, v in values}
    if saved.get("params") != fresh:
        out.append(f"variant: recorded {params.shown(_values_of(saved.get('params')))}, "
                   f"drawn {params.shown(values)}")
    if now != function:
        out.append(f"variant's function: recorded {function!r}, drawn {now!r}")
    return out


def _values_of(saved: Any) -> Values:
    try:
        return tuple((str(n), _value_of(v)) for n, v in dict(saved).items())
    except (TypeError, ValueError):
        return ()


def _value_of(saved: Any) -> Fraction | Formula:
    """A receipt's value: a number, else a formula's or a name's text."""
    try:
        return Fraction(str(saved))
    except (ValueError, ZeroDivisionError):
        return Formula(str(saved))


def _variant(template: Template, student: str, values: Values, limits: Limits) -> Variant:
    function, kind = _texts(template, values, limits)
    return Variant(template.name, student, template.term, values, function,
                   template.function, template.params.text, kind,
                   substitute(template.wrt, values) if template.wrt else "")


def equation(kind: Kind) -> bool:
    """Whether a problem of this kind's function is an equation F = G (the registry's
    word for its kind)."""
    from gradcalc.homework.kinds.registry import kind_of

    return kind_of(kind).equation


@lru_cache(maxsize=16384)
def _texts(template: Template, values: Values, limits: Limits) -> tuple[str, Kind]:
    """The function and the kind of the variant with these values (many students draw
    the same)."""
    return put_in(template, values, limits), _kind(template, values)


def _kind(template: Template, values: Values) -> Kind:
    """The variant's kind: the kind columns with the parameters' values put in."""
    if not template.cells:
        return template.kind
    from gradcalc.homework.kinds.columns import kind_of

    cells = {c: PARAMETRISED[c](t, values) if c in PARAMETRISED else t
             for c, t in template.cells}
    return kind_of(cells, f"{template.where} (with {params.shown(values)})")


def _check_cells(template: Template, good: list[dict[str, Any]]) -> None:
    """Every value the kind columns' parameters can be drawn with gives columns that read
    (an order of 11 is refused before any answer is judged, not when a student draws
    it): each distinct combination of those parameters, not only the variants tried."""
    used = sorted(set().union(*(names_in(t) for _, t in template.cells))
                  & set(template.params.names))
    for values in dict.fromkeys(tuple((n, env[n]) for n in used) for env in good):
        _kind(template, values)


def check_template(template: Template, limits: Limits = DEFAULT_LIMITS
                   ) -> tuple[int, list[Values]]:
    """Refuse, naming the key's line, a parametrised problem that cannot be handed out:
    a spec that cannot be drawn, a template whose names run into its parameters (`ax`),
    a function that does not read alike with numbers in it, or one undefined everywhere
    with some values. Up to CHECKED variants are tried, spread over the combinations that
    satisfy the conditions. Returns how many combinations do (of those counted, or of the
    probe's draws) and the values tried."""
    good = draws.check(template.params, template.where, template.term, template.name)
    _check_names(template, limits)
    _check_variables(template)
    _check_cells(template, good)
    step = max(1, len(good) // CHECKED)
    tried = [tuple(env.items()) for env in good[::step][:CHECKED]]
    for values in tried:
        require_defined(_variant(template, "", values, limits), template.where, limits)
    return len(good), tried


def _check_variables(template: Template) -> None:
    """A drawn variable's names are none the function (or a formula of its list) uses
    otherwise: `v*t` with v one of t, u would be t*t for some students."""
    from gradcalc.grading.params import Drawn

    decls = [d for d in template.params.decls if isinstance(d, Drawn) and d.texts]
    used = names_in(" ".join([template.function, *(t for d in decls if not d.variable
                                                   for t in d.texts)]))
    for decl in (d for d in decls if d.variable):
        clash = sorted(set(decl.texts) & used)
        if clash:
            raise GradcalcError(f"{template.where}, column params, {decl.text!r}: "
                                f"{clash[0]!r} is a name the function uses already: "
                                "draw the variable's name from others", kind="usage")


def _check_names(template: Template, limits: Limits) -> None:
    from gradcalc.homework.problem import free_names
    from gradcalc.language.names import split_name

    names = set(template.params.names)
    for side in _sides(template.function, template.equation):
        try:
            program = _read(side, limits)
        except GradcalcError as exc:
            raise GradcalcError(f"{template.where}, column function: {exc.message}",
                                kind="usage") from None
        for n in free_names(program):
            parts = split_name(n, names | set(n)) if n not in names else None
            if parts and names & set(parts):
                which = [p for p in parts if p in names]
                are = "is a parameter" if len(which) == 1 else "are parameters"
                raise GradcalcError(f"{template.where}, column function: {n!r} is "
                                    f"{' and '.join(parts)} written together "
                                    f"({' and '.join(which)} {are}): write "
                                    f"{'*'.join(parts)}", kind="usage")


def require_defined(variant: Variant, where: str, limits: Limits = DEFAULT_LIMITS) -> None:
    """GradcalcError naming the key's line when the variant's function is nowhere a real
    number (or not at the point asked, or an equation with no real point)."""
    why = undefined(variant.function, variant.kind, limits)
    if why:
        raise GradcalcError(f"{where}: with {variant.shown} the function "
                            f"{variant.function!r} {why}: change the parameters' ranges or "
                            "add a condition", kind="usage")


@lru_cache(maxsize=4096)
def undefined(function: str, kind: Kind, limits: Limits = DEFAULT_LIMITS) -> str | None:
    """Why the function cannot be judged anywhere, or None: it is a finite real number at
    none of the judge's candidate points (every round of them), its inputs held where the
    kind says; an equation's two sides never meet (their difference keeps one sign)."""
    import numpy as np

    shapes = input_shapes(kind)
    if shapes:
        return None if _tensor_defined(function, kind, shapes, limits) else \
            "is undefined everywhere (no draw of its tensors gives a real number)"
    from gradcalc.homework.problem import free_names, function_side
    from gradcalc.homework.sample import ROUNDS, candidates, evaluate
    from gradcalc.language.program import EULER

    text = function
    is_equation = equation(kind)
    if is_equation:
        left, right = _sides(function, True)
        text = f"({left}) - ({right})"
    try:
        side = function_side(text, limits)
    except GradcalcError:
        return None  # unreadable: the judge says why, row by row
    pinned = {n: v for n, v in kind.at if isinstance(v, float)}
    free = tuple(n for n in free_names(side.program) if n != EULER and n not in pinned)
    rng = np.random.default_rng(0)
    signs: set[float] = set()
    for round_no in range(ROUNDS):
        pts = candidates(rng, free or ("_",), round_no, {n: [] for n in free or ("_",)})
        count = len(next(iter(pts.values())))
        pts = {n: v for n, v in pts.items() if n in free}
        pts.update({n: np.full(count, v) for n, v in pinned.items()})
        try:
            values = [evaluate(e, pts or {"_": np.zeros(count)}, (), limits).value
                      for e in side.entries]
        except GradcalcError:
            return None
        finite = np.logical_and.reduce([np.isfinite(v) for v in values])
        if finite.any() and not is_equation:
            return None
        signs |= set(np.sign(values[0][finite]).tolist())
        if 0.0 in signs or {-1.0, 1.0} <= signs:
            return None
    if is_equation and signs:
        return "has no real point (its two sides never meet)"
    if pinned:
        return "has no real value at " + ", ".join(f"{n} = {v:g}" for n, v in pinned.items())
    return "is undefined everywhere (no point where it is a real number)"


def _tensor_defined(function: str, kind: Kind, shapes: dict[str, tuple[int, ...]],
                    limits: Limits) -> bool:
    import numpy as np

    from gradcalc.backends.numeric import run_numeric
    from gradcalc.engine import ops

    try:
        program = _read(function, limits)
    except GradcalcError:
        return True
    rng = np.random.default_rng(0)
    fixed = {n: np.asarray(v, dtype=np.float64) for n, v in kind.at}
    for _ in range(8):
        values = {n: fixed.get(n, rng.standard_normal(shape)) for n, shape in shapes.items()}
        try:
            with np.errstate(all="ignore"):
                out = ops.value(run_numeric(program, values, of=program.default_output(),
                                            limits=limits))
        except Exception:  # noqa: BLE001 - the judge says what is wrong, row by row
            return True
        if np.all(np.isfinite(np.asarray(out, dtype=np.float64))):
            return True
    return False


# --------------------------------------------------------------------------- the template


@lru_cache(maxsize=4096)
def template_steps(template: str, function: str, equation: bool = False) -> dict[str, str]:
    """Each step of the variant's function, as the feedback prints it (`sin(2x)`), to the
    same step of the template (`sin(b·x)`): the two programs walked side by side."""
    from gradcalc.homework.reading.student import expression
    from gradcalc.language.ir import Pos

    out: dict[str, str] = {}

    def walk(t: Any, v: Any) -> None:
        if isinstance(t, tuple) and isinstance(v, tuple) and len(t) == len(v):
            for a, b in zip(t, v, strict=True):
                walk(a, b)
            return
        if not is_dataclass(t) or type(t) is not type(v) or isinstance(t, Pos):
            return
        try:
            shown, template_shown = expression(v), expression(t)
        except Exception:  # noqa: BLE001 - a statement, not an expression: its parts are
            shown = "?"
        if shown != "?":
            out.setdefault(shown, template_shown)
        for f in fields(t):
            walk(getattr(t, f.name), getattr(v, f.name))

    try:
        pairs = zip(_sides(template, equation), _sides(function, equation), strict=True)
        for t_text, v_text in pairs:
            walk(_read(t_text).body, _read(v_text).body)
    except (GradcalcError, ValueError):
        return {}
    return out

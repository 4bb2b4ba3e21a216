"""The kinds of homework problem, defined once: what each asks for and the settings it
takes.

A problem's settings beyond "the first derivative" are one value, `Kind`, built from
`SETTINGS`: each setting is one `Setting`, named once with its default and its reader,
and it is a field of `Kind`, a key's column, a batch line's field and a receipt's field by
its name, and `--name` on the command line. Each kind of problem is one `ProblemKind` in
`KINDS`: its name (a key's `kind` cell), the setting that makes a problem that kind (its
marker: `--implicit y`, `--antiderivative`, `--shape ...`; none for the derivative, the
default), the other settings it takes, its own settings, and how keys, sheets and
reports speak of it. Its module, which decides, is registered beside it in
`gradcalc.homework.kinds.catalog`. A setting that the problem's kind does not take is
refused, naming both (`check_fits`), on every surface.

Data only: this module imports no homework module that decides (a domain's text is read
by `gradcalc.homework.domain`, itself data), so the command line can declare its options
from it without loading a judge.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, make_dataclass
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: the highest order of derivative a check takes
MAX_ORDER = 10
CONSTANT_RULES = ("required", "optional", "forbidden")
#: the largest declared tensor (entries), and the most dimensions
MAX_ENTRIES, MAX_DIMS = 10_000, 4


def _flag(v: bool | str) -> bool:
    return v if isinstance(v, bool) else str(v).strip().lower() in ("1", "true", "yes", "y")


def _order(v: str | int | None) -> int:
    if v is None or v == "":
        return 1
    try:
        return int(v)
    except ValueError:
        raise GradcalcError(f"--order {v!r}: give a whole number, e.g. --order 2",
                            kind="usage") from None


def _name(v: str | None) -> str | None:
    from gradcalc.language.text import option_name

    if not v or not v.strip():
        return None
    return option_name(v.strip(), "--implicit") or None


def _names(v: str | None, option: str) -> tuple[str, ...]:
    from gradcalc.language.text import option_name, quote

    if not v or not v.strip():
        return ()
    names = tuple(option_name(n, option) for n in v.replace(";", ",").split(","))
    if not all(names):
        raise GradcalcError(f"{option} {quote(v)}: give names separated by commas, e.g. "
                            "x,y", kind="usage")
    return names


def _at(v: str | list[str] | None, limits: Limits) -> tuple[tuple[str, float], ...]:
    if not v:
        return ()
    import numpy as np

    from gradcalc.language.values import parse_assignments

    values = parse_assignments(v, option="--at", limits=limits)
    out: list[tuple[str, Any]] = []
    for n, x in values.items():
        if not np.all(np.isfinite(x)):
            raise GradcalcError(f"--at {n}: give finite numbers", kind="usage")
        out.append((n, float(x) if x.shape == () else _frozen(x.tolist())))
    return tuple(out)


def _frozen(v: Any) -> Any:
    """Nested lists as nested tuples (a Kind is hashable)."""
    return tuple(_frozen(x) for x in v) if isinstance(v, list) else float(v)


def _shapes(v: str | None) -> tuple[tuple[str, tuple[int, ...]], ...]:
    if not v or not v.strip():
        return ()
    return read_shapes(v)


def read_shapes(text: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """'W=3x2, x=2, s=scalar' -> (('W', (3, 2)), ('x', (2,)), ('s', ()))."""
    from gradcalc.language.text import quote

    out: dict[str, tuple[int, ...]] = {}
    for piece in [p.strip() for p in text.split(",") if p.strip()]:
        name, sep, dims = (t.strip() for t in piece.partition("="))
        if not sep or not re.fullmatch(r"[^\W\d]\w*", name):
            raise GradcalcError(f"--shape {quote(piece)}: expected NAME=SHAPE, e.g. W=3x2",
                                kind="usage")
        if dims.lower() in ("scalar", "()", ""):
            shape: tuple[int, ...] = ()
        else:
            parts = re.split(r"\s*[x×*]\s*", dims.lower())
            if not all(p.isdigit() and 0 < int(p) for p in parts):
                raise GradcalcError(f"--shape {quote(piece)}: dimensions are whole numbers "
                                    "above 0 joined by x, e.g. 3x2", kind="usage")
            shape = tuple(int(p) for p in parts)
        if len(shape) > MAX_DIMS or math.prod(shape) > MAX_ENTRIES:
            raise GradcalcError(f"--shape {quote(piece)}: at most {MAX_DIMS} dimensions and "
                                f"{MAX_ENTRIES:,} entries", kind="limit")
        if name in out:
            raise GradcalcError(f"--shape: {quote(name)} is given twice", kind="usage")
        out[name] = shape
    if not out:
        raise GradcalcError("--shape: give NAME=SHAPE, e.g. 'W=3x2, x=2'", kind="usage")
    return tuple(out.items())


def _domain(text: str | None, limits: Limits = DEFAULT_LIMITS) -> str | None:
    """A domain's canonical text (`gradcalc.homework.domain.read_domain`), None for none."""
    from gradcalc.homework.domain import read_domain

    if not text or not str(text).strip():
        return None
    return ", ".join(b.text for b in read_domain(str(text), limits))


def _read_order(text: Any, limits: Limits) -> int:
    order = _order(text)
    if not 1 <= order <= MAX_ORDER:
        raise GradcalcError(f"--order {order}: give an order from 1 to {MAX_ORDER}",
                            kind="usage")
    return order


def _read_constant(text: Any, limits: Limits) -> str:
    rule = (text or "optional").strip().lower()
    if rule not in CONSTANT_RULES:
        raise GradcalcError(f"--constant {rule!r}: give one of "
                            f"{', '.join(CONSTANT_RULES)}", kind="usage")
    return rule


def _pairs(v: Any) -> Any:
    """A receipt's {name: value} as the setting's pairs."""
    return tuple((str(n), _frozen(x)) for n, x in v.items())


def _order_cell(text: str) -> str | None:
    if text.isdigit() and 1 <= int(text) <= MAX_ORDER:
        return None
    return (f"{text!r}: give a whole number from 1 to {MAX_ORDER}, e.g. 2 for the second "
            "derivative")


def _whole_text(v: Any) -> str | None:
    """A batch line's whole number as its column's text."""
    return str(v) if isinstance(v, int) and not isinstance(v, bool) else None


def _names_text(v: Any) -> str | None:
    """A batch line's list of names as its column's text (`;` between them)."""
    return ";".join(v) if isinstance(v, list) and all(isinstance(p, str) for p in v) else None


def _values_text(v: Any) -> str | None:
    """A batch line's list of 'x=2' texts or {"x": 2} as its column's text."""
    if isinstance(v, dict):
        return ";".join(f"{k}={json.dumps(x)}" for k, x in v.items())
    return _names_text(v)


def _dims(d: Any) -> str:
    if isinstance(d, list):
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in d):
            raise GradcalcError('"shape" gives each input its dimensions, e.g. {"W": [3, 2]}',
                                kind="usage")
        return "x".join(str(n) for n in d) or "scalar"
    return str(d)


def _shapes_text(v: Any) -> str | None:
    """A batch line's {"W": [3, 2], "x": 2} as its column's text."""
    if isinstance(v, dict) and all(isinstance(d, (int, str)) and not isinstance(d, bool)
                                   or isinstance(d, list) for d in v.values()):
        return ";".join(f"{k}={_dims(d)}" for k, d in v.items())
    return None


def _true_text(v: Any) -> str | None:
    """A batch line's true or false as its column's text."""
    return ("true" if v else "") if isinstance(v, bool) else None


def _name_cell(text: str) -> str | None:
    if re.fullmatch(r"[^\W\d]\w*", text):
        return None
    return f"{text!r} is not a variable's name: name the dependent variable, e.g. y"


# --------------------------------------------------------------------------- the registry

@dataclass(frozen=True)
class Setting:
    """One of a problem's settings: a field of `Kind` (its `default`, and `read` turning
    an option's or a column's text into its value), and by the same name a key's column,
    a batch line's field and a receipt's field; `--name` on the command line."""

    name: str
    help: str  # the command line's --help text
    read: Callable[[Any, Limits], Any]  # (text, limits) -> value; None or '' the default
    default: Any = None
    metavar: str | None = None
    json: str = "a text"  # what a batch line's field holds (its error says so)
    flag: bool = False  # an option without a value (--antiderivative, --integers)
    repeatable: bool = False  # an option given once per value (--at x=1 --at y=2)
    column: bool = True  # a key column (antiderivative is the `kind` column's word)
    #: the one kind the setting belongs to, and what to say when it is given without it
    owner: str | None = None
    alone: str = ""
    #: a receipt's JSON of the value and back (None: as it is)
    shown: Callable[[Any], Any] | None = None
    saved: Callable[[Any], Any] | None = None
    #: a key's cell: a list separated by `;` (read as commas), or one value per `;`
    listed: bool = False
    #: a key's cell checked alone: its error message, or None (`order`'s range)
    cell: Callable[[str], str | None] | None = None
    #: the names of the problem's variables the value names (`at`'s x in x=2)
    names: Callable[[Any], Any] | None = None
    #: a batch line's JSON value other than a text as its column's text, or None when the
    #: value is not one of the forms `json` names (None: a text only)
    from_json: Callable[[Any], str | None] | None = None
    #: how a key's parameters are put in its column ("assignments": `at`'s x=a,
    #: "conditions": a domain's x > a, "expression": `order`'s n+1); "": they are not
    drawn: str = ""
    #: the value gives the problem's inputs their shapes (tensor inputs)
    shapes: bool = False

    @property
    def option(self) -> str:
        return f"--{self.name}"


@dataclass(frozen=True)
class Report:
    """How a verdict's rows name its sides (the counterexample's answer, the truth it is
    compared with, and their difference), and what an exact counterexample is."""

    answer: str = "answer"
    expected: str = "derivative"
    difference: str = "answer − derivative"
    exact: str = "exact: the difference is not 0"
    #: the method of an incorrect verdict decided exactly with no counterexample
    refuted: str = "the answer's shape"


@dataclass(frozen=True)
class ProblemKind:
    """One kind of problem, as data: its name (a key's `kind` cell), the setting that
    makes a problem this kind (its marker: none for the default), the other settings it
    takes, its own settings (beyond the shared ones), and how keys, sheets and reports
    speak of it. Its module, which decides (`judge`), reads (`reading`), writes the
    worked solution (`solve`) and the sheet's prompt (`prompt`), is registered beside it
    in `gradcalc.homework.kinds.catalog`."""

    name: str
    marker: str | None
    takes: tuple[str, ...]
    summary: str
    settings: tuple[Setting, ...] = ()
    #: a key naming the kind without its marker's column: the marker's value by default,
    #: else what the column gives ("its inputs' shapes")
    marker_default: str | None = None
    needs: str = ""
    #: what the marker's column names, refused when the key names another kind
    marks: str = ""
    #: the marker, in a key's words (the `kind` column's word for a flag)
    word: str | None = None
    #: the verdict's `kind` words of this kind's problems, and how their report reads
    verdict_kinds: tuple[str, ...] = ()
    report: Report = Report()
    #: the function is an equation F = G (its variants are drawn as one)
    equation: bool = False
    #: the function and its answers are formulas (a sheet shows them so), not programs
    formulas: bool = True

    @property
    def article(self) -> str:
        return "an" if self.name[0] in "aeiou" else "a"


_SHARED: tuple[Setting, ...] = (
    Setting("order", "The N-th derivative (with several --wrt and 2: the Hessian, a nested "
            "list).", _read_order, 1, json="a whole number", saved=int, cell=_order_cell,
            from_json=_whole_text, drawn="expression"),
    Setting("partial", "A mixed partial: d/dx, then d/dy (any length).",
            lambda v, limits: _names(v, "--partial"), (), "x,y",
            json='a text ("x,y") or a list of names', shown=list,
            saved=lambda v: tuple(str(n) for n in v), listed=True, names=set,
            from_json=_names_text),
    Setting("at", "Hold inputs at values: the answer is the derivative's value there, e.g. "
            "'x=2' (repeatable); with --implicit, a point of the curve, e.g. 'x=1, y=-1'.",
            _at, (), "x=2", repeatable=True,
            json='a text ("x=2, y=1") or an object ({"x": 2})', shown=dict, saved=_pairs,
            names=dict, from_json=_values_text, drawn="assignments"),
    Setting("implicit", "FUNCTION is an equation F = G; the answer is dy/dx by implicit "
            "differentiation (may use x and y), judged on points of the curve. Other names "
            "are constants (--wrt names x when the answer does not say).",
            lambda v, limits: _name(v), None, "y", json="a name", cell=_name_cell,
            names=lambda v: {v}),
    Setting("antiderivative", "ANSWER is an antiderivative of FUNCTION (its derivative is "
            "FUNCTION), with or without + C.", lambda v, limits: _flag(v), False, flag=True,
            column=False),
    Setting("constant", "With --antiderivative: whether the answer's + C is required.",
            _read_constant, "optional", "required|optional|forbidden",
            json="required, optional or forbidden", owner="antiderivative",
            alone="the + C rule goes with --antiderivative"),
    Setting("shape", "Tensor inputs and their shapes (backprop homework); the answer has the "
            "--wrt input's shape.", lambda v, limits: _shapes(v), (), "'W=3x2, x=2'",
            json='a text ("W=3x2, x=2") or an object ({"W": [3, 2], "x": 2})', shown=dict,
            saved=lambda v: tuple((str(n), tuple(int(d) for d in s)) for n, s in v.items()),
            listed=True, names=dict, from_json=_shapes_text, shapes=True),
    Setting("integers", "With --shape: draw the inputs as small integers (hand-computed "
            "homework).", lambda v, limits: _flag(v), False, json="true or false", flag=True,
            owner="tensor", alone="whole-number draws go with tensor inputs: give --shape too",
            from_json=_true_text),
    Setting("domain", "Judge the answer only where these hold, e.g. 'x > 0', '-1 < x < 1', "
            "'x in [1, 10]' or 'x > 0, y > 0' (default: the function's whole real domain).",
            _domain, None, "'x > 0'", json='a text ("x > 0, -1 < y < 1")',
            drawn="conditions"),
)


def _point(v: Any, limits: Limits) -> tuple[tuple[str, float], ...]:
    """A tangent's point: one input at one number ('x=1')."""
    if not v:
        return ()
    from gradcalc.language.values import parse_assignments

    values = parse_assignments(v, option="--tangent", limits=limits)
    if len(values) != 1 or any(x.shape != () or not math.isfinite(float(x))
                               for x in values.values()):
        raise GradcalcError("--tangent: give one input at one number, e.g. --tangent x=1",
                            kind="usage")
    return tuple((n, float(x)) for n, x in values.items())


TANGENT = Setting("tangent", "The tangent line to FUNCTION at this point, e.g. 'x=1': the "
                  "answer is a line (y = 2x - 1, y - 1 = 2(x - 1), 2x - y = 1).", _point, (),
                  "x=1", json='a text ("x=1")', shown=dict, saved=_pairs, names=dict,
                  drawn="assignments")

KINDS: tuple[ProblemKind, ...] = (
    ProblemKind("derivative", None, ("order", "partial", "at", "domain"),
                "the derivative, gradient or Jacobian; the N-th derivative, a mixed partial, "
                "the value at a point",
                verdict_kinds=("derivative", "gradient", "jacobian", "higher derivative",
                               "partial", "hessian")),
    ProblemKind("antiderivative", "antiderivative", ("constant", "domain"),
                "an antiderivative, with or without + C", word="kind antiderivative",
                verdict_kinds=("antiderivative",),
                report=Report("answer′", "function", "answer′ − function")),
    ProblemKind("implicit", "implicit", ("order", "at"),
                "dy/dx (or d²y/dx²) of an equation F = G, on points of the curve or at one",
                marker_default="y", marks="an equation's dependent variable",
                verdict_kinds=("implicit",), equation=True,
                report=Report(exact="symbolic: a counterexample at an exact point of the "
                              "curve")),
    ProblemKind("tensor", "shape", ("integers", "at"),
                "the gradient of a scalar loss by a tensor input (backprop homework)",
                needs="its inputs' shapes", verdict_kinds=("tensor",), formulas=False),
    ProblemKind("tangent", "tangent", (), "the tangent line to f at a point, as any equation "
                "of that line", settings=(TANGENT,), needs="the point of tangency",
                verdict_kinds=("tangent",),
                report=Report(expected="tangent line", difference="answer − tangent line",
                              refuted="exact: its slope and point against f'(a) and f(a)")),
)
KIND = {k.name: k for k in KINDS}
#: every setting: the shared ones, then each kind's own, in the registry's order
SETTINGS: tuple[Setting, ...] = (*_SHARED, *(s for k in KINDS for s in k.settings))
SETTING = {s.name: s for s in SETTINGS}
#: a key's and a batch line's kind columns: `kind`, then every setting that is a column
COLUMNS = ("kind", *(s.name for s in SETTINGS if s.column))


def read_setting(name: str, text: Any, limits: Limits = DEFAULT_LIMITS) -> Any:
    """One setting's value from its option or column text (None or '' is the default);
    GradcalcError in the command line's words when the text is not one."""
    return SETTING[name].read(text, limits)


def variables(kind: Kind) -> set[str]:
    """The names that the kind's settings make the problem's variables (`at`'s x)."""
    return {n for s in SETTINGS if s.names and getattr(kind, s.name) != s.default
            for n in s.names(getattr(kind, s.name))}


def input_shapes(kind: Kind) -> dict[str, tuple[int, ...]]:
    """The problem's tensor inputs and their shapes, as its settings give them (none:
    its inputs are numbers)."""
    return {n: dims for s in SETTINGS if s.shapes for n, dims in getattr(kind, s.name)}


def json_text(name: str, v: Any) -> str | None:
    """A batch line's field `name` (`kind` or a setting) as a key's cell: a text as it
    is, another JSON value by its setting's `from_json`; None when it is not one of the
    forms the field takes."""
    if v is None or isinstance(v, str):
        return v or ""
    s = SETTING.get(name)
    return s.from_json(v) if s is not None and s.from_json else None


def problem_kind(verdict_kind: str) -> ProblemKind:
    """The kind of problem a verdict's `kind` word belongs to (the default's, else)."""
    return next((k for k in KINDS if verdict_kind in k.verdict_kinds), KINDS[0])


def report_of(verdict_kind: str) -> Report:
    """How a verdict of this `kind` word names its rows (a derivative's by default)."""
    return problem_kind(verdict_kind).report


def _post_init(self: Any) -> None:
    for s in SETTINGS:
        value = getattr(self, s.name)
        if value != s.default and not (s.flag or isinstance(value, tuple)):
            object.__setattr__(self, s.name, s.read(value, DEFAULT_LIMITS))
    if self.partial and self.order != 1:
        raise GradcalcError("--partial names every differentiation; it goes without "
                            "--order", kind="usage")
    check_fits(self)


def _plain(self: Any) -> bool:
    """The first derivative, gradient or Jacobian: today's check."""
    return bool(self == Kind())


def _as_json(self: Any) -> dict[str, Any]:
    """The settings that differ from the default, for a verdict's JSON."""
    out: dict[str, Any] = {}
    for s in SETTINGS:
        v = getattr(self, s.name)
        if v != s.default:
            out[s.name] = s.shown(v) if s.shown else list(v) if isinstance(v, tuple) else v
    return out


def _read(cls: type, limits: Limits = DEFAULT_LIMITS, **texts: Any) -> Any:
    """A Kind from option or column texts, by setting name (None or '' is the default)."""
    unknown = sorted(set(texts) - set(SETTING))
    if unknown:
        raise GradcalcError(f"{', '.join('--' + n for n in unknown)}: not a setting of a "
                            "problem", kind="usage")
    return cls(**{s.name: s.read(texts.get(s.name), limits) for s in SETTINGS})


def _from_json(cls: type, saved: dict[str, Any]) -> Any:
    """A Kind from its JSON (`as_json`, a receipt's), each setting read back."""
    return cls(**{n: SETTING[n].saved(v) if SETTING[n].saved else v  # type: ignore[misc]
                  for n, v in saved.items()})


def _kind_class(settings: tuple[Setting, ...]) -> Any:
    """`Kind`: a frozen dataclass with one field per setting, defaulting as it says."""
    return make_dataclass(
        "Kind", [(s.name, Any, field(default=s.default)) for s in settings], frozen=True,
        namespace={"__module__": __name__,
                   "__doc__": "One problem's kind: one field per setting of the registry "
                              "(`SETTINGS`), each defaulting to the plain first-derivative "
                              "check.",
                   "__post_init__": _post_init, "plain": property(_plain),
                   "as_json": _as_json, "read": classmethod(_read),
                   "from_json": classmethod(_from_json)})


Kind = _kind_class(SETTINGS)


def given(kind: Kind) -> list[str]:
    """The settings of `kind` that differ from the default, in the registry's order."""
    return [s.name for s in SETTINGS if getattr(kind, s.name) != s.default]


def kind_of(kind: Kind) -> ProblemKind:
    """The kind of problem `kind` asks for (its marker's; the derivative by default)."""
    names = given(kind)
    return next((k for k in KINDS if k.marker in names), KIND["derivative"])


def misfit(entry: ProblemKind, names: list[str]) -> tuple[str, str] | None:
    """The first of the settings `names` that a problem of kind `entry` does not take,
    and why ("an implicit problem takes no at"; for a setting that belongs to one kind,
    given without it, what it goes with, and the other setting given that its kind would
    not take either); None when they all fit."""
    for name in names:
        if name == entry.marker or name in entry.takes:
            continue
        s = SETTING[name]
        if s.owner and entry.marker is None:
            owner = KIND[s.owner]
            clash = next((o for o in names if o not in (name, owner.marker, *owner.takes)),
                         None)
            return name, (s.alone if clash is None else
                          f"--{name} does not go with --{clash}: {s.alone}")
        return name, f"{entry.article} {entry.name} problem takes no {name}"
    return None


def check_fits(kind: Kind) -> None:
    """GradcalcError naming both settings when `kind` mixes kinds of problem or gives a
    setting its kind does not take."""
    names = given(kind)
    markers = [k.marker for k in KINDS if k.marker in names]
    if len(markers) > 1:
        raise GradcalcError(f"{' and '.join('--' + m for m in markers)} are different kinds "
                            "of problem: give one", kind="usage")
    entry = kind_of(kind)
    wrong = misfit(entry, names)
    if wrong:
        name, why = wrong
        if entry.marker is not None:
            why = f"--{name} does not go with --{entry.marker}: {why}"
        raise GradcalcError(why if why.startswith("--") else f"--{name}: {why}", kind="usage")


PLAIN = Kind()


def register(entry: ProblemKind) -> None:
    """Add a kind of problem to the registry (a toy kind in a test, a kind kept outside
    gradcalc), its settings with it, before any other module has taken `Kind`: the
    tables and `Kind` are built again, so it must come first in the process."""
    global KINDS, KIND, SETTINGS, SETTING, COLUMNS, Kind, PLAIN
    users = [name for name, module in sys.modules.items() if name != __name__
             and name.startswith("gradcalc.") and getattr(module, "Kind", None) is Kind]
    if entry.name in KIND:
        raise RuntimeError(f"register {entry.name!r}: already a kind")
    if users:
        raise RuntimeError(f"register {entry.name!r}: {users[0]} has taken Kind already")
    KINDS = (*KINDS, entry)
    KIND = {k.name: k for k in KINDS}
    SETTINGS = (*SETTINGS, *entry.settings)
    SETTING = {s.name: s for s in SETTINGS}
    COLUMNS = ("kind", *(s.name for s in SETTINGS if s.column))
    Kind = _kind_class(SETTINGS)
    PLAIN = Kind()

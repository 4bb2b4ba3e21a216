"""The kinds of homework problem, defined once: what each asks for, the settings it
takes, and the module that judges it.

A problem's settings beyond "the first derivative" are one value, `Kind` (its defaults
are the plain check). Each setting is one `Setting`, named once: the field of `Kind`, a
key's column, a batch line's field and a receipt's field all carry its name, and the
command line spells it `--name`. Each kind of problem is one `ProblemKind` in `KINDS`:
its name (a key's `kind` cell), the setting that makes a problem that kind (its marker:
`--implicit y`, `--antiderivative`, `--shape ...`; none for the derivative, the
default), the other settings it takes, and its module in `gradcalc.homework.kinds`,
whose `judge` decides an answer and whose `solve` writes the worked solution
(`gradcalc.homework.dispatch` finds both). A setting that the
problem's kind does not take is refused, naming both (`check_fits`), on every surface.

Data only: this module imports no homework module that decides (a domain's text is read
by `gradcalc.homework.domain`, itself data), so the command line can declare its options
from it without loading a judge.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: the highest order of derivative a check takes
MAX_ORDER = 10
CONSTANT_RULES = ("required", "optional", "forbidden")
#: the largest declared tensor (entries), and the most dimensions
MAX_ENTRIES, MAX_DIMS = 10_000, 4


@dataclass(frozen=True)
class Kind:
    """One problem's kind. Fields (each default is the plain first-derivative check):

    - order: the N-th derivative (with several wrt and order 2: the Hessian).
    - partial: a mixed partial, differentiated in this order (("x", "y") is f_xy).
    - at: inputs held at values; the answer is the derivative's value there (with
      implicit: a point of the curve).
    - implicit: the dependent name of an equation F = G (dy/dx by implicit
      differentiation, judged on points of the curve, or at `at`).
    - antiderivative: the answer's derivative must be the function; `constant` says
      whether its `+ C` is required, optional (the default) or forbidden.
    - shape: tensor inputs, name -> shape (backprop homework); `integers`: draw them as
      small integers.
    - domain: where answers are judged, as canonical text (`x > 0, -1 < y < 1`:
      `gradcalc.homework.domain.read_domain`); None is the function's whole real domain.
    """

    order: int = 1
    partial: tuple[str, ...] = ()
    at: tuple[tuple[str, float], ...] = ()
    implicit: str | None = None
    antiderivative: bool = False
    constant: str = "optional"
    shape: tuple[tuple[str, tuple[int, ...]], ...] = ()
    integers: bool = False
    domain: str | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.order <= MAX_ORDER:
            raise GradcalcError(f"--order {self.order}: give an order from 1 to {MAX_ORDER}",
                                kind="usage")
        if self.constant not in CONSTANT_RULES:
            raise GradcalcError(f"--constant {self.constant!r}: give one of "
                                f"{', '.join(CONSTANT_RULES)}", kind="usage")
        if self.partial and self.order != 1:
            raise GradcalcError("--partial names every differentiation; it goes without "
                                "--order", kind="usage")
        if self.domain is not None:  # one text per domain: receipts and memos agree
            object.__setattr__(self, "domain", _domain(self.domain))
        check_fits(self)

    @property
    def plain(self) -> bool:
        """The first derivative, gradient or Jacobian: today's check."""
        return self == Kind()

    def as_json(self) -> dict[str, Any]:
        """The settings that differ from the default, for a verdict's JSON."""
        out: dict[str, Any] = {}
        for name, default in vars(Kind()).items():
            v = getattr(self, name)
            if v != default:
                out[name] = (dict(v) if name in ("at", "shape") else
                             list(v) if isinstance(v, tuple) else v)
        return out

    @classmethod
    def read(cls, order: str | int | None = None, partial: str | None = None,
             at: str | list[str] | None = None, implicit: str | None = None,
             antiderivative: bool | str = False, constant: str | None = None,
             shape: str | None = None, integers: bool | str = False,
             domain: str | None = None, limits: Limits = DEFAULT_LIMITS) -> Kind:
        """A Kind from option or column texts (None or '' is the default)."""
        texts = {"order": order, "partial": partial, "at": at, "implicit": implicit,
                 "antiderivative": antiderivative, "constant": constant, "shape": shape,
                 "integers": integers, "domain": domain}
        return cls(**{n: read_setting(n, v, limits) for n, v in texts.items()})


def read_setting(name: str, text: Any, limits: Limits = DEFAULT_LIMITS) -> Any:
    """One setting's value from its option or column text (None or '' is the default);
    GradcalcError in the command line's words when the text is not one."""
    if name == "order":
        order = _order(text)
        if not 1 <= order <= MAX_ORDER:
            raise GradcalcError(f"--order {order}: give an order from 1 to {MAX_ORDER}",
                                kind="usage")
        return order
    if name == "constant":
        rule = (text or "optional").strip().lower()
        if rule not in CONSTANT_RULES:
            raise GradcalcError(f"--constant {rule!r}: give one of "
                                f"{', '.join(CONSTANT_RULES)}", kind="usage")
        return rule
    readers = {"partial": lambda: _names(text, "--partial"), "at": lambda: _at(text, limits),
               "implicit": lambda: _name(text), "shape": lambda: _shapes(text),
               "antiderivative": lambda: _flag(text), "integers": lambda: _flag(text),
               "domain": lambda: _domain(text, limits)}
    return readers[name]()


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


# --------------------------------------------------------------------------- the registry

@dataclass(frozen=True)
class Setting:
    """One of a problem's settings: a field of `Kind`, and by the same name a key's
    column, a batch line's field and a receipt's field; `--name` on the command line."""

    name: str
    help: str  # the command line's --help text
    metavar: str | None = None
    json: str = "a text"  # what a batch line's field holds (its error says so)
    flag: bool = False  # an option without a value (--antiderivative, --integers)
    repeatable: bool = False  # an option given once per value (--at x=1 --at y=2)
    column: bool = True  # a key column (antiderivative is the `kind` column's word)
    #: the one kind the setting belongs to, and what to say when it is given without it
    owner: str | None = None
    alone: str = ""

    @property
    def option(self) -> str:
        return f"--{self.name}"


@dataclass(frozen=True)
class ProblemKind:
    """One kind of problem: its name, the setting that makes a problem this kind (none
    for the default), the other settings it takes, and its module under
    `gradcalc.homework.kinds`, whose `judge(function, answer, wrt, kind, settings, limits,
    wrt_from)` decides an answer and whose `solver` (`solve(function, wrt, kind, settings,
    limits, wrt_from, answer)`) writes the worked solution
    (`gradcalc.homework.solutions.worked.Solution`)."""

    name: str
    marker: str | None
    takes: tuple[str, ...]
    module: str
    summary: str
    solver: str = "solve"

    @property
    def article(self) -> str:
        return "an" if self.name[0] in "aeiou" else "a"


SETTINGS: tuple[Setting, ...] = (
    Setting("order", "The N-th derivative (with several --wrt and 2: the Hessian, a nested "
            "list).", json="a whole number"),
    Setting("partial", "A mixed partial: d/dx, then d/dy (any length).", "x,y",
            json='a text ("x,y") or a list of names'),
    Setting("at", "Hold inputs at values: the answer is the derivative's value there, e.g. "
            "'x=2' (repeatable); with --implicit, a point of the curve, e.g. 'x=1, y=-1'.",
            "x=2", repeatable=True,
            json='a text ("x=2, y=1") or an object ({"x": 2})'),
    Setting("implicit", "FUNCTION is an equation F = G; the answer is dy/dx by implicit "
            "differentiation (may use x and y), judged on points of the curve. Other names "
            "are constants (--wrt names x when the answer does not say).", "y",
            json="a name"),
    Setting("antiderivative", "ANSWER is an antiderivative of FUNCTION (its derivative is "
            "FUNCTION), with or without + C.", flag=True, column=False),
    Setting("constant", "With --antiderivative: whether the answer's + C is required.",
            "required|optional|forbidden", json="required, optional or forbidden",
            owner="antiderivative", alone="the + C rule goes with --antiderivative"),
    Setting("shape", "Tensor inputs and their shapes (backprop homework); the answer has the "
            "--wrt input's shape.", "'W=3x2, x=2'",
            json='a text ("W=3x2, x=2") or an object ({"W": [3, 2], "x": 2})'),
    Setting("integers", "With --shape: draw the inputs as small integers (hand-computed "
            "homework).", json="true or false", flag=True, owner="tensor",
            alone="whole-number draws go with tensor inputs: give --shape too"),
    Setting("domain", "Judge the answer only where these hold, e.g. 'x > 0', '-1 < x < 1', "
            "'x in [1, 10]' or 'x > 0, y > 0' (default: the function's whole real domain).",
            "'x > 0'", json='a text ("x > 0, -1 < y < 1")'),
)
SETTING = {s.name: s for s in SETTINGS}

KINDS: tuple[ProblemKind, ...] = (
    ProblemKind("derivative", None, ("order", "partial", "at", "domain"), "derivative",
                "the derivative, gradient or Jacobian; the N-th derivative, a mixed partial, "
                "the value at a point"),
    ProblemKind("antiderivative", "antiderivative", ("constant", "domain"), "antiderivative",
                "an antiderivative, with or without + C"),
    ProblemKind("implicit", "implicit", ("order", "at"), "implicit",
                "dy/dx (or d²y/dx²) of an equation F = G, on points of the curve or at one"),
    ProblemKind("tensor", "shape", ("integers", "at"), "tensor_loss",
                "the gradient of a scalar loss by a tensor input (backprop homework)"),
)
KIND = {k.name: k for k in KINDS}
#: a key's and a batch line's kind columns: `kind`, then every setting that is a column
COLUMNS = ("kind", *(s.name for s in SETTINGS if s.column))


def given(kind: Kind) -> list[str]:
    """The settings of `kind` that differ from the default, in the registry's order."""
    default = {f.name: f.default for f in fields(Kind)}
    return [s.name for s in SETTINGS if getattr(kind, s.name) != default[s.name]]


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

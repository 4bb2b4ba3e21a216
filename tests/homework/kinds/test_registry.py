"""No setting of a problem's kind is ever ignored: every pair of the registry's settings
(gradcalc.homework.kinds.registry.SETTINGS), on the command line and as a key's columns,
is either judged as documented, each of the two making a difference, or refused with an
error that names both.

Driven by the registry: a setting added there that the tables below do not know fails
`test_every_pair_of_settings_is_in_the_tables`, which says what to add.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field

import pytest

from gradcalc.homework.kinds.registry import SETTING, SETTINGS

#: each setting's value in a refused pair (the option's text; a flag's is None)
VALUES = {"order": "2", "partial": "x,y", "at": "x=1", "implicit": "y",
          "antiderivative": None, "constant": "required", "shape": "W=3x2, x=2",
          "integers": None, "domain": "x>0", "tangent": "x=1"}


@dataclass(frozen=True)
class Works:
    """A pair judged: the answer's verdict with both settings; dropping either changes
    the outcome (the verdict, or a refusal), or fails `shows` when the setting has one."""

    function: str
    answer: str
    settings: dict[str, str | None]
    verdict: str = "correct"
    wrt: str | None = None
    shows: dict[str, object] = field(default_factory=dict)


def whole_draws(out: dict) -> bool:
    """Every tensor input drawn is a whole number (what --integers asks)."""
    values = [v for p in out.get("points", []) for x in p.values()
              for v in (x if isinstance(x, list) else [x])]
    flat = [v for x in values for v in (x if isinstance(x, list) else [x])]
    return bool(flat) and all(float(v).is_integer() for v in flat)


WORKS = {
    ("order", "at"): Works("x^4", "48", {"order": "2", "at": "x=2"}),
    ("order", "implicit"): Works("x^2 + y^2 = 25", "-25/y^3", {"order": "2", "implicit": "y"}),
    ("partial", "at"): Works("x^2 y^3", "24", {"partial": "x,y", "at": "x=1, y=2"}),
    ("at", "implicit"): Works("x y^2 = 1", "1/2", {"at": "x=1, y=-1", "implicit": "y"}),
    ("at", "shape"): Works("sum(W @ x)", "[[1, 2], [1, 2], [1, 2]]",
                           {"at": "x=[1, 2]", "shape": "W=3x2, x=2"}, wrt="W"),
    ("antiderivative", "constant"): Works("cos(x)", "sin(x)", {
        "antiderivative": None, "constant": "required"}, verdict="incorrect"),
    ("shape", "integers"): Works("sum(W @ x)", "outer(ones(3), x)", {
        "shape": "W=3x2, x=2", "integers": None}, wrt="W", shows={"integers": whole_draws}),
    ("order", "domain"): Works("x abs(x)", "2", {"order": "2", "domain": "x>0"}),
    ("partial", "domain"): Works("x y abs(y)", "2y", {"partial": "x,y", "domain": "y>0"}),
    ("at", "domain"): Works("x^2 abs(y)", "1", {"at": "x=1", "domain": "y>0"}, wrt="y"),
    ("antiderivative", "domain"): Works("1/x", "ln(x)", {"antiderivative": None,
                                                         "domain": "x>0"}),
}

#: the refused pairs, and the words the error must hold when they are not the two
#: options themselves (a setting that belongs to another kind names what it goes with)
REFUSED = {
    ("order", "partial"): (), ("order", "antiderivative"): (), ("order", "constant"): (),
    ("order", "shape"): (), ("order", "integers"): (),
    ("partial", "implicit"): (), ("partial", "antiderivative"): (),
    ("partial", "constant"): (), ("partial", "shape"): (), ("partial", "integers"): (),
    ("at", "antiderivative"): (), ("at", "constant"): (),
    ("at", "integers"): ("--integers", "--shape"),
    ("implicit", "antiderivative"): (), ("implicit", "constant"): (),
    ("implicit", "shape"): (), ("implicit", "integers"): (),
    ("antiderivative", "shape"): (), ("antiderivative", "integers"): (),
    ("constant", "shape"): (), ("constant", "integers"): (),
    ("implicit", "domain"): (), ("shape", "domain"): (),
    ("constant", "domain"): ("--constant", "--antiderivative"),
    ("integers", "domain"): ("--integers", "--shape"),
    # the tangent line takes no other setting
    **{(other, "tangent"): () for other in ("order", "partial", "at", "implicit",
                                            "antiderivative", "constant", "shape", "integers",
                                            "domain")},
}

PAIRS = list(itertools.combinations([s.name for s in SETTINGS], 2))


def known(pair: tuple[str, str]) -> tuple[str, str] | None:
    return next((p for p in (pair, pair[::-1]) if p in WORKS or p in REFUSED), None)


def test_every_pair_of_settings_is_in_the_tables():
    unknown = [s.name for s in SETTINGS if s.name not in VALUES]
    missing = [f"{a}+{b}" for a, b in PAIRS if known((a, b)) is None]
    assert not unknown and not missing, (
        f"kind settings this test does not know: {unknown or 'none'}; pairs without an "
        f"expectation: {', '.join(missing) or 'none'}. Add each new setting's value to VALUES "
        "and each of its pairs to WORKS (judged as documented) or REFUSED (an error naming "
        "both) in tests/homework/kinds/test_registry.py")
    assert not set(WORKS) & set(REFUSED)


def options(settings: dict[str, str | None]) -> list[str]:
    out: list[str] = []
    for name, value in settings.items():
        out += [f"--{name}"] if SETTING[name].flag else [f"--{name}", value]
    return out


def outcome(invoke, case: Works, settings: dict[str, str | None]) -> tuple:
    """(exit code, verdict or error, the JSON) of `check` with these settings."""
    wrt = ["--wrt", case.wrt] if case.wrt else []
    r = invoke("check", case.function, "--answer", case.answer, *wrt, *options(settings),
               "--json")
    out = json.loads(r.out) if r.out else json.loads(r.err or "{}")
    return r.code, out.get("verdict") or out.get("error", {}).get("message"), out


@pytest.mark.parametrize("pair", PAIRS, ids="+".join)
def test_each_pair_is_judged_with_both_or_refused_naming_both(invoke, pair):
    entry = known(pair)
    assert entry is not None, f"{'+'.join(pair)}: see test_every_pair_of_settings_is_in_the_tables"
    if entry in REFUSED:
        settings = {n: VALUES[n] for n in entry}
        r = invoke("check", "x^2 y", "--answer", "2x y", *options(settings))
        assert r.code == 2 and r.err.startswith("error: ") and r.out == "", r
        for word in REFUSED[entry] or tuple(f"--{n}" for n in entry):
            assert word in r.err, (word, r.err)
        return
    case = WORKS[entry]
    code, verdict, both = outcome(invoke, case, case.settings)
    assert (code, verdict) == ((0 if case.verdict == "correct" else 1), case.verdict), both
    for dropped in entry:
        rest = {n: v for n, v in case.settings.items() if n != dropped}
        r_code, r_verdict, out = outcome(invoke, case, rest)
        if dropped in case.shows:
            assert case.shows[dropped](both) and not case.shows[dropped](out), dropped
        else:
            assert (r_code, r_verdict) != (code, verdict), f"--{dropped} made no difference"


def key_cells(settings: dict[str, str | None]) -> dict[str, str]:
    """The settings as a key's columns (antiderivative is the kind column's word)."""
    cells = {}
    for name, value in settings.items():
        if name == "antiderivative":
            cells["kind"] = "antiderivative"
        else:
            cells[name] = "true" if SETTING[name].flag else value  # a quoted cell's commas
    return cells


def graded(invoke, tmp_path, function: str, answer: str, wrt: str | None,
           settings: dict[str, str | None]):
    cells = {"problem": "p1", "function": function, **({"wrt": wrt} if wrt else {}),
             **key_cells(settings)}
    (tmp_path / "key.csv").write_text(",".join(cells) + "\n" +
                                      ",".join(f'"{v}"' for v in cells.values()) + "\n")
    (tmp_path / "subs.csv").write_text(f'student,problem,answer\nana,p1,"{answer}"\n')
    return invoke("grade", str(tmp_path / "subs.csv"), "--key", str(tmp_path / "key.csv"),
                  "--json")


@pytest.mark.parametrize("pair", PAIRS, ids="+".join)
def test_each_pair_of_key_columns_is_judged_or_refused_naming_both(invoke, tmp_path, pair):
    entry = known(pair)
    assert entry is not None, f"{'+'.join(pair)}: see test_every_pair_of_settings_is_in_the_tables"
    if entry in REFUSED:
        r = graded(invoke, tmp_path, "x^2 y", "2x y", None, {n: VALUES[n] for n in entry})
        assert r.code == 2 and "key.csv" in r.err and "--" not in r.err, r
        words = [w.lstrip("-") for w in REFUSED[entry]] or list(entry)
        for word in words:
            assert word in r.err, (word, r.err)
        return
    case = WORKS[entry]
    r = graded(invoke, tmp_path, case.function, case.answer, case.wrt, case.settings)
    row = json.loads(r.out.splitlines()[0])
    assert row["verdict"] == case.verdict, row
    single = outcome(invoke, case, case.settings)[2]
    assert row["expected"] == single["expected"] and row["receipt"]["kind"] == \
        single["receipt"]["kind"]

"""Names that are not what they seem: what to write instead of a function name gradcalc
does not know (the spelling other books and languages use for one it has: `arsech` ->
asech, `sen` -> sin, `lg` -> log10; else the nearest known name, so a typo gets its
correction); a name that is two known names written together (`xy`); a function's name
with its one-letter argument written against it (`sint`, WeBWorK's sin(t)).

A low module (no other of the language's imports): the evaluator's errors (program.py)
and the notation pass (notation.py) both use it."""

from __future__ import annotations

import difflib
from collections.abc import Collection

from gradcalc.engine.primitive import derived, named

#: names from other books, languages and calculators -> what to write in gradcalc
SPELLINGS = {
    "arsech": "asech(x)", "arcsch": "acsch(x)", "arcoth": "acoth(x)",
    "arsinh": "asinh(x)", "arcosh": "acosh(x)", "artanh": "atanh(x)",
    "cosec": "csc(x)", "cotan": "cot(x)", "ctg": "cot(x)", "tg": "tan(x)",
    "sen": "sin(x)", "arcsen": "asin(x)", "lg": "log10(x)", "lb": "log2(x)",
    "ld": "log2(x)", "sgn": "sign(x)", "pow": "x^y", "power": "x^y",
    "root": "sqrt(x), cbrt(x) or x^(1/n)", "exp10": "10^x", "exp2": "2^x",
    "logn": "log(x) (the natural log) or log(x, b)", "ln2": "log(x, 2) or ln(2)",
}


def instead(name: str, known: Collection[str]) -> str:
    """'write ... instead; ' or 'did you mean ...? ' for an unknown function `name`
    (empty when nothing is near)."""
    if name in SPELLINGS:
        return f"write {SPELLINGS[name]} instead; "
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
    return f"did you mean {close[0]}(...)? " if close else ""


def applied_names() -> frozenset[str]:
    """The functions whose name a student writes against a one-letter argument (`sint`,
    `lnx`): the table's entries that say so (gradcalc/engine/table.py)."""
    return derived("applied", lambda: named(lambda p: p.facts.applied))


def applied(name: str) -> tuple[str, str] | None:
    """`sint` -> ('sin', 't'), `cosθ` -> ('cos', 'θ'): a function's name with one letter
    written against it, or None. The letter is never `e` (`sine`), and a name that is a
    function itself (`sinh`) never gets here: the caller decides whether the letter is a
    variable (only then is `sint` sin(t) rather than a name of its own)."""
    head, letter = name[:-1], name[-1:]
    known = applied_names()
    if head in known and letter.isalpha() and letter != "e" and name not in known:
        return head, letter
    return None


def split_name(name: str, known: Collection[str]) -> list[str] | None:
    """`xy` -> ['x', 'y'] when `name` is two or more `known` names written together (the
    reading a student meant by `xy`), else None."""
    names = sorted((k for k in known if k and k != name), key=len, reverse=True)
    best: dict[int, list[str]] = {0: []}
    for i in range(len(name)):
        if i not in best:
            continue
        for k in names:
            if name.startswith(k, i) and i + len(k) not in best:
                best[i + len(k)] = [*best[i], k]
    found = best.get(len(name))
    return found if found and len(found) > 1 else None

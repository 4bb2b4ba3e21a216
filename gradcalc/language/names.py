"""What to write instead of a function name gradcalc does not know: the spelling other
books and languages use for one it has (`arsech` -> asech, `sen` -> sin, `lg` ->
log10), else the nearest known name (difflib), so a typo gets its correction."""

from __future__ import annotations

import difflib
from collections.abc import Collection

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

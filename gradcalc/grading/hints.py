"""A teacher's own hints: foreseen answers or named mistakes, each with the teacher's
words, shown before gradcalc's own feedback.

A key's `hints` cell holds one hint per line, `WHEN -> MESSAGE`. WHEN is an answer written
like the key's function, with the parameters' names (`a*cos(b*x)`), or the id of a
mistake of the catalogue (`chain-inner-factor`, gradcalc/homework/feedback/catalogue.py).
MESSAGE may show a parameter's value as `{a}`. The hints are tried in order on an
incorrect answer, and the first that fires is the row's hint:

- a mistake's id fires when the verdict names that mistake;
- an answer fires when the student's answer is the hint's answer on the student's own
  variant, judged by gradcalc's judge rather than by the text: the student's answer must
  be the derivative by a fresh variable t of t·(the hint's answer) (so `3cos(2x)` and
  `cos(2x)·3` both fire `a*cos(b*x)` with a = 3, b = 2); for an antiderivative, up to
  the constant (the derivative of their difference is 0); for a tensor problem, the
  gradient of sum(T ⊙ hint) by T.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from gradcalc.errors import GradcalcError
from gradcalc.grading.params import Values, text_of
from gradcalc.homework.kinds.registry import Kind
from gradcalc.limits import DEFAULT_LIMITS, Limits

if TYPE_CHECKING:  # the judge (and sympy) only where a hint is fired
    from gradcalc.homework.judge import Settings, Verdict

#: the most hints of one problem
MAX_HINTS = 50
#: the tensor problems' mistakes (gradcalc/homework/backprop/formulas.py names them)
TENSOR_RULES = ("relu-mask-missing", "where-mask-missing", "product-order",
                "transposed-product", "index-not-scattered", "sum-not-broadcast")
_ARROW = re.compile(r"\s*->\s*")
_RULE = re.compile(r"[a-z]+(?:-[a-z]+)+")
_PLACE = re.compile(r"\{([^\W\d]\w*)\}")
#: names tried, in order, for the fresh variable of the equivalence test
_FRESH = ("t", "u", "s", "w", "v", "q", "τ", "σ")


@dataclass(frozen=True)
class Hint:
    """One hint as the key writes it."""

    on: str  # an answer (with the parameters' names) or a mistake's id
    message: str
    rule: bool = False  # `on` is a mistake's id

    def put(self, values: Values, where: str) -> Hint:
        """The hint on one variant: its answer and its message with the values in them."""
        from gradcalc.grading.variants import written

        on = self.on if self.rule else written(self.on, values, where, "hint")
        numbers = {n: text_of(v) for n, v in values}
        message = _PLACE.sub(lambda m: numbers.get(m[1], m[0]), self.message)
        return Hint(on, message, self.rule)


def known_rules() -> tuple[str, ...]:
    from gradcalc.homework.feedback.catalogue import CATALOGUE

    return (*(r.id for r in CATALOGUE), *TENSOR_RULES)


def read_hints(text: str, where: str) -> tuple[Hint, ...]:
    """The hints of one `hints` cell; GradcalcError naming WHERE (the key's line) for a
    line that is not `WHEN -> MESSAGE`, an unknown mistake or an answer that cannot be
    read."""
    out = []
    for line in (p.strip() for p in text.splitlines() if p.strip()):
        at = f"{where}, column hints, {line!r}"
        parts = _ARROW.split(line, maxsplit=1)
        if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
            raise GradcalcError(f"{at}: write each hint as ANSWER -> MESSAGE or "
                                "MISTAKE-ID -> MESSAGE, one per line", kind="usage")
        on, message = parts[0].strip(), parts[1].strip()
        rule = bool(_RULE.fullmatch(on))
        if rule and on not in known_rules():
            import difflib

            near = difflib.get_close_matches(on, known_rules(), n=1)
            raise GradcalcError(f"{at}: {on!r} is not a mistake gradcalc names"
                                + (f"; did you mean {near[0]}?" if near else
                                   f" (the catalogue: {', '.join(known_rules())})"),
                                kind="usage")
        if not rule:
            on = _answer(on, at)
        out.append(Hint(on, message, rule))
    if len(out) > MAX_HINTS:
        raise GradcalcError(f"{where}, column hints: over {MAX_HINTS} hints", kind="usage")
    return tuple(out)


def _answer(text: str, at: str) -> str:
    from gradcalc.homework.reading.claims import split_prefix, vector
    from gradcalc.language.parse import parse

    body = split_prefix(text)[0]
    try:
        parse(vector(body))
    except GradcalcError as exc:
        raise GradcalcError(f"{at}: {exc.message}", kind="usage") from None
    return body


def fire(hints: tuple[Hint, ...], answer: str, verdict: Verdict, kind: Kind,
         settings: Settings, limits: Limits = DEFAULT_LIMITS) -> int | None:
    """The index of the first of the (variant's) hints that fires on an incorrect answer,
    or None."""
    if verdict.verdict != "incorrect":
        return None
    named = (verdict.misconception or {}).get("rule")
    for k, hint in enumerate(hints):
        if hint.rule:
            if hint.on == named:
                return k
        elif same(answer, hint.on, kind, tuple(verdict.wrt), settings, limits):
            return k
    return None


@lru_cache(maxsize=8192)
def same(answer: str, foreseen: str, kind: Kind, wrt: tuple[str, ...], settings: Settings,
         limits: Limits = DEFAULT_LIMITS) -> bool:
    """Whether the student's answer is the foreseen one, by gradcalc's own judge (see the
    module's docstring); an answer that cannot be compared is not it."""
    from gradcalc.homework import answer as judging
    from gradcalc.homework.dispatch import hint_problem, hint_same
    from gradcalc.homework.kinds.registry import PLAIN
    from gradcalc.homework.reading.claims import split_prefix, vector

    body = vector(split_prefix(answer)[0])
    t = next(n for n in _FRESH if not _uses(body, n) and not _uses(foreseen, n))
    try:
        decided = hint_same(kind, answer, foreseen, settings, limits)
        if decided is not None:
            return decided
        compared = hint_problem(kind, body, foreseen, wrt, t)
        if compared is None:
            function, body = _scaled(vector(foreseen), body, t)
            compared = function, body, [t], PLAIN
        function, text, names, judged_as = compared
        job = judging.AnswerJob(function, text, names, settings, limits, kind=judged_as)
        return judging.run(job).verdict == "correct"
    except Exception:  # noqa: BLE001 - an answer that cannot be compared does not match
        return False


def _uses(text: str, name: str) -> bool:
    return re.search(rf"(?<![^\W\d]){re.escape(name)}(?!\w)", text) is not None


def _scaled(foreseen: str, answer: str, t: str) -> tuple[str, str]:
    """t·(the foreseen answer), entry by entry for a list (a matrix flattened, and the
    answer with it), and the answer to judge against it."""
    from gradcalc.language.ir import ListLit
    from gradcalc.language.parse import parse
    from gradcalc.language.unparse import unparse

    last = parse(foreseen).body[-1]
    value: Any = getattr(last, "value", None)
    if not isinstance(value, ListLit):
        return f"{t}*({foreseen})", answer
    entries = _flat(value)
    if len(entries) != len(value.items):  # a matrix: the answer flattened the same way
        shown = parse(answer).body[-1]
        items = _flat(getattr(shown, "value", None))
        answer = "[" + ", ".join(unparse(e) for e in items) + "]"
    return "[" + ", ".join(f"{t}*({unparse(e)})" for e in entries) + "]", answer


def _flat(e: Any) -> list[Any]:
    from gradcalc.language.ir import ListLit

    if isinstance(e, ListLit):
        return [x for item in e.items for x in _flat(item)]
    return [e]

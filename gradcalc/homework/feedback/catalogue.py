"""The catalogue of misapplied rules the step search tries (`misconceptions`), as data:
each rule's id (JSON's "rule"), its name, the right rule and the misapplied one (the table
in docs/homework.md), and what the feedback says. The misapplications of one function's
own rule (a trig function's sign) and that rule's text are its entry's in the table of
primitives (gradcalc/engine/table.py)."""

from __future__ import annotations

from dataclasses import dataclass

from gradcalc.engine.primitive import by_name


@dataclass(frozen=True)
class Rule:
    """One catalogue entry: an id (JSON's "rule"), its name, the correct rule and the
    misapplied one (docs/homework.md's table shows these), and what the feedback says."""

    id: str
    name: str
    right: str
    wrong: str
    said: str = ""


CATALOGUE = (
    Rule("chain-inner-factor", "the chain rule's inner factor dropped",
         "(f(u))' = f'(u)·u'", "f'(u)"),
    Rule("trig-sign", "a sign lost in a trig rule", "cos' = −sin, sin' = cos, ...",
         "cos' = sin, sin' = −cos, ..."),
    Rule("subtraction-sign", "a sign lost in a subtraction", "(u − v)' = u' − v', "
         "(−u)' = −u'", "u' + v', u'"),
    Rule("product-of-derivatives", "the product rule as f′g′", "(u·v)' = u'·v + u·v'",
         "u'·v'",
         "the derivative of a product is not the product of the derivatives: "
         "(u·v)' = u'·v + u·v'"),
    Rule("product-term-missing", "the product rule with a term missing",
         "(u·v)' = u'·v + u·v'", "u'·v or u·v'",
         "a term of the product rule is missing: (u·v)' = u'·v + u·v'"),
    Rule("quotient-reversed", "the quotient rule's numerator reversed",
         "(u/v)' = (u'·v − u·v')/v²", "(u·v' − u'·v)/v²",
         "the quotient rule's numerator is reversed: (u/v)' = (u'·v − u·v')/v²"),
    Rule("quotient-square-missing", "the quotient rule's square missing",
         "(u/v)' = (u'·v − u·v')/v²", "(u'·v − u·v')/v",
         "the quotient rule divides by v², not v: (u/v)' = (u'·v − u·v')/v²"),
    Rule("quotient-of-derivatives", "the quotient rule as f′/g′",
         "(u/v)' = (u'·v − u·v')/v²", "u'/v'",
         "the derivative of a quotient is not the quotient of the derivatives: "
         "(u/v)' = (u'·v − u·v')/v²"),
    Rule("power-not-lowered", "the power rule with the exponent not lowered",
         "(u^n)' = n·u^(n−1)·u'", "n·u^n·u'",
         "the power rule lowers the exponent by one: (u^n)' = n·u^(n−1)·u'"),
    Rule("power-raised", "the power rule with the exponent raised",
         "(u^n)' = n·u^(n−1)·u'", "n·u^(n+1)·u'",
         "the power rule lowers the exponent by one, it does not raise it: "
         "(u^n)' = n·u^(n−1)·u'"),
    Rule("exponential-log-missing", "ln(a) dropped from aˣ", "(a^u)' = a^u·ln(a)·u'",
         "a^u·u'",
         "the factor ln(a) is missing: (a^u)' = a^u·ln(a)·u'"),
    Rule("exponential-as-power", "eᶠ differentiated as f·eᶠ⁻¹", "(e^f)' = e^f·f'",
         "f·e^(f−1)",
         "e^u is not a power of the variable: (e^u)' = e^u·u', not u·e^(u−1)"),
    Rule("variable-exponent", "the power rule with a variable exponent",
         "(u^v)' = u^v·(v'·ln(u) + v·u'/u)", "v·u^(v−1)·u'",
         "the power rule needs a constant exponent: (u^v)' = u^v·(v'·ln(u) + v·u'/u)"),
    Rule("constant-multiple-dropped", "a constant multiple dropped", "(c·u)' = c·u'", "u'"),
    Rule("power-rule-on-exponential", "the power rule applied to aˣ",
         "(a^u)' = a^u·ln(a)·u'", "u·a^(u−1)"),
    Rule("exponential-log-divided", "ln(a) divided by in (aˣ)′", "(a^u)' = a^u·ln(a)·u'",
         "a^u·u'/ln(a)"),
    Rule("power-coefficient-dropped", "the power rule's coefficient dropped",
         "(u^n)' = n·u^(n−1)·u'", "u^(n−1)·u'",
         "the power rule multiplies by the exponent: (u^n)' = n·u^(n−1)·u'"),
    Rule("constant-term-kept", "a constant term kept", "(u + c)' = u'", "u' + c"),
    Rule("chain-outer-of-derivative", "the chain rule as f′(u′)", "(f(u))' = f'(u)·u'",
         "f'(u')",
         "the chain rule evaluates f' at the inner function and multiplies by its "
         "derivative: (f(u))' = f'(u)·u', not f'(u')"),
)
RULES = {r.id: r for r in CATALOGUE}

def misapplied(function: str) -> tuple[str, ...]:
    """The catalogue's misapplications of one function's own rule (its entry's in the
    table of primitives: `trig-sign` for sin, `exponential-as-power` for exp)."""
    prim = by_name().get(function)
    return prim.facts.misapplied if prim is not None else ()


def right_rule(function: str) -> str:
    """The function's rule as the feedback writes it, from its entry (tan' = sec²)."""
    return by_name()[function].facts.says

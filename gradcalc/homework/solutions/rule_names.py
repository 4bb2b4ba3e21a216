"""The rules a worked solution names, as data: each rule's id (JSON's "rule"), its name and
the rule itself in the student's notation (docs/worked-solutions.md lists them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    statement: str = ""


#: the names a rule gives the two parts it takes a function apart into, in turn (the
#: product rule's u and v, parts' u and dv)
PAIRS = (("u", "v"), ("p", "q"), ("g", "h"))


def pair_free_of(used: set[str]) -> tuple[str, str]:
    """The first pair of `PAIRS` whose names the function does not use (where it has a
    variable u or v, u = e^u would be a false equation)."""
    return next(p for p in PAIRS if not set(p) & used)


RULES: dict[str, Rule] = {r.id: r for r in (
    # derivatives
    Rule("constant", "constant rule", "c' = 0"),
    Rule("variable", "variable rule", "d/dx(x) = 1"),
    Rule("sum", "sum rule", "(u ± v)' = u' ± v'"),
    Rule("constant-multiple", "constant multiple rule", "(c·u)' = c·u'"),
    Rule("power", "power rule", "(x^n)' = n·x^(n−1)"),
    Rule("product", "product rule", "(u·v)' = u'·v + u·v'"),
    Rule("quotient", "quotient rule", "(u/v)' = (u'·v − u·v')/v^2"),
    Rule("chain", "chain rule", "(f(u))' = f'(u)·u'"),
    Rule("exponential", "exponential rule", "(e^x)' = e^x, (a^x)' = a^x·ln(a)"),
    Rule("logarithm", "logarithm rule",
         "ln(x)' = 1/x, ln|x|' = 1/x, log_b(x)' = 1/(x·ln(b))"),
    Rule("trig", "trig rule", "sin' = cos, cos' = −sin, tan' = sec², ..."),
    Rule("inverse-trig", "inverse trig rule", "asin' = 1/√(1 − x^2), atan' = 1/(1 + x^2), ..."),
    Rule("hyperbolic", "hyperbolic rule", "sinh' = cosh, cosh' = sinh, tanh' = sech², ..."),
    Rule("abs", "absolute value rule",
         "|x|' = x/|x| = sign(x) for x ≠ 0 (0 at x = 0, PyTorch's convention)"),
    Rule("log-differentiation", "logarithmic differentiation",
         "y = u^v: ln(y) = v·ln(u), so y' = u^v·(v'·ln(u) + v·u'/u)"),
    Rule("function", "the function's derivative", "f(x)' = f'(x)"),
    Rule("differentiate", "differentiation", "the derivative of a part, in one step"),
    Rule("simplify", "simplify", "the same value, written shorter"),
    Rule("evaluate", "evaluate", "the derivative's value at the point"),
    Rule("combined", "several rules at once", "steps taken together"),
    # implicit differentiation
    Rule("collect", "collect the dy/dx terms", "a·y' + b = c·y' + d → (a − c)·y' = d − b"),
    Rule("solve", "solve for dy/dx", "a·y' = b → y' = b/a"),
    Rule("put-in", "put dy/dx in", "y' replaced by the first derivative"),
    Rule("on-curve", "use the curve's equation", "F(x, y) = 0 on the curve"),
    # antiderivatives
    Rule("integral-constant", "integral of a constant", "∫ c dx = c·x"),
    Rule("integral-power", "power rule for integrals", "∫ x^n dx = x^(n+1)/(n+1), n ≠ −1"),
    Rule("integral-reciprocal", "integral of 1/x", "∫ 1/x dx = ln|x|"),
    Rule("integral-exponential", "integral of an exponential",
         "∫ e^x dx = e^x, ∫ a^x dx = a^x/ln(a)"),
    Rule("integral-sum", "sum rule for integrals",
         "∫ (u ± v) dx = ∫ u dx ± ∫ v dx; a routine sum term by term"),
    Rule("integral-constant-multiple", "constant multiple rule for integrals",
         "∫ c·u dx = c·∫ u dx"),
    Rule("integral-table", "a table integral", "∫ sin = −cos, ∫ cos = sin, ..."),
    Rule("substitution", "substitution", "∫ f(g(x))·g'(x) dx = ∫ f(u) du with u = g(x)"),
    Rule("back-substitution", "substitute back", "u = g(x)"),
    Rule("trig-substitution", "trigonometric substitution",
         "x = a·sin θ for √(a^2 − x^2), a·tan θ for √(a^2 + x^2), a·sec θ for √(x^2 − a^2)"),
    Rule("parts", "integration by parts", "∫ u dv = u·v − ∫ v du"),
    Rule("tabular-parts", "integration by parts, tabular",
         "∫ p·g dx = p·G1 − p'·G2 + p''·G3 − ..., G(k+1) an antiderivative of G(k)"),
    Rule("cyclic-parts", "integration by parts, twice, then solved for the integral",
         "I = ... − k·I, so I = .../(1 + k)"),
    Rule("partial-fractions", "partial fractions", "p(x)/q(x) as a sum of simple fractions"),
    Rule("expand", "expand", "u·(v + w) = u·v + u·w, multiplied out"),
    Rule("split-fraction", "split the fraction", "(a + b)/c = a/c + b/c"),
    Rule("trig-identity", "a trig identity", "sin^2 = (1 − cos(2x))/2, tan = sin/cos, ..."),
    Rule("complete-square", "completing the square",
         "x^2 + bx + c = (x + b/2)^2 + (c − b^2/4)"),
    Rule("product-to-sum", "product to sum",
         "sin(a)·sin(b) = (cos(a − b) − cos(a + b))/2, ..."),
    Rule("hyperbolic-identity", "a hyperbolic identity", "cosh^2 − sinh^2 = 1, ..."),
    Rule("factor", "factor the denominator", "x^2 + 2ax + a^2 = (x + a)^2"),
    Rule("reduction", "reduction formula",
         "∫ sec^n = sec^(n−2)·tan/(n − 1) + ((n − 2)/(n − 1))·∫ sec^(n−2); csc alike"),
    Rule("rewrite", "rewrite", "the integrand written another way"),
    Rule("integral", "integration", "an antiderivative of a part, in one step"),
    Rule("constant-of-integration", "the constant of integration", "F(x) + C"),
    Rule("differentiate-back", "check: differentiate back", "d/dx(F(x)) = f(x)"),
    # backprop
    Rule("backprop-sum", "gradient through a sum", "∂L/∂u = ∂L/∂(sum(u)), repeated"),
    Rule("backprop-mean", "gradient through a mean", "∂L/∂u = ∂L/∂(mean(u))/n, repeated"),
    Rule("backprop-matmul", "gradient through @",
         "Y = A @ B: ∂L/∂A = G @ B.T, ∂L/∂B = A.T @ G"),
    Rule("backprop-elementwise", "gradient through an elementwise operation",
         "∂L/∂u = ∂L/∂y · f'(u), entry by entry"),
    Rule("backprop-broadcast", "gradient through + and −, summed over broadcast axes",
         "∂L/∂u = ∂L/∂y, summed over the axes u was repeated along"),
    Rule("backprop-transpose", "gradient through a transpose", "∂L/∂u = (∂L/∂u.T).T"),
    Rule("backprop-relu", "gradient through relu", "∂L/∂u = where(u > 0, ∂L/∂y, 0)"),
    Rule("backprop-softmax", "gradient through softmax",
         "log(softmax(u)): ∂L/∂u = g − softmax(u)·sum(g)"),
    Rule("backprop-index", "gradient through indexing", "scattered back into zeros"),
    Rule("backprop-where", "gradient through where", "where(c, g, 0) and where(c, 0, g)"),
    Rule("backprop-use", "gradient of a named step", "∂L/∂h collects every use of h"),
    Rule("backprop-input", "the gradient reaches the input", "∂L/∂W has W's shape"),
)}


def name_of(rule: str) -> str:
    """A rule's name (its id when it has none)."""
    found = RULES.get(rule)
    return found.name if found else rule

"""Worked solutions: every derivative and antiderivative shown step by step, each step
verified before it is printed.

A solution is data (`worked`: a list of steps, each the rule by name, the expressions
before and after, the sub-expression it acts on and its text in the student's notation
and in LaTeX), built by one module per job: the derivative rules (`derivative_rules`,
applied by `differentiating`, on the sub-expressions of `subexpressions`), implicit
differentiation (`both_sides`), antiderivatives from sympy's manual integration
(`integrating`) and the matrix calculus of backprop homework (`matrix_chain`). Every
step's "before = after" is checked at sampled points on the tape, and symbolically when
it is small (`verified`); a step that fails is never shown: it is merged into a larger
one. `departure` places a wrong answer's misapplied rule on the path. Each kind's module
(`gradcalc.homework.kinds`) has the `solve` that builds its solution; nothing here is
imported unless a solution is asked for.
"""

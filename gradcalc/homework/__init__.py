"""Homework checking: is an answer the derivative, antiderivative, gradient or Jacobian of a
function, and if not, what went wrong?

`answer` judges one answer with its receipt; `dispatch` sends it to its kind's module in
`kinds/` (one module per kind of problem, each defined once in `kinds/registry.py`);
`problem` reads both sides into scalar entries (`reading/`: how students write); `sample`
finds points inside both sides' domain and evaluates there on the tape; `proof` is the
bounded symbolic side (sympy, from the IR); `judge` decides; `feedback/` names the
mistake (the misconception search and its catalogue); `backprop/` is the matrix calculus
of tensor losses; `traps` reads ambiguous notation both ways."""

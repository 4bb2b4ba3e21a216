"""Homework checking: is an answer the derivative, gradient or Jacobian of a function?

`problem` reads the function and the answer into scalar entries; `sample` finds points
inside both sides' domain and evaluates there on the tape; `proof` is the bounded symbolic
side (sympy, from the IR); `feedback` names a recognisable mistake; `judge` decides.
"""

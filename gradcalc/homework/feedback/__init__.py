"""Naming a wrong answer's mistake: the relations between the answer and the derivative
that a mistake leaves (`recognise`), the search for one rule misapplied at one step of
the function's tape (`misconceptions`, and `second_steps` for second derivatives), and
the catalogue of misapplied rules it tries (`catalogue`, data)."""

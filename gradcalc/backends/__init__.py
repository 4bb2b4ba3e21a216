"""The interpreter's three backends: one interpreter (`gradcalc.language.program`), three
value domains. `numeric` runs a program on the tape (and counts the work the limits
bound), `batched` runs it once for a whole table of points (a leading point axis, the
table split where points take different paths), `symbolic` runs it on sympy along a
recorded path for the check, and `symbolic_derivatives` differentiates those
expressions."""

"""The engine: NumPy only. From the bottom up:

tape (nodes, the recording, the sweep) < primitive (what an entry is; `apply`; the
registry) < tensor < shapes < rules, forwards, twins, reductions < table (the entries;
`register`) < ops (the functions by name) < autograd, functional, diagonal.

Importing any engine module registers the table, so `fn` and the Tensor methods are
complete before anything runs.
"""

from gradcalc.engine import table as _table  # noqa: F401  (registers the primitives)

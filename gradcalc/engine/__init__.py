"""The engine: NumPy only. From the bottom up:

tape (nodes, the recording, the sweep) < primitive (what an entry is; `apply`; the
registry) < tensor < shapes < rules, forwards, twins, reductions < the extended entries
and methods < table (the entries; `register`) < ops (the functions by name) < autograd
(which gives the Tensor its `backward`), functional, diagonal. No two engine modules
import each other, directly or around a loop (an import-linter contract).

Importing any engine module registers the table, so `fn` and the Tensor methods are
complete before anything runs.
"""

from gradcalc.engine import autograd as _autograd  # noqa: F401  (Tensor.backward)
from gradcalc.engine import table as _table  # noqa: F401  (registers the primitives)

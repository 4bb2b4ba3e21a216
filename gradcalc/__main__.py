"""`python -m gradcalc`."""

from gradcalc.cli import run

run()

"""`python -m gradcalc`."""

from .cli import main

raise SystemExit(main())

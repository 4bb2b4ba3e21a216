"""`python -m gradcalc`."""

from gradcalc.cli import main

raise SystemExit(main())

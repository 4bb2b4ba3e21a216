"""The check: a tape derivative against sympy's derivative of the same path. `check` runs it
(`against_sympy`) within a time budget (`budget`), falling back to central finite
differences (`finite`); `compare` judges entry by entry and knows kinks and singular
points; `memo` keeps sympy's derivatives across points; `formula` shows the derivative as
a formula (`--symbolic`, `--latex`)."""

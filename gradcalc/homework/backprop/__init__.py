"""Backprop homework's formulas: the gradient of a tensor loss derived by reverse-mode matrix
calculus on the loss's own expressions (`formulas`, walking them with `walk`), the terms
they are built from and printed as students write them (`terms`), and the transposes of
indexing and summing (`scatter`)."""

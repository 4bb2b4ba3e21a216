"""The kinds of homework problem, one module each, defined once in `registry` (the settings
each takes, as the command line, a key, a batch line and a receipt spell them, and the
module that judges it): `derivative` (the first and N-th derivative, mixed partials,
values at a point), `implicit` (dy/dx of an equation, with `on_curve` its exact side),
`antiderivative` and `tensor` (backprop homework). `columns` reads a key's kind columns
through the registry. A new kind is one module here and one entry in the registry."""

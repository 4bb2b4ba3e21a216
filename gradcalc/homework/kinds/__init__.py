"""The kinds of homework problem, one module each, described once in `registry` (the
settings each takes, as the command line, a key, a batch line and a receipt spell them;
how keys, sheets and reports speak of it) and registered in `catalog` (its module, which
decides): `derivative` (the first and N-th derivative, mixed partials, values at a
point), `implicit` (dy/dx of an equation, with `on_curve` its exact side),
`antiderivative` and `tensor` (backprop homework). `columns` reads a key's kind columns
through the registry. A new kind is one module here, its entry in `registry.KINDS` and
its line in `catalog.MODULES`."""

"""What each derivative command computes, as data; nothing here prints or reads a file.
`jobs` plans every command (inputs, output, weights); `derivatives` answers grad,
jacobian and hessian at one point, `points` at every point of a table, `chunks` one chunk
of a streamed table; `batch` answers one JSON job; `explain`, `expect`, `matrix`, `plot`
and `point_row` are the views' data. Tables are read by `gradcalc.ingest`, written by
`gradcalc.render`, and whole runs are `gradcalc.run`."""

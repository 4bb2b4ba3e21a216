"""Runs end to end: what a command does from its files to its output, above the
computations (`gradcalc.commands`, `gradcalc.grading`) and the writers
(`gradcalc.render`). A `--points` table streamed in chunks (`stream`), on `--jobs`
workers (`workers`) over byte ranges of the file (`ranges`), its check in a child process
(`checker`), or on a Dask cluster (`cluster`); a class judged and written with its files
(`classrun`); `batch --jobs` (`batch_jobs`)."""

"""Text to program: the whitelist parser (`parse`, on Python's `ast`, after the notation
students and web pages use is normalised: `text`, `notation`, `bars`, `latex`), gradcalc's
own program objects (`ir`), the interpreter that walks them with real values and hands
every step to a backend (`program`), and the reading of `--at`, `--weights` and
`--expect` values (`values`). Nothing a user types is ever evaluated as Python."""

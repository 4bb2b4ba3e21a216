"""Writers only: results to text. `formats` is the registry of output formats (rich, json,
plain; csv and parquet for a table's rows) and their writers; `numbers` is the one place
where numbers become text. Each other module writes one sort of result: a derivative
(`as_json`, `plain`, `terminal`), its explanations and graph, a table's rows
(`point_rows`, `fast_rows`), verdicts (`verdicts`), a class's rows, gradebook, report and
summary, and a replay's differences. Nothing here reads input or starts a process."""

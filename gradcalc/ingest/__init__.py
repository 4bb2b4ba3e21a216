"""Reading tables: the CSV files a teacher has, by their headers and synonyms (`headers`),
a `--points` table of inputs (`point_table`, its cells read by `cells`), a table's files
scanned and cut into pieces of rows (`scan`), and the fast extra's readers of plain-number
CSV and Parquet (`columnar`, polars and pyarrow, imported only there)."""

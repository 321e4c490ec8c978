"""The run machinery: chunked runs, threads, the run lifecycle, atomic Parquet datasets, Dask, estimates and precision targets."""

"""Parquet datasets of a run: atomic writing and reading.

Layout of a run directory::

    OUT/
      run.json                      # resolved run metadata (game, rules, seed, n, version, time)
      <table>/part-000000.parquet   # one part per chunk; every part's schema metadata
      <table>/part-000001.parquet   # holds the same JSON under the key b"cardsim"

``pandas.read_parquet("OUT/<table>")`` reads a table directly. Everything is written
into a hidden temporary sibling directory which is renamed to ``OUT`` only after the
last chunk, so an interrupted or failed run leaves nothing behind.
"""
from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path
from typing import Any, Iterator

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from simcore.config import ConfigError

META_KEY = b"cardsim"
RUN_JSON = "run.json"


def check_output_path(out: str | os.PathLike, overwrite: bool) -> Path:
    """Validate an output directory before any work is done; raise :class:`ConfigError`."""
    text = os.fspath(out)
    if not text or "\x00" in text:
        raise ConfigError(f"invalid output path {text!r}")
    path = Path(text).expanduser()
    if path.exists() or path.is_symlink():
        if not overwrite:
            raise ConfigError(f"output path exists: {path} (use --overwrite to replace it)")
        if not path.is_dir() or not ((path / RUN_JSON).is_file() or not any(path.iterdir())):
            raise ConfigError(f"refusing to overwrite {path}: it is not a cardsim dataset")
    parent = path.absolute().parent
    if not parent.is_dir():
        raise ConfigError(f"output directory's parent does not exist: {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"output directory's parent is not writable: {parent}")
    return path


class DatasetWriter:
    """Write a run's parts into a temporary directory; :meth:`commit` renames it into place.

    Use as a context manager: leaving the block with an exception removes the
    temporary directory.
    """

    def __init__(self, out: str | os.PathLike, meta: dict[str, Any], overwrite: bool = False):
        self.out = check_output_path(out, overwrite)
        self.overwrite = overwrite
        self.meta = meta
        self._meta_json = json.dumps(meta, ensure_ascii=False, sort_keys=True)
        self.tmp = self.out.absolute().parent / f".{self.out.name}.tmp-{uuid.uuid4().hex[:12]}"
        try:
            self.tmp.mkdir()
        except OSError as exc:
            raise ConfigError(f"cannot create output in {self.tmp.parent}: {exc.strerror}") from None
        self.rows: dict[str, int] = {}

    def write_chunk(self, chunk_id: int, tables: dict[str, pa.Table]) -> None:
        """Write one chunk's tables as ``<table>/part-<chunk_id>.parquet``."""
        for name, table in tables.items():
            folder = self.tmp / name
            folder.mkdir(exist_ok=True)
            meta = dict(table.schema.metadata or {})
            meta[META_KEY] = self._meta_json.encode()
            pq.write_table(table.replace_schema_metadata(meta), folder / f"part-{chunk_id:06d}.parquet",
                           compression="zstd")
            self.rows[name] = self.rows.get(name, 0) + table.num_rows

    def commit(self) -> Path:
        """Write run.json and move the dataset to its final path."""
        (self.tmp / RUN_JSON).write_text(json.dumps(self.meta, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
        old = None
        if self.out.exists():
            old = self.out.absolute().parent / f".{self.out.name}.old-{uuid.uuid4().hex[:12]}"
            self.out.rename(old)
        self.tmp.rename(self.out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return self.out

    def abort(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> "DatasetWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self.abort()


class Dataset:
    """A finished run directory (read side)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        run_json = self.path / RUN_JSON
        if not run_json.is_file():
            raise ConfigError(f"not a cardsim dataset (no {RUN_JSON}): {self.path}")
        try:
            self.meta: dict[str, Any] = json.loads(run_json.read_text())
        except (OSError, ValueError) as exc:
            raise ConfigError(f"unreadable {run_json}: {exc}") from None

    def parts(self, table: str) -> list[Path]:
        files = sorted((self.path / table).glob("part-*.parquet"))
        if not files:
            raise ConfigError(f"dataset {self.path} has no '{table}' table")
        return files

    def iter_parts(self, table: str, columns: list[str] | None = None) -> Iterator[pa.Table]:
        """Yield one part at a time (bounded memory)."""
        for file in self.parts(table):
            try:
                yield pq.read_table(file, columns=columns)
            except (OSError, pa.ArrowException) as exc:
                raise ConfigError(f"corrupt part {file}: {exc}") from None

    def read(self, table: str, columns: list[str] | None = None) -> pd.DataFrame:
        """A whole table as a DataFrame."""
        return pa.concat_tables(list(self.iter_parts(table, columns))).to_pandas()

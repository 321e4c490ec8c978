"""Parquet datasets of a run: resumable, atomic writing; reading; verification.

Layout of a finished run directory ``OUT``::

    OUT/
      run.json                      # resolved metadata + the list of parts with row counts and checksums
      manifest.json                 # what is needed to (re)run any chunk: game, task, rules, seed, n, chunking
      <table>/part-000000.parquet   # one part per chunk and table; each part's schema metadata
      <table>/part-000001.parquet   # holds the run metadata JSON under the key b"cardsim"

``pandas.read_parquet("OUT/<table>")`` reads a table directly.

While a run is in progress everything lives in the hidden sibling ``.OUT.partial/``:
the manifest is written first, each part is written under a temporary name and renamed
when complete, and the whole directory is renamed to ``OUT`` after the last chunk. A run
stopped at any point (Ctrl-C, SIGKILL, a full disk) leaves its finished parts there and
``cardsim resume OUT`` runs only the missing chunks. Input errors are detected before
anything is created.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from pathlib import Path
from typing import Any, Iterator

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from cardsim.simcore.config import ConfigError

META_KEY = b"cardsim"
RUN_JSON = "run.json"
MANIFEST = "manifest.json"
EXPERIMENT_JSON = "experiment.json"
FORMAT_VERSION = 1


def partial_path(out: Path) -> Path:
    """Where an unfinished run of ``out`` lives."""
    out = Path(out)
    return out.absolute().parent / f".{out.name}.partial"


def part_name(chunk_id: int) -> str:
    return f"part-{chunk_id:06d}.parquet"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_output_path(out: str | os.PathLike, overwrite: bool) -> Path:
    """Validate an output directory before any work is done; raise :class:`ConfigError`."""
    text = os.fspath(out)
    if not text or "\x00" in text:
        raise ConfigError(f"invalid output path {text!r}")
    path = Path(text).expanduser()
    if path.exists() or path.is_symlink():
        if not overwrite:
            raise ConfigError(f"output path exists: {path} (use --overwrite to replace it)")
        ours = (path / RUN_JSON).is_file() or (path / EXPERIMENT_JSON).is_file()
        if not path.is_dir() or not (ours or not any(path.iterdir())):
            raise ConfigError(f"refusing to overwrite {path}: it is not a cardsim dataset or experiment")
    parent = path.absolute().parent
    if not parent.is_dir():
        raise ConfigError(f"output directory's parent does not exist: {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"output directory's parent is not writable: {parent}")
    if partial_path(path).exists() and not overwrite:
        raise ConfigError(f"an unfinished run exists for {path}: finish it with 'cardsim resume {path}' "
                          "or start again with --overwrite")
    return path


class PartialRun:
    """The in-progress directory of a run (``.OUT.partial``).

    Parameters
    ----------
    out : path
        Final dataset directory.
    manifest : dict
        JSON-ready run description (see ``RunConfig.manifest``), must contain
        ``tables`` and ``n_chunks``.
    """

    def __init__(self, out: Path, manifest: dict[str, Any]):
        self.out = Path(out)
        self.dir = partial_path(self.out)
        self.manifest = manifest
        self._meta_bytes = json.dumps(manifest, ensure_ascii=False, sort_keys=True).encode()

    # -- creating and reopening -------------------------------------------------------
    @classmethod
    def create(cls, out: Path, manifest: dict[str, Any], overwrite: bool = False) -> "PartialRun":
        """Start a new run directory (after :func:`check_output_path`)."""
        run = cls(out, manifest)
        if run.dir.exists():
            shutil.rmtree(run.dir)  # a stale unfinished run: --overwrite was given
        tmp = run.dir.parent / f"{run.dir.name}.{uuid.uuid4().hex[:8]}"
        try:
            tmp.mkdir()
            (tmp / MANIFEST).write_text(json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
            tmp.rename(run.dir)
        except OSError as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise ConfigError(f"cannot create output in {run.dir.parent}: {exc.strerror}") from None
        return run

    @classmethod
    def open(cls, out: Path) -> "PartialRun":
        """Reopen the unfinished run of ``out`` (for ``cardsim resume``)."""
        out = Path(out)
        folder = partial_path(out)
        if not (folder / MANIFEST).is_file():
            if (out / RUN_JSON).is_file():
                raise ConfigError(f"{out} is already complete: nothing to resume")
            raise ConfigError(f"no unfinished run to resume for {out}")
        try:
            manifest = json.loads((folder / MANIFEST).read_text())
        except (OSError, ValueError) as exc:
            raise ConfigError(f"unreadable manifest {folder / MANIFEST}: {exc}") from None
        if manifest.get("format") != FORMAT_VERSION or "game" not in manifest:
            raise ConfigError(f"{folder / MANIFEST} is not a cardsim manifest")
        return cls(out, manifest)

    # -- chunks -----------------------------------------------------------------------
    def chunk_done(self, chunk_id: int) -> bool:
        return all((self.dir / table / part_name(chunk_id)).is_file() for table in self.manifest["tables"])

    def missing_chunks(self) -> list[int]:
        return [c for c in range(self.manifest["n_chunks"]) if not self.chunk_done(c)]

    def write_chunk(self, chunk_id: int, tables: dict[str, pa.Table]) -> dict[str, int]:
        """Write one chunk's tables; each part appears atomically (temp name, rename)."""
        if set(tables) != set(self.manifest["tables"]):
            raise ValueError(f"chunk {chunk_id} has tables {sorted(tables)}, expected {self.manifest['tables']}")
        rows = {}
        for name in self.manifest["tables"]:
            table = tables[name]
            folder = self.dir / name
            folder.mkdir(exist_ok=True)
            meta = dict(table.schema.metadata or {})
            meta[META_KEY] = self._meta_bytes
            final = folder / part_name(chunk_id)
            tmp = folder / f".{final.name}.{uuid.uuid4().hex[:8]}.tmp"
            try:
                pq.write_table(table.replace_schema_metadata(meta), tmp, compression="zstd")
                os.replace(tmp, final)
            except BaseException:
                tmp.unlink(missing_ok=True)
                raise
            rows[name] = table.num_rows
        return rows

    # -- finishing --------------------------------------------------------------------
    def commit(self, overwrite: bool = False) -> Path:
        """Check every part, write run.json with checksums, rename into place."""
        missing = self.missing_chunks()
        if missing:
            raise ConfigError(f"cannot finish {self.out}: {len(missing)} chunk(s) missing")
        parts = []
        for table in self.manifest["tables"]:
            for chunk_id in range(self.manifest["n_chunks"]):
                path = self.dir / table / part_name(chunk_id)
                parts.append({"table": table, "chunk": chunk_id, "rows": pq.ParquetFile(path).metadata.num_rows,
                              "sha256": file_sha256(path)})
        run_meta = dict(self.manifest)
        run_meta["parts"] = parts
        (self.dir / RUN_JSON).write_text(json.dumps(run_meta, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
        old = None
        if self.out.exists():
            if not overwrite:
                raise ConfigError(f"output path exists: {self.out} (use --overwrite to replace it)")
            old = self.out.absolute().parent / f".{self.out.name}.old-{uuid.uuid4().hex[:8]}"
            self.out.rename(old)
        self.dir.rename(self.out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return self.out

    def discard(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


class Dataset:
    """A finished run directory (read side)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        run_json = self.path / RUN_JSON
        if not run_json.is_file():
            hint = " (unfinished: see 'cardsim resume')" if partial_path(self.path).exists() else ""
            raise ConfigError(f"not a cardsim dataset (no {RUN_JSON}): {self.path}{hint}")
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
                raise ConfigError(f"corrupt part {file}: {' '.join(str(exc).split())}") from None

    def read(self, table: str, columns: list[str] | None = None) -> pd.DataFrame:
        """A whole table as a DataFrame."""
        return pa.concat_tables(list(self.iter_parts(table, columns))).to_pandas()


def verify(path: str | os.PathLike) -> list[str]:
    """Check a dataset against its own run.json; return a list of problems (empty: OK).

    Checks: run.json and manifest readable and consistent, every planned part present
    (no extra ones), its checksum and row count, and that its embedded metadata is
    this run's (not a part copied in from another run).
    """
    path = Path(path)
    problems: list[str] = []
    try:
        meta = Dataset(path).meta
    except ConfigError as exc:
        return [str(exc)]
    try:
        manifest = json.loads((path / MANIFEST).read_text())
    except (OSError, ValueError):
        return [f"missing or unreadable {MANIFEST}"]
    expected_meta = {k: v for k, v in meta.items() if k != "parts"}
    if manifest != expected_meta:
        problems.append(f"{MANIFEST} and {RUN_JSON} describe different runs")
    recorded = {(p["table"], p["chunk"]): p for p in meta.get("parts", [])}
    for table in meta.get("tables", []):
        for chunk_id in range(meta.get("n_chunks", 0)):
            if (table, chunk_id) not in recorded:
                problems.append(f"{table}/{part_name(chunk_id)}: not listed in {RUN_JSON}")
        on_disk = {p.name for p in (path / table).glob("part-*.parquet")} if (path / table).is_dir() else set()
        planned = {part_name(c) for c in range(meta.get("n_chunks", 0))}
        for extra in sorted(on_disk - planned):
            problems.append(f"{table}/{extra}: not part of this run")
    for (table, chunk_id), record in sorted(recorded.items()):
        file = path / table / part_name(chunk_id)
        where = f"{table}/{file.name}"
        if not file.is_file():
            problems.append(f"{where}: missing")
            continue
        if file_sha256(file) != record["sha256"]:
            problems.append(f"{where}: checksum mismatch (modified or truncated)")
        try:
            parquet = pq.ParquetFile(file)
        except (OSError, pa.ArrowException) as exc:
            problems.append(f"{where}: unreadable Parquet ({' '.join(str(exc).split())[:120]})")
            continue
        if parquet.metadata.num_rows != record["rows"]:
            problems.append(f"{where}: {parquet.metadata.num_rows} rows, expected {record['rows']}")
        embedded = (parquet.schema_arrow.metadata or {}).get(META_KEY)
        try:
            part_meta = json.loads(embedded) if embedded else None
        except ValueError:
            part_meta = None
        if part_meta != expected_meta:
            problems.append(f"{where}: metadata of a different run (game/rules/seed differ)")
    return problems

"""Reading and verifying a finished run's dataset: every part checked against ``run.json``.

:class:`Dataset` reads tables (refusing a damaged dataset with an error that names
``cardsim verify``); :func:`verify` lists every problem of a dataset for ``cardsim verify``.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:  # imported where used: a command imports pyarrow after its kernels compile
    import pandas as pd
    import pyarrow as pa

from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.run.layout import (MANIFEST, ROW_PER_GAME_TABLES, RUN_JSON, _embedded_meta, file_sha256,
                                        part_name, partial_path, shorten)


_RUN_KEYS = {"format": int, "game": str, "task": str, "tables": list, "n_chunks": int, "parts": list}


def record_problems(meta: dict[str, Any]) -> list[str]:
    """What makes ``run.json``'s list of parts incomplete: not exactly one record per
    (table, chunk) of the run, or the rows of a one-row-per-game table not adding up to
    ``n``. A part deleted together with its record leaves nothing else to notice."""
    tables, n_chunks = meta["tables"], meta["n_chunks"]
    seen: dict[tuple[Any, Any], int] = {}
    rows: dict[Any, int] = {}
    problems = []
    for record in meta["parts"]:
        key = (record.get("table"), record.get("chunk")) if isinstance(record, dict) else (None, None)
        if not all(isinstance(k, (str, int, type(None))) for k in key):
            key = tuple(repr(k) for k in key)  # a hand-edited list or object: not part of this run
        seen[key] = seen.get(key, 0) + 1
        count = record.get("rows") if isinstance(record, dict) else None
        if isinstance(count, int) and not isinstance(count, bool):
            rows[key[0]] = rows.get(key[0], 0) + count
    for (table, chunk), times in seen.items():
        valid = table in tables and isinstance(chunk, int) and not isinstance(chunk, bool) and 0 <= chunk < n_chunks
        where = f"{table}/{part_name(chunk)}" if valid else f"table {shorten(table, 40)} chunk {shorten(chunk, 20)}"
        if not valid:
            problems.append(f"{RUN_JSON} lists {where}, which is not part of this run")
        elif times > 1:
            problems.append(f"{where}: listed {times} times in {RUN_JSON}")
    for table in tables:
        for chunk_id in range(n_chunks):
            if (table, chunk_id) not in seen:
                problems.append(f"{table}/{part_name(chunk_id)}: not listed in {RUN_JSON}")
    n = meta.get("n")
    for table in tables:
        if table in ROW_PER_GAME_TABLES and isinstance(n, int) and rows.get(table, 0) != n:
            problems.append(f"{table}: {rows.get(table, 0):,} rows listed in {RUN_JSON}, expected n = {n:,}")
    return problems


class Dataset:
    """A finished run directory (read side).

    Every part is checked against ``run.json`` before it is used: the set of part files
    in a table folder (nothing missing, nothing extra), and for each part read its
    size, SHA-256 checksum, row count and embedded run metadata. A dataset that fails
    raises :class:`ConfigError` naming ``cardsim verify``.
    """

    def __init__(self, path: str | os.PathLike, strict: bool = True):
        """Open ``path``; ``strict=False`` (for :func:`verify`) only requires a readable ``run.json``."""
        self.path = Path(path)
        run_json = self.path / RUN_JSON
        if not run_json.is_file():
            hint = " (unfinished: see 'cardsim resume')" if partial_path(self.path).exists() else ""
            raise ConfigError(f"not a cardsim dataset (no {RUN_JSON}): {self.path}{hint}")
        try:
            self.meta: dict[str, Any] = json.loads(run_json.read_text())
        except (OSError, ValueError) as exc:
            raise ConfigError(f"unreadable {run_json}: {shorten(exc)}") from None
        if not strict:
            return
        if not isinstance(self.meta, dict) or any(not isinstance(self.meta.get(k), t) for k, t in _RUN_KEYS.items()):
            raise self._damaged(f"{RUN_JSON} is not a cardsim run description")
        self._records: dict[tuple[str, str], dict[str, Any]] = {}
        for record in self.meta["parts"]:
            try:
                self._records[(str(record["table"]), part_name(int(record["chunk"])))] = record
            except (KeyError, TypeError, ValueError):
                raise self._damaged(f"{RUN_JSON} lists a malformed part") from None
        problems = record_problems(self.meta)
        if problems:  # e.g. a part deleted with its record: the rest would be read as the whole run
            more = f"; {len(problems)} problems" if len(problems) > 1 else ""
            raise self._damaged(f"incomplete: {problems[0]}{more}")
        self._expected_meta = {k: v for k, v in self.meta.items() if k != "parts"}
        try:  # run.json edited by hand (relabelled as another game, seed...) no longer matches
            manifest = json.loads((self.path / MANIFEST).read_text())
        except (OSError, ValueError):
            raise self._damaged(f"missing or unreadable {MANIFEST}") from None
        if manifest != self._expected_meta:
            raise self._damaged(f"{MANIFEST} and {RUN_JSON} describe different runs")

    def _damaged(self, problem: str) -> ConfigError:
        return ConfigError(f"dataset {self.path} is damaged ({problem}); run 'cardsim verify {self.path}' for details")

    def parts(self, table: str) -> list[Path]:
        """The part files of ``table``, checked against run.json (none missing, none extra)."""
        if table not in self.meta["tables"]:
            raise ConfigError(f"dataset {self.path} has no '{table}' table")
        planned = sorted(name for (t, name) in self._records if t == table)
        folder = self.path / table
        try:
            # hidden names (a killed writer's temporary part) are skipped by pyarrow too
            on_disk = sorted(entry.name for entry in folder.iterdir() if not entry.name.startswith("."))
        except OSError:
            on_disk = []
        missing = sorted(set(planned) - set(on_disk))
        extra = sorted(set(on_disk) - set(planned))
        if missing:
            raise self._damaged(f"{len(missing)} part(s) missing, e.g. {table}/{missing[0]}")
        if extra:
            raise self._damaged(f"{len(extra)} file(s) not part of this run, e.g. {table}/{shorten(extra[0])}")
        if not planned:
            raise ConfigError(f"dataset {self.path} has no '{table}' table")
        return [folder / name for name in planned]

    def read_part(self, file: Path, columns: list[str] | None = None) -> pa.Table:
        """One part as a table, after checking it against its run.json record."""
        import pyarrow as pa
        import pyarrow.parquet as pq
        file = Path(file)
        table = file.parent.name
        where = f"{table}/{file.name}"
        record = self._records.get((table, file.name))
        if record is None:
            raise self._damaged(f"{where} is not part of this run")
        try:
            data = file.read_bytes()
        except OSError as exc:
            raise self._damaged(f"{where}: {exc.strerror or exc}") from None
        if "bytes" in record and len(data) != record["bytes"]:
            raise self._damaged(f"{where}: {len(data):,} bytes, expected {record['bytes']:,}")
        if hashlib.sha256(data).hexdigest() != record.get("sha256"):
            raise self._damaged(f"{where}: checksum mismatch")
        try:
            parquet = pq.ParquetFile(pa.BufferReader(data))
            if parquet.metadata.num_rows != record.get("rows"):
                raise self._damaged(f"{where}: {parquet.metadata.num_rows:,} rows, expected {record.get('rows')}")
            if _embedded_meta(parquet) != self._expected_meta:
                raise self._damaged(f"{where}: written by a different run than {RUN_JSON} describes")
            return parquet.read(columns=columns)
        except (OSError, pa.ArrowException) as exc:
            raise self._damaged(f"{where}: corrupt part: {shorten(exc)}") from None

    def iter_parts(self, table: str, columns: list[str] | None = None) -> Iterator[pa.Table]:
        """Yield one checked part at a time (bounded memory)."""
        for file in self.parts(table):
            yield self.read_part(file, columns)

    def read(self, table: str, columns: list[str] | None = None) -> pd.DataFrame:
        """A whole table as a DataFrame."""
        import pyarrow as pa
        return pa.concat_tables(list(self.iter_parts(table, columns))).to_pandas()


def _stray_entries(path: Path, meta: dict[str, Any]) -> list[str]:
    """Files and folders in a dataset that are not part of it (they break ``pd.read_parquet``)."""
    problems = []
    tables = [str(t) for t in meta.get("tables", []) if isinstance(t, str)]
    planned = {part_name(c) for c in range(int(meta.get("n_chunks", 0) or 0))}
    for entry in sorted(path.iterdir()):
        if entry.name in (RUN_JSON, MANIFEST) or entry.name in tables:
            continue
        kind = "nested dataset" if entry.is_dir() and ((entry / RUN_JSON).exists() or (entry / MANIFEST).exists()) \
            else "stray folder" if entry.is_dir() else "stray file"
        problems.append(f"{shorten(entry.name)}: {kind} (not part of this run)")
    for table in tables:
        folder = path / table
        if not folder.is_dir():
            continue
        for entry in sorted(folder.iterdir()):
            if entry.name in planned and entry.is_file():
                continue
            if entry.name.endswith(".tmp"):
                kind = "leftover temporary part of a killed writer"
            elif entry.name.startswith("part-") and entry.name.endswith(".parquet"):
                continue  # reported below as "not part of this run"
            elif entry.is_dir():
                kind = "nested dataset" if (entry / RUN_JSON).exists() else "stray folder"
            else:
                kind = "stray file"
            problems.append(f"{table}/{shorten(entry.name)}: {kind} (breaks pd.read_parquet)")
    return problems


def verify(path: str | os.PathLike) -> list[str]:
    """Check a dataset against its own run.json; return a list of problems (empty: OK).

    Checks: run.json and manifest readable and consistent, every planned part present
    (no extra ones, no leftover temporary parts, stray files or nested datasets), its
    checksum and row count, and that its embedded metadata is this run's (not a part
    copied in from another run).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq
    path = Path(path)
    problems: list[str] = []
    try:
        meta = Dataset(path, strict=False).meta
    except ConfigError as exc:
        return [str(exc)]
    if not isinstance(meta, dict) or any(not isinstance(meta.get(k), t) for k, t in _RUN_KEYS.items()):
        return [f"{RUN_JSON} is not a cardsim run description"]
    if not all(isinstance(p, dict) for p in meta["parts"]):
        return [f"{RUN_JSON} lists a malformed part"]
    try:
        manifest = json.loads((path / MANIFEST).read_text())
    except (OSError, ValueError):
        return [f"missing or unreadable {MANIFEST}"]
    expected_meta = {k: v for k, v in meta.items() if k != "parts"}
    if manifest != expected_meta:
        problems.append(f"{MANIFEST} and {RUN_JSON} describe different runs")
    problems += _stray_entries(path, meta)
    problems += record_problems(meta)
    recorded = {}
    for p in meta.get("parts", []):
        recorded[(p.get("table"), p.get("chunk"))] = p
    for table in meta.get("tables", []):
        on_disk = {p.name for p in (path / table).glob("part-*.parquet")} if (path / table).is_dir() else set()
        planned = {part_name(c) for c in range(meta.get("n_chunks", 0))}
        for extra in sorted(on_disk - planned):
            problems.append(f"{table}/{extra}: not part of this run")
    for (table, chunk_id), record in sorted(recorded.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1]))):
        try:
            file = path / str(table) / part_name(int(chunk_id))
        except (TypeError, ValueError):
            problems.append(f"{RUN_JSON} lists a malformed part")
            continue
        where = f"{table}/{file.name}"
        if not file.is_file():
            problems.append(f"{where}: missing")
            continue
        if file_sha256(file) != record.get("sha256"):
            problems.append(f"{where}: checksum mismatch (modified or truncated)")
        try:
            parquet = pq.ParquetFile(file)
        except (OSError, pa.ArrowException) as exc:
            problems.append(f"{where}: unreadable Parquet ({shorten(exc, 120)})")
            continue
        if parquet.metadata.num_rows != record.get("rows"):
            problems.append(f"{where}: {parquet.metadata.num_rows} rows, expected {record.get('rows')}")
        if _embedded_meta(parquet) != expected_meta:
            problems.append(f"{where}: metadata of a different run (game/rules/seed differ)")
    return problems

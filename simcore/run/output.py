"""Writing a run's Parquet dataset: resumable, atomic, fsynced parts and the commit (:class:`PartialRun`).

Layout of a finished run directory ``OUT``::

    OUT/
      run.json                      # resolved metadata + the list of parts with row counts, sizes and checksums
      manifest.json                 # what is needed to (re)run any chunk: game, task, rules, seed, n, chunking
      <table>/part-000000.parquet   # one part per chunk and table; each part's schema metadata
      <table>/part-000001.parquet   # holds the run metadata JSON under the key b"cardsim"

``pandas.read_parquet("OUT/<table>")`` reads a table directly: nothing but the parts is
ever left in a table folder of a finished dataset.

While a run is in progress everything lives in the hidden sibling ``.OUT.partial/``:
the manifest is written first, each part is written under a temporary name, fsynced,
its checksum recorded in ``.OUT.partial/checksums/`` and only then renamed into place,
and the whole directory is renamed to ``OUT`` after the last chunk (run.json and the
directory fsynced first). A run stopped at any point (Ctrl-C, SIGKILL, power loss, a
full disk) leaves its finished parts there; ``cardsim resume OUT`` checks every part
it finds against its recorded checksum, redoes damaged ones and runs only the missing
chunks. A run started with ``--overwrite`` records that in ``.OUT.partial/overwrite-intent.json``,
so that its resume replaces the old ``OUT`` too. Readers (:class:`Dataset`) require
``run.json`` to list exactly one part per table and chunk (and one-row-per-game tables
to add up to ``n``) and check every part they read against it.

The other roles have their own modules: names and durable-write primitives in
:mod:`cardsim.simcore.run.layout`, checking and replacing the output location in
:mod:`cardsim.simcore.run.outpath`, reading and verifying in
:mod:`cardsim.simcore.run.dataset` (:class:`Dataset`, :func:`verify` and ``missing_parent_message``
are importable from here too).
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where used: a command imports pyarrow after its kernels compile
    import pyarrow as pa

from cardsim.simcore.framework.config import ConfigError
# the readers live in dataset.py; many callers import them from here
from cardsim.simcore.run.dataset import Dataset, verify  # noqa: F401
from cardsim.simcore.run.layout import (CHECKSUMS, FORMAT_VERSION, MANIFEST, META_KEY, OVERWRITE_INTENT, RUN_JSON,
                                        _embedded_meta, _json_bytes, file_sha256, fsync_dir, part_name, partial_path,
                                        shorten, write_durably)
from cardsim.simcore.run.outpath import check_replaceable, move_aside, refuse_link, remove_path, replace_directory
from cardsim.simcore.run.outpath import missing_parent_message  # noqa: F401  (analysis/report.py imports it from here)


class PartialRun:
    """The in-progress directory of a run (``.OUT.partial``).

    Parameters
    ----------
    out : path
        Final dataset directory (made absolute here, so that remote workers that run
        in another folder write to the same place).
    manifest : dict
        JSON-ready run description (see ``RunConfig.manifest``), must contain
        ``tables`` and ``n_chunks``.
    """

    def __init__(self, out: Path, manifest: dict[str, Any]):
        self.out = Path(os.path.abspath(out))
        self.dir = partial_path(self.out)
        self.manifest = manifest
        self._meta_bytes = json.dumps(manifest, ensure_ascii=False, sort_keys=True).encode()

    # -- creating and reopening -------------------------------------------------------
    @classmethod
    def create(cls, out: Path, manifest: dict[str, Any], overwrite: bool = False) -> "PartialRun":
        """Start a new run directory (after :func:`check_output_path`, holding the output's lock).

        ``overwrite`` is recorded (:data:`OVERWRITE_INTENT`), so that ``cardsim resume``
        of an interrupted ``--overwrite`` run replaces the old dataset as the run would have.
        """
        run = cls(out, manifest)
        if run.dir.is_symlink() or (run.dir.exists() and not run.dir.is_dir()):
            # never followed: a planted link would have the run delete or write its target
            raise ConfigError(f"{run.dir} is not an unfinished run (a link or a file): remove it, then run again")
        if run.dir.exists():
            shutil.rmtree(run.dir)  # a stale unfinished run: --overwrite was given
        tmp = run.dir.parent / f"{run.dir.name}.{uuid.uuid4().hex[:8]}"
        try:
            tmp.mkdir()
            write_durably(tmp / MANIFEST, _json_bytes(manifest))
            if overwrite:
                write_durably(tmp / OVERWRITE_INTENT, _json_bytes({"overwrite": True}))
            tmp.rename(run.dir)
            fsync_dir(run.dir.parent)
        except OSError as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise ConfigError(f"cannot create output in {run.dir.parent}: {exc.strerror or exc}") from None
        return run

    @classmethod
    def open(cls, out: Path) -> "PartialRun":
        """Reopen the unfinished run of ``out`` (for ``cardsim resume``)."""
        out = Path(os.path.abspath(out))
        folder = partial_path(out)
        refuse_link(folder, f"an unfinished run of {out.name}")  # never followed: it would finish another run
        if (folder / MANIFEST).is_symlink():
            raise ConfigError(f"{folder / MANIFEST} is a link: refusing to resume through it (remove {folder} if no "
                              "cardsim run of yours made it)")
        if not (folder / MANIFEST).is_file():
            if (out / RUN_JSON).is_file():
                raise ConfigError(f"{out} is already complete: nothing to resume")
            raise ConfigError(f"no unfinished run to resume for {out}")
        try:
            manifest = json.loads((folder / MANIFEST).read_text())
        except (OSError, ValueError) as exc:
            raise ConfigError(f"unreadable manifest {folder / MANIFEST}: {shorten(exc)}") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_VERSION or "game" not in manifest:
            raise ConfigError(f"{folder / MANIFEST} is not a cardsim manifest")
        run = cls(out, manifest)
        run.refuse_links()
        return run

    def refuse_links(self) -> None:
        """Refuse a link (or a file) at any fixed name of the unfinished run (its table and
        checksum folders, ``run.json``, the ``--overwrite`` record): resume would write parts
        through it, or read another run's records."""
        tables = self.manifest.get("tables")
        names = [str(t) for t in tables] if isinstance(tables, list) else []
        for name in (*names, CHECKSUMS):
            refuse_link(self.dir / name, f"a folder of the unfinished run {self.dir.name}")
        for name in (RUN_JSON, OVERWRITE_INTENT):
            if (self.dir / name).is_symlink():
                raise ConfigError(f"{self.dir / name} is a link: refusing to use it (remove {self.dir} if no cardsim "
                                  "run of yours made it)")

    # -- the destination ----------------------------------------------------------------
    def overwrite_intended(self) -> bool:
        """Whether this run was started with ``--overwrite`` (see :meth:`create`)."""
        return (self.dir / OVERWRITE_INTENT).is_file()

    def check_destination(self, overwrite: bool = False) -> bool:
        """Whether committing will replace an existing ``out``; raise :class:`ConfigError` if it may not.

        Called before any chunk runs on resume and again at commit: a dataset (or a file)
        that appeared at ``out`` is replaced only when ``overwrite`` is given now or was
        recorded when the run started, and then only if it is a cardsim dataset or experiment.
        """
        overwrite = overwrite or self.overwrite_intended()
        if not (self.out.exists() or self.out.is_symlink()):
            return overwrite
        if not overwrite:
            raise ConfigError(f"output path exists: {self.out} (this unfinished run was started without "
                              "--overwrite: move it away and resume again, or rerun its command with --resume "
                              "--overwrite to replace it)")
        check_replaceable(self.out)
        return True

    # -- chunks -----------------------------------------------------------------------
    def _checksum_file(self, table: str, chunk_id: int) -> Path:
        return self.dir / CHECKSUMS / f"{table}.{part_name(chunk_id)}.json"

    def _recorded(self, table: str, chunk_id: int) -> dict[str, Any] | None:
        """What was recorded when the part was written: its ``checksums/`` file or, once a
        commit that was killed before its rename removed that folder, the entry of the
        ``run.json`` the commit wrote from them. ``None``: no usable record."""
        record = None
        try:
            checksum = self._checksum_file(table, chunk_id)
            if checksum.is_file():
                record = json.loads(checksum.read_text())
            elif (self.dir / RUN_JSON).is_file():
                parts = json.loads((self.dir / RUN_JSON).read_text()).get("parts", [])
                record = next((p for p in parts if isinstance(p, dict)
                               and (p.get("table"), p.get("chunk")) == (table, chunk_id)), None)
        except (OSError, ValueError, AttributeError):
            return None
        if not isinstance(record, dict) or not all(k in record for k in ("rows", "bytes", "sha256")):
            return None
        return record

    def chunk_done(self, chunk_id: int) -> bool:
        return all((self.dir / table / part_name(chunk_id)).is_file() for table in self.manifest["tables"])

    def missing_chunks(self) -> list[int]:
        """Chunks without every table's part: one directory scan per table, not a stat per
        part (a Ctrl-C report of a run of 10**6 chunks stays instant)."""
        present = None
        for table in self.manifest["tables"]:
            try:
                with os.scandir(self.dir / table) as entries:
                    names = {e.name for e in entries if e.is_file()}
            except (FileNotFoundError, NotADirectoryError):
                names = set()
            present = names if present is None else present & names
        present = present or set()
        return [c for c in range(self.manifest["n_chunks"]) if part_name(c) not in present]

    def write_chunk(self, chunk_id: int, tables: dict[str, pa.Table]) -> dict[str, int]:
        """Write one chunk's tables durably; each part appears atomically.

        The part is serialised in memory, its checksum recorded (fsynced) under
        ``checksums/``, written under a temporary name, fsynced, renamed into place and
        the folder fsynced: a part that exists after a crash is complete, and resume
        can tell a damaged one from a good one.
        """
        import pyarrow.parquet as pq
        if set(tables) != set(self.manifest["tables"]):
            raise ValueError(f"chunk {chunk_id} has tables {sorted(tables)}, expected {self.manifest['tables']}")
        rows = {}
        (self.dir / CHECKSUMS).mkdir(exist_ok=True)
        refuse_link(self.dir / CHECKSUMS, f"a folder of the unfinished run {self.dir.name}")
        for name in self.manifest["tables"]:
            table = tables[name]
            folder = self.dir / name
            folder.mkdir(exist_ok=True)
            refuse_link(folder, f"a folder of the unfinished run {self.dir.name}")  # parts never go through a link
            meta = dict(table.schema.metadata or {})
            meta[META_KEY] = self._meta_bytes
            buffer = io.BytesIO()
            pq.write_table(table.replace_schema_metadata(meta), buffer, compression="zstd")
            data = buffer.getvalue()
            record = {"rows": table.num_rows, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            write_durably(self._checksum_file(name, chunk_id), _json_bytes(record))
            write_durably(folder / part_name(chunk_id), data)
            rows[name] = table.num_rows
        return rows

    def check_parts(self) -> list[str]:
        """Check every part already written (for resume); delete damaged ones so they are redone.

        A part is damaged when it is empty, truncated, unreadable, differs from the
        checksum recorded when it was written or has no such record (then nothing
        vouches for its content, and redoing it is cheap). Returns the names of the deleted parts.
        Raises :class:`ConfigError` when intact parts were written by a different run
        than ``manifest.json`` describes (an edited manifest).
        """
        redone = []
        for table in self.manifest["tables"]:
            folder = self.dir / table
            if not folder.is_dir():
                continue
            for chunk_id in range(self.manifest["n_chunks"]):
                file = folder / part_name(chunk_id)
                if not file.is_file():
                    continue
                problem = self._part_problem(file, table, chunk_id)
                if problem == "foreign":
                    raise ConfigError(f"{self.dir / MANIFEST} does not describe the parts already written "
                                      f"({table}/{file.name} belongs to other settings): the manifest was edited; "
                                      "start again with --overwrite")
                if problem:
                    file.unlink()
                    redone.append(f"{table}/{file.name}")
        fsync_dir(self.dir)
        return redone

    def _part_problem(self, file: Path, table: str, chunk_id: int) -> str | None:
        import pyarrow as pa
        import pyarrow.parquet as pq
        record = self._recorded(table, chunk_id)
        if record is None:
            return "damaged"
        try:
            data = file.read_bytes()
            if len(data) != record["bytes"] or hashlib.sha256(data).hexdigest() != record["sha256"]:
                return "damaged"
            parquet = pq.ParquetFile(pa.BufferReader(data))
            if parquet.metadata.num_rows != record["rows"]:
                return "damaged"
        except (OSError, pa.ArrowException, ValueError):
            return "damaged"
        if _embedded_meta(parquet) != json.loads(self._meta_bytes):
            return "foreign"
        return None

    # -- finishing --------------------------------------------------------------------
    def commit(self, overwrite: bool = False) -> Path:
        """Check every part, write run.json with checksums, rename into place (all fsynced).

        Temporary files of killed writers, the ``checksums/`` folder and the recorded
        ``--overwrite`` intent are removed first, so the finished dataset holds nothing
        but its parts. An existing ``out`` is replaced when ``overwrite`` is given or was
        recorded when the run started (:meth:`check_destination`, checked before anything
        changes, so that a refusal leaves the run resumable).
        """
        import pyarrow.parquet as pq
        missing = self.missing_chunks()
        if missing:
            raise ConfigError(f"cannot finish {self.out}: {len(missing)} chunk(s) missing")
        overwrite = self.check_destination(overwrite)
        planned = {part_name(c) for c in range(self.manifest["n_chunks"])}
        for table in self.manifest["tables"]:
            for entry in (self.dir / table).iterdir():
                if entry.name not in planned:
                    if entry.name.endswith(".tmp"):
                        remove_path(entry)  # a writer (or a Dask worker) killed mid-part
                    else:
                        raise ConfigError(f"cannot finish {self.out}: unexpected file {table}/{shorten(entry.name)} "
                                          f"in {self.dir}")
        parts = []
        for table in self.manifest["tables"]:
            for chunk_id in range(self.manifest["n_chunks"]):
                path = self.dir / table / part_name(chunk_id)
                sha = file_sha256(path)
                recorded = self._recorded(table, chunk_id)
                if recorded is None or recorded["sha256"] != sha:
                    path.unlink()
                    why = "has no checksum record" if recorded is None else "changed after it was written"
                    raise ConfigError(f"cannot finish {self.out}: {table}/{path.name} {why} "
                                      f"(deleted); run 'cardsim resume {self.out}' to redo it")
                parts.append({"table": table, "chunk": chunk_id, "rows": pq.ParquetFile(path).metadata.num_rows,
                              "bytes": path.stat().st_size, "sha256": sha})
            fsync_dir(self.dir / table)
        run_meta = dict(self.manifest)
        run_meta["parts"] = parts
        write_durably(self.dir / RUN_JSON, _json_bytes(run_meta))
        with open(self.dir / MANIFEST, "rb") as fh:
            os.fsync(fh.fileno())
        remove_path(self.dir / CHECKSUMS)
        for entry in self.dir.iterdir():
            if entry.name.endswith(".tmp"):
                remove_path(entry)
        fsync_dir(self.dir)
        old = None
        if overwrite and (self.out.exists() or self.out.is_symlink()):
            old = move_aside(self.out)
        # the recorded --overwrite goes only once the old dataset is out of the way: a kill at
        # the OUT -> .OUT.old-* rename leaves a run that resume still finishes with --overwrite
        remove_path(self.dir / OVERWRITE_INTENT)
        fsync_dir(self.dir)
        replace_directory(self.dir, self.out, overwrite)
        if old is not None:
            remove_path(old)
        return self.out

    def discard(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

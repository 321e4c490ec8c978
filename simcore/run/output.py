"""Parquet datasets of a run: resumable, atomic, fsynced writing; checked reading; verification.

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
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:  # imported where used: a command imports pyarrow after its kernels compile
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

from cardsim.simcore.framework.config import ConfigError

META_KEY = b"cardsim"
RUN_JSON = "run.json"
MANIFEST = "manifest.json"
EXPERIMENT_JSON = "experiment.json"
CHECKSUMS = "checksums"  # folder of an unfinished run: one small JSON per written part
#: File of an unfinished run started with ``--overwrite``: ``cardsim resume`` replaces the old
#: dataset at commit as the interrupted run would have (kept out of the manifest, which is data).
OVERWRITE_INTENT = "overwrite-intent.json"
#: Tables with one row per deal or game: their rows over all parts add up to the run's ``n``.
ROW_PER_GAME_TABLES = ("games", "per_deal", "matches")
FORMAT_VERSION = 1
#: Longest output name (bytes) that still leaves room for ``.NAME.partial.xxxxxxxx``
#: and the other hidden siblings within a file system's 255-byte name limit.
MAX_NAME_BYTES = 200


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


def shorten(value: Any, limit: int = 80) -> str:
    """``repr``-free text of a value for an error message, cut to ``limit`` characters."""
    text = " ".join(str(value).split())
    return text if len(text) <= limit else f"{text[:limit - 20]}...({len(text):,} characters)"


def fsync_dir(path: Path) -> None:
    """Make a rename or a new entry in directory ``path`` durable (no-op where unsupported)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_durably(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: temporary sibling, fsync, rename, fsync the folder."""
    tmp = path.parent / f".{path.name}.{uuid.uuid4().hex[:8]}.tmp"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def _json_bytes(data: Any) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode()


def enclosing_dataset(path: Path) -> Path | None:
    """The cardsim dataset, experiment or unfinished run that ``path`` would be inside, if any."""
    for parent in Path(path).absolute().parents:
        try:
            if (parent / RUN_JSON).is_file() or (parent / EXPERIMENT_JSON).is_file():
                return parent
            if parent.name.startswith(".") and parent.name.endswith(".partial") and (parent / MANIFEST).is_file():
                return parent
        except OSError:
            continue
    return None


def missing_parent_message(parent: Path, what: str = "output directory's parent") -> str:
    """The error for an output whose folder does not exist, with the command that makes it
    (unless a file stands in the way)."""
    import shlex

    blocker = next((a for a in (parent, *parent.parents) if a.exists()), None)
    if blocker is not None and not blocker.is_dir():
        return f"{what} does not exist: {parent} ({blocker} is a file, not a folder)"
    return f"{what} does not exist: {parent} (create it first: mkdir -p {shlex.quote(str(parent))})"


def refuse_current_folder(path: Path) -> None:
    """Refuse an output that is the current folder or a folder above it (``--out .``, or
    ``--out ''``, which the command line reads as ``.``): replacing it would take the
    folder the shell is in away.

    The path is also compared with symlinks resolved: ``LINK/here`` renames the real
    folder (only a last component that is a link is replaced without being followed,
    but a link to the current folder is refused too: it is never what was meant).
    """
    try:
        here = Path(os.path.realpath(os.getcwd()))
    except OSError:  # the current folder was removed: nothing to protect
        return
    forms = {path, Path(os.path.realpath(path.parent)) / path.name, Path(os.path.realpath(path))}
    if any(form == here or form in here.parents for form in forms):
        raise ConfigError(f"--out {shorten(str(path))} is the current folder or one above it (as are --out . "
                          "and --out ''): write to a new folder inside it (e.g. --out runs/NAME)")


def refuse_unusable_location(path: Path) -> None:
    """Refuse an output whose nearest existing folder is on a virtual file system
    (``/proc``, ``/sys``: total size 0), where no file can be stored whatever the run's
    size; checked before any estimate so that the error names the path, not N."""
    where = path.parent
    try:
        while not where.exists() and where != where.parent:
            where = where.parent
        total = shutil.disk_usage(where).total
    except OSError:
        return  # reported by the checks that follow, in their own words
    if total == 0:
        raise ConfigError(f"unusable output path {shorten(str(path))}: {where} is a virtual file system "
                          "that cannot hold files; choose another --out")


def check_replaceable(path: Path) -> None:
    """Refuse to replace ``path`` unless it is a cardsim dataset or experiment, or an empty folder."""
    ours = (path / RUN_JSON).is_file() or (path / EXPERIMENT_JSON).is_file()
    if not path.is_dir() or not (ours or not any(path.iterdir())):
        raise ConfigError(f"refusing to overwrite {path}: it is not a cardsim dataset or experiment")


def check_output_path(out: str | os.PathLike, overwrite: bool) -> Path:
    """Validate an output directory before any work is done; raise :class:`ConfigError`.

    Returns the path with ``~`` expanded (once) and made absolute.
    """
    text = os.fspath(out)
    if not text:
        raise ConfigError("the output path is empty: give a new folder (e.g. --out runs/NAME)")
    if "\x00" in text:
        raise ConfigError(f"invalid output path {shorten(repr(text))}")
    path = Path(os.path.abspath(os.path.expanduser(text)))
    refuse_current_folder(path)
    refuse_unusable_location(path)
    if len(os.fsencode(path.name)) > MAX_NAME_BYTES:
        raise ConfigError(f"output name too long ({len(os.fsencode(path.name))} bytes; at most {MAX_NAME_BYTES}): "
                          f"{shorten(path.name)}")
    try:
        exists = path.exists() or path.is_symlink()
        if exists:
            if not overwrite:
                raise ConfigError(f"output path exists: {path} (use --overwrite to replace it)")
            check_replaceable(path)
        parent = path.parent
        if not parent.is_dir():
            raise ConfigError(missing_parent_message(parent))
        if not os.access(parent, os.W_OK | os.X_OK):
            raise ConfigError(f"output directory's parent is not writable: {parent}")
        inside = enclosing_dataset(path)
        if inside is not None:
            raise ConfigError(f"refusing to write inside the cardsim dataset {inside}: "
                              "readers of that dataset would see stray files; choose another --out")
        if partial_path(path).exists() and not overwrite:
            raise ConfigError(f"an unfinished run exists for {path}: finish it with 'cardsim resume {path}' "
                              "or start again with --overwrite")
    except OSError as exc:
        raise ConfigError(f"unusable output path {shorten(path)}: {exc.strerror or exc}") from None
    return path


def replace_directory(src: Path, dst: Path, overwrite: bool) -> None:
    """Rename the finished directory ``src`` to ``dst``, replacing an old ``dst`` when allowed.

    The old ``dst`` is first renamed to ``.DST.old-*`` (removed afterwards; a kill in
    between leaves it for :func:`cardsim.simcore.run.lifecycle.clean_debris`). A symlink
    at ``dst`` is replaced, never followed into.
    """
    old = None
    if dst.exists() or dst.is_symlink():
        if not overwrite:
            raise ConfigError(f"output path exists: {dst} (use --overwrite to replace it)")
        old = dst.parent / f".{dst.name}.old-{uuid.uuid4().hex[:8]}"
        dst.rename(old)
    src.rename(dst)
    fsync_dir(dst.parent)
    if old is not None:
        remove_path(old)


def remove_path(path: Path) -> None:
    """Remove a file, a symlink (not its target) or a directory tree; missing is fine."""
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    elif path.is_dir():
        shutil.rmtree(path, ignore_errors=True)


def _embedded_meta(parquet: pq.ParquetFile) -> Any:
    embedded = (parquet.schema_arrow.metadata or {}).get(META_KEY)
    try:
        return json.loads(embedded) if embedded else None
    except ValueError:
        return None


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
        return cls(out, manifest)

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
        for name in self.manifest["tables"]:
            table = tables[name]
            folder = self.dir / name
            folder.mkdir(exist_ok=True)
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
        remove_path(self.dir / OVERWRITE_INTENT)  # recorded in ``overwrite`` above
        for entry in self.dir.iterdir():
            if entry.name.endswith(".tmp"):
                remove_path(entry)
        fsync_dir(self.dir)
        replace_directory(self.dir, self.out, overwrite)
        return self.out

    def discard(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


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

"""The on-disk names of a run's dataset and the file primitives its writer and readers share.

File and folder names (``run.json``, ``manifest.json``, ``part-NNNNNN.parquet``, the
hidden ``.OUT.partial`` sibling), the format version, checksums, durable (fsynced,
atomic) writes and the run metadata embedded in every part. The layout itself is
described in :mod:`cardsim.simcore.run.output`.
"""
from __future__ import annotations

import hashlib
import json
import os
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where used: a command imports pyarrow after its kernels compile
    import pyarrow.parquet as pq

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
    """``repr``-free text of a value for an error message, cut to about ``limit`` characters:
    its start and its end (a path's file name stays readable)."""
    text = " ".join(str(value).split())
    if len(text) <= limit:
        return text
    keep = max(limit - 30, 10)
    return f"{text[:keep // 2]}...{text[-(keep - keep // 2):]} ({len(text):,} characters)"


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


def _embedded_meta(parquet: pq.ParquetFile) -> Any:
    embedded = (parquet.schema_arrow.metadata or {}).get(META_KEY)
    try:
        return json.loads(embedded) if embedded else None
    except ValueError:
        return None

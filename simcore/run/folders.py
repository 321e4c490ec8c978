"""Integrity of study folders: experiments, ladders, balance cards and tune races.

A study folder holds its own tables (``comparison.parquet``, ``card.parquet`` ...), its
description (``experiment.json`` ...) and, for experiments, one run dataset per arm
(each with its own ``run.json`` checksums). ``checksums.json`` records the SHA-256 of
every file of the folder itself and the path of every dataset inside it, so that an
edited table, a deleted arm or a file added later is found by ``cardsim verify`` and
refused by ``cardsim report`` and ``cardsim.load``.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from cardsim.simcore.framework.config import ConfigError

#: The description file of each kind of study folder.
DESCRIPTIONS = ("experiment.json", "ladder.json", "balance.json", "tune.json")
CHECKSUMS = "checksums.json"


def is_study_folder(path: str | os.PathLike) -> bool:
    path = Path(path)
    return any((path / name).is_file() for name in DESCRIPTIONS)


def _sha256(file: Path) -> str:
    digest = hashlib.sha256()
    with file.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _datasets(folder: Path) -> list[str]:
    """Relative paths of the run datasets inside ``folder`` (folders with a ``run.json``)."""
    return sorted(str(p.parent.relative_to(folder)) for p in folder.rglob("run.json") if p.parent != folder)


def write_checksums(folder: str | os.PathLike) -> None:
    """Record every file of ``folder`` itself and every dataset in it (call it last,
    before the folder is renamed into place)."""
    folder = Path(folder)
    files = {p.name: _sha256(p) for p in sorted(folder.iterdir()) if p.is_file() and p.name != CHECKSUMS}
    record = {"files": files, "datasets": _datasets(folder)}
    (folder / CHECKSUMS).write_text(json.dumps(record, indent=1) + "\n")


def verify_folder(folder: str | os.PathLike, datasets: bool = True) -> list[str]:
    """Problems of a study folder (empty: OK): its files against ``checksums.json``, no
    file or dataset missing or added, and (``datasets``) every dataset's own check."""
    from cardsim.simcore.run.dataset import verify

    folder = Path(folder)
    try:
        record = json.loads((folder / CHECKSUMS).read_text())
        files, recorded_sets = dict(record["files"]), list(record["datasets"])
    except (OSError, ValueError, KeyError, TypeError):
        return [f"missing or unreadable {CHECKSUMS}: the folder's tables cannot be checked"]
    problems = []
    present = {p.name for p in folder.iterdir() if p.is_file() and p.name != CHECKSUMS}
    for name, digest in files.items():
        file = folder / name
        if name not in present:
            problems.append(f"{name}: missing")
        elif _sha256(file) != digest:
            problems.append(f"{name}: checksum mismatch (changed after it was written)")
    problems += [f"{name}: not written by cardsim (a stray file)" for name in sorted(present - set(files))]
    found = _datasets(folder)
    problems += [f"{rel}: dataset missing" for rel in recorded_sets if rel not in found]
    problems += [f"{rel}: a dataset that is not part of this folder" for rel in found if rel not in recorded_sets]
    if datasets:
        for rel in recorded_sets:
            if rel in found:
                problems += [f"{rel}: {p}" for p in verify(folder / rel)]
    return problems


def check_folder(folder: str | os.PathLike, datasets: bool = True) -> None:
    """Raise a one-line :class:`ConfigError` when :func:`verify_folder` finds problems."""
    problems = verify_folder(folder, datasets)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ConfigError(f"{folder} is damaged: {problems[0]}{more}; run 'cardsim verify {folder}' for details")


def write_study_folder(out: Path, overwrite: bool, kind: str, meta: dict, tables: dict,
                       locked: bool = False) -> None:
    """Write a study folder: ``KIND.json`` (``meta``), each ``tables[name]`` as
    ``name.parquet`` and :data:`CHECKSUMS` (last), beside ``out``, then rename it into
    place under the output's lock (``out`` checked with ``check_output_path`` before;
    ``locked``: the caller holds that lock already). A link planted at the temporary
    folder's name ``.OUT.partial.KIND`` is refused, never followed."""
    import contextlib
    import shutil

    from cardsim.simcore.run import lifecycle
    from cardsim.simcore.run.outpath import refuse_link, replace_directory

    with contextlib.nullcontext() if locked else lifecycle.OutputLock(out):
        lifecycle.clean_debris(out)
        tmp = out.parent / f".{out.name}.partial.{kind}"
        refuse_link(tmp, f"a {kind} folder being written")
        shutil.rmtree(tmp, ignore_errors=True)  # a killed writer's
        tmp.mkdir(parents=True)
        (tmp / f"{kind}.json").write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n")
        for name, frame in tables.items():
            frame.to_parquet(tmp / f"{name}.parquet", index=False)
        write_checksums(tmp)
        replace_directory(tmp, out, overwrite)

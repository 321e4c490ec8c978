"""The output location of a run or study: checked before any work, replaced or removed after.

:func:`check_output_path` refuses an output that cannot or must not be written (the
current folder, a virtual file system, an existing folder without ``--overwrite`` or
that is not cardsim's, a place inside another dataset); :func:`replace_directory` and
:func:`remove_path` put a finished folder in place and clear old ones.
"""
from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.run.layout import (EXPERIMENT_JSON, MANIFEST, MAX_NAME_BYTES, RUN_JSON, fsync_dir, partial_path,
                                        shorten)


def enclosing_dataset(path: Path) -> Path | None:
    """The cardsim dataset, experiment, study folder (ladder, balance, tune) or unfinished
    run that ``path`` would be inside, if any."""
    from cardsim.simcore.run.folders import is_study_folder

    for parent in Path(path).absolute().parents:
        try:
            if (parent / RUN_JSON).is_file() or (parent / EXPERIMENT_JSON).is_file() or is_study_folder(parent):
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
    """Refuse to replace ``path`` unless it is a cardsim dataset, experiment or study folder
    (ladder, balance, tune), or an empty folder."""
    from cardsim.simcore.run.folders import is_study_folder

    ours = (path / RUN_JSON).is_file() or (path / EXPERIMENT_JSON).is_file() or is_study_folder(path)
    if not path.is_dir() or not (ours or not any(path.iterdir())):
        raise ConfigError(f"refusing to overwrite {path}: it is not a cardsim dataset, experiment or study folder")


def refuse_link(path: Path, what: str) -> None:
    """Refuse a link (or a file where a folder belongs) planted at one of cardsim's fixed
    names beside or inside an output: it is never followed, never removed."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise ConfigError(f"{path} is not {what} (a link or a file): refusing to use it (remove it if no cardsim "
                          "run of yours made it, then run again)")


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
        refuse_link(partial_path(path), f"an unfinished run of {path.name}")
        if partial_path(path).exists() and not overwrite:
            raise ConfigError(f"an unfinished run exists for {path}: finish it with 'cardsim resume {path}' "
                              "or start again with --overwrite")
    except OSError as exc:
        raise ConfigError(f"unusable output path {shorten(path)}: {exc.strerror or exc}") from None
    return path


def move_aside(dst: Path) -> Path:
    """Rename ``dst`` (a link is renamed, never followed) to ``.DST.old-*`` beside it and return
    that name: removed once the replacement is in place, or by
    :func:`cardsim.simcore.run.lifecycle.clean_debris` after a kill in between."""
    old = dst.parent / f".{dst.name}.old-{uuid.uuid4().hex[:8]}"
    dst.rename(old)
    return old


def replace_directory(src: Path, dst: Path, overwrite: bool) -> None:
    """Rename the finished directory ``src`` to ``dst``, replacing an old ``dst`` when allowed.

    The old ``dst`` is first renamed to ``.DST.old-*`` (:func:`move_aside`; removed
    afterwards). A symlink at ``dst`` is replaced, never followed into.
    """
    old = None
    if dst.exists() or dst.is_symlink():
        if not overwrite:
            raise ConfigError(f"output path exists: {dst} (use --overwrite to replace it)")
        old = move_aside(dst)
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

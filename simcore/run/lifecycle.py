"""The run lifecycle: output paths, one writer per output, create/resume, execute, commit, debris cleanup.

Used by ``cardsim deal/play/resume`` and by experiments alike::

    out = resolve_out(path)                   # ~ expanded once, absolute (remote workers see the same path)
    with OutputLock(out):                     # one live writer per output; a dead owner's lock is taken over
        clean_debris(out)                     # .OUT.old-*, .OUT.partial.* and .OUT.experiment-* of killed runs
        run = start_run(out, manifest, overwrite, resume)   # or reopen_run(out): damaged parts are redone
        execute(run, backend, ...)            # parts kept on Ctrl-C, a full disk, a killed worker
        commit(run, overwrite)                # run.json + fsync + rename

Runs without ``--out`` use :func:`temporary_folder`, whose lock lets the next run
remove the folder of a killed one.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import glob
import os
import re
import shutil
import socket
import stat
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

from cardsim.simcore.framework.config import ConfigError, RunFailed
from cardsim.simcore.run.layout import MAX_NAME_BYTES, partial_path, shorten
from cardsim.simcore.run.outpath import (check_output_path, refuse_current_folder, refuse_unusable_location,
                                         remove_path)
from cardsim.simcore.run.output import PartialRun

#: Prefix of the system-temp folders of runs without ``--out``.
TEMP_PREFIX = "cardsim-"
#: Largest input file (rules TOML, experiment spec) read, bytes.
MAX_INPUT_BYTES = 1 << 20
#: A temp folder's lock younger than this may belong to a run that is just starting.
STALE_AFTER_S = 60.0
#: How a lock file is opened: never through a planted symlink (O_NOFOLLOW), never truncated
#: on open (only once it is known to be our own regular file), never blocking on a FIFO.
LOCK_FLAGS = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def resolve_out(out: str | os.PathLike) -> Path:
    """An output path with ``~`` expanded once and made absolute; raise :class:`ConfigError` if unusable
    (empty, the current folder or one above it, on a virtual file system such as ``/proc``)."""
    text = os.fspath(out)
    if not text:
        raise ConfigError("the output path is empty: give a new folder (e.g. --out runs/NAME)")
    if "\x00" in text:
        raise ConfigError(f"invalid output path {shorten(repr(text))}")
    try:  # the path is written into run.json and messages as text
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(f"the output path {shorten(ascii(text))} is not valid UTF-8: use a name of ordinary "
                          f"characters") from None
    path = Path(os.path.abspath(os.path.expanduser(text)))
    refuse_current_folder(path)
    refuse_unusable_location(path)
    size = len(os.fsencode(path.name))
    if size > MAX_NAME_BYTES:
        raise ConfigError(f"output name too long ({size} bytes; at most {MAX_NAME_BYTES}): {shorten(path.name)}")
    return path


def check_input_file(path: str | os.PathLike, what: str, limit: int = MAX_INPUT_BYTES, toml: bool = True) -> None:
    """Refuse an input file that is not a regular file of at most ``limit`` bytes (e.g. ``/dev/zero``),
    or (``toml``) that is not UTF-8 or is nested too deeply for the TOML reader."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return  # the reader reports a missing file in its own words
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {shorten(path)}: {exc.strerror or exc}") from None
    import stat

    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{what} {shorten(path)} is not a regular file")
    if info.st_size > limit:
        raise ConfigError(f"{what} {shorten(path)} is too large ({info.st_size:,} bytes; at most {limit:,})")
    if toml:
        import tomllib

        try:
            with open(path, "rb") as fh:
                data = fh.read(limit + 1)
            tomllib.loads(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{what} {shorten(path)} is not UTF-8 text (byte {exc.start})") from None
        except RecursionError:
            raise ConfigError(f"{what} {shorten(path)} is nested too deeply") from None
        except (OSError, tomllib.TOMLDecodeError):
            pass  # the reader reports these in its own words


class OutputLock:
    """An exclusive lock on an output path: the file ``.NAME.lock`` beside it.

    The lock is an ``fcntl.flock`` on that file, so the kernel releases it when its
    owner dies (SIGKILL, power loss): a stale lock is simply taken over. The file
    holds the owner's pid and host for the error message of a refused run.

    Parameters
    ----------
    out : path
        The output the lock protects (its dataset, ``.OUT.partial`` and ``.OUT.old-*``).
    lock_file : path, optional
        Where the lock lives (default ``.NAME.lock`` beside ``out``).
    """

    def __init__(self, out: Path, lock_file: Path | None = None):
        self.out = Path(out)
        self.path = Path(lock_file) if lock_file is not None else self.out.parent / f".{self.out.name}.lock"
        self.fd: int | None = None

    def acquire(self) -> "OutputLock":
        while True:
            try:
                fd = self._open()
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise ConfigError(f"lock file {self.path} is a symbolic link: refusing to write through it "
                                      "(remove it if no cardsim run of yours made it)") from None
                if not self.path.parent.is_dir():
                    from cardsim.simcore.run.outpath import missing_parent_message

                    raise ConfigError(missing_parent_message(self.path.parent)) from None
                if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                    raise ConfigError(f"output directory's parent is not writable: {self.path.parent}") from None
                raise ConfigError(f"cannot lock {self.out}: {exc.strerror or exc}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                owner = _read_owner(fd)
                os.close(fd)
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise ConfigError(f"{self.out} is in use by another cardsim run ({owner}); "
                                      "wait for it to finish or stop it first") from None
                if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                    return self._acquire_without_flock(owner)
                raise ConfigError(f"cannot lock {self.out}: {exc.strerror or exc}") from None
            # The previous owner may have removed the file between our open and flock:
            # then we locked an orphan inode and must retry on the current file.
            try:
                same = os.fstat(fd).st_ino == os.lstat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode(), 0)
        self.fd = fd
        return self

    def _open(self) -> int:
        """The lock file's descriptor; :class:`ConfigError` unless it is a plain file of its own
        (a FIFO, a device or a hard link to another file would be written into by the owner line)."""
        fd = os.open(self.path, LOCK_FLAGS, 0o644)
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
            return fd
        os.close(fd)
        kind = "has other hard links" if stat.S_ISREG(info.st_mode) else "is not a regular file"
        raise ConfigError(f"lock file {self.path} {kind}: refusing to use it (remove it if no cardsim run of yours "
                          "made it)")

    def _acquire_without_flock(self, owner: str) -> "OutputLock":
        """A file system without ``flock``: trust the recorded owner if it is a live process here."""
        fields = owner.split()
        if len(fields) == 4 and fields[0] == "pid" and fields[1].isdigit():
            if fields[3] != socket.gethostname():
                raise ConfigError(f"{self.out} may be in use by a cardsim run on another host ({owner}); "
                                  f"delete {self.path} if it is not")
            try:
                os.kill(int(fields[1]), 0)
                alive = int(fields[1]) != os.getpid()
            except ProcessLookupError:
                alive = False
            except PermissionError:
                alive = True
            if alive:
                raise ConfigError(f"{self.out} is in use by another cardsim run ({owner}); "
                                  "wait for it to finish or stop it first")
        try:
            fd = self._open()
        except OSError as exc:
            raise ConfigError(f"cannot lock {self.out}: {exc.strerror or exc}") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode(), 0)
        self.fd = fd
        return self

    def release(self) -> None:
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()  # while still holding it: a waiting run then retries on a fresh file
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> "OutputLock":
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()


def _read_owner(fd: int) -> str:
    try:
        text = os.pread(fd, 200, 0).decode(errors="replace").strip()
    except OSError:
        text = ""
    return shorten(text, 100) or "owner unknown"


def lock_is_stale(lock_file: Path, min_age_s: float = STALE_AFTER_S) -> bool:
    """Whether nobody holds ``lock_file`` any more: its owner died.

    An owner writes its pid only after taking the lock, so an empty, unheld lock file
    may belong to a run that is just starting: it counts as stale only after ``min_age_s``.
    """
    try:
        fd = os.open(lock_file, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False  # missing, or a symlink: not a lock of ours
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if not os.pread(fd, 1, 0) and time.time() - os.fstat(fd).st_mtime < min_age_s:
            return False
    except OSError:
        return False
    finally:
        os.close(fd)  # closing drops a lock we may have taken
    return True


def clean_debris(out: Path) -> list[Path]:
    """Remove what killed runs left beside ``out``; call while holding ``out``'s lock.

    ``.OUT.old-*`` (a kill during an ``--overwrite`` commit; a symlink is removed, never
    followed), ``.OUT.partial.*`` (a kill while creating the run folder) and
    ``.OUT.experiment-*`` (a killed experiment). Returns what was removed.
    """
    removed = []
    # exactly the names this module, output.py and outpath.py create (8 hex digits), so that another
    # output's files (an output named "x.old-1" has ".x.old-1.partial") are never matched
    debris = re.compile(re.escape(f".{out.name}") + r"(\.old-|\.partial\.|\.experiment-)[0-9a-f]{8}")
    for path in out.parent.glob(glob.escape(f".{out.name}") + ".*"):
        if debris.fullmatch(path.name):
            remove_path(path)
            removed.append(path)
    return removed


def clean_stale_temp_dirs(root: Path | None = None) -> list[Path]:
    """Remove ``cardsim-*`` folders in the system temp directory whose run was killed.

    A folder counts as stale only when it holds a lock file nobody holds any more.
    """
    root = Path(root or tempfile.gettempdir())
    removed = []
    for folder in root.glob(f"{TEMP_PREFIX}*"):
        try:
            if folder.is_symlink() or not folder.is_dir():
                continue
            locks = list(folder.glob(".*.lock"))
        except OSError:
            continue
        if locks and all(lock_is_stale(lock) for lock in locks):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


@contextlib.contextmanager
def temporary_folder(prefix: str = TEMP_PREFIX) -> Iterator[Path]:
    """A locked temporary folder, removed on exit (or by the next run if this one is killed)."""
    clean_stale_temp_dirs()
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        with OutputLock(folder / "run", folder / ".run.lock"):
            yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def start_run(out: Path, manifest: dict[str, Any], overwrite: bool, resume: bool) -> PartialRun:
    """A new run at ``out`` or, with ``resume``, its unfinished one (same settings required)."""
    if resume and partial_path(out).exists():
        run = reopen_run(out, overwrite)
        same = {k: v for k, v in run.manifest.items() if k != "created"} == \
               {k: v for k, v in manifest.items() if k != "created"}
        if not same:
            raise ConfigError(f"the unfinished run for {out} has different settings "
                              f"(see {partial_path(out)}/manifest.json); use --overwrite to start again")
        return run
    out = check_output_path(out, overwrite)
    return PartialRun.create(out, manifest, overwrite)


def reopen_run(out: Path, overwrite: bool = False) -> PartialRun:
    """The unfinished run of ``out`` with its damaged parts deleted (they are redone).

    Whether the commit may replace what is at ``out`` now (``overwrite``, or recorded when
    the run started with ``--overwrite``) is checked first: a refusal after running every
    chunk would waste the whole run.
    """
    from cardsim.simcore.run.runner import RunConfig

    run = PartialRun.open(out)
    config = RunConfig.from_manifest(run.manifest)  # validates game, task and rules before any work
    check_models(run.manifest, config)  # before config.manifest(), which reads them
    derived = config.manifest()
    for key in ("n_chunks", "tables"):  # what the chunk loop trusts must follow from the settings
        if run.manifest.get(key) != derived[key]:
            raise ConfigError(f"{run.dir / 'manifest.json'} is inconsistent ({key} does not match n, chunk_size and "
                              "options): it was edited; start again with --overwrite")
    try:
        run.check_destination(overwrite)
    except OSError as exc:
        raise ConfigError(f"unusable output path {shorten(out)}: {exc.strerror or exc}") from None
    try:
        run.check_parts()
    except OSError as exc:
        raise RunFailed(f"cannot check the saved parts of {out}: {exc.strerror or exc}") from None
    return run


def check_models(manifest: dict[str, Any], config) -> None:
    """Refuse to go on with a run whose model files (``learned``, ``learned:FILE`` seats)
    are missing or differ from the ones its manifest recorded when it started: its games
    would mix two players under the old checksum."""
    from cardsim.simcore.framework.registry import get_task

    policies = config.options.get("policies") if config.task == "play" else None
    if not policies:
        return
    task = get_task(config.game, config.task)
    recorded = manifest.get("players") if isinstance(manifest.get("players"), dict) else {}
    _check_outside_sources(policies, recorded)
    for policy in dict.fromkeys(str(p) for p in policies):
        if policy != "learned" and not policy.startswith("learned:"):
            continue
        key = "learned_model" if policy == "learned" else f"model {policy}"
        was = recorded.get(key, {}).get("sha256") if isinstance(recorded.get(key), dict) else None
        then = f"sha256 {was[:12]}... when the run started" if isinstance(was, str) else "no checksum recorded"
        try:
            now = task.player_notes({"policies": [policy]})[key]["sha256"]
        except OSError as exc:
            raise ConfigError(f"policy {shorten(policy)}: the model file is missing or unreadable "
                              f"({exc.strerror or shorten(exc)}; {then}): restore it, or start again with "
                              "--overwrite") from None
        if now != was:
            raise ConfigError(f"policy {shorten(policy)}: the model file changed since the run started ({then}, "
                              f"{now[:12]}... now): its games would mix two players; restore the file, or start "
                              "again with --overwrite")


def _check_outside_sources(policies, recorded: dict[str, Any]) -> None:
    """Refuse to go on with a run whose outside seat's source file (``python:`` seats)
    changed since the run started: its games would mix two players."""
    from cardsim.simcore.framework.outside import is_outside, seat_notes

    for policy in dict.fromkeys(str(p) for p in policies if is_outside(p)):
        key = f"outside {policy}"
        note = recorded.get(key) if isinstance(recorded.get(key), dict) else {}
        was = note.get("sha256")
        now = seat_notes([policy])[key].get("sha256")
        if was != now:
            then = f"sha256 {was[:12]}... when the run started" if isinstance(was, str) else "no checksum recorded"
            raise ConfigError(f"policy {shorten(policy)}: its source file changed since the run started ({then}, "
                              f"{(now or 'unreadable')[:12]}... now): its games would mix two players; restore "
                              "the file, or start again with --overwrite")


def execute(run: PartialRun, backend: str = "local", scheduler: str | None = None, workers: int | None = None,
            on_chunk: Callable[[int, int], None] | None = None) -> None:
    """Run the missing chunks of ``run``; an OS error (full disk...) becomes one resumable line."""
    from cardsim.simcore.run.runner import execute_local

    missing = run.missing_chunks()
    try:
        if backend == "dask":
            _execute_dask(run, missing, scheduler, workers, on_chunk)
        else:
            execute_local(run, missing, on_chunk=on_chunk)
    except OSError as exc:
        done = run.manifest["n_chunks"] - len(run.missing_chunks())
        raise RunFailed(f"writing the dataset failed: {exc.strerror or shorten(exc)} ({done} of "
                        f"{run.manifest['n_chunks']} chunks are saved; fix the cause, then "
                        f"'cardsim resume {run.out}')") from None


def _execute_dask(run: PartialRun, missing: list[int], scheduler: str | None, workers: int | None,
                  on_chunk: Callable[[int, int], None] | None) -> None:
    """:func:`execute` on Dask: a scheduler that cannot be reached leaves no empty run
    behind, and a scheduler or its workers lost mid-run become one resumable line."""
    from concurrent.futures import CancelledError

    from cardsim.simcore.run.dask_backend import execute_dask

    started = saved_chunks(run)
    try:
        execute_dask(run, missing, scheduler=scheduler, workers=workers, on_chunk=on_chunk)
    except ConfigError:
        if started == 0 and saved_chunks(run) == 0:  # nothing ran: no unfinished run to resume
            run.discard()
        raise
    except (KeyboardInterrupt, RunFailed):
        raise
    except Exception as exc:  # a cancelled future, a closed connection: the cluster went away
        if not (isinstance(exc, CancelledError) or type(exc).__module__.split(".")[0] in ("distributed", "tornado")
                or isinstance(exc, (TimeoutError, ConnectionError))):
            raise
        where = f" --scheduler {scheduler}" if scheduler else ""
        raise RunFailed(f"the Dask cluster went away mid-run ({type(exc).__name__}); {saved_chunks(run)} of "
                        f"{run.manifest['n_chunks']} chunks are saved: 'cardsim resume {run.out} --backend "
                        f"dask{where}' finishes the run") from None


def commit(run: PartialRun, overwrite: bool = False) -> Path:
    """Finish ``run`` (see :meth:`PartialRun.commit`); an OS error keeps it resumable.

    An existing dataset at ``run.out`` is replaced when ``overwrite`` is given or the run
    recorded it when it started (``cardsim resume`` of an interrupted ``--overwrite`` run).
    """
    from cardsim.simcore.run.runner import RunConfig

    check_models(run.manifest, RunConfig.from_manifest(run.manifest))  # not changed while the chunks ran
    try:
        return run.commit(overwrite=overwrite)
    except OSError as exc:
        raise RunFailed(f"finishing the dataset failed: {exc.strerror or shorten(exc)} (every chunk is saved; "
                        f"fix the cause, then 'cardsim resume {run.out}')") from None


def saved_chunks(run: PartialRun) -> int:
    return run.manifest["n_chunks"] - len(run.missing_chunks())

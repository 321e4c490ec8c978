"""Chunked, reproducible runs: plan chunks, run them, stream Parquet parts to disk.

A run is described by a frozen :class:`RunConfig`. It is cut into chunks of
``chunk_size`` consecutive game indices; ``run_chunk(config, chunk_id)`` is a plain
Python callable returning ``{table name: pyarrow.Table}`` for one chunk, so any
backend (this process, a process pool, a cluster) can execute chunks in any order.
Because every game's randomness depends only on ``(seed, game index)``, the data do
not depend on the chunk size, thread count or backend.

Output (see :mod:`simcore.run.output`) is written to a temporary sibling directory and
renamed into place only when every chunk has succeeded.
"""
from __future__ import annotations

import datetime as _dt
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numba
import pyarrow as pa

from cardsim.simcore import __version__
from cardsim.simcore.framework.config import ConfigError, Rules
from cardsim.simcore.framework.registry import get_task

DEFAULT_CHUNK_SIZE = 1 << 22


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines a run's data.

    Parameters
    ----------
    game, task : str
        Registered game name and task (``"deal"`` or ``"play"``).
    rules : Rules
        The game's validated rule switches.
    n : int
        Number of deals (or games) in the run, > 0.
    seed : int
        Run seed, 0 <= seed < 2**64.
    chunk_size : int
        Games per chunk (one Parquet part per chunk and table).
    options : mapping
        Task options that change the data (e.g. ``per_deal``, policies).
    """

    game: str
    task: str
    rules: Rules
    n: int
    seed: int
    chunk_size: int = DEFAULT_CHUNK_SIZE
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.n, int) or self.n <= 0:
            raise ConfigError(f"the number of games must be a positive integer, got {self.n!r}")
        if not (0 <= self.seed < 2**64):
            raise ConfigError(f"seed must be in 0..2**64-1, got {self.seed}")
        if self.chunk_size <= 0:
            raise ConfigError(f"chunk size must be positive, got {self.chunk_size}")

    @property
    def n_chunks(self) -> int:
        return -(-self.n // self.chunk_size)

    def chunk_range(self, chunk_id: int) -> tuple[int, int]:
        """``(start, count)`` game indices of a chunk."""
        if not 0 <= chunk_id < self.n_chunks:
            raise IndexError(f"chunk {chunk_id} out of range 0..{self.n_chunks - 1}")
        start = chunk_id * self.chunk_size
        return start, min(self.chunk_size, self.n - start)

    def manifest(self) -> dict[str, Any]:
        """JSON-ready description of the run: everything needed to rerun any chunk.

        Written to ``manifest.json`` and ``run.json`` and embedded in every part.
        """
        from cardsim.simcore.run.layout import FORMAT_VERSION

        spec = get_task(self.game, self.task)
        return {
            "format": FORMAT_VERSION,
            "cardsim_version": __version__,
            "game": self.game,
            "task": self.task,
            "n": self.n,
            "seed": self.seed,
            "chunk_size": self.chunk_size,
            "n_chunks": self.n_chunks,
            "rules": self.rules.to_dict(),
            "house_choices": dict(self.rules.HOUSE_CHOICES),
            "options": dict(self.options),
            **({"players": notes} if (notes := spec.player_notes(self.options)) else {}),
            "tables": list(spec.tables(self)),
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "numba_version": numba.__version__,
        }

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> "RunConfig":
        """Rebuild the config of a run from its manifest (for resume and remote workers)."""
        from cardsim.simcore.framework.registry import rules_class

        try:
            rules = rules_class(manifest["game"]).from_settings(manifest["rules"])
            return cls(game=manifest["game"], task=manifest["task"], rules=rules, n=int(manifest["n"]),
                       seed=int(manifest["seed"]), chunk_size=int(manifest["chunk_size"]),
                       options=dict(manifest.get("options", {})))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ConfigError):
                raise ConfigError(f"manifest does not describe a valid run: {exc}") from None
            raise ConfigError(f"manifest does not describe a valid run (missing or bad {exc})") from None


def run_chunk(config: RunConfig, chunk_id: int) -> dict[str, pa.Table]:
    """Run one chunk of a run and return its tables (pure: no I/O).

    A deal run's custom events (option ``events``: ``PATH.py:NAME`` functions) are
    counted here, beside the task's built-in events, in the same ``counts`` table.
    """
    events = config.options.get("events") if config.task == "deal" else None
    if not events:
        return get_task(config.game, config.task).run_chunk(config, chunk_id)
    import dataclasses

    from cardsim.simcore.framework.custom_events import count_events, event_name
    from cardsim.simcore.framework.tasks import grid_counts_table

    plain = dataclasses.replace(config, options={k: v for k, v in config.options.items() if k != "events"})
    tables = get_task(config.game, config.task).run_chunk(plain, chunk_id)
    start, count = config.chunk_range(chunk_id)
    block = count_events(config.game, list(events), config.seed, start, count, config.rules)
    extra = grid_counts_table(chunk_id, [event_name(e) for e in events], block, count)
    tables["counts"] = pa.concat_tables([tables["counts"], extra.cast(tables["counts"].schema)])
    return tables


def set_threads(threads: int | None) -> int:
    """Set numba's thread count (``None``: all cores). Returns the count used."""
    limit = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        threads = limit
    if not 1 <= threads <= limit:
        raise ConfigError(f"--threads must be between 1 and {limit} on this machine, got {threads}")
    numba.set_num_threads(threads)
    return threads


def write_chunk(manifest: Mapping[str, Any], out: str, chunk_id: int, threads: int | None = None) -> dict[str, int]:
    """Run one chunk and write its parts into the unfinished run of ``out``.

    Self-contained (takes the JSON manifest, not Python objects), so a remote worker
    can execute it; returns the row count of each table written.
    """
    from pathlib import Path

    from cardsim.simcore.run.output import PartialRun

    if threads is not None:
        set_threads(threads)
    config = RunConfig.from_manifest(manifest)
    return PartialRun(Path(out), dict(manifest)).write_chunk(chunk_id, run_chunk(config, chunk_id))


def execute_local(run, chunk_ids: list[int], on_chunk: Callable[[int, int], None] | None = None) -> None:
    """Run chunks one after the other in this process (kernels use numba threads)."""
    for done, chunk_id in enumerate(chunk_ids, 1):
        write_chunk(run.manifest, str(run.out), chunk_id)
        if on_chunk is not None:
            on_chunk(done, len(chunk_ids))


class Stopwatch:
    """Wall-clock seconds since creation."""

    def __init__(self) -> None:
        self.start = time.perf_counter()

    def __call__(self) -> float:
        return time.perf_counter() - self.start

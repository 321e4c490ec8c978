"""Before a run starts: how long it will take and how much it writes, roughly.

Rough on purpose (an order of magnitude, from the benchmark figures in the README, per
core): it exists to refuse runs that cannot finish (``--deals 1e30``) or cannot fit on
the disk, with a one-line estimate, unless the user says ``--yes``.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from cardsim.simcore.framework import registry
from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.framework.outside import has_outside, stepped_game_seconds
from cardsim.simcore.framework.tasks import BUDGETED_POLICIES, split_policy

#: deals or games per second and core for a task whose GameSpec.throughput is silent
#: (each game declares its own, conservative; benchmarks/ measure the real ones)
DEFAULT_RATE = 1e3
#: bytes written per deal or game (compressed Parquet rows), and per part
ROW_BYTES = {"deal": 0.0, "play": 60.0}
PER_DEAL_BYTES = 12.0
PART_BYTES = 6_000.0
#: a run estimated to take longer than a day is refused without --yes
MAX_SECONDS = 24 * 3600.0


def estimate(game: str, task: str, n: int, chunk_size: int, options: dict, cores: int) -> tuple[float, float]:
    """``(seconds, bytes)`` of a run, roughly."""
    throughput = registry.get_spec(game).throughput
    rate = throughput.get(task, DEFAULT_RATE) * max(cores, 1)
    slowdown = 0.0
    policies = list(options.get("policies", []) or [])
    for policy in policies:
        base, budget = split_policy(str(policy))
        if base in BUDGETED_POLICIES:
            slowdown += budget * 5.0  # a search seat plays ~N rollouts per decision; seats add up
    if task == "play" and has_outside(policies):
        # outside seats: every game stepped at Python speed, on one core; built-in searches
        # still decide in compiled code
        rate = 1.0 / (stepped_game_seconds(game, policies, throughput) + slowdown / throughput.get(task, DEFAULT_RATE))
    else:
        rate /= max(1.0, slowdown)
    seconds = n / rate
    rows = n * (ROW_BYTES[task] + (PER_DEAL_BYTES if options.get("per_deal") else 0.0))
    parts = -(-n // chunk_size)
    return seconds, rows + parts * PART_BYTES


def human_time(seconds: float) -> str:
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size:
            return f"{seconds / size:,.3g} {unit}"
    return f"{seconds:.2g} s"


def human_bytes(size: float) -> str:
    for unit in ("TB", "GB", "MB", "kB"):
        factor = {"TB": 1e12, "GB": 1e9, "MB": 1e6, "kB": 1e3}[unit]
        if size >= factor:
            return f"{size / factor:,.3g} {unit}"
    return f"{size:.0f} B"


def check_feasible(game: str, task: str, n: int, chunk_size: int, options: dict, cores: int,
                   out: Path | None, yes: bool) -> None:
    """Refuse (ConfigError, one line with the estimate) a run that would take more than
    a week or not fit on the output's disk, unless ``yes``."""
    if yes:
        return
    seconds, size = estimate(game, task, n, chunk_size, options, cores)
    where = out.absolute().parent if out is not None else Path(".").absolute()
    while not where.exists() and where != where.parent:
        where = where.parent
    usage = shutil.disk_usage(where)
    if usage.total == 0:  # a virtual file system (/proc, /sys): nothing can be stored there, whatever N
        raise ConfigError(f"unusable output path {out}: {where} is a virtual file system that cannot hold files")
    free = usage.free
    if seconds > MAX_SECONDS or size > free:
        raise ConfigError(f"this run would take about {human_time(seconds)} on {cores} core(s) and write about "
                          f"{human_bytes(size)} ({human_bytes(free)} free): use a smaller N, or --yes to run anyway")

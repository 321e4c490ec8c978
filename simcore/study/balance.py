"""The balance card's games: every strength alone at the table, and each strength in one
seat of a field, in every seat rotation, all on the same deals.

For ``--policies P1,P2,...`` and a field policy ``F``:

* a *table* per strength ``P``: every seat plays ``P`` (seat and role balance, length,
  draws, comebacks at that strength);
* a *rotation set* per strength ``X != F``: for each seat ``r``, ``X`` plays seat ``r``
  and ``F`` every other seat (head to head against the field, ratings, and the
  luck/skill split: each (deal, seat) is played by ``X`` once and by ``F`` in the other
  rotations); with ``mixes`` holding ``m > 1`` also, for each set of ``m`` seats, ``X``
  at those seats and ``F`` at the others (``m = 2`` of 4: "two and two", six tables),
  for a luck/skill split of that mix;
* with ``pairs``, for every two strengths ``A`` before ``B`` in ``--policies`` of which
  neither is the field, ``B`` in one seat of an ``A`` table in every rotation (the
  luck/skill split and head to head between strengths that are not the field).

Every table plays games ``0 .. n-1`` of the same run seed, so game ``i`` starts from the
same deal everywhere (common random numbers) and figures can be paired deal by deal.
The figures are computed on the pandas side (:mod:`cardsim.analysis.balance`).
"""
from __future__ import annotations

import dataclasses
import itertools
import json
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

from cardsim.simcore.framework.balance import BalanceOutcomes
from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.framework.registry import get_spec
from cardsim.simcore.framework.spec import resolve_ref
from cardsim.simcore.study.ladder import LadderConfig, table_options

#: Strengths of the card when ``--policies`` is not given (``search`` at its default budget).
DEFAULT_POLICIES = ("random", "heuristic", "search")


@dataclass(frozen=True)
class BalanceConfig(LadderConfig):
    """One card: the game, its rules, the strengths, the field, n deals, the seed (the
    fields of a ladder, :class:`~cardsim.simcore.study.ladder.LadderConfig`), and
    ``mixes``: how many seats a measured strength holds in its mixed tables (1: one seat
    against the field; 2: two and two)."""

    mixes: tuple[int, ...] = (1,)
    pairs: bool = False

    def manifest(self) -> dict[str, Any]:
        return {**super().manifest(), "kind": "balance", "players": self.rules.players, "mixes": list(self.mixes),
                "pairs": self.pairs}

    def strength_pairs(self) -> list[tuple[str, str]]:
        """``(measured, among)`` of the pair tables: ``B`` among ``A`` for ``A`` before ``B``,
        neither the field (those pairs are the field's rotations)."""
        if not self.pairs:
            return []
        others = [p for p in self.policies if p != self.field]
        return [(b, a) for i, a in enumerate(others) for b in others[i + 1:]]

    def seat_sets(self) -> list[tuple[int, ...]]:
        """The seats the measured strength holds in each of its mixed tables, rotation
        by rotation: for each mix ``m``, every ``m`` seats (lexicographic; ``m = 1``
        gives seat ``r`` at rotation ``r``)."""
        players = self.rules.players
        return [c for m in self.mixes for c in itertools.combinations(range(players), m)]

    def tables(self) -> list[tuple[Any, int, list[str]]]:
        """``(strength, rotation, seat policies)`` of every table in play order;
        rotation -1 is the strength alone at the table, ``r >= 0`` the strength at the
        seats ``seat_sets()[r]`` of the field; a pair table's strength is the pair
        ``(measured, among)`` and its rotation ``r`` puts ``measured`` at seat ``r``."""
        players = self.rules.players
        out: list[tuple[Any, int, list[str]]] = [(p, -1, [p] * players) for p in self.policies]
        for p in self.policies:
            if p != self.field:
                out += [(p, r, [p if s in held else self.field for s in range(players)])
                        for r, held in enumerate(self.seat_sets())]
        for measured, among in self.strength_pairs():
            out += [((measured, among), r, [measured if s == r else among for s in range(players)])
                    for r in range(players)]
        return out


@dataclass
class BalancePlay:
    """The played games of a card: outcomes per table (:class:`BalanceOutcomes`, game order).

    ``alone[P]`` is strength ``P`` in every seat; ``rotations[X][r]`` is ``X`` at the
    seats ``config.seat_sets()[r]`` of the field; ``pairs[(B, A)][r]`` is ``B`` at seat
    ``r`` of an ``A`` table.
    """

    config: BalanceConfig
    alone: dict[str, BalanceOutcomes]
    rotations: dict[str, list[BalanceOutcomes]]
    pairs: dict[tuple[str, str], list[BalanceOutcomes]] = dataclasses.field(default_factory=dict)


def validate(config: BalanceConfig) -> None:
    """Raise :class:`ConfigError` for bad sizes, policies or options before anything runs."""
    if config.n < 2:
        raise ConfigError(f"--games must be at least 2 (intervals need two deals), got {config.n}")
    if not config.policies:
        raise ConfigError("--policies is empty")
    players = config.rules.players
    if (not config.mixes or len(set(config.mixes)) != len(config.mixes)
            or any(not 1 <= m < players for m in config.mixes)):
        raise ConfigError(f"--mix must list distinct seat counts in 1..{players - 1} (the seats a measured strength "
                          f"holds against the field), got {','.join(map(str, config.mixes)) or 'nothing'}")
    if not get_spec(config.game).balance:
        raise ConfigError(f"the balance card is not available for {config.game} yet")
    for _, _, seats in config.tables():
        table_options(config, seats)


def concat_outcomes(parts: list[BalanceOutcomes]) -> BalanceOutcomes:
    """One record from chunks in game order (the roles and comebacks of the first; the
    control features only when every chunk has them)."""
    first = parts[0]
    join = np.concatenate
    controlled = all(p.controls is not None for p in parts)
    return BalanceOutcomes(
        controls=join([p.controls for p in parts]) if controlled else None,
        control_fold=join([p.control_fold for p in parts]) if controlled else None,
        control_mean_cov=first.control_mean_cov if controlled else None,
        game=join([p.game for p in parts]), win=join([p.win for p in parts]), points=join([p.points for p in parts]),
        length=join([p.length for p in parts]), no_winner=join([p.no_winner for p in parts]),
        length_unit=first.length_unit, points_lower_is_better=first.points_lower_is_better,
        no_winner_group=first.no_winner_group, roles={k: join([p.roles[k] for p in parts]) for k in first.roles},
        comebacks={k: join([p.comebacks[k] for p in parts]) for k in first.comebacks})


def chunk_frames(task, run, chunk_id: int) -> dict[str, pd.DataFrame]:
    """One chunk's play tables as pandas frames, the per-game ones in game order."""
    tables = {name: t.to_pandas() for name, t in task.run_chunk(run, chunk_id).items()}
    for name, frame in tables.items():
        if "game" in frame and "round" not in frame:
            tables[name] = frame.sort_values("game", kind="stable").reset_index(drop=True)
    return tables


def chunk_outcomes(spec, run, chunk_id: int, rules, progress: bool = True
                   ) -> tuple[dict[str, pd.DataFrame], BalanceOutcomes]:
    """One chunk played: its tables and its balance outcomes, with the game's comebacks
    from ``balance_progress`` (where its tables record no progress) when ``progress``:
    the card reads comebacks of the tables a strength plays alone only, and replaying a
    chunk with logging costs a second play."""
    import dataclasses

    tables = chunk_frames(spec.play, run, chunk_id)
    outcomes = resolve_ref(spec.balance)(tables, rules)
    if spec.balance_progress and progress:
        outcomes = dataclasses.replace(outcomes, comebacks=_comebacks(spec, run, chunk_id, rules))
    return tables, outcomes


def with_controls(outcomes: BalanceOutcomes, control, table: pd.DataFrame) -> BalanceOutcomes:
    """``outcomes`` with the control features of its games (``control``: a
    :class:`cardsim.analysis.variance.DealControl` or None; ``table``: the chunk's per-game
    play table, in the outcomes' game order)."""
    import dataclasses

    if control is None:
        return outcomes
    if not np.array_equal(table["game"].to_numpy(np.int64), np.asarray(outcomes.game, np.int64)):
        raise ValueError("the play table and the outcomes list different games")
    return dataclasses.replace(outcomes, controls=np.asarray(control.seat_features(table), float),
                               control_fold=control.folds(table).astype(np.int64),
                               control_mean_cov=control.mean_cov)


def _comebacks(spec, run, chunk_id: int, rules) -> dict[str, np.ndarray]:
    """``balance_progress`` of one chunk; NaN (unknown) for a table with an outside seat,
    whose games the move-log replay cannot play again."""
    from cardsim.simcore.framework.outside import builtin_policies, has_outside

    function = resolve_ref(spec.balance_progress)
    policies = list(run.options.get("policies") or ())
    if not has_outside(policies):
        return function(run, chunk_id, rules)
    probe = dataclasses.replace(run, n=1, chunk_size=1, options={**run.options, "policies": builtin_policies(policies)})
    count = run.chunk_range(chunk_id)[1]
    return {name: np.full(count, np.nan) for name in function(probe, 0, rules)}


def _save_outcomes(folder, name: str, outcomes: BalanceOutcomes) -> None:
    """Save one chunk's outcomes as ``NAME.npz`` (written whole, then renamed) and ``NAME.done``
    last, with the file's SHA-256 and the record's text fields."""
    import io
    import json

    from cardsim.simcore.run.layout import file_sha256

    arrays = {"game": outcomes.game, "win": outcomes.win, "points": outcomes.points, "length": outcomes.length,
              "no_winner": outcomes.no_winner}
    arrays.update({f"role {k}": v for k, v in outcomes.roles.items()})
    arrays.update({f"comeback {k}": v for k, v in outcomes.comebacks.items()})
    if outcomes.controls is not None:
        arrays.update(controls=outcomes.controls, control_fold=outcomes.control_fold)
        if outcomes.control_mean_cov is not None:
            arrays["control_mean_cov"] = outcomes.control_mean_cov
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    tmp = folder / f".{name}.npz.tmp"
    tmp.unlink(missing_ok=True)  # a killed writer's (or a link): written afresh, never through it
    tmp.write_bytes(buffer.getvalue())
    digest = file_sha256(tmp)
    tmp.replace(folder / f"{name}.npz")
    done = {"sha256": digest, "length_unit": outcomes.length_unit,
            "points_lower_is_better": bool(outcomes.points_lower_is_better),
            "no_winner_group": outcomes.no_winner_group}
    tmp = folder / f".{name}.done.tmp"
    tmp.unlink(missing_ok=True)
    tmp.write_text(json.dumps(done) + "\n")
    tmp.replace(folder / f"{name}.done")  # last: the chunk counts as saved only now


def _saved_outcomes(folder, name: str) -> BalanceOutcomes | None:
    """A saved chunk's outcomes, or None when missing, edited, truncated or unreadable (then
    the chunk is played again)."""
    import hashlib
    import io
    import json

    try:
        done = json.loads((folder / f"{name}.done").read_text())
        data = (folder / f"{name}.npz").read_bytes()
        if hashlib.sha256(data).hexdigest() != done["sha256"]:
            return None
        with np.load(io.BytesIO(data), allow_pickle=False) as saved:
            arrays = {k: saved[k] for k in saved.files}
        return BalanceOutcomes(
            game=arrays["game"], win=arrays["win"], points=arrays["points"], length=arrays["length"],
            no_winner=arrays["no_winner"], length_unit=str(done["length_unit"]),
            points_lower_is_better=bool(done["points_lower_is_better"]),
            no_winner_group=str(done["no_winner_group"]),
            roles={k[5:]: v for k, v in arrays.items() if k.startswith("role ")},
            comebacks={k[9:]: v for k, v in arrays.items() if k.startswith("comeback ")},
            controls=arrays.get("controls"), control_fold=arrays.get("control_fold"),
            control_mean_cov=arrays.get("control_mean_cov"))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def play_balance(config: BalanceConfig, on_step: Callable[[int, int], None] | None = None,
                 cache=None, cache_key: str = "") -> BalancePlay:
    """Play every table of the card (:meth:`BalanceConfig.tables`) on games ``0 .. n-1``.

    ``cache`` (a folder, ``balance --out`` with ``--resume``): each chunk's outcomes are
    saved there as they are played (checksummed), and a chunk saved by an interrupted run
    of the same card is read instead of played; the games depend only on the seed and the
    game index, so the card is the same either way. ``cache_key`` tells apart the cards of
    one command (the base and the compared rule set)."""
    from cardsim.analysis.variance import table_control
    from cardsim.simcore.run.runner import RunConfig

    validate(config)
    spec = get_spec(config.game)
    task = spec.play
    plans = []
    for strength, rotation, seats in config.tables():
        options = table_options(config, seats)
        chunk = config.chunk_size or min(task.default_chunk_size(options), config.n)
        task.check_chunk_size(chunk, options)
        run = RunConfig(game=config.game, task="play", rules=config.rules, n=config.n, seed=config.seed,
                        chunk_size=chunk, options=options)
        plans.append((strength, rotation, run, table_control(config.game, config.rules.to_dict(), config.options,
                                                             config.seed, config.n, seats)))
    total = sum(run.n_chunks for _, _, run, _ in plans)
    done = 0
    alone: dict[str, BalanceOutcomes] = {}
    rotations: dict[str, list[BalanceOutcomes]] = {}
    pairs: dict[tuple[str, str], list[BalanceOutcomes]] = {}
    if cache is not None:
        from pathlib import Path

        from cardsim.simcore.run.outpath import refuse_link

        cache = Path(cache) / f"card{cache_key}"
        refuse_link(cache, "a folder of the saved balance card")
        cache.mkdir(parents=True, exist_ok=True)
    for table_no, (strength, rotation, run, control) in enumerate(plans):
        parts = []
        for chunk_id in range(run.n_chunks):
            name = f"{table_no}.{chunk_id}"
            saved = _saved_outcomes(cache, name) if cache is not None else None
            if saved is None:
                tables, saved = chunk_outcomes(spec, run, chunk_id, config.rules, progress=rotation < 0)
                saved = with_controls(saved, control, tables[spec.metric_spec("play").table])
                if cache is not None:
                    _save_outcomes(cache, name, saved)
            parts.append(saved)
            done += 1
            if on_step is not None:
                on_step(done, total)
        record = concat_outcomes(parts)
        if isinstance(strength, tuple):
            pairs.setdefault(strength, []).append(record)
        elif rotation < 0:
            alone[strength] = record
        else:
            rotations.setdefault(strength, []).append(record)
    return BalancePlay(config, alone, rotations, pairs)


# ----------------------------------------------------------------------------- storage
def to_frames(play: BalancePlay) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The played games as two long tables for Parquet.

    ``seats``: one row per (strength, rotation, game, seat): ``win``, ``points`` and a
    ``role:NAME`` column per role. ``games``: one row per (strength, rotation, game):
    ``length``, ``no_winner`` and a ``comeback:NAME`` column per comeback; with control
    features (variance reduction), ``control:J`` per seat and ``control_fold``,
    ``control_mean_cov`` (JSON, empty when exact) per game. Rotation -1
    is the strength alone at the table; ``against`` is the policy of the other seats
    (the field, or the other strength of a pair table).
    """
    seat_frames, game_frames = [], []
    field = play.config.field
    items = [(p, p, -1, o) for p, o in play.alone.items()]
    items += [(p, field, r, o) for p, rs in play.rotations.items() for r, o in enumerate(rs)]
    items += [(b, a, r, o) for (b, a), rs in play.pairs.items() for r, o in enumerate(rs)]
    for strength, against, rotation, o in items:
        g, players = o.win.shape
        seats = {"strength": strength, "against": against, "rotation": np.int8(rotation),
                 "game": np.repeat(o.game, players),
                 "seat": np.tile(np.arange(players, dtype=np.int8), g), "win": o.win.ravel(),
                 "points": o.points.ravel()}
        seats.update({f"role:{k}": v.ravel() for k, v in o.roles.items()})
        if o.controls is not None:  # each seat's own features
            seats.update({f"control:{j}": o.controls[:, :, j].ravel() for j in range(o.controls.shape[2])})
        seat_frames.append(pd.DataFrame(seats))
        games = {"strength": strength, "against": against, "rotation": np.int8(rotation), "game": o.game,
                 "length": o.length,
                 "no_winner": o.no_winner}
        games.update({f"comeback:{k}": v for k, v in o.comebacks.items()})
        if o.controls is not None:  # the expectation's covariance: one text, repeated (dictionary-encoded)
            cov = "" if o.control_mean_cov is None else json.dumps(np.asarray(o.control_mean_cov).tolist())
            games.update(control_fold=o.control_fold, control_mean_cov=[cov] * len(o.game))
        game_frames.append(pd.DataFrame(games))
    return pd.concat(seat_frames, ignore_index=True), pd.concat(game_frames, ignore_index=True)


def from_frames(config: BalanceConfig, seats: pd.DataFrame, games: pd.DataFrame, length_unit: str,
                points_lower_is_better: bool, no_winner_group: str = "table") -> BalancePlay:
    """The inverse of :func:`to_frames` (reading a written card back)."""
    players = config.rules.players
    alone: dict[str, BalanceOutcomes] = {}
    rotations: dict[str, list[BalanceOutcomes]] = {}
    role_cols = [c for c in seats.columns if c.startswith("role:")]
    comeback_cols = [c for c in games.columns if c.startswith("comeback:")]
    pairs: dict[tuple[str, str], list[BalanceOutcomes]] = {}
    if "against" not in games:  # written before pair tables existed
        games = games.assign(against=np.where(games["rotation"] < 0, games["strength"], config.field))
        seats = seats.assign(against=np.where(seats["rotation"] < 0, seats["strength"], config.field))
    for (strength, against, rotation), rows in games.groupby(["strength", "against", "rotation"], sort=False):
        rows = rows.sort_values("game", kind="stable")
        s = seats[(seats["strength"] == strength) & (seats["against"] == against)
                  & (seats["rotation"] == rotation)].sort_values(["game", "seat"], kind="stable")

        def grid(column: str) -> np.ndarray:
            return s[column].to_numpy().reshape(len(rows), players)

        record = BalanceOutcomes(
            game=rows["game"].to_numpy(np.int64), win=grid("win").astype(float),
            points=grid("points").astype(float), length=rows["length"].to_numpy(float),
            no_winner=rows["no_winner"].to_numpy(float), length_unit=length_unit,
            points_lower_is_better=points_lower_is_better, no_winner_group=no_winner_group,
            roles={c[len("role:"):]: grid(c).astype(bool) for c in role_cols},
            comebacks={c[len("comeback:"):]: rows[c].to_numpy(float) for c in comeback_cols})
        controls = sorted((c for c in s.columns if c.startswith("control:")), key=lambda c: int(c[len("control:"):]))
        controls = [c for c in controls if len(s) and s[c].notna().all()]  # this table's (others may have more)
        if controls and "control_fold" in rows and rows["control_fold"].notna().all():
            cov = str(rows["control_mean_cov"].iloc[0]) if "control_mean_cov" in rows else ""
            record = dataclasses.replace(
                record, controls=np.stack([grid(c).astype(float) for c in controls], axis=2),
                control_fold=rows["control_fold"].to_numpy(np.int64),
                control_mean_cov=np.asarray(json.loads(cov), float) if cov else None)
        if rotation < 0:
            alone[str(strength)] = record
        elif against == config.field:
            rotations.setdefault(str(strength), []).append(record)
        else:
            pairs.setdefault((str(strength), str(against)), []).append(record)
    return BalancePlay(config, alone, rotations, pairs)


__all__ = ["BalanceConfig", "BalancePlay", "DEFAULT_POLICIES", "play_balance", "validate", "to_frames",
           "from_frames", "concat_outcomes", "table_options", "chunk_frames", "chunk_outcomes"]

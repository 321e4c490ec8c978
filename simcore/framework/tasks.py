"""Pieces shared by the games' task modules (the ``TASK`` objects the runner calls)."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa

from cardsim.simcore.framework.config import ConfigError

#: The ``seat`` value of table-level ("any seat") rows in counts tables.
TABLE_SEAT = -1


def counts_table(chunk_id: int, events: Sequence[str], seats: Sequence[int], counts, n: int) -> pa.Table:
    """The ``counts`` table of one chunk: one row per (event, seat).

    Parameters
    ----------
    events, seats : sequences of length m
        Event name and seat (``TABLE_SEAT`` for the table) of each row.
    counts : array_like of int, shape (m,)
        Deals (of this chunk) where the event happened.
    n : int
        Deals in this chunk (the denominator of every row).
    """
    m = len(events)
    return pa.table({
        "chunk": pa.array(np.full(m, chunk_id, np.int32)),
        "event": pa.array(list(events)).dictionary_encode(),
        "seat": pa.array(np.asarray(seats, np.int8)),
        "count": pa.array(np.asarray(counts, np.int64)),
        "n": pa.array(np.full(m, n, np.int64)),
    })


def grid_counts_table(chunk_id: int, events: Sequence[str], block, n: int) -> pa.Table:
    """:func:`counts_table` from a ``(len(events), players + 1)`` matrix (last column: the table)."""
    block = np.asarray(block)
    players = block.shape[1] - 1
    seats = list(range(players)) + [TABLE_SEAT]
    return counts_table(chunk_id, np.repeat(list(events), len(seats)), np.tile(seats, len(events)),
                        block.reshape(-1), n)


class Task:
    """A task of a game (``deal`` or ``play``): what the runner and the CLI call.

    Every method has a working default; a game's task overrides what it needs.
    ``run_chunk`` is the one method every task must implement.
    """

    name = ""
    game = ""
    #: option name -> default value (also the list of known options)
    option_defaults: Mapping[str, Any] = {}
    #: Games per chunk when the user does not say.
    chunk_games = 1 << 22
    #: Whether ``replay`` can print one game move by move.
    can_replay = False

    def option_names(self) -> tuple[str, ...]:
        return tuple(self.option_defaults)

    def tables(self, config) -> tuple[str, ...]:
        """Output tables of a run of this task."""
        raise NotImplementedError

    def player_notes(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """What a run's results depend on besides its rules and options (e.g. the model
        file a learned seat plays), for the run's metadata; empty by default."""
        return {}

    def parse_options(self, rules, options: Mapping[str, Any]) -> dict[str, Any]:
        """Normalise user options and fill in defaults."""
        options = dict(options)
        for key, value in self.option_defaults.items():
            options.setdefault(key, value)
        return options

    def check_options(self, rules, options: Mapping[str, Any]) -> None:
        """Raise :class:`ConfigError` for unknown or bad options."""
        unknown = set(options) - set(self.option_names())
        if unknown:
            from cardsim.simcore.framework.spec import option_flag

            def flags(names):
                return ", ".join(option_flag(n) for n in sorted(names)) or "none"

            own = [n for n in self.option_names() if n not in ("policy", "policies", "per_deal", "events")]
            raise ConfigError(f"{self.name} {self.game} takes no {flags(unknown)} "
                              f"(its own options: {flags(own)})")

    def check_size(self, n: int, options: Mapping[str, Any]) -> None:
        """Raise :class:`ConfigError` if ``n`` games are too many for these options."""

    def default_chunk_size(self, options: Mapping[str, Any]) -> int:
        return self.chunk_games

    def check_chunk_size(self, chunk_size: int, options: Mapping[str, Any]) -> None:
        """Raise :class:`ConfigError` if chunks of this size are not allowed."""

    def run_chunk(self, config, chunk_id: int) -> dict[str, pa.Table]:
        """The tables of one chunk (pure: no I/O)."""
        raise NotImplementedError

    def replay(self, seed: int, index: int, rules, options: Mapping[str, Any]) -> list[str]:
        """Lines describing game ``index`` move by move."""
        raise ConfigError(f"replay is not available for {self.name} {self.game}")


class DealTaskBase(Task):
    """Common option handling of ``deal`` tasks (the only option is ``per_deal``)."""

    name = "deal"
    option_defaults: Mapping[str, Any] = {"per_deal": False}
    #: Per-deal output is for inspection; beyond this it would dwarf the counts.
    max_per_deal = 10_000_000

    def tables(self, config) -> tuple[str, ...]:
        return ("counts", "per_deal") if config.options.get("per_deal") else ("counts",)

    def parse_options(self, rules, options: Mapping[str, Any]) -> dict[str, Any]:
        return dict(options)  # per_deal is only recorded when asked for (goldens, manifests)

    def option_names(self) -> tuple[str, ...]:
        return (*self.option_defaults, "events")  # events: custom deal events (see simcore.run.runner)

    def check_options(self, rules, options: Mapping[str, Any]) -> None:
        super().check_options(rules, options)
        events = options.get("events")
        if events is not None:
            from cardsim.simcore.framework.custom_events import compile_event, event_name

            if not isinstance(events, (list, tuple)) or not all(isinstance(e, str) for e in events):
                raise ConfigError("custom deal events (--event) must be PATH.py:FUNCTION texts")
            names = [event_name(e) for e in events]
            if len(set(names)) != len(names):
                raise ConfigError(f"two --event functions share a name: {', '.join(names)}")
            for ref in events:
                compile_event(self.game, ref)

    def check_size(self, n: int, options: Mapping[str, Any]) -> None:
        if options.get("per_deal") and n > self.max_per_deal:
            raise ConfigError(f"--per-deal is for small runs: at most {self.max_per_deal:,} deals, got {n:,}")


# ------------------------------------------------------------------ play tasks: policies

def parse_policy_text(text: str, players: int, names: Sequence[str], default: str) -> list[str]:
    """Parse a ``--policy`` value into one policy name per seat.

    Accepts one name for every seat (``heuristic``), one per seat
    (``heuristic,random,random,random``) or ``SEAT=NAME`` pairs (``0=heuristic,2=random``;
    unnamed seats get ``default``). Raises :class:`ConfigError` with one line.
    """
    text = str(text).strip()
    items = [x.strip() for x in text.split(",") if x.strip()]
    if not items:
        raise ConfigError("--policy is empty")
    if len(items) == 1 and "=" not in items[0]:
        items = items * players
    if all("=" in x for x in items):
        policies = [default] * players
        named: set[int] = set()
        for item in items:
            seat_text, _, name = item.partition("=")
            try:
                seat = int(seat_text)
            except ValueError:
                raise ConfigError(f"bad --policy entry {item!r}: expected SEAT=POLICY") from None
            if not 0 <= seat < players:
                raise ConfigError(f"bad --policy entry {item!r}: seat must be 0..{players - 1}")
            if seat in named:
                raise ConfigError(f"bad --policy {text!r}: seat {seat} is named twice")
            named.add(seat)
            policies[seat] = name.strip()
    elif any("=" in x for x in items):
        raise ConfigError(f"bad --policy {text!r}: use one name, a list of {players}, or SEAT=NAME pairs")
    else:
        if len(items) != players:
            raise ConfigError(f"--policy lists {len(items)} policies for {players} players")
        policies = items
    return [canonical_policy(name, names) for name in policies]


#: Policies that take a budget: ``search`` or ``search:N`` (N rollouts per decision).
BUDGETED_POLICIES = ("search", "oracle", "search-plain", "search-full")
#: Policies that see every hidden card (and the stock), each with the policy whose kernel code
#: it runs as: the labelled upper bound of measured skill, never a default. ``oracle`` is the
#: search on the true state: the search's code with the budget negated (see :func:`seat_budgets`).
PEEKING_POLICIES = {"oracle": "search"}
#: Earlier versions of a game's search, kept reachable: each runs as the policy it maps to,
#: with :data:`PLAIN_FLAG` set in the seat's budget word (games opt in, see :func:`with_plain_search`).
PLAIN_POLICIES = {"search-plain": "search"}
#: Budget-word bit of a ``search-plain`` seat (budgets are below ``MAX_SEARCH_BUDGET``).
PLAIN_FLAG = 1 << 32
#: The search without early stopping, kept reachable where a game's search races its
#: candidates (games opt in, see :func:`with_full_search`): runs as ``search`` with
#: :data:`FULL_FLAG` set in the seat's budget word.
FULL_POLICIES = {"search-full": "search"}
#: Budget-word bit of a ``search-full`` seat.
FULL_FLAG = 1 << 33
#: Every variant's budget-word bit.
_VARIANT_FLAGS = ((PLAIN_POLICIES, PLAIN_FLAG), (FULL_POLICIES, FULL_FLAG))
#: Policies that may name a model file: ``learned`` (the shipped model) or ``learned:FILE``
#: (a file written by ``cardsim train``; the game's task checks its content).
MODEL_POLICIES = ("learned",)
#: The budget of a bare ``search`` (rollouts per decision), unless a game says otherwise.
DEFAULT_SEARCH_BUDGET = 64
MAX_SEARCH_BUDGET = 1 << 20


def split_policy(name: str) -> tuple[str, int]:
    """``"search:256"`` -> ``("search", 256)``; ``"heuristic"`` -> ``("heuristic", 0)``.

    Raises :class:`ConfigError` for a budget on a policy that takes none or a bad budget.
    """
    base, sep, param = str(name).strip().partition(":")
    from cardsim.simcore.framework.outside import OUTSIDE_KINDS

    if base.strip() in OUTSIDE_KINDS:  # an outside seat: no kernel budget (see framework.outside)
        return base.strip(), 0
    if not sep:
        return base, (DEFAULT_SEARCH_BUDGET if base in BUDGETED_POLICIES else 0)
    if base in MODEL_POLICIES:
        if not param.strip():
            raise ConfigError(f"bad policy {name!r}: give a model file after ':' ({base}:FILE)")
        return base, 0
    if base not in BUDGETED_POLICIES:
        raise ConfigError(f"policy '{base}' takes no budget (got {name!r}); only {', '.join(BUDGETED_POLICIES)} does")
    try:
        budget = int(param.replace("_", ""))
    except ValueError:
        raise ConfigError(f"bad policy {name!r}: the budget after ':' must be an integer") from None
    if not 1 <= budget <= MAX_SEARCH_BUDGET:
        raise ConfigError(f"bad policy {name!r}: the budget must be in 1..{MAX_SEARCH_BUDGET}")
    return base, budget


def with_peeking(names: Sequence[str]) -> tuple[str, ...]:
    """A game's policy names (its kernels' codes) plus the peeking ``oracle``, for games with a search."""
    return tuple(names) + tuple(p for p, runs_as in PEEKING_POLICIES.items() if runs_as in names and p not in names)


def _with_variants(names: Sequence[str], family) -> tuple[str, ...]:
    """A game's policy names plus the policies of ``family`` whose base policy it has."""
    return tuple(names) + tuple(p for p, runs_as in family.items() if runs_as in names and p not in names)


def with_plain_search(names: Sequence[str]) -> tuple[str, ...]:
    """A game's policy names plus ``search-plain``, for a game whose search has a plain mode."""
    return _with_variants(names, PLAIN_POLICIES)


def with_full_search(names: Sequence[str]) -> tuple[str, ...]:
    """A game's policy names plus ``search-full``, for a game whose search stops early."""
    return _with_variants(names, FULL_POLICIES)


def _seats_playing(policies, players: int, family) -> np.ndarray:
    """Which seats play a policy whose base name is in ``family``, bool[players]."""
    if isinstance(policies, str):
        policies = [policies] * players
    return np.array([isinstance(p, str) and split_policy(p)[0] in family for p in policies], bool)


def learned_seat_weights(learned_seats, policies, n_features: int, read_weights, shipped, weights=None,
                         always: bool = False):
    """The ``learned`` seats' weights as every game's kernels take them.

    Parameters
    ----------
    learned_seats : bool[players]
        Which seats play ``learned`` (or ``learned:FILE``).
    policies : str or sequence of str
        The seats' policy names (a ``learned:FILE`` seat plays that file).
    n_features : int
    read_weights : callable (path) -> float64[n_features]
        The game's model-file reader; ``shipped`` is the path of its shipped model.
    weights : float64[n_features] or float64[players, n_features], optional
        Weights for every learned seat (training), instead of the model files.
    always : bool
        An array even without a learned seat (a search that rolls out with the model).

    Returns
    -------
    float64[players, n_features] or None
        None when no seat is learned and not ``always``: the kernels then compile without
        the learned policy.
    """
    learned_seats = np.asarray(learned_seats, bool)
    if not always and not learned_seats.any():
        return None
    players = len(learned_seats)
    if weights is not None:
        w = np.asarray(weights, np.float64)
        if w.shape not in ((n_features,), (players, n_features)):
            raise ValueError(f"learned weights must have shape ({n_features},) or ({players}, {n_features}), "
                             f"got {w.shape}")
        return np.ascontiguousarray(np.broadcast_to(w, (players, n_features)))
    names = [policies] * players if isinstance(policies, (str, int, np.integer)) else list(policies)
    out = np.zeros((players, n_features), np.float64)
    shipped_w = None
    for s, name in enumerate(names):
        path = str(name).partition(":")[2] if isinstance(name, str) and ":" in name else ""
        if learned_seats[s] and path:
            out[s] = read_weights(path)
        else:  # the shipped model (also the rows a learned-rollout search reads)
            shipped_w = read_weights(shipped) if shipped_w is None else shipped_w
            out[s] = shipped_w
    return out


def canonical_policy(name: str, names: Sequence[str]) -> str:
    """Validate one policy name (``search`` gets its default budget: ``search:64``); an
    outside seat (``python:...``, ``openspiel-ismcts:N``: :mod:`.outside`) is checked and
    given its canonical text."""
    from cardsim.simcore.framework.outside import canonical_outside, is_outside

    if is_outside(name):
        return canonical_outside(name)
    base, budget = split_policy(name)
    if base not in names:
        raise ConfigError(f"unknown policy '{name}' (known: {', '.join(names)}; search and oracle take a budget: "
                          f"search:N)")
    if base in MODEL_POLICIES and ":" in str(name):
        from pathlib import Path

        path = Path(str(name).partition(":")[2].strip()).expanduser()
        if not path.is_file():
            raise ConfigError(f"policy {name!r}: no model file {path}")
        return f"{base}:{path.resolve()}"
    return f"{base}:{budget}" if base in BUDGETED_POLICIES else base


def policy_budgets(policies, players: int) -> np.ndarray:
    """The search budget of each seat (0 for policies without one), int64[players]."""
    if isinstance(policies, str):
        policies = [policies] * players
    return np.array([split_policy(str(p))[1] if isinstance(p, str) else 0 for p in policies], np.int64)


def peeking_seats(policies, players: int) -> np.ndarray:
    """Which seats play a peeking policy (``oracle``), bool[players]."""
    return _seats_playing(policies, players, PEEKING_POLICIES)


def seat_budgets(codes: np.ndarray, policies, players: int, search_code: int):
    """Rollouts per decision of each seat as the kernels take them (int64[players], 0 for
    seats that do not search; a search seat without a budget gets
    :data:`DEFAULT_SEARCH_BUDGET`; **negative for an** ``oracle`` **seat**: the search on the
    true state), or ``None`` when no seat searches: every game's kernels take ``None`` to
    compile without the search."""
    if not (codes == search_code).any():
        return None
    budgets = policy_budgets(policies, players)
    budgets[(codes == search_code) & (budgets == 0)] = DEFAULT_SEARCH_BUDGET
    for family, flag in _VARIANT_FLAGS:
        budgets[_seats_playing(policies, players, family)] |= flag
    peek = peeking_seats(policies, players)
    budgets[peek] = -budgets[peek]
    return budgets


def policy_codes(policies, players: int, names: Sequence[str]) -> np.ndarray:
    """Policies as the kernels' int64 codes per seat (index into ``names``).

    ``policies``: one name or code for every seat, or one per seat. Raises ValueError.
    """
    if isinstance(policies, (str, int, np.integer)):
        policies = [policies] * players
    policies = list(policies)
    if len(policies) != players:
        raise ValueError(f"need {players} policies, got {len(policies)}")
    codes = []
    for p in policies:
        if isinstance(p, str):
            p = split_policy(p)[0]
            if PEEKING_POLICIES.get(p) in names:
                p = PEEKING_POLICIES[p]  # seat_budgets marks the seat as peeking
            else:
                for family, _ in _VARIANT_FLAGS:
                    if family.get(p) in names:
                        p = family[p]  # seat_budgets marks the seat's variant
            if p not in names:
                raise ValueError(f"unknown policy {p!r} (known: {', '.join(names)})")
            p = names.index(p)
        if not 0 <= int(p) < len(names):
            raise ValueError(f"bad policy code {p!r}")
        codes.append(int(p))
    return np.array(codes, np.int64)


class PlayTaskBase(Task):
    """Option handling shared by ``play`` tasks: per-seat policies plus game-specific options.

    Subclasses set ``game``, ``rules_cls``, ``policy_names``, ``default_policy``,
    ``option_defaults`` (other options and their defaults) and may override
    :meth:`check_extra`.
    """

    name = "play"
    policy_names: tuple[str, ...] = ()
    default_policy = "heuristic"
    option_defaults: Mapping[str, Any] = {}
    #: The module of the game's ``learned`` policy (``WEIGHTS_FILE``, ``read_weights(path)``),
    #: or empty when the game has none.
    learned_module = ""
    #: Games per chunk: a few seconds of work, a few MB of rows.
    chunk_games = 1 << 17
    can_replay = True

    def option_names(self) -> tuple[str, ...]:
        return ("policies", *self.option_defaults)

    def tables(self, config) -> tuple[str, ...]:
        return ("games",)

    def parse_options(self, rules, options: Mapping[str, Any]) -> dict[str, Any]:
        """Normalise user options: ``policy`` (text or list) becomes ``policies``, one per seat."""
        options = dict(options)
        policy = options.pop("policy", None)
        if policy is not None:
            if isinstance(policy, (list, tuple)):
                policy = ",".join(map(str, policy))
            options["policies"] = parse_policy_text(policy, rules.players, self.policy_names, self.default_policy)
        options.setdefault("policies", [self.default_policy] * rules.players)
        for key, value in self.option_defaults.items():
            options.setdefault(key, value)
        return options

    def check_options(self, rules, options: Mapping[str, Any]) -> None:
        super().check_options(rules, options)
        policies = options.get("policies")
        from cardsim.simcore.framework.outside import is_outside, parse_outside

        if not isinstance(policies, (list, tuple)) or len(policies) != rules.players \
                or any(not isinstance(p, str) or (split_policy(p)[0] not in self.policy_names and not is_outside(p))
                       for p in policies):
            raise ConfigError(f"policies must name one of {', '.join(self.policy_names)} for each of "
                              f"{rules.players} seats")
        for p in policies:
            if is_outside(p) and parse_outside(p).ref != p:
                raise ConfigError(f"policy {p!r} is not in its canonical form ({parse_outside(p).ref})")
        self.check_model_files(options)
        if any(is_outside(p) for p in policies):
            self.check_outside(rules, options)
        self.check_extra(rules, options)

    def _learned(self):
        import importlib

        return importlib.import_module(self.learned_module)

    def check_model_files(self, options: Mapping[str, Any]) -> None:
        """Every ``learned:FILE`` seat names a readable model file of this game (one line, exit 2)."""
        for policy in options.get("policies") or ():
            if str(policy).startswith("learned:"):
                try:
                    self._learned().read_weights(str(policy).partition(":")[2])
                except (OSError, UnicodeDecodeError, ValueError) as e:
                    raise ConfigError(f"policy {policy}: not a model file ({str(e).splitlines()[0]})") from None

    def player_notes(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Each model file a ``learned`` seat plays (the shipped one for ``learned``, the
        named one for ``learned:FILE``): its digest and reproducing command."""
        import hashlib
        from pathlib import Path

        from cardsim.simcore.framework.outside import seat_notes

        notes = seat_notes(options.get("policies") or ())
        for policy in dict.fromkeys(options.get("policies") or ()):
            if policy != "learned" and not str(policy).startswith("learned:"):
                continue
            path = self._learned().WEIGHTS_FILE if policy == "learned" else Path(str(policy).partition(":")[2])
            data = path.read_bytes()
            reproduce = next((line[len("# reproduce: "):] for line in data.decode(errors="replace").splitlines()
                              if line.startswith("# reproduce: ")), "")
            key = "learned_model" if policy == "learned" else f"model {policy}"
            notes[key] = {"file": path.name if policy == "learned" else str(path),
                          "sha256": hashlib.sha256(data).hexdigest(), "reproduce": reproduce}
        return notes

    def check_extra(self, rules, options: Mapping[str, Any]) -> None:
        """Validate game-specific options (override)."""

    def check_outside(self, rules, options: Mapping[str, Any]) -> None:
        """Raise :class:`ConfigError` when these options cannot be played with outside seats
        (games played through the step interface; override)."""
        from cardsim.simcore.framework import registry

        if not registry.get_spec(self.game).step:
            raise ConfigError(f"{self.game} has no step interface: it cannot seat outside players")
        from cardsim.simcore.framework.outside import check_game

        check_game(self.game, rules, options.get("policies") or ())

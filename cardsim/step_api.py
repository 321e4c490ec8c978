"""Step any game from outside, one decision at a time: ``cardsim.env``.

>>> import cardsim
>>> g = cardsim.env("tusac", seed=7, index=3, rules={"players": 3}, policy="heuristic")  # doctest: +SKIP
>>> while not g.done:                                                                   # doctest: +SKIP
...     seat = g.to_move                    # the seat that must decide now
...     acts = g.legal_actions()            # list[int]; g.action_text(a) reads one
...     obs = g.observation(seat)           # what that seat may know
...     g.step(g.policy_action(seat))       # the built-in policy's choice (or any legal action)
>>> g.result()                              # the game's row, as `cardsim play` writes it  # doctest: +SKIP
>>> g.record()                              # JSON: rules, seed, index, deal, actions      # doctest: +SKIP

The game runs on the play kernels' own engine (:mod:`cardsim.simcore.framework.step`):
game ``index`` of ``seed`` is the game ``cardsim play GAME --seed seed`` plays as game
``index``, and stepped with every seat's :meth:`Env.policy_action` it ends with the same
row, move for move. Out-of-turn rights (a Tứ Sắc steal, a rummy buy or *robar de
contra*, a Tiến Lên bomb after a pass) are decisions of their own: :attr:`Env.to_move`
is then the claimant, each asked in the order the rules give.

Bad input (an illegal action, the wrong seat, a step after the end, a record whose
actions are not legal) raises :class:`cardsim.ConfigError` naming what was expected, and
leaves the game unchanged.
"""
from __future__ import annotations

import json
import numbers
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from cardsim.simcore.framework import registry
from cardsim.simcore.framework.config import ConfigError

#: The ``format`` field of a game record (:meth:`Env.record`).
RECORD_FORMAT = "cardsim-record"
RECORD_VERSION = 1


def _step_class(game: str):
    spec = registry.get_spec(game)
    if not spec.step:
        raise ConfigError(f"{game} has no step interface yet")
    from cardsim.simcore.framework.spec import resolve_ref

    return resolve_ref(spec.step)


def _policies(game: str, rules, policy) -> list[str]:
    """One validated policy name per seat from ``policy`` (text as ``--policy`` takes it, or a list)."""
    task = registry.get_task(game, "play")
    if isinstance(policy, (list, tuple)):
        policy = ",".join(str(p) for p in policy)
    options = task.parse_options(rules, {"policy": str(policy)})
    task.check_options(rules, options)
    if hasattr(task, "check_model_files"):
        task.check_model_files(options)
    from cardsim.simcore.framework.outside import is_outside

    outside = [p for p in options["policies"] if is_outside(p)]
    if outside:
        raise ConfigError(f"{outside[0]} is an outside seat of a run (--policy); a stepped game's seats are yours "
                          "to play: step them with your own code, and give built-in players here")
    return list(options["policies"])


def env(game: str, *, seed: Optional[int] = None, index: int = 0, rules: Optional[Mapping[str, Any]] = None,
        policy: str | Sequence[str] = "heuristic", deal: Optional[Mapping[str, Any]] = None,
        record: Optional[Mapping[str, Any] | str | Path] = None, games_per_match: int = 1) -> "Env":
    """A game to step: game ``index`` of run ``seed`` (as ``cardsim play`` deals it), or from an
    explicit ``deal`` (the JSON form of :meth:`Env.deal`), or replayed from a ``record``
    (:meth:`Env.record`, as a dict or a JSON file path; every action is checked).

    ``rules``: switch values as ``--set`` takes them (``{"players": 3}``); ``policy``: the
    built-in player of every seat as ``--policy`` takes it (``"heuristic"``,
    ``"0=search:64"``, one name per seat); they decide when :meth:`Env.policy_action` is
    asked. ``games_per_match`` (Tiến Lên): game ``index`` of a match opens with the winner
    of the previous game leading, as ``cardsim play -k K`` plays it.
    """
    if record is not None:
        return replay_record(game, record)
    from cardsim.api import parse_seed, resolve_rules

    step_cls = _step_class(game)
    resolved = resolve_rules(game, rules)
    policies = _policies(game, resolved, policy)
    seed = 0 if seed is None else parse_seed(seed)
    if isinstance(index, bool) or not isinstance(index, numbers.Integral) or index < 0:
        raise ConfigError(f"index must be a non-negative integer, got {index!r}")
    if isinstance(games_per_match, bool) or not isinstance(games_per_match, numbers.Integral) \
            or not 1 <= games_per_match <= 10_000:
        raise ConfigError(f"games_per_match must be an integer in 1..10000, got {games_per_match!r}")
    if games_per_match != 1 and not _has_matches(game):
        raise ConfigError("games_per_match is an option of the games played in matches (Tiến Lên, Big Two)")
    extra = {"games_per_match": int(games_per_match)} if _has_matches(game) else {}
    try:
        inner = step_cls.new(resolved, policies, int(seed), int(index),
                             deal=None if deal is None else dict(deal), **extra)
    except ValueError as exc:
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(str(exc).splitlines()[0]) from None
    return Env(game, resolved, policies, int(seed), int(index), inner, explicit=deal is not None,
               games_per_match=int(games_per_match))


def _has_matches(game: str) -> bool:
    """Whether ``game`` is played in matches (its play task takes ``games_per_match``: Tiến Lên, Big Two)."""
    return any(option.name == "games_per_match" for option in registry.get_spec(game).options)


class Env:
    """One game stepped from outside (see :func:`env`).

    Attributes
    ----------
    game : str
    rules : Rules
        The game's frozen, validated rules.
    policies : list of str
        Each seat's built-in player.
    seed, index : int
    players : int
    num_actions : int
        Action ids are ``0 .. num_actions - 1`` (their meaning: the game's ``step`` module).
    history : list of (seat, action)
        The decisions applied so far.
    """

    def __init__(self, game, rules, policies, seed, index, inner, explicit=False, games_per_match=1):
        self.game = game
        self.rules = rules
        self.policies = list(policies)
        self.seed = seed
        self.index = index
        self.games_per_match = games_per_match
        self.explicit = explicit
        self._g = inner
        self.players = inner.players
        self.num_actions = inner.num_actions
        self.obs_size = inner.obs_size
        self.history: list[tuple[int, int]] = []
        self._texts: list[str] = []
        self._deal0 = inner.deal()  # the deal the game starts from (records carry it)

    # ------------------------------------------------------------------ state
    @property
    def done(self) -> bool:
        """Whether the game is over."""
        return self._g.done()

    @property
    def to_move(self) -> int:
        """The seat that must decide now (-1 when the game is over)."""
        return self._g.to_move()

    def legal_actions(self) -> list[int]:
        """The legal action ids of the decision due, ascending (empty when the game is over)."""
        return self._g.legal_actions()

    def legal_mask(self) -> np.ndarray:
        """int8[num_actions]: 1 for each legal action id."""
        mask = np.zeros(self.num_actions, np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def action_text(self, action: int) -> str:
        """A readable text of a legal ``action`` of the decision due."""
        return self._g.action_text(self._check_action(action))

    def decision_kind(self) -> str:
        """What the decision due is about (``play``, ``take``, ``discard``, ``steal``, ``buy`` ...)."""
        if self.done:
            raise ConfigError("the game is over: no decision is due")
        return self._g.decision_kind()

    def _check_seat(self, seat: Optional[int]) -> int:
        if self.done:
            raise ConfigError("the game is over: no decision is due")
        if seat is None:
            return self.to_move
        if isinstance(seat, bool) or not isinstance(seat, numbers.Integral):
            raise ConfigError(f"seat must be an integer, got {seat!r}")
        if int(seat) != self.to_move:
            raise ConfigError(f"seat {seat} is not the seat to move (seat {self.to_move} must decide now)")
        return int(seat)

    def _check_action(self, action) -> int:
        if self.done:
            raise ConfigError("the game is over: no action can be applied")
        if isinstance(action, str):
            return self._action_from_text(action)
        if isinstance(action, bool) or not isinstance(action, numbers.Integral):
            raise ConfigError(f"an action is an integer id (or its text), got {action!r}")
        action = int(action)
        legal = self._g.legal_actions()
        if action not in set(legal):
            shown = ", ".join(map(str, legal[:12])) + (" ..." if len(legal) > 12 else "")
            raise ConfigError(f"action {action} is not legal for seat {self.to_move} now (legal: {shown})")
        return action

    def _action_from_text(self, text: str) -> int:
        wanted = " ".join(text.split()).lower()
        for a in self._g.legal_actions():
            t = self._g.action_text(a)
            if " ".join(t.split()).lower() == wanted or t.split(" [")[0].lower() == wanted:
                return a
        raise ConfigError(f"{text!r} is not a legal action of seat {self.to_move} now "
                          f"(legal: {', '.join(self._g.action_text(a) for a in self._g.legal_actions()[:8])} ...)")

    # ------------------------------------------------------------------ acting
    def step(self, action) -> None:
        """Apply a legal action (an id, or its text) of the seat to move and play on to
        the next decision. An illegal action raises :class:`ConfigError`, game unchanged."""
        action = self._check_action(action)
        seat = self.to_move
        text = self._g.action_text(action)
        self._g.apply(action)
        self.history.append((seat, action))
        self._texts.append(text)

    def policy_action(self, seat: Optional[int] = None) -> int:
        """The action the built-in policy of ``seat`` (the seat to move) chooses now; the
        game is not changed (apply it with :meth:`step`)."""
        self._check_seat(seat)
        return self._g.policy_action()

    # ------------------------------------------------------------------ what a seat sees
    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may know now (JSON-serialisable dict): its own hand, the public
        piles, melds and counts, the public history; ``legal_actions`` as ``[id, text]``
        pairs when it is to move."""
        obs = self._g.observation(self._seat(seat))
        legal = obs.get("legal_actions") or []
        if legal and not isinstance(legal[0], (list, tuple)):  # ids alone: with their texts, as documented
            obs["legal_actions"] = [[int(a), self._g.action_text(int(a))] for a in legal]
        return obs

    def observation_vector(self, seat: int) -> np.ndarray:
        """:meth:`observation` as float32[obs_size]; layout: :meth:`observation_layout`."""
        return self._g.observation_vector(self._seat(seat))

    def observation_layout(self) -> list[tuple[str, int]]:
        """``[(block name, length)]`` of :meth:`observation_vector`, in order."""
        return self._g.observation_layout(self.rules)

    def information_key(self, seat: int) -> str:
        """Equal for two games exactly when ``seat`` cannot tell them apart."""
        return self._g.information_key(self._seat(seat))

    def _seat(self, seat) -> int:
        if isinstance(seat, bool) or not isinstance(seat, numbers.Integral) or not 0 <= seat < self.players:
            raise ConfigError(f"seat must be 0..{self.players - 1}, got {seat!r}")
        return int(seat)

    # ------------------------------------------------------------------ results and records
    def result(self) -> dict[str, Any]:
        """The game's result as ``cardsim play`` writes it: ``{table: row}`` (``games`` for
        Tiến Lên and Tứ Sắc; ``matches`` and the per-round ``hands`` rows for the rummy
        games), each row a dict of the dataset's columns."""
        if not self.done:
            raise ConfigError("the game is not over yet")
        out = {}
        for table, rows in self._g.result().items():
            if isinstance(rows, list):
                out[table] = [self._with_index(table, r) for r in rows]
            else:
                out[table] = self._with_index(table, rows)
        return out

    def _with_index(self, table: str, row: dict) -> dict:
        head = {"game": self.index}
        if _has_matches(self.game):
            head["match"] = self.index // self.games_per_match
        return {**head, **{k: v for k, v in row.items() if k not in head}}

    def returns(self) -> list[float]:
        """Each seat's payoff at the end (the game's points; rummy: minus the match total)."""
        if not self.done:
            raise ConfigError("the game is not over yet")
        return self._g.returns()

    def playout(self, stream: int, laydown_budget: int | None = None) -> list[float]:
        """:meth:`returns` of the game played on from here to its end by the random policy at
        every seat, in one call of the compiled engine (the game itself is unchanged): a random
        rollout at kernel speed. ``stream`` (an integer, taken modulo 2**64) seeds its random
        choices; the same state and stream give the same returns. ``laydown_budget``: the rule
        switch ``laydown_budget`` inside this play-out only (None: the game's own; 0 =
        unlimited); a cheaper exact lay-down for the random seats' large hands. Loba and
        Continental (the rest of the match); other games raise :class:`ConfigError`."""
        if isinstance(stream, bool) or not isinstance(stream, numbers.Integral):
            raise ConfigError(f"stream must be an integer, got {stream!r}")
        playout = getattr(self._g, "playout", None)
        if playout is None:
            raise ConfigError(f"{self.game} has no compiled play-out (Loba and Continental have one)")
        if laydown_budget is None:
            return playout(int(stream))
        from cardsim.simcore.rummy.rules import MAX_LAYDOWN_BUDGET

        if (isinstance(laydown_budget, bool) or not isinstance(laydown_budget, numbers.Integral)
                or not 0 <= int(laydown_budget) <= MAX_LAYDOWN_BUDGET):
            raise ConfigError(f"laydown_budget must be an integer in 0..{MAX_LAYDOWN_BUDGET}, got {laydown_budget!r}")
        return playout(int(stream), int(laydown_budget))

    def deal(self) -> dict[str, Any]:
        """The explicit deal this game started from (JSON-serialisable; :func:`env` ``deal=``)."""
        return self._g.deal()

    def record(self) -> dict[str, Any]:
        """The game so far as a JSON-serialisable record: rules, policies, seed, index, the
        explicit deal and every action (id, seat and text); the result when over.
        ``cardsim.env(game, record=...)`` and ``cardsim replay --record FILE`` replay it."""
        out = {"format": RECORD_FORMAT, "version": RECORD_VERSION, "game": self.game,
               "rules": self.rules.to_dict(), "policies": list(self.policies), "seed": self.seed,
               "index": self.index}
        if _has_matches(self.game):
            out["games_per_match"] = self.games_per_match
        out["deal"] = self._deal0
        out["actions"] = [{"seat": s, "action": a, "text": t} for (s, a), t in zip(self.history, self._texts)]
        if self.done:
            out["result"] = self.result()
        return out

    def log_lines(self) -> list[str]:
        """The game so far move by move, every hand face up (as ``cardsim replay`` prints)."""
        return self._g.log_lines()

    def clone(self) -> "Env":
        """An independent copy of this game."""
        other = Env.__new__(Env)
        other.__dict__.update(self.__dict__)
        other._g = self._g.clone()
        other.history = list(self.history)
        other._texts = list(self._texts)
        return other

    def __deepcopy__(self, memo) -> "Env":
        """:meth:`clone` (``copy.deepcopy``, which OpenSpiel's ``State.clone`` applies to a
        Python state's attributes, would copy the rules, the deal and every cached text too)."""
        return self.clone()

    def resample(self, seat: int, rng: np.random.Generator) -> "Env":
        """A copy in which every card ``seat`` cannot see is dealt again at random,
        consistently with what it has seen (its observation is unchanged)."""
        seat = self._seat(seat)
        other = Env.__new__(Env)
        other.__dict__.update(self.__dict__)
        other._g = self._g.resample(seat, rng)  # a copy already: no clone of the game to throw away
        other.history = list(self.history)
        other._texts = list(self._texts)
        return other


def read_record(source: Mapping[str, Any] | str | Path) -> dict[str, Any]:
    """A record as a dict, from a dict or a JSON file (one-line :class:`ConfigError` if bad)."""
    if isinstance(source, Mapping):
        return dict(source)
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"record file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read record file {path}: {exc}".splitlines()[0]) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"record file {path} is not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"record file {path} is not a cardsim record (a JSON object)")
    return data


def replay_record(game: Optional[str], source) -> Env:
    """The game of a record replayed: every action checked against the legal actions at
    its point (an id, or its text when the id is missing: typed-in games)."""
    data = read_record(source)
    if data.get("format", RECORD_FORMAT) != RECORD_FORMAT:
        raise ConfigError(f"not a cardsim record (format {data.get('format')!r})")
    name = data.get("game", game)
    if game is not None and name != game:
        raise ConfigError(f"the record is a {name} game, not {game}")
    if not isinstance(name, str):
        raise ConfigError("the record names no game")
    registry.get_spec(name)  # unknown game: one line
    rules = data.get("rules") or {}
    if not isinstance(rules, Mapping):
        raise ConfigError("the record's rules must be an object of switch values")
    from cardsim.simcore.framework.config import rule_text

    policies = data.get("policies", "heuristic")
    kwargs = dict(seed=data.get("seed", 0), index=data.get("index", 0),
                  rules={k: rule_text(v) for k, v in rules.items()}, policy=policies, deal=data.get("deal"))
    if _has_matches(name):
        kwargs["games_per_match"] = data.get("games_per_match", 1)
    g = env(name, **kwargs)
    g.explicit = "seed" not in data  # a typed-in game: its deal is all there is
    actions = data.get("actions") or []
    if not isinstance(actions, list):
        raise ConfigError("the record's actions must be a list")
    for i, item in enumerate(actions):
        if isinstance(item, Mapping):
            seat, action = item.get("seat"), item.get("action", item.get("text"))
        else:
            seat, action = None, item
        if g.done:
            raise ConfigError(f"record action {i}: the game is already over")
        if seat is not None and seat != g.to_move:
            raise ConfigError(f"record action {i}: seat {seat} acts, but seat {g.to_move} must decide")
        try:
            g.step(action)
        except ConfigError as exc:
            raise ConfigError(f"record action {i}: {exc}") from None
        if isinstance(item, Mapping) and isinstance(item.get("text"), str) and "action" in item:
            if item["text"] != g._texts[-1]:
                raise ConfigError(f"record action {i}: id {action} is {g._texts[-1]!r} here, "
                                  f"the record says {item['text']!r}")
    return g

"""The step contract: one game played one decision at a time, on the kernels' own engine.

Every game package has a ``step.py`` with a subclass of :class:`StepGame`. It keeps the
engine's state arrays (the same arrays the play kernels use) and calls the engine's own
``@njit`` functions to reach the next decision, list its legal choices, apply one and let
a built-in policy decide: no rule exists twice. :func:`cardsim.env` (:mod:`cardsim.step_api`) wraps a ``StepGame``
with input checks, records and replays; the PettingZoo and OpenSpiel adapters wrap
:func:`cardsim.env` (:mod:`cardsim.step_api`).

Action ids
----------
An action is an ``int`` in ``0 .. num_actions - 1``. Its meaning may depend on the deciding
seat's own hand (a Tiến Lên play is the set of positions in the seat's sorted hand), never
on anything that seat cannot see, so two states the seat cannot tell apart offer the same
ids with the same meaning. :meth:`StepGame.action_text` reads one.

Randomness and built-in seats
-----------------------------
A game from ``(rules, seed, index)`` deals exactly as ``cardsim play --seed seed`` deals
game ``index``. The game's random stream (stock draws, the random policy) and the search
stream live in the state. :meth:`StepGame.policy_action` asks the seat's built-in policy
for its choice without changing the state; when that very action is then applied, the
streams advance as the play kernel's did, so a game stepped with every seat's
``policy_action`` is the game ``play`` wrote, move for move. Any other action leaves the
streams where they were.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np


class StepGame(ABC):
    """One game of one game family, stepped decision by decision (see the module docstring).

    Class attributes and properties a subclass sets
    -----------------------------------------------
    game : str
        Registry name (``tienlen``).
    players : int
    num_actions : int
        Size of the action space (ids ``0 .. num_actions - 1``).
    obs_size : int
        Length of :meth:`observation_vector`.
    """

    game: str = ""
    players: int = 0
    num_actions: int = 0
    obs_size: int = 0

    # ------------------------------------------------------------------ construction
    @classmethod
    @abstractmethod
    def new(cls, rules, policies: list[str], seed: int, index: int, deal: dict | None = None) -> "StepGame":
        """Game ``index`` of run ``seed`` (as ``play`` deals it), or from an explicit ``deal``
        (the JSON form :meth:`deal` returns), stopped at its first decision.

        ``policies``: one validated policy name per seat (the built-in players; an outside
        seat still has one, used only when :meth:`policy_action` is asked)."""

    @abstractmethod
    def clone(self) -> "StepGame":
        """An independent copy (arrays copied)."""

    # ------------------------------------------------------------------ the decision due
    @abstractmethod
    def to_move(self) -> int:
        """The seat that must decide now, -1 when the game is over."""

    def done(self) -> bool:
        return self.to_move() < 0

    @abstractmethod
    def legal_actions(self) -> list[int]:
        """The legal action ids of the decision due, ascending; empty when done."""

    @abstractmethod
    def action_text(self, action: int) -> str:
        """A readable text of ``action`` in the decision due (``play 3♠ 3♥``, ``pass``)."""

    def decision_kind(self) -> str:
        """What the decision due is about (``play``, ``take``, ``discard``, ``steal``,
        ``buy`` ...); the game's own names."""
        return "decide"

    @abstractmethod
    def apply(self, action: int) -> None:
        """Apply a legal ``action`` of :meth:`to_move` (checked by the caller) and play
        on to the next decision (forced moves and chance included)."""

    @abstractmethod
    def policy_action(self) -> int:
        """The built-in policy of :meth:`to_move`: the action it chooses now (the state is
        not changed; see the module docstring for the random streams)."""

    # ------------------------------------------------------------------ what a seat sees
    @abstractmethod
    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may know now, JSON-serialisable: its own hand, the public piles,
        melds and counts, the public history (list of lines), whose turn it is."""

    @abstractmethod
    def observation_vector(self, seat: int) -> np.ndarray:
        """:meth:`observation` as float32[obs_size] (layout: :meth:`observation_layout`)."""

    @classmethod
    def observation_layout(cls, rules) -> list[tuple[str, int]]:
        """``[(name, length)]`` of the blocks of :meth:`observation_vector`, in order."""
        return []

    def information_key(self, seat: int) -> str:
        """A text equal for two states exactly when ``seat`` cannot tell them apart (its
        hand and the public history); OpenSpiel's information state string."""
        import json

        obs = self.observation(seat)
        obs.pop("legal_actions", None)
        return json.dumps(obs, sort_keys=True, separators=(",", ":"))

    @abstractmethod
    def resample(self, seat: int, rng: np.random.Generator) -> "StepGame":
        """A copy where every card ``seat`` cannot see (other hands, the stock, the random
        streams) is dealt again at random, consistently with what ``seat`` has seen; the
        seat's observation is unchanged (OpenSpiel's ``resample_from_infostate``)."""

    # ------------------------------------------------------------------ the end
    @abstractmethod
    def result(self) -> dict[str, Any]:
        """The game's result as ``play`` writes it: ``{table name: {column: value}}``
        (one row per table; a rummy match's ``hands`` table: a list of rows, one per round)."""

    @abstractmethod
    def returns(self) -> list[float]:
        """Each seat's payoff at the end (points, zero-sum where the game's points are;
        the rummy games: minus the match total, so higher is better)."""

    @abstractmethod
    def deal(self) -> dict[str, Any]:
        """The explicit deal of this game, JSON-serialisable, as :meth:`new` takes it."""

    def log_lines(self) -> list[str]:
        """The game so far move by move (every hand face up), as ``cardsim replay`` prints."""
        return []

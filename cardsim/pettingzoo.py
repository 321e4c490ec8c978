"""PettingZoo AEC environments of cardsim's games (``pip install 'cardsim[env]'``).

>>> from cardsim import pettingzoo as cz                                 # doctest: +SKIP
>>> e = cz.env("tienlen", rules={"players": 4})                          # doctest: +SKIP
>>> e.reset(seed=7)                                                       # doctest: +SKIP
>>> for agent in e.agent_iter():                                          # doctest: +SKIP
...     obs, reward, term, trunc, info = e.last()
...     action = None if term or trunc else e.action_space(agent).sample(obs["action_mask"])
...     e.step(action)

Each game is :mod:`cardsim.step_api` underneath, so the kernels' own engine plays it. Agents
are ``player_0 .. player_{P-1}`` (seat order); ``agent_selection`` is the seat that must
decide, out-of-turn claims included, so turns do not simply rotate. The observation is a
dict: ``observation`` (float32, :meth:`cardsim.step_api.Env.observation_vector`, layout in the
game's ``step`` module) and ``action_mask`` (int8 over the action ids, all zero for an agent
not to move). Rewards come at the end: each seat's points (rummy: minus its match total).
``reset(seed=S)`` starts game 0 of run ``S`` (the game ``cardsim play --seed S`` plays
first); each later ``reset()`` the run's next game (a game decided at the deal, a Tiến Lên
instant win, has no decision for anyone and is passed over). ``render()`` prints the acting seat's
view as text.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as exc:  # pragma: no cover - the optional extra is missing
    raise ImportError("cardsim.pettingzoo needs PettingZoo: pip install 'cardsim[env]'") from exc

import cardsim.step_api as cenv

#: The largest action space the adapter offers a mask for (a Tiến Lên hand of 16 cards).
MAX_ACTIONS = 1 << 16


class CardsimAEC(AECEnv):
    """One cardsim game as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["human", "ansi"], "is_parallelizable": False, "render_fps": 1}

    def __init__(self, game: str, rules: Optional[Mapping[str, Any]] = None, policy: str = "heuristic",
                 seed: int = 0, render_mode: Optional[str] = None):
        super().__init__()
        self.game = game
        self.rules_settings = dict(rules or {})
        self.policy = policy
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"cardsim_{game}_v0")
        self._run_seed = int(seed)
        self._index = -1
        self._env = cenv.env(game, seed=self._run_seed, index=0, rules=self.rules_settings, policy=policy)
        if self._env.num_actions > MAX_ACTIONS:
            raise cenv.ConfigError(f"{game} with these rules has {self._env.num_actions:,} action ids; the PettingZoo "
                                   f"adapter masks at most {MAX_ACTIONS:,} (Tiến Lên: at most 16 cards a hand)")
        players = self._env.players
        self.possible_agents = [f"player_{s}" for s in range(players)]
        self.agents = self.possible_agents[:]
        n, size = self._env.num_actions, self._env.obs_size
        self.observation_spaces = {
            a: spaces.Dict({"observation": spaces.Box(-1e6, 1e6, (size,), np.float32),
                            "action_mask": spaces.Box(0, 1, (n,), np.int8)}) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self.reset(seed=None if seed is None else int(seed))

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ AEC
    def _start(self):
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._env.to_move]

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None):
        if seed is not None:
            self._run_seed, self._index = int(seed), 0
        else:
            self._index += 1
        self._env = cenv.env(self.game, seed=self._run_seed, index=self._index, rules=self.rules_settings,
                             policy=self.policy)
        while self._env.done:  # decided at the deal (a Tiến Lên instant win): nobody acts, the next game
            self._index += 1
            self._env = cenv.env(self.game, seed=self._run_seed, index=self._index, rules=self.rules_settings,
                                 policy=self.policy)
        self._start()

    def observe(self, agent):
        seat = self.possible_agents.index(agent)
        mask = np.zeros(self._env.num_actions, np.int8)
        if not self._env.done and seat == self._env.to_move:
            mask[self._env.legal_actions()] = 1
        return {"observation": self._env.observation_vector(seat), "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._env.step(int(action))
        self._cumulative_rewards[agent] = 0.0
        if self._env.done:
            payoff = self._env.returns()
            self.rewards = {a: float(payoff[s]) for s, a in enumerate(self.possible_agents)}
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[self._env.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            return None
        seat = self._env.to_move if not self._env.done else 0
        obs = self._env.observation(seat)
        text = "\n".join(f"{k}: {v}" for k, v in obs.items() if k != "history")
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass

    @property
    def cardsim_env(self) -> "cenv.Env":
        """The underlying :class:`cardsim.step_api.Env` (records, texts, the full observation)."""
        return self._env


def env(game: str, **kwargs) -> CardsimAEC:
    """A PettingZoo AEC environment of ``game`` (``tienlen``, ``tusac``, ``loba``,
    ``continental``); ``rules=`` switch values, ``policy=`` the built-in players (for
    :meth:`cardsim.step_api.Env.policy_action` through ``cardsim_env``), ``seed=`` the run,
    ``render_mode=`` ``"human"`` or ``"ansi"``."""
    return CardsimAEC(game, **kwargs)

"""OpenSpiel games of cardsim's games (``pip install 'cardsim[env]'``).

``import cardsim.openspiel`` registers ``cardsim_tienlen``, ``cardsim_tusac``,
``cardsim_loba``, ``cardsim_continental`` and ``cardsim_bigtwo`` with ``pyspiel``; rule switches are game
parameters (a list switch as comma-separated text, a boolean as ``on``/``off`` or true/false)::

    import pyspiel, cardsim.openspiel
    game = pyspiel.load_game("cardsim_tusac(players=3)")
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)

Each state is a :class:`cardsim.step_api.Env` (the play kernels' own engine). The game opens
with one chance node that picks the deal: outcome ``i`` (of ``deals``, uniform) is game
``i`` of run ``seed`` (the game ``cardsim play GAME --seed seed`` plays as game ``i``);
every later random event (stock draws, reshuffles) is already fixed by that deal and
hidden, so the states after it are deterministic. Action ids are
:mod:`cardsim.step_api`'s. Information states: the player's own hand plus the public history
(:meth:`cardsim.step_api.Env.information_key`); observation tensors:
:meth:`cardsim.step_api.Env.observation_vector`. ``resample_from_infostate`` deals every card
the player cannot see again (:meth:`cardsim.step_api.Env.resample`), so OpenSpiel's
``ISMCTSBot`` can play: it never sees the true hidden cards.

:class:`CompiledRolloutEvaluator` is an evaluator for OpenSpiel's MCTS and ISMCTS bots
(``open_spiel.python.algorithms.mcts.Evaluator``) whose random rollouts run inside the
compiled engine (:meth:`cardsim.step_api.Env.playout`: Loba and Continental).
"""
from __future__ import annotations

import numpy as np

try:
    import pyspiel
    from open_spiel.python.algorithms import mcts
except ImportError as exc:  # pragma: no cover - the optional extra is missing
    raise ImportError("cardsim.openspiel needs OpenSpiel: pip install 'cardsim[env]'") from exc

import cardsim.step_api as cenv
from cardsim.simcore.framework import registry
from cardsim.simcore.framework.config import rule_text

#: Deals the opening chance node chooses from (a game parameter).
DEFAULT_DEALS = 1000
#: The game names registered with pyspiel, one per cardsim game.
GAME_NAMES = {game: f"cardsim_{game}" for game in ("tienlen", "tusac", "loba", "continental", "bigtwo")}


def _defaults(game: str) -> dict:
    """The game's parameters with their defaults: every rule switch, ``seed``, ``deals``."""
    rules = registry.rules_class(game)()
    params = {}
    for name, value in rules.to_dict().items():
        if isinstance(value, bool):
            params[name] = value
        elif isinstance(value, int):
            params[name] = int(value)
        else:
            params[name] = _param_text(value)
    params["seed"] = 0
    params["deals"] = DEFAULT_DEALS
    return params


def _param_text(value) -> str:
    """A switch value as an OpenSpiel string parameter: a list joined with ``+`` (a comma
    would end the parameter in OpenSpiel's game string), an empty list ``none``, and a text
    that starts with a digit (``3-2-1-0``) behind an underscore (``_3-2-1-0``), which
    OpenSpiel's game-string parser would otherwise read as a malformed number."""
    if isinstance(value, (list, tuple)):
        return "+".join(map(str, value)) if value else "none"
    text = str(value)
    return "_" + text if text[:1].isdigit() else text


def _rule_value(value) -> str:
    """An OpenSpiel parameter value as ``--set`` takes it."""
    if isinstance(value, str):
        return value[1:].replace("+", ",") if value[:2].startswith("_") and value[1:2].isdigit() \
            else value.replace("+", ",")
    return rule_text(value)


def _bounds(game: str, rules, players: int) -> tuple[float, float, int]:
    """``(min utility, max utility, max game length)``: safe bounds for these rules."""
    if game == "tienlen":
        worst = rules.cards_per_player + 4  # cards left, each 2 counting double
        if rules.scoring == "per_card":
            return -float(worst * (players - 1)), float(worst * (players - 1)), 8 * 52 * players
        return 0.0, 4.0, 8 * 52 * players
    if game == "bigtwo":
        worst = 3 * rules.cards_per_player  # cards left, x3 with doubling
        return -float(worst), float(worst * (players - 1)), 8 * 52 * players
    if game == "tusac":
        return -5000.0, 5000.0 * (players - 1), 50_000
    return -1e6, 100.0, 2_000_000


class CardsimGame(pyspiel.Game):
    """One cardsim game as an OpenSpiel game (see the module docstring)."""

    game_name = ""

    def __init__(self, params=None):
        params = dict(params or {})
        game = self.game_name
        defaults = _defaults(game)
        self.seed = int(params.get("seed", 0))
        self.deals = int(params.get("deals", DEFAULT_DEALS))
        if self.deals < 1:
            raise ValueError("deals must be at least 1")
        self.rule_settings = {k: _rule_value(v) for k, v in params.items()
                              if k in defaults and k not in ("seed", "deals")}
        probe = cenv.env(game, seed=self.seed, index=0, rules=self.rule_settings, policy="random")
        self.rules = probe.rules
        lo, hi, length = _bounds(game, probe.rules, probe.players)
        game_type = _game_type(game)
        info = pyspiel.GameInfo(num_distinct_actions=probe.num_actions, max_chance_outcomes=self.deals,
                                num_players=probe.players, min_utility=lo, max_utility=hi, utility_sum=None,
                                max_game_length=length)
        super().__init__(game_type, info, {**defaults, **params})
        self.obs_size = probe.obs_size

    def new_initial_state(self):
        return CardsimState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        perfect_recall = iig_obs_type is None or iig_obs_type.perfect_recall
        return CardsimObserver(self.obs_size, perfect_recall)


class CardsimState(pyspiel.State):
    """A state: the opening chance node, then a :class:`cardsim.step_api.Env`."""

    def __init__(self, game: CardsimGame):
        super().__init__(game)
        self._game_name = game.game_name
        self._seed = game.seed
        self._deals = game.deals
        self._rules = game.rule_settings
        self.env: cenv.Env | None = None

    def current_player(self):
        if self.env is None:
            return pyspiel.PlayerId.CHANCE
        if self.env.done:
            return pyspiel.PlayerId.TERMINAL
        return self.env.to_move

    def _legal_actions(self, player):
        if self.env is None or self.env.done or player != self.env.to_move:
            return []
        return self.env.legal_actions()

    def chance_outcomes(self):
        p = 1.0 / self._deals
        return [(i, p) for i in range(self._deals)]

    def _apply_action(self, action):
        if self.env is None:
            self.env = cenv.env(self._game_name, seed=self._seed, index=int(action), rules=self._rules,
                                policy="random")
        else:
            self.env.step(int(action))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE or self.env is None:
            return f"deal {action}"
        if not self.env.done and player == self.env.to_move and action in self.env.legal_actions():
            return self.env.action_text(action)
        return f"action {action}"

    def is_terminal(self):
        return self.env is not None and self.env.done

    def returns(self):
        if self.env is None or not self.env.done:
            return [0.0] * self.get_game().num_players()
        return self.env.returns()

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state ``player_id`` cannot tell from this one, every card it cannot see dealt
        again (the random numbers come from ``probability_sampler``)."""
        other = self.clone()
        if self.env is not None and not self.env.done:
            seed = int(probability_sampler() * 2**53)
            other.env = self.env.resample(int(player_id), np.random.default_rng(seed))
        return other

    def __str__(self):
        if self.env is None:
            return "(deal pending)"
        return "\n".join(self.env.log_lines())


class CardsimObserver:
    """OpenSpiel's Python observer: the observation tensor and the information-state strings."""

    def __init__(self, size: int, perfect_recall: bool):
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}
        self.perfect_recall = perfect_recall

    def set_from(self, state: CardsimState, player: int):
        self.tensor.fill(0)
        if state.env is not None:
            self.tensor[:] = state.env.observation_vector(player)

    def string_from(self, state: CardsimState, player: int) -> str:
        if state.env is None:
            return f"p{player} (deal pending)"
        if self.perfect_recall:
            return state.env.information_key(player)
        obs = state.env.observation(player)
        obs.pop("history", None)
        obs.pop("legal_actions", None)
        return str(obs)


class CompiledRolloutEvaluator(mcts.Evaluator):
    """OpenSpiel's ``mcts.RandomRolloutEvaluator`` with the rollouts compiled: ``evaluate`` plays
    the game of a :class:`CardsimState` on to its end ``n_rollouts`` times with the play
    kernels' own ``random`` policy at every seat, inside the engine
    (:meth:`cardsim.step_api.Env.playout`, one call per rollout), and returns the mean returns
    vector (float64[players], ``state.returns()`` at the end: points, the rummy games minus the
    match total), as ``RandomRolloutEvaluator.evaluate`` does; ``prior`` is its uniform prior
    over the legal actions. Each rollout's random stream is a 64-bit integer drawn from
    ``random_state`` (a ``numpy.random.RandomState``), so rollouts differ and a bot seeded
    alike plays alike.

    The rollout policy is the kernels' ``random`` player (:mod:`cardsim.simcore.rummy.policies`),
    not uniform choices among the step interface's action ids: it claims a refused card with
    probability 1 / (4 (players - 1)) per asked seat (never when the stock runs low), lays down
    with probability 1/2 when it can and lays off one card at a time. Loba and
    Continental only (:meth:`~cardsim.step_api.Env.playout` raises ``ConfigError`` for the
    other games, whose Python rollouts are short).

    ``laydown_budget`` (None: the rules' own): the rule switch ``laydown_budget`` inside the
    rollouts only. Continental's random seats gather large hands, and their exact lay-downs
    are most of a rollout's time: a budget of 10,000 makes a whole random match about 10 times
    faster and a rollout from mid-match positions about 6 times (docs/performance.md, "ISMCTS's
    rollouts"), while the lay-downs it changes are rare."""

    def __init__(self, n_rollouts: int = 1, random_state: np.random.RandomState | None = None,
                 laydown_budget: int | None = None):
        self.n_rollouts = int(n_rollouts)
        if self.n_rollouts < 1:
            raise ValueError("n_rollouts must be at least 1")
        self.random_state = random_state or np.random.RandomState()
        self.laydown_budget = laydown_budget

    def _stream(self) -> int:
        return int(self.random_state.randint(0, 2**64, dtype=np.uint64))

    def evaluate(self, state):
        """The mean returns of ``n_rollouts`` compiled random rollouts from ``state`` (float64[players])."""
        if state.is_terminal():
            return np.array(state.returns(), dtype=np.float64)
        if state.is_chance_node():  # the opening deal: drawn as RandomRolloutEvaluator draws it
            state = state.clone()
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(self.random_state.choice(actions, p=probs)))
            if state.is_terminal():
                return np.array(state.returns(), dtype=np.float64)
        total = np.zeros(state.num_players(), np.float64)
        for _ in range(self.n_rollouts):
            total += np.asarray(state.env.playout(self._stream(), self.laydown_budget), np.float64)
        return total / self.n_rollouts

    def prior(self, state):
        """Equal probability for every legal action (the chance outcomes at a chance node)."""
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(legal)) for action in legal]


def _game_type(game: str):
    return pyspiel.GameType(
        short_name=GAME_NAMES[game], long_name=f"cardsim {registry.get_spec(game).title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=8, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=_defaults(game))


def _register():
    registered = set(pyspiel.registered_names())
    for game, name in GAME_NAMES.items():
        if name in registered:
            continue
        cls = type(f"Cardsim{game.title()}Game", (CardsimGame,), {"game_name": game})
        pyspiel.register_game(_game_type(game), cls)


_register()

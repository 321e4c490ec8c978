"""Outside seats: players nobody here wrote, seated in any play run through the step interface.

A ``--policy`` entry may name, instead of a built-in policy,

``python:MODULE:FUNCTION`` or ``python:PATH.py:FUNCTION``
    a Python callable ``FUNCTION(observation: dict, legal_actions: list[int]) -> int``:
    ``observation`` is what the seat may know now (:meth:`cardsim.step_api.Env.observation`,
    a fresh JSON-like dict, its ``legal_actions`` entry the decision's actions: ``[id, text]``
    pairs in Tiến Lên, ids elsewhere), ``legal_actions`` the legal action ids, ascending
    (:meth:`Env.action_text` reads one); it returns one of them.
    It should be a function of its arguments only (no state kept between calls), so that
    a run's data depend only on its seed, whatever the chunks, threads or resumes.
``openspiel-ismcts:N``
    OpenSpiel's information-set MCTS (``open_spiel.python.algorithms.ismcts.ISMCTSBot``)
    with ``N`` simulations per decision, a random-rollout evaluator (one rollout per
    leaf, ``mcts.RandomRolloutEvaluator``) and ``uct_c`` :data:`ISMCTS_UCT_C`, playing
    through the OpenSpiel adapter :mod:`cardsim.openspiel`; its worlds are dealt again by
    :meth:`cardsim.step_api.Env.resample` (it never sees a hidden card). Its random numbers
    come from ``(run seed, game index, seat)``, so its games are reproducible.
``openspiel-ismcts:N:compiled``
    The same bot with :class:`cardsim.openspiel.CompiledRolloutEvaluator`: each leaf's one
    random rollout is played to the end of the match inside the compiled engine, by the
    play kernels' own ``random`` policy (:meth:`cardsim.step_api.Env.playout`), instead of
    one Python step at a time by uniform choices among the legal actions. Loba and
    Continental only (whose rollouts are long): per simulation about 0.5-1 ms instead of
    20-100 ms in Loba; in Continental 2-20 ms instead of 10-40 ms (the engine's random
    player's matches are slow there themselves: its exact lay-downs of large hands).
``openspiel-ismcts:N:compiled:B``
    The same, the rollouts played with the rule switch ``laydown_budget`` set to ``B`` (0 =
    unlimited) inside them only; the game itself keeps its rules. In Continental
    ``B`` = 10,000 makes a rollout about 6 times faster (1.9 ms instead of 10.9 ms: the random
    seats' large hands stop their exact lay-down search early; what they lay down changes rarely).
``bigtwo-ppo:FILE``
    Big Two only (4 players, 13 cards): the published PPO agent of Charlesworth (2018), its
    network read from ``FILE`` (the parameter pickle of its repository, which the user
    supplies; read with an unpickler that allows NumPy arrays only) and played greedily
    by :class:`cardsim.bigtwo_ppo.BigTwoPPOSeat` (the encoding: docs/bigtwo-ppo.md).

A run with an outside seat plays each game of a chunk by stepping it with
:func:`cardsim.env` (built-in seats decide with :meth:`Env.policy_action`, so they play
exactly as in the play kernels) and turns every game's :meth:`Env.result` into the rows
the play kernels write: same tables, columns, dtypes and order. Seeds, chunks, resume and
the run's identity work as for built-in seats; the games run at Python speed.

A callable that raises, returns a non-integer or an illegal action stops the run with one
line naming the seat and the game index (:class:`OutsideSeatError`, exit 2), and nothing
of the run is kept.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import numbers
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from cardsim.simcore.framework.config import ConfigError

#: The kinds of outside seat (the text before the first ``:`` of a ``--policy`` entry).
OUTSIDE_KINDS = ("python", "openspiel-ismcts", "bigtwo-ppo")
#: The built-in policy an outside seat's step game holds (it is never asked to decide;
#: built-in searches model every other seat with their own opponent model, not with it).
PLACEHOLDER_POLICY = "heuristic"
#: Simulations of a bare ``openspiel-ismcts``.
DEFAULT_ISMCTS_SIMULATIONS = 64
MAX_ISMCTS_SIMULATIONS = 1 << 20
#: The UCT exploration constant of the ISMCTS seat (OpenSpiel's examples use 2).
ISMCTS_UCT_C = 2.0
#: Games per second and core of a game with an outside seat, for the time estimate:
#: the step interface plays each decision in Python (measured: Tiến Lên and Tứ Sắc
#: ~100 games/s, the rummy matches ~2/s, with a trivial callable).
STEPPED_RATE = {"tienlen": 100.0, "tusac": 100.0, "loba": 2.0, "continental": 2.0, "bigtwo": 100.0}
#: Seconds per simulation of an ``openspiel-ismcts`` decision, roughly (a random rollout
#: to the end of the game at Python speed), for the time estimate.
ISMCTS_SIM_SECONDS = {"tienlen": 3e-3, "tusac": 3e-3, "loba": 0.25, "continental": 0.08, "bigtwo": 3e-3}
#: The same with the compiled rollouts (``openspiel-ismcts:N:compiled``; measured on one core
#: in whole matches against heuristic seats: Loba the tree, worlds and information-state keys
#: in Python, Continental the engine's random matches).
ISMCTS_COMPILED_SIM_SECONDS = {"loba": 1e-3, "continental": 2.5e-2}
#: The same with a rollout lay-down budget (``openspiel-ismcts:N:compiled:B``, B = 10,000:
#: Continental's anchor matches, about 50 s a seat and match at 64 simulations).
ISMCTS_BUDGETED_SIM_SECONDS = {"loba": 1e-3, "continental": 2.5e-3}
#: The evaluators of ``openspiel-ismcts``: the text after ``:N`` (empty: OpenSpiel's
#: ``RandomRolloutEvaluator``) and the games each can play (None: every game).
ISMCTS_EVALUATORS = {"": None, "compiled": ("loba", "continental")}
#: Decisions of one seat in a game, roughly (for the time estimate).
SEAT_DECISIONS = {"tienlen": 15, "tusac": 12, "loba": 160, "continental": 300, "bigtwo": 15}


class OutsideSeatError(ConfigError):
    """An outside seat failed during a run (raised, returned a non-integer or an illegal action)."""


@dataclass(frozen=True)
class OutsideSeat:
    """One ``--policy`` entry that seats an outside player (see the module docstring).

    Attributes
    ----------
    kind : str
        ``python`` or ``openspiel-ismcts``.
    ref : str
        The canonical text (a file as an absolute path), as the run records it.
    target : str
        ``python``: the module name or the file's absolute path.
    function : str
        ``python``: the callable's name in it.
    simulations : int
        ``openspiel-ismcts``: simulations per decision.
    evaluator : str
        ``openspiel-ismcts``: ``""`` (OpenSpiel's ``RandomRolloutEvaluator``) or ``compiled``
        (:class:`cardsim.openspiel.CompiledRolloutEvaluator`).
    rollout_budget : int or None
        ``openspiel-ismcts:N:compiled:B``: the rule switch ``laydown_budget`` inside the
        compiled rollouts only (None: the rules' own).
    """

    kind: str
    ref: str
    target: str = ""
    function: str = ""
    simulations: int = 0
    evaluator: str = ""
    rollout_budget: int | None = None

    @property
    def is_file(self) -> bool:
        return self.kind == "python" and self.target.endswith(".py")


def is_outside(name: Any) -> bool:
    """Whether a policy text names an outside seat."""
    return isinstance(name, str) and name.strip().partition(":")[0].strip() in OUTSIDE_KINDS


def parse_outside(name: str) -> OutsideSeat:
    """The record of an outside-seat policy text (syntax only; :func:`canonical_outside`
    also checks the callable can be loaded). One-line :class:`ConfigError` when bad."""
    text = str(name).strip()
    kind, _, rest = text.partition(":")
    kind = kind.strip()
    if kind == "openspiel-ismcts":
        sims, sep, evaluator = rest.partition(":")
        evaluator, budget_sep, budget_text = (part.strip() for part in evaluator.partition(":"))
        if evaluator not in ISMCTS_EVALUATORS or (sep and not evaluator):
            raise ConfigError(f"bad policy {text!r}: after the simulations only ':compiled' may follow "
                              "(openspiel-ismcts:N, openspiel-ismcts:N:compiled or openspiel-ismcts:N:compiled:B)")
        budget = None
        if budget_sep:
            from cardsim.simcore.rummy.rules import MAX_LAYDOWN_BUDGET

            try:
                budget = int(budget_text.replace("_", ""))
            except ValueError:
                budget = -1
            if not 0 <= budget <= MAX_LAYDOWN_BUDGET:
                raise ConfigError(f"bad policy {text!r}: B in openspiel-ismcts:N:compiled:B is the rollouts' lay-down "
                                  f"budget, an integer in 0..{MAX_LAYDOWN_BUDGET} (0 = unlimited)")
        if not sims.strip():
            n = DEFAULT_ISMCTS_SIMULATIONS
        else:
            try:
                n = int(sims.strip().replace("_", ""))
            except ValueError:
                raise ConfigError(f"bad policy {text!r}: the simulations after ':' must be an integer "
                                  "(openspiel-ismcts:N or openspiel-ismcts:N:compiled)") from None
        if not 1 <= n <= MAX_ISMCTS_SIMULATIONS:
            raise ConfigError(f"bad policy {text!r}: the simulations must be in 1..{MAX_ISMCTS_SIMULATIONS}")
        ref = f"openspiel-ismcts:{n}" + (f":{evaluator}" if evaluator else "") + (f":{budget}" if budget_sep else "")
        return OutsideSeat(kind, ref, simulations=n, evaluator=evaluator, rollout_budget=budget)
    if kind == "bigtwo-ppo":
        if not rest.strip():
            raise ConfigError(f"bad policy {text!r}: name the network's parameter file (bigtwo-ppo:FILE)")
        path = str(Path(os.path.expanduser(rest.strip())).resolve())  # absolute: resumes and workers find it
        return OutsideSeat(kind, f"bigtwo-ppo:{path}", target=path)
    if kind != "python":
        raise ConfigError(f"unknown outside seat {text!r} (known: python:MODULE:FUNCTION, python:PATH.py:FUNCTION, "
                          "openspiel-ismcts:N, openspiel-ismcts:N:compiled[:B], bigtwo-ppo:FILE)")
    target, sep, function = rest.strip().rpartition(":")
    target, function = target.strip(), function.strip()
    if not sep or not target or not function.isidentifier():
        raise ConfigError(f"bad policy {text!r}: expected python:MODULE:FUNCTION or python:PATH.py:FUNCTION")
    if target.endswith(".py") or "/" in target or os.sep in target:
        if not target.endswith(".py"):
            raise ConfigError(f"bad policy {text!r}: a file must end in .py (python:PATH.py:FUNCTION)")
        path = str(Path(os.path.expanduser(target)).resolve())  # absolute: resumes and workers find it
        return OutsideSeat(kind, f"python:{path}:{function}", target=path, function=function)
    if not all(part.isidentifier() for part in target.split(".")):
        raise ConfigError(f"bad policy {text!r}: {target!r} is not a module name (python:MODULE:FUNCTION)")
    return OutsideSeat(kind, f"python:{target}:{function}", target=target, function=function)


def canonical_outside(name: str) -> str:
    """The canonical text of an outside-seat policy, after checking that it can play here
    (the callable loads; OpenSpiel is installed). One-line :class:`ConfigError` otherwise."""
    seat = parse_outside(name)
    if seat.kind == "openspiel-ismcts":
        _openspiel_modules(seat.ref)
    else:
        load_callable(seat)
    return seat.ref


#: The games and table a ``bigtwo-ppo`` seat can play (the network's input is 4 seats of 13 cards).
BIGTWO_PPO_TABLE = ("bigtwo", 4, 13)


def check_game(game: str, rules, policies: Sequence[Any]) -> None:
    """One-line :class:`ConfigError` when an outside seat cannot play this game and table
    (``bigtwo-ppo`` plays Big Two with 4 players of 13 cards only; ``openspiel-ismcts:N:compiled``
    the games of :data:`ISMCTS_EVALUATORS`)."""
    for seat in outside_seats(policies).values():
        games = ISMCTS_EVALUATORS.get(seat.evaluator) if seat.kind == "openspiel-ismcts" else None
        if games is not None and game not in games:
            raise ConfigError(f"policy {seat.ref}: the compiled rollouts exist for {' and '.join(games)} only "
                              f"(here: {game}); use openspiel-ismcts:{seat.simulations}")
        if seat.kind != "bigtwo-ppo":
            continue
        table = (game, getattr(rules, "players", None), getattr(rules, "cards_per_player", None))
        if table != BIGTWO_PPO_TABLE:
            raise ConfigError(f"policy {seat.ref}: the Big Two PPO network plays bigtwo with 4 players and 13 "
                              f"cards each only (here: {game}, {table[1]} players, {table[2]} cards)")


def outside_seats(policies: Sequence[Any]) -> dict[int, OutsideSeat]:
    """``{seat: OutsideSeat}`` of the seats of ``policies`` that are outside seats."""
    if isinstance(policies, str):
        return {}
    return {s: parse_outside(p) for s, p in enumerate(policies) if is_outside(p)}


def has_outside(policies: Any) -> bool:
    return not isinstance(policies, str) and any(is_outside(p) for p in policies or ())


def builtin_policies(policies: Sequence[str]) -> list[str]:
    """``policies`` with every outside seat replaced by :data:`PLACEHOLDER_POLICY` (what the
    step game holds for it)."""
    return [PLACEHOLDER_POLICY if is_outside(p) else str(p) for p in policies]


# ------------------------------------------------------------------ python callables
_LOADED: dict[tuple, Callable[..., Any]] = {}


def _file_digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def load_callable(seat: OutsideSeat) -> Callable[..., Any]:
    """The callable of a ``python:`` or ``bigtwo-ppo:`` seat (loaded once per process and file content)."""
    if seat.is_file or seat.kind == "bigtwo-ppo":
        try:
            key = (seat.ref, _file_digest(seat.target))
        except OSError:
            raise ConfigError(f"policy {seat.ref}: file not found or unreadable: {seat.target}") from None
    else:
        key = (seat.ref,)
    if key in _LOADED:
        return _LOADED[key]
    if seat.kind == "bigtwo-ppo":
        from cardsim.bigtwo_ppo import BigTwoPPOSeat

        function = BigTwoPPOSeat(seat.target)  # ConfigError (one line) for a file it refuses
    elif seat.is_file:
        from cardsim.simcore.framework.custom import load_function

        try:
            function = load_function(f"{seat.target}:{seat.function}", "policy")
        except ConfigError as exc:  # name the seat as the user wrote it
            raise ConfigError(str(exc).replace(f"policy {seat.target}:{seat.function}", f"policy {seat.ref}", 1)) \
                from None
    else:
        function = _load_from_module(seat)
    _LOADED[key] = function
    return function


def _load_from_module(seat: OutsideSeat) -> Callable[..., Any]:
    added = os.getcwd() not in sys.path and "" not in sys.path
    if added:  # `cardsim` as a console script: a module next to the user is found too
        sys.path.append(os.getcwd())
    try:
        module = importlib.import_module(seat.target)
    except ModuleNotFoundError as exc:
        raise ConfigError(f"policy {seat.ref}: no module named {exc.name or seat.target!r}") from None
    except SystemExit:
        raise ConfigError(f"policy {seat.ref}: the module calls sys.exit() when imported") from None
    except Exception as exc:  # the user's module: its first line, not a traceback
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise ConfigError(f"policy {seat.ref}: the module fails to import: {type(exc).__name__}: {first}"[:400]) \
            from None
    finally:
        if added and os.getcwd() in sys.path:
            sys.path.remove(os.getcwd())
    function = getattr(module, seat.function, None)
    if function is None or not callable(function):
        raise ConfigError(f"policy {seat.ref}: no function {seat.function!r} in module {seat.target}")
    return function


def seat_notes(policies: Sequence[Any]) -> dict[str, Any]:
    """What a run's data depend on for its outside seats, for the run's metadata
    (``players``): each callable's ref, and the SHA-256 of its source file (a file seat,
    or the module's file where it has one); the ISMCTS seat's settings and OpenSpiel's version."""
    notes: dict[str, Any] = {}
    if isinstance(policies, str):
        return notes
    for policy in dict.fromkeys(str(p) for p in policies or () if is_outside(p)):
        seat = parse_outside(policy)
        note: dict[str, Any] = {"kind": seat.kind, "ref": seat.ref}
        if seat.kind == "python":
            path = seat.target if seat.is_file else _module_file(seat.target)
            if path:
                note["file"] = path
                try:
                    note["sha256"] = _file_digest(path)
                except OSError:
                    note["sha256"] = None
            note["signature"] = "fn(observation: dict, legal_actions: list[int]) -> int"
        elif seat.kind == "bigtwo-ppo":
            note["file"] = seat.target
            try:
                note["sha256"] = _file_digest(seat.target)
            except OSError:
                note["sha256"] = None
            note["player"] = "Charlesworth (2018) Big Two PPO network, greedy (cardsim.bigtwo_ppo)"
        else:
            evaluator = ("cardsim.openspiel.CompiledRolloutEvaluator(1): the random policy's rollouts in the "
                         "compiled engine (Env.playout)" if seat.evaluator == "compiled"
                         else "RandomRolloutEvaluator(1)")
            if seat.rollout_budget is not None:
                evaluator += f", laydown_budget={seat.rollout_budget} inside the rollouts"
            note.update(simulations=seat.simulations, uct_c=ISMCTS_UCT_C, evaluator=evaluator,
                        open_spiel=_openspiel_version())
        notes[f"outside {seat.ref}"] = note
    return notes


def _module_file(name: str) -> str:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return ""
    origin = getattr(spec, "origin", None) if spec is not None else None
    return origin if isinstance(origin, str) and origin.endswith(".py") and os.path.isfile(origin) else ""


# ------------------------------------------------------------------ OpenSpiel's ISMCTS
def _openspiel_modules(ref: str):
    try:
        import pyspiel  # noqa: F401
        from open_spiel.python.algorithms import ismcts, mcts

        import cardsim.openspiel  # noqa: F401  (registers the cardsim_<game> games)
    except ImportError:
        raise ConfigError(f"policy {ref} needs OpenSpiel: pip install 'cardsim[env]'") from None
    return ismcts, mcts


def _openspiel_version() -> str:
    try:
        from importlib.metadata import version

        return version("open_spiel")
    except Exception:  # noqa: BLE001 - metadata is informative only
        return ""


_GAMES: dict[tuple, Any] = {}


def _openspiel_game(game: str, rules):
    """The OpenSpiel game of ``game`` under ``rules`` (registered by :mod:`cardsim.openspiel`)."""
    key = (game, tuple(sorted((k, repr(v)) for k, v in rules.to_dict().items())))
    if key not in _GAMES:
        import pyspiel

        from cardsim.openspiel import GAME_NAMES, _param_text

        params = {}
        for name, value in rules.to_dict().items():
            params[name] = value if isinstance(value, (bool, int)) else _param_text(value)
        _GAMES[key] = pyspiel.load_game(GAME_NAMES[game], params)
    return _GAMES[key]


class IsmctsSeat:
    """OpenSpiel's ``ISMCTSBot`` playing one seat of one game (random numbers from
    ``(seed, index, seat)``: the same game gives the same decisions)."""

    def __init__(self, seat: OutsideSeat, game: str, rules, seed: int, index: int, position: int):
        ismcts, mcts = _openspiel_modules(seat.ref)
        self.game = _openspiel_game(game, rules)
        bot_seq, rollout_seq, world_seq = np.random.SeedSequence([int(seed), int(index), int(position),
                                                                  0x15C7]).spawn(3)
        rollouts = np.random.RandomState(rollout_seq.generate_state(8))
        if seat.evaluator == "compiled":
            from cardsim.openspiel import CompiledRolloutEvaluator

            evaluator = CompiledRolloutEvaluator(1, rollouts, laydown_budget=seat.rollout_budget)
        else:
            evaluator = mcts.RandomRolloutEvaluator(1, rollouts)
        self.bot = ismcts.ISMCTSBot(self.game, evaluator, ISMCTS_UCT_C, seat.simulations,
                                    random_state=np.random.RandomState(bot_seq.generate_state(8)))
        self.bot.set_resampler(self._resample)
        self.worlds = np.random.default_rng(world_seq)

    def _resample(self, state, player):
        """A world ``player`` cannot tell from ``state``, dealt from this seat's own stream
        (OpenSpiel's default sampler is seeded from the clock: not reproducible)."""
        other = state.clone()
        other.env = state.env.resample(int(player), np.random.default_rng(int(self.worlds.integers(2**63))))
        return other

    def __call__(self, env) -> int:
        state = self.game.new_initial_state()
        state.env = env.clone()  # past the opening chance node: the game being played
        return int(self.bot.step(state))


# ------------------------------------------------------------------ stepping a chunk
def _rule_settings(rules) -> dict[str, str]:
    from cardsim.simcore.framework.config import rule_text

    return {k: rule_text(v) for k, v in rules.to_dict().items()}


def _shorten(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _decide_python(function, seat: OutsideSeat, position: int, env, index: int) -> int:
    obs = env.observation(position)  # built afresh at every call: the callable may keep or change it
    legal = env.legal_actions()
    where = f"seat {position} ({seat.ref}) in game {index}"
    try:
        action = function(obs, list(legal))
    except (Exception, SystemExit) as exc:  # the user's code: one line, never a traceback
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise OutsideSeatError(f"{where} raised {type(exc).__name__}" + (f": {first}" if first else "")) from None
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, numbers.Integral):
        raise OutsideSeatError(f"{where} returned {_shorten(action)} ({type(action).__name__}), "
                               "not an integer action id")
    action = int(action)
    if action not in set(legal):
        shown = ", ".join(map(str, legal[:12])) + (" ..." if len(legal) > 12 else "")
        raise OutsideSeatError(f"{where} returned action {action}, which is not legal there (legal: {shown})")
    return action


def play_stepped(game: str, rules, seed: int, start: int, count: int, policies: Sequence[str],
                 games_per_match: int = 1) -> list[dict[str, Any]]:
    """Games ``start .. start+count-1`` of run ``seed`` played through the step interface,
    every outside seat of ``policies`` deciding for itself; each game's
    :meth:`cardsim.step_api.Env.result` in index order.

    Tiến Lên matches (``games_per_match`` K > 1): a later game of a match is dealt as
    ``play`` deals it, led by the winner of the previous game as played here (``start``
    is a match boundary, as for the play kernels).
    """
    import cardsim.step_api as step_api

    seats = outside_seats(policies)
    builtin = builtin_policies(policies)
    settings = _rule_settings(rules)
    check_game(game, rules, policies)
    functions = {s: load_callable(o) for s, o in seats.items() if o.kind in ("python", "bigtwo-ppo")}
    K = int(games_per_match)
    out = []
    prev_winner = -1
    for index in range(start, start + count):
        if K > 1 and index % K:  # the previous game of the match, as played here, names the leader
            first = step_api.env(game, seed=seed, index=index, rules=settings, policy=builtin)
            deal = {**first.deal(), "first": False, "prev_winner": int(prev_winner)}
            env = step_api.env(game, seed=seed, index=index, rules=settings, policy=builtin, deal=deal,
                               games_per_match=K)
        else:
            extra = {"games_per_match": K} if K > 1 else {}
            env = step_api.env(game, seed=seed, index=index, rules=settings, policy=builtin, **extra)
        bots = {s: IsmctsSeat(o, game, env.rules, seed, index, s) for s, o in seats.items()
                if o.kind == "openspiel-ismcts"}
        while not env.done:
            position = env.to_move
            seat = seats.get(position)
            if seat is None:
                action = env.policy_action()
            elif seat.kind in ("python", "bigtwo-ppo"):
                action = _decide_python(functions[position], seat, position, env, index)
            else:
                try:
                    action = bots[position](env)
                except ConfigError:
                    raise
                except Exception as exc:  # noqa: BLE001 - OpenSpiel's own failure: one line
                    raise OutsideSeatError(f"seat {position} ({seat.ref}) in game {index} failed: "
                                           f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                                           ) from None
                if action not in set(env.legal_actions()):
                    raise OutsideSeatError(f"seat {position} ({seat.ref}) in game {index} chose action {action}, "
                                           "which is not legal there")
            env.step(action)
        result = env.result()
        if K > 1:  # a match (Tiến Lên, Big Two): the winner leads the next game
            prev_winner = int(result["games"]["winner"])
        out.append(result)
    return out


def rows_to_columns(rows: Sequence[Mapping[str, Any]], template: Mapping[str, np.ndarray],
                    convert: Mapping[str, Callable[[Any], Any]] | None = None) -> dict[str, np.ndarray]:
    """Rows (dicts) as the columns of ``template`` (the play kernels' columns of zero
    games: names, order and dtypes); ``convert`` maps a column's row value first."""
    convert = convert or {}
    columns = {}
    for name, empty in template.items():
        values = [row[name] for row in rows]
        if name in convert:
            values = [convert[name](v) for v in values]
        dtype = np.asarray(empty).dtype
        columns[name] = np.array(values, dtype=dtype) if len(values) else np.asarray(empty).copy()
    return columns


def stepped_game_seconds(game: str, policies: Sequence[str], throughput: Mapping[str, float]) -> float:
    """Seconds of one game with these outside seats on one core, roughly: Python stepping
    (``GameSpec.throughput["play_stepped"]`` games per second, else :data:`STEPPED_RATE`)
    plus the ISMCTS seats' simulations."""
    seconds = 1.0 / float(throughput.get("play_stepped", STEPPED_RATE.get(game, 2.0)))
    for seat in outside_seats(policies).values():
        if seat.kind == "openspiel-ismcts":
            per_sim = ISMCTS_SIM_SECONDS
            if seat.evaluator == "compiled":
                budgeted = seat.rollout_budget is not None and 0 < seat.rollout_budget <= 100_000
                per_sim = ISMCTS_BUDGETED_SIM_SECONDS if budgeted else ISMCTS_COMPILED_SIM_SECONDS
            seconds += SEAT_DECISIONS.get(game, 100) * seat.simulations * per_sim.get(game, 0.5)
    return seconds


def speed_note(game: str, runs: Sequence[tuple[Sequence[str], int]]) -> str | None:
    """One line saying that outside seats play at Python speed, with the time the games
    that have one should take; ``runs``: ``(policies, games)`` of each run (None: no outside seat)."""
    from cardsim.simcore.run.estimate import estimate, human_time

    refs: dict[str, None] = {}
    seconds, games = 0.0, 0
    for policies, n in runs:
        if not has_outside(policies):
            continue
        refs.update(dict.fromkeys(o.ref for o in outside_seats(policies).values()))
        seconds += estimate(game, "play", int(n), int(n), {"policies": list(policies)}, 1)[0]
        games += int(n)
    if not refs:
        return None
    return (f"cardsim: note: outside seats ({', '.join(refs)}) play through the step interface at Python speed, "
            f"one game after another: about {human_time(seconds)} for {games:,} games")

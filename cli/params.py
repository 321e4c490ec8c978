"""Option types and help texts shared by the commands (``Annotated`` Typer parameters)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, List, Optional

import typer


YesOpt = Annotated[bool, typer.Option("--yes", help="run even when the estimate says it takes over a day or "
                                                    "does not fit on the disk")]


BACKEND_HELP = "local (this machine, numba threads) or dask (one task per chunk; pip install 'cardsim[dask]')"


SCHEDULER_HELP = ("Dask scheduler address (default: a LocalCluster for this run); the workers must see --out "
                  "under the same absolute path (a shared file system)")


WORKERS_HELP = "worker processes of the LocalCluster (--backend dask)"


RESUME_HELP = "continue an interrupted run with the same settings at --out instead of starting again"


SEED_HELP = "run seed (0..2**64-1); random and printed when omitted"


SET_HELP = "rule switch override key=value (repeatable); see `cardsim rules GAME`"


POLICY_HELP = ("policies: one for all seats (heuristic), one per seat (heuristic,random,greedy,random), "
               "or SEAT=NAME pairs (0=search:256,1=random; others heuristic). Names: random, heuristic, "
               "search (determinized Monte Carlo search, 64 rollouts per decision) or search:N, learned or "
               "learned:FILE (a self-play model from `cardsim train`, where the game has one), greedy (Tiến Lên); "
               "search-plain:N is the search before its opponent models (Tiến Lên), with heuristic rollouts "
               "(Tứ Sắc) or playing for the round's points instead of the match (Loba, Continental); "
               "search-full:N (Loba, Continental) rolls out every candidate in every world (the search "
               "before it stopped early on candidates no better than the heuristic's); oracle or "
               "oracle:N is the same search on the true hands: a PEEKING player, only an upper bound of skill. "
               "Outside seats (at Python speed, through the step interface): python:MODULE:FUNCTION or "
               "python:PATH.py:FUNCTION, a callable FUNCTION(observation: dict, legal_actions: list[int]) -> int; "
               "openspiel-ismcts:N, OpenSpiel's information-set MCTS with N simulations (pip install 'cardsim[env]'); "
               "openspiel-ismcts:N:compiled, the same with its random rollouts compiled (Loba, Continental); "
               "openspiel-ismcts:N:compiled:B, those rollouts with laydown_budget=B (10000 makes Continental's ~6x faster)")


# Options shared by several commands.
ThreadsOpt = Annotated[Optional[int], typer.Option("--threads", "-t", help="worker threads (default: all cores)")]


SetsOpt = Annotated[List[str], typer.Option("--set", "-s", help=SET_HELP)]


WorkersOpt = Annotated[Optional[int], typer.Option("--workers", help=WORKERS_HELP)]


SchedulerOpt = Annotated[Optional[str], typer.Option("--scheduler", help=SCHEDULER_HELP)]


RulesFileOpt = Annotated[Optional[Path], typer.Option("--rules", help="TOML file of rule switches (--set wins)")]


QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar or closing line")]


JsonOpt = Annotated[bool, typer.Option("--json", help="print the summary as JSON records")]


BackendOpt = Annotated[str, typer.Option("--backend", help=BACKEND_HELP)]


GameArg = Annotated[str, typer.Argument(help="game name (see `cardsim games`)")]


SeedOpt = Annotated[Optional[str], typer.Option("--seed", help=SEED_HELP)]


PolicyOpt = Annotated[Optional[str], typer.Option("--policy", "-p", help=POLICY_HELP)]


OutOpt = Annotated[Optional[Path], typer.Option("--out", "-o", help="write a Parquet dataset directory here")]


ResumeOpt = Annotated[bool, typer.Option("--resume", help=RESUME_HELP)]


OverwriteOpt = Annotated[bool, typer.Option("--overwrite", help="replace an existing dataset at --out")]


PrecisionOpt = Annotated[Optional[float], typer.Option(
    "--precision", help="run until the 95% interval half-width of every target is <= EPS (e.g. 0.001; "
                        "below 0.5 for a rate), deciding on whole chunks in index order (reproducible)",
    metavar="EPS")]


TargetOpt = Annotated[List[str], typer.Option(
    "--target", help="with --precision: a target (repeatable): deal EVENT@SEAT (e.g. weak_hand@any) or EVENT "
                     "(all its seats), play a metric (e.g. win_seat_0); default: every deal rate / every "
                     "seat's win rate", metavar="NAME")]


MaxOpt = Annotated[Optional[str], typer.Option(
    "--max", help="with --precision: at most this many deals/games (default 1e9 deals, 1e7 games)", metavar="N")]


MetricOpt = Annotated[List[str], typer.Option(
    "--metric", help="your own per-game metric PATH.py:FUNCTION (repeatable): a function of one game's row "
                     "(a dict) or of the per-game DataFrame, returning a number or bool per game")]

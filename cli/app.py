"""The Typer app every command module registers with, and its top-level help."""
from __future__ import annotations

import sys
from typing import Annotated

import typer


from cardsim.simcore.framework import registry


def _games_line() -> str:
    """The app help's game list, from each registered game's spec (its title up to the first comma)."""
    return "Games: " + "; ".join(f"{name}: {registry.get_spec(name).title.split(',')[0]}"
                                  for name in registry.game_names()) + ". "


app = typer.Typer(
    name="cardsim",
    help=(
        "Monte Carlo statistics for traditional card games.\n\n"
        "Deal millions of hands or play whole games with numba kernels, write Parquet "
        "datasets that pandas reads directly, and print rates with 95% intervals. "
        "Randomness depends only on (seed, game index): same seed, same results, "
        "whatever the threads or chunk size.\n\n"
        + _games_line() +
        "Compare rule variants on the same deals with `cardsim experiment`; `cardsim balance` gives a rule set's "
        "balance card (seat balance, length, luck versus skill).\n\n"
        "The first run of a command compiles the Numba kernels it needs (seconds to half a minute on two "
        "cores, said on the terminal); later runs load them from Numba's cache. "
        "`cardsim compile [GAME...]` fills the cache for every command ahead of time, in parallel."
    ),
    add_completion=False,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        from cardsim import __version__

        sys.stdout.write(f"cardsim {__version__}\n")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", "-V", help="print the version and exit",
                                                is_eager=True, callback=_print_version)] = False,
          no_variance_reduction: Annotated[bool, typer.Option(
              "--no-variance-reduction",
              help="plain estimates in play, experiment, ladder, balance, tune and plan: no control "
                   "variates (the deal's features; with search or outside seats, the heuristic twin and "
                   "the luck of each stock draw); every row's ess_factor is then 1")] = False,
          ) -> None:
    """Monte Carlo statistics for traditional card games."""
    import sys

    # only when asked, or to undo an earlier main() of this process: other commands stay
    # light (the variance module loads pandas)
    if no_variance_reduction or "cardsim.analysis.variance" in sys.modules:
        from cardsim.analysis.variance import set_variance_reduction

        set_variance_reduction(not no_variance_reduction)

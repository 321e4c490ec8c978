"""A custom game metric: was the game long?

Use it with ``cardsim play tienlen --metric examples/long_game.py:long_game`` or in an
experiment spec (``custom_metrics = ["../examples/long_game.py:long_game"]``, paths
relative to the spec). A metric gets the per-game table as a pandas DataFrame (one row
per game, the columns of ``cardsim play``'s dataset) and returns one value per game; a
bool (0/1) metric is summarised as a rate, anything else as a mean. A function written
for one row at a time (``def f(row): return row["tricks"] > 12``, ``row`` a dict) works
too, only slower.
"""


def long_game(games):
    """Tiến Lên games of more than 12 tricks (instant wins count as short)."""
    return games["tricks"] > 12


def plays_per_trick(row):
    """Average plays per trick of one game (row by row: a dict of the game's columns)."""
    return row["plays"] / row["tricks"] if row["tricks"] else 0.0

"""Contract rummy (Loba / Carioca, Continental): one rummy core, two rule sets.

- :mod:`~cardsim.simcore.rummy.rules`: the two ``Rules`` classes (switches, house choices).
- :mod:`~cardsim.simcore.rummy.cards`: card codes, hand planes, points.
- :mod:`~cardsim.simcore.rummy.contract`: contract check and distance (``@njit`` search).
- :mod:`~cardsim.simcore.rummy.melds`: best lay-down, lay-offs, discards (``@njit``).
- :mod:`~cardsim.simcore.rummy.deal`: the deal kernel (and the stock draw of play).
- :mod:`~cardsim.simcore.rummy.state`: kernel parameters and the round state's layout.
- :mod:`~cardsim.simcore.rummy.engine`: the round: deal, step, apply a decision, finish;
  its parts :mod:`~cardsim.simcore.rummy.hand` (a seat's hand), :mod:`~cardsim.simcore.rummy.table`
  (table melds, lay-offs), :mod:`~cardsim.simcore.rummy.decisions` (take, lay off, discard)
  and :mod:`~cardsim.simcore.rummy.laydown_apply` (the lay-down decision).
- :mod:`~cardsim.simcore.rummy.laydown`: the exact lay-down (with ``laydown_lengthen`` and
  ``laydown_score``).
- :mod:`~cardsim.simcore.rummy.claims`: buys / robar de contra.
- :mod:`~cardsim.simcore.rummy.policies`: random and heuristic policies, one dispatch.
- :mod:`~cardsim.simcore.rummy.search`: the determinized Monte Carlo search policy (it plays
  for the match: :func:`~cardsim.simcore.rummy.search.match_win_chance`).
- :mod:`~cardsim.simcore.rummy.play`: the turn loop, games, chunks, the Python entry points.
- :mod:`~cardsim.simcore.rummy.log`: move-log kinds and replay text.
- ``tests/references/rummy.py``: the readable pure-Python engine (a test oracle).
- :mod:`~cardsim.simcore.rummy.tasks`, :mod:`~cardsim.simcore.rummy.summary`,
  :mod:`~cardsim.simcore.rummy.spec`: the CLI's tasks, summaries and GameSpecs.
"""

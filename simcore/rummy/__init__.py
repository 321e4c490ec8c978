"""Contract rummy (Loba / Carioca, Continental): cards, meld solver, deal statistics.

- :mod:`simcore.rummy.cards`: card codes, hand planes, points.
- :mod:`simcore.rummy.melds`: the ``@njit`` meld solver (contract check, best lay-down,
  lay-off, distance to the contract, discard choice).
- :mod:`simcore.rummy.deal`: the deal kernel shared by both games.
- :mod:`simcore.rummy.loba`, :mod:`simcore.rummy.continental`: rules and ``TASK``.
"""

"""Four-colour cards (Tứ Sắc, 四色牌): rules, deals, the game engine, its policies and search.

Spec: ``shared/rules/tusac.md``. Modules: :mod:`.rules` (``TuSacRules``, the kernel's
parameter layout), :mod:`.cards` (type ids and notation), :mod:`.deal` (deal kernel),
:mod:`.melds` (exact meld decomposition), :mod:`.claims` (who may take an exposed card),
:mod:`.engine` (state and turn loop), :mod:`.policies` (random, heuristic),
:mod:`.search` (the search policy), :mod:`.play` (whole games, ``play_chunk``),
:mod:`.log` (move log and replay text), :mod:`.reference` (pure-Python reference),
:mod:`.tasks` (``deal`` and ``play`` tasks), :mod:`.summary`, :mod:`.spec`.
"""

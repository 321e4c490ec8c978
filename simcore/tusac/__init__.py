"""Four-colour cards (Tứ Sắc, 四色牌): rules, deals, the game engine, its policies and search.

Spec: ``docs/rules/tusac.md``. Modules: :mod:`.rules` (``TuSacRules``, the kernel's
parameter layout), :mod:`.cards` (type ids and notation), :mod:`.deal` (deal kernel),
:mod:`.events` (hands for users' own deal events), :mod:`.exact` (exact deal
probabilities), :mod:`.melds` (exact meld decomposition), :mod:`.claims` (who may take an
exposed card), :mod:`.engine` (state and turn loop), :mod:`.policies` (random, heuristic,
learned), :mod:`.learned` (the learned policy's model file), :mod:`.train` (its self-play
training), :mod:`.search` (the search policy), :mod:`.play` (whole games, ``play_chunk``),
:mod:`.step` (one decision at a time), :mod:`.log` (move log and replay text),
:mod:`.replay` (one game move by move, the card ledger), :mod:`.probes` (claims on a
hand-built exposed card, for tests), :mod:`.tasks` (``deal`` and ``play`` tasks),
:mod:`.summary`, :mod:`.spec`. The pure-Python reference the tests check the kernels
against is ``tests/references/tusac.py``.
"""

"""Four-colour cards (Tứ Sắc, 四色牌): rules, deal statistics and the meld engine.

Spec: ``shared/rules/tusac.md``. Modules: :mod:`.cards` (type ids and notation),
:mod:`.rules` (``TuSacRules``), :mod:`.deal` (deal kernel), :mod:`.deal_task`
(``cardsim deal tusac``), :mod:`.melds` (exact meld decomposition).
"""

"""Rummy move log: the reshuffle record counts the new stock (issue 13: it printed one short)."""
from __future__ import annotations

from cardsim.simcore.rummy import log as L
from cardsim.simcore.rummy import play as G
from cardsim.simcore.rummy.rules import ContinentalRules, LobaRules


def test_reshuffle_record_counts_the_new_stock():
    checked = 0
    for rules in (ContinentalRules(), LobaRules(claims=True)):
        for index in range(6):
            st = G.round_state(3, index, 0, rules, "random")
            rows = st["log"].tolist()
            marks = [i for i, row in enumerate(rows) if row[0] == L.L_RESHUFFLE]
            for n, i in enumerate(marks):
                end = marks[n + 1] if n + 1 < len(marks) else len(rows)
                drawn = sum(1 for row in rows[i + 1:end] if row[0] in (L.L_TAKE_STOCK, L.L_PENALTY))
                # the record comes after the first card of the new stock was drawn (that draw is logged next)
                left = 0 if n + 1 < len(marks) else len(st["stock"])
                assert rows[i][2] == drawn + left, (rules.GAME, index, i)
                checked += 1
            if marks:
                line = [x for x in L.format_log(st["log"], rules) if x.startswith("stock empty")][0]
                assert line.endswith(f"new stock of {rows[marks[0]][2]} cards")
    assert checked >= 5

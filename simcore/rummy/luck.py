"""The luck of the stock draws in Loba and Continental: per seat, how much better its stock
draws were than an average card of the same stock (the per-draw part of AIVAT, Burch et
al. 2017; Tứ Sắc's is :mod:`cardsim.simcore.tusac.luck`).

The stock's order is random and no policy reads it, so at a draw the card is uniform over
the cards left in the stock, and for any fixed value ``v(hand, card)``

    v(hand, drawn card) - mean over the stock's cards of v(hand, card)

has expectation 0 given the match before the draw, whatever the players do; summed over a
match's draws it is a control variate with the exact expectation 0
(:func:`cardsim.analysis.variance.rummy_draw_control`). The values are fixed before any
data (no fitting), for the seat that draws: does the card lower the seat's contract
distance (capped at :data:`LUCK_CAP`, as the heuristic's; 0 once the seat is down), is it a
joker, and its penalty points. The penalty card of a buy is not corrected.

``luck`` float64[P, N_LUCK] accumulates a match's sums; :func:`.decisions.apply_take` adds
each stock draw when ``luck`` has rows (the play kernel's tables with a search seat), and
skips it for an empty array (the search's rollouts, every other table).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.rummy.cards import card_points
from cardsim.simcore.rummy.hand import distance, improves

#: The values per seat, in the order of ``luck``'s columns (matches-table columns ``draw_luck_NAME_s``).
LUCK_NAMES = ("improves", "joker", "points")
N_LUCK = len(LUCK_NAMES)
#: The contract-distance cap of the ``improves`` value (the heuristic's).
LUCK_CAP = 4


@njit(cache=True, _nrt=False)
def add_draw_luck(luck, p, a1, a2, jokers, down, deck, sp, drawn, k, m, mp):
    """Add seat ``p``'s stock draw of card ``drawn`` to ``luck[p]``: the stock before the
    draw was ``drawn`` and ``deck[sp:]`` (``sp``: the stock pointer after it); ``a1, a2,
    jokers`` the seat's hand before it, ``down`` whether the seat has laid down, ``k, m``
    the round's contract."""
    D = deck.shape[0]
    n = D - sp + 1
    present = np.uint64(0)  # the codes in the stock (bit 52: the joker)
    present |= np.uint64(1) << np.uint64(drawn)
    points = card_points(drawn)
    jokers_left = 1 if drawn >= 52 else 0
    for i in range(sp, D):
        c = deck[i]
        present |= np.uint64(1) << np.uint64(c)
        points += card_points(c)
        if c >= 52:
            jokers_left += 1
    inv = 1.0 / n
    luck[p, 1] += (1.0 if drawn >= 52 else 0.0) - jokers_left * inv
    luck[p, 2] += card_points(drawn) - points * inv
    if down:
        return
    d0 = distance(a1, a2, jokers, k, m, mp, LUCK_CAP)
    if d0 <= 0:
        return
    better = 0
    drawn_better = False
    for code in range(53):
        if not (present >> np.uint64(code)) & np.uint64(1):
            continue
        if not improves(a1, a2, jokers, code, d0, k, m, mp):
            continue
        if code == drawn:
            drawn_better = True
        copies = 1 if code == drawn else 0
        for i in range(sp, D):
            if deck[i] == code:
                copies += 1
        better += copies
    luck[p, 0] += (1.0 if drawn_better else 0.0) - better * inv

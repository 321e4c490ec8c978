"""The luck of the draws: per seat, how much better each stock draw was for it than an
average draw from the same stock (the per-draw part of AIVAT, Burch et al. 2017).

At a draw the next card is uniform over the cards left in the stock (the stock's order is
random and no policy reads it), so for any fixed value ``v(state, card)``

    v(state, drawn card) - mean over the stock's cards of v(state, card)

has expectation 0 given everything before the draw, whatever the players do. Summed over
a game's draws it is a control variate with an *exact* expectation of 0
(:func:`cardsim.analysis.variance.tusac_draw_control`). The values are fixed functions of
the seat's hidden hand, chosen before any data (no fitting): can the seat win with the
card (ignoring whose turn it is), does the card make a triple or quadruple with the seat's
hidden copies, does it make a pair, and the triple and the win again for the drawer alone.

``luck`` float64[P, N_LUCK] accumulates one game's sums (:func:`add_draw_luck`, called by
:func:`.engine.advance` at each draw when the play kernel is given a luck array; the
search's rollouts pass None and skip it).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.tusac.cards import N_TYPES
from cardsim.simcore.tusac.melds import win_score
from cardsim.simcore.tusac.rules import P_PLAYERS, P_THR

#: The values per seat, in the order of ``luck``'s columns (games-table columns ``draw_luck_NAME_s``).
LUCK_NAMES = ("win", "triple", "pair", "own_triple", "own_win")
N_LUCK = len(LUCK_NAMES)


@njit(cache=True, inline="always")
def _values(h, t, lk, pts, thr, trash_tab, score_tab, win_tab):
    """``(win, triple, pair)`` of a card of type ``t`` for hidden counts ``h``."""
    ws = win_score(h, t, lk, trash_tab, score_tab, win_tab)
    win = 1.0 if ws >= 0 and ws + pts >= thr else 0.0
    return win, 1.0 if h[t] >= 2 else 0.0, 1.0 if h[t] == 1 else 0.0


@njit(cache=True)
def add_draw_luck(luck, prm, hands, locked, exp_pts, deck, lo, n_stock, drawn, drawer, trash_tab, score_tab,
                  win_tab):
    """Add one draw's luck to ``luck`` (float64[P, N_LUCK]): the stock is
    ``deck[lo : lo + n_stock]`` *before* the draw (the drawn card among them), ``drawn``
    the card's type, ``drawer`` the seat that drew it; hands as they are before it."""
    P = prm[P_PLAYERS]
    thr = prm[P_THR]
    counts = np.zeros(N_TYPES, np.int64)
    for i in range(lo, lo + n_stock):
        counts[deck[i]] += 1
    inv = 1.0 / n_stock
    for s in range(P):
        h = hands[s]
        mean_win = mean_triple = mean_pair = 0.0
        for t in range(N_TYPES):
            k = counts[t]
            if k == 0:
                continue
            win, triple, pair = _values(h, t, locked[s], exp_pts[s], thr, trash_tab, score_tab, win_tab)
            mean_win += k * win
            mean_triple += k * triple
            mean_pair += k * pair
        win, triple, pair = _values(h, drawn, locked[s], exp_pts[s], thr, trash_tab, score_tab, win_tab)
        luck[s, 0] += win - mean_win * inv
        luck[s, 1] += triple - mean_triple * inv
        luck[s, 2] += pair - mean_pair * inv
        if s == drawer:
            luck[s, 3] += triple - mean_triple * inv
            luck[s, 4] += win - mean_win * inv

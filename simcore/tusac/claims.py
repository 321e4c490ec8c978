"""Tứ Sắc claims on an exposed card: the melds a taken card can make, who may win, who may steal.

Claim order (spec ``docs/rules/tusac.md``; the engine walks these levels in
:func:`cardsim.simcore.tusac.engine.advance`):

1. **Win** (:func:`win_claim`): every seat that can win with the card and may claim it
   (the normal taker and, for a drawn card, the drawer always may; any other seat only
   when ``steals`` is ``on`` or ``win_only`` and the seat is in ``steal_seats``). The
   first in claim order wins: seats in play order starting from the drawer (drawn card)
   or from ``f + 1`` (discard by ``f``; the discarder never claims its own discard).
2. **Triple / quadruple steal** (:func:`steal_claimant`, :func:`steal_options`): a seat
   other than the normal taker holding two (or three) hidden copies, with ``steals=on``
   and in ``steal_seats``. A drawn General may be stolen only to make a quadruple
   (``general_steals=quad_only``) or never. A triple is claimed with a pair: a holder of
   three copies claims only for the quadruple (``triple_steal=pair``, the seed's rule) or
   for either (``pair_or_triple``).
3. Under ``priority=taiwanese`` the drawer may keep its drawn card for a triple or
   quadruple only (the same options as a steal).
4. The normal taker (:func:`normal_taker`): any meld containing the card
   (:func:`meld_options`), or decline.

At levels 2-4 a take is not a win, so the taker must discard afterwards: only the melds
that leave it a legal discard are offered (:func:`discardable_options`; the hand size
stays 20 between turns, 21 at a win). Only under ``win_threshold`` can a meld leave no
legal discard without winning (a fully melded hand below the threshold).
"""
from __future__ import annotations

from numba import njit

from cardsim.simcore.tusac.melds import win_score
from cardsim.simcore.tusac.policies import legal_discard
from cardsim.simcore.tusac.rules import (P_CMD, P_FIELD, P_GSTEALS, P_PLAYERS, P_PRIO, P_S3, P_S4, P_SEATS,
                                         P_SPAIRS, P_STEALS, P_THR, P_TSTEAL, GSTEAL_NEVER, PRIO_TAIWANESE,
                                         ST_OFF, ST_ON, TSTEAL_PAIR)

# meld kinds (:data:`cardsim.simcore.tusac.melds.MELD_NAMES` order)
K_GENERAL, K_PAIR, K_TRIPLE, K_QUAD, K_CMD, K_FIELD, K_S3, K_S4 = range(8)
N_KINDS = 8
#: Most meld options a taken card can have (pair, triple, quadruple, 4 soldier groups ...).
MAX_OPTS = 16


@njit(cache=True, inline="always")
def is_locked(h, locked, t):
    """True when type ``t``'s hidden copies hold a locked (dealt) triple."""
    return ((locked >> t) & 1) != 0 and h[t] >= 3


@njit(cache=True)
def meld_options(h, locked, c, prm, okind, opts, orev):
    """Melds containing a taken card ``c`` with hidden hand ``h``; returns their number.

    ``okind[i]`` kind, ``opts[i]`` taken points, ``orev[i, :3]`` hand types revealed
    (-1 padded). Under ``trio_lock`` a locked triple is only used whole (a quadruple).
    """
    n = 0
    ch = c % 7
    col = c // 7
    hc = h[c]
    lk = is_locked(h, locked, c)
    if ch == 0:
        okind[n] = K_GENERAL
        opts[n] = 1
        orev[n, 0] = -1
        orev[n, 1] = -1
        orev[n, 2] = -1
        n += 1
    elif (ch != 6 or prm[P_SPAIRS] != 0) and hc >= 1 and (not lk or hc - 1 >= 3):
        okind[n] = K_PAIR
        opts[n] = 0
        orev[n, 0] = c
        orev[n, 1] = -1
        orev[n, 2] = -1
        n += 1
    # A taken General is laid alone, in a Command group or as a quadruple (spec: never a
    # triple; two hidden copies already score as two single Generals).
    if ch != 0 and hc >= 2 and (not lk or hc - 2 >= 3):
        okind[n] = K_TRIPLE
        opts[n] = 1
        orev[n, 0] = c
        orev[n, 1] = c
        orev[n, 2] = -1
        n += 1
    if hc >= 3:
        okind[n] = K_QUAD
        opts[n] = 6
        orev[n, 0] = c
        orev[n, 1] = c
        orev[n, 2] = c
        n += 1
    if ch < 6:
        base = col * 7 + (0 if ch < 3 else 3)
        ok = True
        k = 0
        for o in range(base, base + 3):
            if o != c:
                if h[o] < 1 or (is_locked(h, locked, o) and h[o] == 3):
                    ok = False
                orev[n, k] = o
                k += 1
        if ok:
            orev[n, 2] = -1
            okind[n] = K_CMD if ch < 3 else K_FIELD
            opts[n] = prm[P_CMD] if ch < 3 else prm[P_FIELD]
            n += 1
    else:
        # other Soldiers present (usable)
        a0 = -1
        a1 = -1
        a2 = -1
        m = 0
        for cc in range(4):
            o = cc * 7 + 6
            if o != c and h[o] >= 1 and not (is_locked(h, locked, o) and h[o] == 3):
                if m == 0:
                    a0 = o
                elif m == 1:
                    a1 = o
                else:
                    a2 = o
                m += 1
        if m >= 2:
            for i in range(m):
                for j in range(i + 1, m):
                    x = a0 if i == 0 else (a1 if i == 1 else a2)
                    y = a0 if j == 0 else (a1 if j == 1 else a2)
                    okind[n] = K_S3
                    opts[n] = prm[P_S3]
                    orev[n, 0] = x
                    orev[n, 1] = y
                    orev[n, 2] = -1
                    n += 1
        if m == 3:
            okind[n] = K_S4
            opts[n] = prm[P_S4]
            orev[n, 0] = a0
            orev[n, 1] = a1
            orev[n, 2] = a2
            n += 1
    return n


@njit(cache=True)
def normal_taker(c, src, is_draw, prm):
    """The taker of an exposed card at the last level: the next player for a discard; the
    drawer for a drawn card (the next player under ``priority=taiwanese``, Generals excepted)."""
    P = prm[P_PLAYERS]
    if not is_draw:
        return (src + 1) % P
    if prm[P_PRIO] == PRIO_TAIWANESE and c % 7 != 0:
        return (src + 1) % P
    return src


@njit(cache=True)
def win_claim(c, src, is_draw, prm, hands, locked, exp_pts, trash_tab, score_tab, win_tab):
    """Level 1: ``(winning seat or -1, number of seats that can and may win, its score)``."""
    P = prm[P_PLAYERS]
    normal = normal_taker(c, src, is_draw, prm)
    start = src if is_draw else (src + 1) % P
    best = -1
    best_ws = -1
    nwin = 0
    for k in range(P):
        s = (start + k) % P
        if s == src and not is_draw:
            continue
        own = s == normal or (is_draw and s == src)
        if not own:
            if prm[P_STEALS] == ST_OFF or ((prm[P_SEATS] >> s) & 1) == 0:
                continue
        ws = win_score(hands[s], c, locked[s], trash_tab, score_tab, win_tab)
        if ws >= 0 and ws + exp_pts[s] >= prm[P_THR]:
            nwin += 1
            if best < 0:
                best = s
                best_ws = ws
    return best, nwin, best_ws


@njit(cache=True)
def steal_claimant(c, src, is_draw, prm, hands, locked):
    """Level 2: the seat that may steal the card for a triple/quadruple, or -1.

    Out-of-turn seats only (not the normal taker, not the drawer); ``steals=on``, the
    seat in ``steal_seats``, two or more hidden copies with a legal triple/quadruple.
    """
    P = prm[P_PLAYERS]
    if prm[P_STEALS] != ST_ON:
        return -1
    normal = normal_taker(c, src, is_draw, prm)
    gen = c % 7 == 0
    for s in range(P):
        if s == src or s == normal or ((prm[P_SEATS] >> s) & 1) == 0:
            continue
        hc = hands[s, c]
        if hc < 2:
            continue
        if gen and is_draw:
            if prm[P_GSTEALS] == GSTEAL_NEVER or hc < 3:
                continue
        return s  # a triple from the pair, or a quadruple (always legal)
    return -1


@njit(cache=True)
def steal_options(h, locked, c, prm, gen_draw, okind, opts, orev):
    """Triple / quadruple options of a level-2 claim (a drawn General: quadruple only).

    Under ``triple_steal=pair`` a triple is claimed with a pair: a holder of three copies
    may claim only for the quadruple (seed: "announces a pair" / "announces a triple").
    """
    n = meld_options(h, locked, c, prm, okind, opts, orev)
    triple_ok = not gen_draw and (prm[P_TSTEAL] != TSTEAL_PAIR or h[c] == 2)
    m = 0
    for i in range(n):
        if okind[i] == K_QUAD or (okind[i] == K_TRIPLE and triple_ok):
            okind[m] = okind[i]
            opts[m] = opts[i]
            orev[m, 0] = orev[i, 0]
            orev[m, 1] = orev[i, 1]
            orev[m, 2] = orev[i, 2]
            m += 1
    return m


@njit(cache=True)
def discardable_options(h, locked, n, okind, opts, orev):
    """Keep the first ``n`` take options after which hand ``h`` still has a legal discard
    (not a General, not a card of a locked triple); returns how many are kept, compacted
    in order. The others would leave the taker holding a card too many (a take that is
    not a win is followed by a discard)."""
    m = 0
    for i in range(n):
        for j in range(3):
            if orev[i, j] >= 0:
                h[orev[i, j]] -= 1
        ok = False
        for k in range(h.shape[0]):
            if legal_discard(h, locked, k):
                ok = True
                break
        for j in range(3):
            if orev[i, j] >= 0:
                h[orev[i, j]] += 1
        if ok:
            okind[m] = okind[i]
            opts[m] = opts[i]
            orev[m, 0] = orev[i, 0]
            orev[m, 1] = orev[i, 1]
            orev[m, 2] = orev[i, 2]
            m += 1
    return m

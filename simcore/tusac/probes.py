"""Tứ Sắc probes for tests and what-ifs: the kernel's claims on one hand-built exposed card
(kept out of the kernel modules: it calls :mod:`.engine` and :mod:`.play`, which never call it)."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.movelog import new_log
from cardsim.simcore.tusac import engine as E
from cardsim.simcore.tusac.cards import N_TYPES, parse_hand, parse_type
from cardsim.simcore.tusac.claims import MAX_OPTS, N_KINDS
from cardsim.simcore.tusac.deal import BASE_DECK
from cardsim.simcore.tusac.engine import (C_CARD, C_DRAW, C_HOW, C_LEVEL, C_NSTOCK, C_PHASE, C_SRC, C_WINNER,
                                          LV_WIN, N_CUR, N_SEAT, PH_CLAIM, advance, NO_FORCE)
from cardsim.simcore.tusac.log import LOG_MELD, TAKE_NAMES, format_log
from cardsim.simcore.tusac.melds import MELD_NAMES
from cardsim.simcore.tusac.play import policy_codes, tables
from cardsim.simcore.tusac.rules import P_PLAYERS, kernel_params


@njit(cache=True)
def claim_case_kernel(c, src, is_draw, prm, pol, state, hands, locked, exp_pts, trash_tab, score_tab, win_tab, log):
    """The claims on one exposed card of a hand-built situation (see
    :func:`claim_case`); returns the cursor after them."""
    P = prm[P_PLAYERS]
    table = np.zeros((4, N_TYPES), np.int8)
    discards = np.zeros(N_TYPES, np.int8)
    if not is_draw:
        discards[c] = 1
    exp_kinds = np.zeros((4, N_KINDS), np.int64)
    okind = np.zeros(MAX_OPTS, np.int64)
    opts = np.zeros(MAX_OPTS, np.int64)
    orev = np.zeros((MAX_OPTS, 3), np.int64)
    seat = np.zeros((N_SEAT, P), np.int16)
    deck = BASE_DECK.copy()
    cur = np.zeros(N_CUR, np.int64)
    cur[C_PHASE] = PH_CLAIM
    cur[C_LEVEL] = LV_WIN
    cur[C_CARD] = c
    cur[C_SRC] = src
    cur[C_DRAW] = 1 if is_draw else 0
    cur[C_HOW] = -1
    cur[C_WINNER] = -1
    cur[C_NSTOCK] = 10
    advance(prm, pol, np.int64(NO_FORCE), np.bool_(False), np.bool_(True), cur, deck, hands, table, discards, locked,
            exp_pts, exp_kinds, seat, okind, opts, orev, trash_tab, score_tab, win_tab, state, log, np.bool_(True),
            None, None)
    return cur


CLAIM_RESULTS = ("win", "taken", "rediscard", "pass")


def claim_case(hands, card, src: int, is_draw: bool, rules, policies="heuristic", locked=None,
               exposed_points=None, state: int = 0) -> dict:
    """Run the kernel's claims on a hand-built situation (for tests and what-ifs).

    ``hands``: one hand per seat (card text like ``"RG 2YS"`` or 28 counts); ``card``: the
    exposed card (``"RG"`` or a type id), drawn by or discarded by ``src``. Returns
    ``{"result": "win" | "taken" | "rediscard" | "pass", "seat", "how" ("draw" / "eat" /
    "steal" / None), "meld" (kind laid, or None), "win_score" (hidden part), "n_winners",
    "hands" (after), "lines" (the kernel's log as text)}``.
    """
    P = rules.players
    hs = np.zeros((4, N_TYPES), np.int8)
    for s, h in enumerate(hands):
        hs[s] = parse_hand(h) if isinstance(h, str) else np.asarray(h, np.int8)
    c = parse_type(card) if isinstance(card, str) else int(card)
    lk = np.zeros(4, np.int64)
    if locked is not None:
        lk[:P] = locked
    ex = np.zeros(4, np.int64)
    if exposed_points is not None:
        ex[:P] = exposed_points
    tt, st, wt, kt = tables(rules)
    log = new_log(64)
    cur = claim_case_kernel(np.int64(c), np.int64(src), bool(is_draw), kernel_params(rules),
                              policy_codes(policies, P), np.uint64(state), hs, lk, ex, tt, st, wt, log)
    nl = int(cur[E.C_NLOG])
    phase = int(cur[E.C_PHASE])
    ws, nwin, how = -1, 0, -1
    if phase == E.PH_END:
        result, who, how = "win", int(cur[E.C_WINNER]), int(cur[E.C_WTAKE])
        ws, nwin = int(cur[E.C_WSCORE] - ex[who]), int(cur[E.C_NWIN])
    elif phase == E.PH_DISCARD:
        result, who, how = "taken", int(cur[E.C_WHO]), int(cur[E.C_HOW])
    elif phase == E.PH_CLAIM:
        result, who = "rediscard", src
    else:
        result, who = "pass", int(cur[E.C_WHO])
    meld = None
    for row in log[:nl]:
        if row[0] == LOG_MELD:
            meld = MELD_NAMES[int(row[3])]
    row = {f"points_{s}": 0 for s in range(P)}
    row.update(turns=0, stock_left=0, mulligans=0, winner=-1)
    return {"result": result, "seat": who, "how": TAKE_NAMES[how] if how >= 0 else None,
            "meld": meld, "win_score": ws, "n_winners": nwin, "hands": hs[:P].copy(),
            "lines": format_log(log, nl, row, P)[:-3]}

"""Tứ Sắc search policy: determinized flat Monte Carlo over every decision of a seat
(eat, take a drawn card, steal, keep, discard), rollouts with the heuristic on common
sampled worlds.

At a decision of seat ``d`` (the engine stops there, :func:`.engine.advance`):

1. **Candidates**: for a take (eat, a drawn card, a triple/quadruple steal, a taiwanese
   keep), every meld option and declining when allowed; for a discard, the legal types,
   prefiltered to the heuristic's ``MAX_DISCARD_CANDIDATES`` best (by its hand value after
   the discard) when there are more. The heuristic's own choice comes first, so it wins
   ties. Wins are not searched: every policy claims a win, the objective's best outcome
   (a win now beats any expected result of waiting, by the win-first objective).
2. **Worlds**: ``max(1, budget // candidates)`` determinizations. Each deals the cards
   ``d`` cannot see -- 4 copies of each type minus its own hidden hand, every table, the
   discard pile and an exposed drawn card -- at random into the opponents' hidden hands
   (their public card counts) and the stock (its public size); under ``trio_lock`` an
   opponent's sampled triples are its locked ones. Nothing else of the real state is read
   for the opponents, so the choice depends only on ``d``'s information. Earlier passes
   and refusals are not used to condition the worlds (a declined eat or steal shows little
   here: every policy may decline a legal meld).
3. **Rollouts**: every candidate is played out on every world with the ``learned`` policy
   (the shipped model) at all seats, through the same :func:`.engine.advance` as real
   play, with the same rollout random stream per world (paired comparisons).
4. **Choice**: most wins for ``d``, then most points (the game's payments); the model's own
   choice (candidate 0) stands unless another is better by ``MARGIN_SE`` standard errors.

``search-plain:N`` (``PLAIN_FLAG`` in the budget word) is the search before it used the
learned model: the heuristic's choice first and heuristic rollouts, bit for bit (golden
case ``play_tusac_search_plain``, written by the code before the change).

``oracle`` (a negative budget) is the same search with every world the true deal: it sees
every hidden hand and what the stock holds (not the order it is drawn in).

The search's randomness is the game's search stream (:func:`cardsim.simcore.primitives.rng.search_key`
of the game, advanced across its decisions), never the game's own stream.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.framework.tasks import PLAIN_FLAG
from cardsim.simcore.primitives.arrays import copy1, copy2
from cardsim.simcore.primitives.movelog import LOG_WIDTH
from cardsim.simcore.primitives.rng import next_u64, randbelow
from cardsim.simcore.tusac.cards import N_TYPES
from cardsim.simcore.tusac.claims import MAX_OPTS
from cardsim.simcore.tusac.engine import (C_CARD, C_DRAW, C_NLOG, C_NSTOCK, C_PHASE, C_WINNER, C_WSCORE,
                                          N_CUR, N_SEAT, PH_CLAIM, advance, pending_decision, stock_start)
from cardsim.simcore.tusac.policies import (DEC_TAKE, N_FEATURES, POL_HEURISTIC, POL_LEARNED, best_discard,
                                            discard_values, heuristic_choose, learned_choose, legal_discard)
from cardsim.simcore.tusac.rules import P_LOCK, P_PLAYERS

#: Discard candidates searched (the heuristic's best ones).
MAX_DISCARD_CANDIDATES = 4
MAX_CANDIDATES = MAX_OPTS + 1
#: Utility of a win (points come second: a game's payments are far below this).
WIN_UTILITY = 1000.0
#: Standard errors of paired gain a candidate needs to replace the heuristic's choice.
MARGIN_SE = 1.0
_PLAIN_MASK = np.int64(PLAIN_FLAG - 1)


@njit(cache=True)
def unseen_cards(prm, d, cur, hands, table, discards, out):
    """The cards seat ``d`` cannot see (a multiset, one entry per card) into ``out``;
    returns their number: 4 copies of each type minus ``d``'s hidden hand, every table,
    the discard pile and an exposed drawn card."""
    P = prm[P_PLAYERS]
    drawn = cur[C_CARD] if (cur[C_PHASE] == PH_CLAIM and cur[C_DRAW] != 0) else -1
    m = 0
    for t in range(N_TYPES):
        k = 4 - hands[d, t] - discards[t]
        for s in range(P):
            k -= table[s, t]
        if t == drawn:
            k -= 1
        for j in range(k):
            out[m] = t
            m += 1
    return m


@njit(cache=True)
def determinize(prm, d, cur, hands, table, discards, locked, deck, whands, wlocked, wdeck, unseen, sstate):
    """A world consistent with seat ``d``'s information: ``whands, wlocked, wdeck`` =
    the real state with the unseen cards dealt at random into the opponents' hidden hands
    (their counts) and the stock (its size). Returns the search RNG state."""
    P = prm[P_PLAYERS]
    m = unseen_cards(prm, d, cur, hands, table, discards, unseen)
    for i in range(m - 1):  # Fisher-Yates
        sstate, r = randbelow(sstate, m - i)
        j = i + r
        x = unseen[i]
        unseen[i] = unseen[j]
        unseen[j] = x
    copy2(whands, hands)
    copy1(wlocked, locked)
    copy1(wdeck, deck)
    pos = 0
    for o in range(P):
        if o == d:
            continue
        n = 0
        for t in range(N_TYPES):
            n += hands[o, t]
        whands[o, :] = 0
        for j in range(n):
            whands[o, unseen[pos]] += 1
            pos += 1
        wlocked[o] = 0
        if prm[P_LOCK] != 0:
            for t in range(N_TYPES):
                if whands[o, t] == 3:
                    wlocked[o] |= np.int64(1) << t
    lo = stock_start(P)
    for j in range(cur[C_NSTOCK]):
        wdeck[lo + j] = unseen[pos]
        pos += 1
    return sstate


@njit(cache=True)
def candidates(prm, cur, hands, table, discards, locked, okind, opts, orev, trash_tab, score_tab, first_w, cand):
    """The searched choices of the pending decision into ``cand``: ``(seat, number)``; first
    the choice of the learned policy with weights ``first_w`` (float64[N_FEATURES]), or of
    the heuristic when ``first_w`` is None; for a discard then the heuristic's next best."""
    d, kind, n, allow = pending_decision(prm, cur, hands, locked, okind, opts, orev)
    h = hands[d]
    if kind == DEC_TAKE:
        if first_w is None:
            first, _ = heuristic_choose(kind, h, locked[d], n, okind, opts, orev, allow, np.uint64(0), trash_tab,
                                        score_tab)
        else:
            first = learned_choose(kind, h, locked[d], n, okind, opts, orev, allow, trash_tab, score_tab, discards,
                                   table, first_w)
        cand[0] = first
        m = 1
        for i in range(n):
            if i != first:
                cand[m] = i
                m += 1
        if allow and first != -1:
            cand[m] = -1
            m += 1
        return d, m
    if first_w is None:
        first, _, _ = best_discard(h, locked[d], trash_tab, score_tab)
    else:
        first = learned_choose(kind, h, locked[d], 0, okind, opts, orev, False, trash_tab, score_tab, discards,
                               table, first_w)
    values = np.empty(N_TYPES, np.int64)
    discard_values(h, locked[d], trash_tab, score_tab, values)
    cand[0] = first
    m = 1
    while m < MAX_DISCARD_CANDIDATES:
        best = -1
        for k in range(N_TYPES):
            if not legal_discard(h, locked[d], k):
                continue
            taken = False
            for j in range(m):
                if cand[j] == k:
                    taken = True
            if not taken and (best < 0 or values[k] > values[best]):
                best = k
        if best < 0:
            break
        cand[m] = best
        m += 1
    return d, m


@njit(cache=True)
def search_choose(prm, budget, sstate, cur, deck, hands, table, discards, locked, exp_pts, exp_kinds, trash_tab,
                  score_tab, win_tab, wts, model):
    """The search's choice at the decision :func:`.engine.advance` stopped at (pass it
    back as ``forced``). Returns ``(choice, search RNG state)``. A negative ``budget`` is
    the ``oracle``: it **peeks**, rolling out on the true hands and stock contents (the
    stock's draw order stays random), the labelled upper bound of measured skill.
    ``model``: the learned policy's weights (float64[N_FEATURES]) that rollouts and the
    first candidate use, or None for the heuristic; ``wts``: the seats' learned weights as
    play passes them (an array whenever ``model`` is, so that rollouts and play share one
    compiled :func:`.engine.advance`). ``PLAIN_FLAG`` in a positive budget: ``search-plain``,
    the heuristic's rollouts whatever ``model``."""
    P = prm[P_PLAYERS]
    plain = budget >= PLAIN_FLAG
    if plain:
        budget &= _PLAIN_MASK
    okind = np.zeros(MAX_OPTS, np.int64)
    opts = np.zeros(MAX_OPTS, np.int64)
    orev = np.zeros((MAX_OPTS, 3), np.int64)
    cand = np.zeros(MAX_CANDIDATES, np.int64)
    if model is None:
        d, ncand = candidates(prm, cur, hands, table, discards, locked, okind, opts, orev, trash_tab, score_tab, None,
                              cand)
        pol = np.full(4, POL_HEURISTIC, np.int64)
        rwts = wts
    else:
        if plain:
            d, ncand = candidates(prm, cur, hands, table, discards, locked, okind, opts, orev, trash_tab, score_tab,
                                  None, cand)
        else:
            d, ncand = candidates(prm, cur, hands, table, discards, locked, okind, opts, orev, trash_tab, score_tab,
                                  model, cand)
        pol = np.full(4, POL_HEURISTIC if plain else POL_LEARNED, np.int64)
        rwts = np.empty((4, N_FEATURES), np.float64)
        for s in range(4):
            for j in range(N_FEATURES):
                rwts[s, j] = model[j]
    if ncand <= 1:
        return cand[0], sstate
    peek = budget < 0  # the oracle: every world is the true deal
    worlds = max(1, abs(budget) // ncand)
    # per-world utility of each candidate: a win first (WIN_UTILITY), then points
    util = np.zeros((ncand, worlds), np.float64)
    # one sampled world, and a copy of it per rollout
    unseen = np.empty(4 * N_TYPES, np.int64)
    whands = np.empty_like(hands)
    wlocked = np.empty_like(locked)
    wdeck = np.empty_like(deck)
    rcur = np.empty(N_CUR, np.int64)
    rdeck = np.empty_like(deck)
    rhands = np.empty_like(hands)
    rtable = np.empty_like(table)
    rdiscards = np.empty_like(discards)
    rlocked = np.empty_like(locked)
    rexp_pts = np.empty_like(exp_pts)
    rexp_kinds = np.empty_like(exp_kinds)
    rseat = np.zeros((N_SEAT, P), np.int16)
    log = np.zeros((1, LOG_WIDTH), np.int64)
    if peek:  # rollouts copy the world, so the true one serves every world
        copy2(whands, hands)
        copy1(wlocked, locked)
        copy1(wdeck, deck)
    for w in range(worlds):
        if not peek:
            sstate = determinize(prm, d, cur, hands, table, discards, locked, deck, whands, wlocked, wdeck, unseen,
                                 sstate)
        sstate, rollout_key = next_u64(sstate)
        for k in range(ncand):
            copy1(rcur, cur)
            rcur[C_NLOG] = 0
            copy1(rdeck, wdeck)
            copy2(rhands, whands)
            copy2(rtable, table)
            copy1(rdiscards, discards)
            copy1(rlocked, wlocked)
            copy1(rexp_pts, exp_pts)
            copy2(rexp_kinds, exp_kinds)
            # The flags and types of play_game's call, so both share one compiled advance
            # (about 8 s of compile each): a rollout's seats are all learned (or heuristic),
            # so the stop for a search seat never fires, and the move log is off.
            advance(prm, pol, cand[k], True, False, rcur, rdeck, rhands, rtable, rdiscards, rlocked, rexp_pts,
                    rexp_kinds, rseat, okind, opts, orev, trash_tab, score_tab, win_tab, rollout_key, log, False,
                    rwts, None)
            winner = rcur[C_WINNER]
            if winner == d:
                util[k, w] = WIN_UTILITY + rcur[C_WSCORE] * (P - 1)
            elif winner >= 0:
                util[k, w] = -rcur[C_WSCORE]
    # Leave the heuristic's choice (candidate 0) only for a candidate whose paired gain over it
    # exceeds MARGIN_SE standard errors: noise alone must not override a sound default.
    best = 0
    best_gain = 0.0
    for k in range(1, ncand):
        mean = 0.0
        for w in range(worlds):
            mean += util[k, w] - util[0, w]
        mean /= worlds
        var = 0.0
        for w in range(worlds):
            x = util[k, w] - util[0, w] - mean
            var += x * x
        se = np.sqrt(var / max(worlds - 1, 1) / worlds)
        if mean > MARGIN_SE * se and mean > best_gain:
            best = k
            best_gain = mean
    return cand[best], sstate

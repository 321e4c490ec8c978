"""Full games of the contract-rummy games (Loba, Continental) in numba: the ``play`` kernel.

One shared game core; the two games differ only by a parameter vector (built by
:func:`kernel_params` from :class:`~simcore.rummy.loba.LobaRules` or
:class:`~simcore.rummy.continental.ContinentalRules`) and the meld rules ``mp`` of
:mod:`simcore.rummy.melds`.

Randomness
----------
Round ``r`` (of ``R``) of game ``i`` is a pure function of ``(seed, i, r)``: the pack is
fully shuffled (:func:`simcore.rng.shuffle_prefix_planned`) from the stream
``game_key(seed, i * R + r)`` (the stream the deal statistics use) and the random
policy, stock reshuffles and everything else of that round keep drawing from the same
stream. Rounds are independent, so a game or a round can be replayed alone and results
do not depend on chunking or threads.

Round flow (shared core)
------------------------
Seat ``s`` gets ``deck[s*H:(s+1)*H]``, ``deck[P*H]`` starts the discard pile, the rest
is the stock. Seat ``r % P`` plays first in round ``r``; play goes ``s -> s+1``.
A turn: **take** the live top of the pile or the top of the stock; if the player took
from the stock and claims are on, the refused pile card may be **claimed** (the seats
after the player in turn are asked in turn order, the first that wants it gets it plus
the penalty card(s) from the stock; Loba: the discarder may not buy back, Continental:
the discarder may); then **lay down** (exactly the contract: Loba melds of 3/4 cards via
``best_laydown(extend=0)``; Continental the contract's combinations absorbing the
extra cards they can, ``extend=1``; Loba's final round, whose contract uses every dealt
card, see below); **lay off** on any table meld (Loba: only on turns
after the lay-down turn; Continental: the same turn too, and a natural may replace a
joker of an escalera when the released joker is laid off at once on an escalera);
**discard**. A player without cards (after lay-offs or the discard) goes out and ends
the round. Only the most recent discard (or the up-card) is live: a card exposed after
a take or a claim and a covered card can never be taken. When the stock is empty the
pile minus its top is shuffled into a new stock. A round that reaches ``max_turns``
turns (or where no card can be drawn) is *capped*: nobody went out, everyone scores
their hand.

Loba's final round (any round whose contract uses every dealt card: 2E1T with 11 cards,
3E with 12) ends at the first lay-down: a hand of contract + 1 cards lays down exactly the
contract and discards the last card; a hand with more cards (buys) may lay down only
when the solver's extend mode (``best_laydown(extend=1)``, longer melds) leaves at most
one card: the exact contract melds go on the table, then the extra cards as same-turn
lay-offs on them (:func:`_laydown_out`), and the player goes out.

Policies (per seat; 0 random, 1 heuristic)
------------------------------------------
* random: every decision uniform among its legal choices: take pile / stock (1/2 when the
  pile has a live card), claim with probability ``1 / (4 (P - 1))`` per asked seat (about
  a quarter of the refused cards are claimed whatever the table size) and never when the
  stock holds fewer than ``penalty + P`` cards (each claim moves two or more cards into a
  hand for good: with 1/2 per seat, or 1 / (2 (P - 1)) without the stock guard, most
  rounds ended capped because stock and pile ran dry), lay down or not (1/2, the melds are
  the solver's best lay-down; in Loba's final round with bought cards only a lay-down
  that takes the whole hand), lay-offs one at a time uniformly among the legal
  (card, meld) lay-offs plus "stop" (joker swaps are not offered to it), discard a
  uniform card of the hand.
* heuristic (deterministic): keeps its contract distance ``d`` (fewest missing cards,
  capped at ``HEUR_CAP``; exact, updated by one search per card taken); takes the pile
  card when it lowers ``d`` (when down: when it can be laid off); claims when the card
  lowers ``d`` to at most ``CLAIM_MAX_DIST`` (never when down, never in Loba's final
  "go out at once" round, where a bought card and its penalty card would both have to fit
  in the lay-down); both only for cards
  "related" to the hand (:func:`_related`: a joker, a held rank, a same-suit card within
  two ranks); lays down as soon as it can; lays off every card it can (naturals, then
  joker swaps, then jokers); discards like :func:`simcore.rummy.melds.best_discard`
  (most points among the cards whose removal keeps ``d``; :func:`_heur_discard` scans in
  that order and stops at the first hit), when down the highest-point card that cannot
  be laid off.

Distance questions use :func:`simcore.rummy.melds._search_sorted` (the solver's search
visiting escaleras by missing cards first; same answers, 3-10x faster on escalera
contracts with a budget).

Entry points: :func:`play_chunk` (bulk, parallel), :func:`play_logged` (serial, plus the
move log), :func:`replay_game` (text), :func:`round_state` (final state of one round,
for checks), :func:`play_round_from_deck` (a round from a given pack, for hand-built
cases). Tables and columns: see :mod:`simcore.rummy.play_task`.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from cardsim.simcore.tasks import policy_codes as _policy_codes
from cardsim.simcore.rng import game_key, randbelow, shuffle_plan, shuffle_prefix_planned
from cardsim.simcore.rummy.cards import JOKER, add_card, card_points, card_text, make_deck, remove_card
from cardsim.simcore.rummy.melds import (LAY_HIGH, LAY_LOW, LAY_NO, LAY_SWAP, RUN, TRIO, best_laydown, contract_ok,
                                 lay_off)
from cardsim.simcore.rummy.melds import _search_sorted as _search

POLICIES = ("random", "heuristic")
POL_RANDOM, POL_HEURISTIC = 0, 1
HEUR_CAP = 4  # contract distance cap of the heuristic
CLAIM_MAX_DIST = 3  # heuristic claims only when the card brings it to <= this distance

# kernel parameters
(P_PLAYERS, P_GAME, P_ROUNDS, P_CLAIMS, P_PENALTY, P_MAXCLAIMS, P_DISC_CLAIM, P_SWAP, P_SAME_TURN,
 P_MINUS10, P_EXTEND, P_MAXTURNS, P_DECK) = range(13)
N_PARAMS = 13
GAME_LOBA, GAME_CONTINENTAL = 0, 1
DEFAULT_MAX_TURNS = 400

# per-round info columns
I_WENT_OUT, I_TURNS, I_RESHUFFLES, I_CAPPED, I_CLOSED1 = range(5)
N_INFO = 5
# per-round per-seat columns
S_CLAIMS, S_DOWN, S_POINTS = range(3)
N_SEAT = 3

MAXM = 16  # melds on the table (<= 5 players x 3)
MAXC = 32  # cards in one meld

# move log rows: [kind, seat, a, b, c, d]
(L_ROUND, L_DEAL, L_UP, L_TAKE_PILE, L_TAKE_STOCK, L_RESHUFFLE, L_CLAIM, L_PENALTY, L_LAYDOWN, L_MELD,
 L_LAYOFF, L_SWAP, L_DISCARD, L_OUT, L_CAPPED, L_POINTS) = range(16)
LOG_CAP = 60000
_M26 = np.uint64((1 << 26) - 1)
_U26 = np.uint64(26)


# ----------------------------------------------------------------------------- helpers
@njit(cache=True)
def _log(log, nl, on, kind, seat, a, b, c, d):
    if on and nl < log.shape[0]:
        log[nl, 0] = kind
        log[nl, 1] = seat
        log[nl, 2] = a
        log[nl, 3] = b
        log[nl, 4] = c
        log[nl, 5] = d
        return nl + 1
    return nl


@njit(cache=True)
def _hand_points(a1, a2, j):
    pts = 50 * j
    for c in range(52):
        bit = np.uint64(1) << np.uint64(c)
        if a1 & bit:
            pts += card_points(c)
        if a2 & bit:
            pts += card_points(c)
    return pts


@njit(cache=True)
def _count(a1, a2, j, code):
    if code >= 52:
        return j
    bit = np.uint64(1) << np.uint64(code)
    return ((a1 & bit) != 0) + ((a2 & bit) != 0)


@njit(cache=True)
def _nth_card(a1, a2, j, idx):
    """The ``idx``-th card of the hand (codes ascending, copies adjacent, jokers last)."""
    for c in range(52):
        n = _count(a1, a2, j, c)
        if idx < n:
            return c
        idx -= n
    return JOKER


@njit(cache=True)
def _n_cards(a1, a2, j):
    n = j
    for c in range(52):
        n += _count(a1, a2, j, c)
    return n


@njit(cache=True)
def _draw(deck, sp, pile, npile, state):
    """Top of the stock (``deck[sp:]``, taken from ``sp`` upwards); reshuffles the pile minus
    its top into a new stock when empty. Returns ``(card or -1, sp, npile, state, reshuffled)``."""
    D = deck.shape[0]
    resh = 0
    if sp >= D:
        if npile <= 1:
            return -1, sp, npile, state, 0
        n = npile - 1
        sp = D - n
        for i in range(n):
            deck[sp + i] = pile[i]
        for i in range(n - 1):  # Fisher-Yates on deck[sp:]
            state, k = randbelow(state, n - i)
            t = deck[sp + i]
            deck[sp + i] = deck[sp + i + k]
            deck[sp + i + k] = t
        pile[0] = pile[npile - 1]
        npile = 1
        resh = 1
    c = np.int64(deck[sp])
    deck[sp] = -1
    return c, sp + 1, npile, state, resh


@njit(cache=True)
def _run_cards(row, out):
    """Cards of an escalera row in position order into ``out``; returns the count."""
    L = row[3]
    for i in range(L):
        if (row[4] >> i) & 1:
            out[i] = JOKER
        else:
            out[i] = row[1] * 13 + (row[2] + i) % 13
    return L


@njit(cache=True)
def _pack(cards, n, lo):
    v = np.int64(0)
    for i in range(lo, min(n, lo + 10)):
        v |= np.int64(cards[i]) << np.int64(6 * (i - lo))
    return v


@njit(cache=True)
def _build_melds(b1, b2, bj, l1, l2, lj, rows, owner, mrow, mcards, mlen, mown, nm):
    """Append the lay-down ``rows`` to the table with their actual cards (the cards removed
    from the hand ``b`` to leave ``l``)."""
    # removed multiset
    r1 = np.zeros(52, np.int64)
    for c in range(52):
        r1[c] = _count(b1, b2, 0, c) - _count(l1, l2, 0, c)
    for i in range(rows.shape[0]):
        for col in range(6):
            mrow[nm, col] = rows[i, col]
        mown[nm] = owner
        if rows[i, 0] == RUN:
            n = _run_cards(rows[i], mcards[nm])
            for t in range(n):
                if mcards[nm, t] < 52:
                    r1[mcards[nm, t]] -= 1
            mlen[nm] = n
        else:
            r = rows[i, 1]
            n = 0
            need = rows[i, 4]
            for s in range(4):
                c = s * 13 + r
                while need > 0 and r1[c] > 0:
                    r1[c] -= 1
                    need -= 1
                    mcards[nm, n] = c
                    n += 1
            for t in range(rows[i, 3]):
                mcards[nm, n] = JOKER
                n += 1
            mlen[nm] = n
        nm += 1
    return nm


@njit(cache=True)
def _apply_layoff(mrow, mcards, mlen, i, code, where, circular):
    """Lay card ``code`` on meld ``i`` (``where`` from :func:`lay_off`). For ``LAY_SWAP`` the
    natural replaces a joker (the caller takes the joker)."""
    isj = 1 if code >= 52 else 0
    if mrow[i, 0] == TRIO:
        mrow[i, 2] += 1
        if isj:
            mrow[i, 3] += 1
        else:
            mrow[i, 4] += 1
        mcards[i, mlen[i]] = code
        mlen[i] += 1
        return
    L = mrow[i, 3]
    if where == LAY_HIGH:
        if isj:
            mrow[i, 4] |= 1 << L
        mrow[i, 3] = L + 1
    elif where == LAY_LOW:
        s = mrow[i, 2] - 1
        if circular:
            s = s % 13
        mrow[i, 2] = s
        mrow[i, 4] = (mrow[i, 4] << 1) | isj
        mrow[i, 3] = L + 1
    else:  # swap
        r = code % 13
        for t in range(L):
            if (mrow[i, 4] >> t) & 1 and (mrow[i, 2] + t) % 13 == r:
                mrow[i, 4] &= ~(1 << t)
                break
    mlen[i] = _run_cards(mrow[i], mcards[i])


@njit(cache=True)
def _layable(mrow, nm, code, mp, swap):
    """First meld accepting ``code`` (not by a swap): ``(meld, where)`` or ``(-1, 0)``."""
    for i in range(nm):
        w = lay_off(mrow[i], code, mp, False)
        if w != LAY_NO:
            return i, w
    return -1, 0


@njit(cache=True)
def _swap_target(mrow, nm, code, mp):
    """A joker swap for natural ``code``: ``(meld, meld for the released joker, where)`` or -1s."""
    tmp = np.zeros(6, np.int64)
    for i in range(nm):
        if mrow[i, 0] != RUN:
            continue
        if lay_off(mrow[i], code, mp, True) != LAY_SWAP:
            continue
        r = code % 13
        for c in range(6):
            tmp[c] = mrow[i, c]
        for t in range(tmp[3]):
            if (tmp[4] >> t) & 1 and (tmp[2] + t) % 13 == r:
                tmp[4] &= ~(1 << t)
                break
        for k in range(nm):
            if mrow[k, 0] != RUN:
                continue
            row = tmp if k == i else mrow[k]
            w = lay_off(row, JOKER, mp, False)
            if w != LAY_NO:
                return i, k, w
    return -1, -1, 0


# ----------------------------------------------------------------------------- decisions
@njit(cache=True)
def contract_distance(a1, a2, jokers, k, m, mp, cap):
    """:func:`simcore.rummy.melds.contract_distance` with the kernel's faster search."""
    a1 = np.uint64(a1)
    a2 = np.uint64(a2)
    for d in range(cap + 1):
        if _search(a1, a2, jokers, m, d, k, mp[0], mp[1], mp[2], mp[3]):
            return d
    return cap + 1


@njit(cache=True)
def _improves(a1, a2, j, card, d, k, m, mp):
    """Does adding ``card`` lower the (capped) contract distance ``d``?"""
    if d <= 0:
        return False
    b1, b2, bj = add_card(a1, a2, j, card)
    return _search(b1, b2, bj, m, d - 1, k, mp[0], mp[1], mp[2], mp[3])


#: Natural codes by discard preference: most points first, then the highest code.
DISCARD_ORDER = np.array(sorted(range(52), key=lambda c: (-[20, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10][c % 13], -c)),
                         np.int64)


@njit(cache=True)
def _heur_discard(a1, a2, j, k, m, mp, d_full, cap):
    """Same answer as :func:`best_discard` given the hand's (capped) distance ``d_full``:
    the card with the most points (then the highest code) among those whose removal keeps
    the distance, scanning cards in that order and stopping at the first one (a joker
    only when every natural raises the distance and the joker does not). Returns
    ``(code, distance after the discard)``."""
    first = -1
    for t in range(52):
        c = DISCARD_ORDER[t]
        bit = np.uint64(1) << np.uint64(c)
        if (a1 & bit) == 0:
            continue
        if first < 0:
            first = c
        if d_full > cap:
            return c, cap + 1
        if a2 & bit:
            b1, b2 = a1, a2 ^ bit
        else:
            b1, b2 = a1 ^ bit, a2
        if _search(b1, b2, j, m, d_full, k, mp[0], mp[1], mp[2], mp[3]):
            return c, d_full
    if j > 0 and (first < 0 or _search(a1, a2, j - 1, m, d_full, k, mp[0], mp[1], mp[2], mp[3])):
        return JOKER, d_full
    return first, min(d_full + 1, cap + 1)


@njit(cache=True)
def _related(a1, j, card, k, m, circular):
    """Cheap filter of the heuristic's take / claim decisions: a joker, a rank already held
    (when the contract has tríos) or a same-suit card within two ranks (escaleras)."""
    if card >= 52 or j < 0:
        return True
    r = card % 13
    s = card // 13
    if k > 0:
        for t in range(4):
            if (a1 >> np.uint64(t * 13 + r)) & np.uint64(1):
                return True
    if m > 0:
        for dr in (-2, -1, 1, 2):
            rr = r + dr
            if circular:
                rr = rr % 13
            elif rr < 0 or rr > 12:
                if rr == 13:
                    rr = 0
                elif rr == -1:
                    rr = 12
                else:
                    continue
            if (a1 >> np.uint64(s * 13 + rr)) & np.uint64(1):
                return True
    return False


@njit(cache=True)
def _heur_discard_down(a1, a2, j, mrow, nm, mp):
    best = -1
    best_v = -(1 << 30)
    for c in range(53):
        if _count(a1, a2, j, c) == 0:
            continue
        v = card_points(c) * 64 + c
        if c >= 52:
            v = -1000
        elif _layable(mrow, nm, c, mp, False)[0] >= 0:
            v -= 1000
        if v > best_v:
            best_v = v
            best = c
    return best


@njit(cache=True)
def _laydown_out(a1, a2, aj, k, m, mp, p, mrow, mcards, mlen, mown, nm, log, nl, log_on):
    """Loba's "go out at once" round (the contract uses every dealt card) for a hand with
    extra cards (buys): the lay-down of the solver's extend mode (longer melds), accepted
    only when it leaves at most one card (to discard). The table gets the contract's exact
    melds (trío of 3, escalera of 4 within the joker limits), then the extra cards as
    same-turn lay-offs on those new melds. Returns ``(ok, a1, a2, aj, nm, nl)`` (hand and
    table unchanged when not ok)."""
    ok, left, rows, l1, l2, lj = best_laydown(a1, a2, aj, k, m, mp, 1)
    if not ok or _n_cards(l1, l2, lj) > 1:
        return False, a1, a2, aj, nm, nl
    n = rows.shape[0]
    # remaining removed cards per code (joker = 52) once every escalera card is accounted for
    rem = np.zeros(53, np.int64)
    for c in range(52):
        rem[c] = _count(a1, a2, 0, c) - _count(l1, l2, 0, c)
    rem[52] = aj - lj
    full = np.zeros((n, MAXC), np.int64)
    flen = np.zeros(n, np.int64)
    off = np.zeros(n, np.int64)
    for i in range(n):
        if rows[i, 0] != RUN:
            continue
        L = _run_cards(rows[i], full[i])
        flen[i] = L
        for t in range(L):
            rem[full[i, t]] -= 1
        off[i] = -1
        for o in range(L - 3):  # an exact window of 4 within the lay-down joker limits
            pat = (rows[i, 4] >> o) & 15
            nj = (pat & 1) + ((pat >> 1) & 1) + ((pat >> 2) & 1) + ((pat >> 3) & 1)
            if nj <= mp[0] and 4 - nj >= mp[1]:
                off[i] = o
                break
        if off[i] < 0:
            return False, a1, a2, aj, nm, nl
    nm0 = nm
    for i in range(n):
        for col in range(6):
            mrow[nm, col] = 0
        mown[nm] = p
        if rows[i, 0] == RUN:
            o = off[i]
            mrow[nm, 0] = RUN
            mrow[nm, 1] = rows[i, 1]
            mrow[nm, 2] = rows[i, 2] + o
            mrow[nm, 3] = 4
            mrow[nm, 4] = (rows[i, 4] >> o) & 15
            mlen[nm] = _run_cards(mrow[nm], mcards[nm])
        else:
            r = rows[i, 1]
            n0 = min(3, rows[i, 4])
            j0 = 3 - n0
            t = 0
            for s in range(4):
                c = s * 13 + r
                while t < n0 and rem[c] > 0:
                    rem[c] -= 1
                    mcards[nm, t] = c
                    t += 1
            for u in range(j0):
                mcards[nm, t] = JOKER
                t += 1
            rem[52] -= j0
            mlen[nm] = 3
            mrow[nm, 0] = TRIO
            mrow[nm, 1] = r
            mrow[nm, 2] = 3
            mrow[nm, 3] = j0
            mrow[nm, 4] = n0
        for t in range(mlen[nm]):
            a1, a2, aj = remove_card(a1, a2, aj, mcards[nm, t])
        nm += 1
    nl = _log(log, nl, log_on, L_LAYDOWN, p, nm - nm0, 0, 0, 0)
    for i in range(nm0, nm):
        nl = _log(log, nl, log_on, L_MELD, p, i, _pack(mcards[i], mlen[i], 0), _pack(mcards[i], mlen[i], 10),
                  mlen[i])
    # the extra cards: same-turn lay-offs on the new melds
    for i in range(n):
        mi = nm0 + i
        if rows[i, 0] == RUN:
            o = off[i]
            for t in range(o + 4, flen[i]):
                c = full[i, t]
                _apply_layoff(mrow, mcards, mlen, mi, c, LAY_HIGH, 0)
                a1, a2, aj = remove_card(a1, a2, aj, c)
                nl = _log(log, nl, log_on, L_LAYOFF, p, mi, c, LAY_HIGH, 0)
            for t in range(o - 1, -1, -1):
                c = full[i, t]
                _apply_layoff(mrow, mcards, mlen, mi, c, LAY_LOW, 0)
                a1, a2, aj = remove_card(a1, a2, aj, c)
                nl = _log(log, nl, log_on, L_LAYOFF, p, mi, c, LAY_LOW, 0)
        else:
            r = rows[i, 1]
            extra_n = rows[i, 4] - min(3, rows[i, 4])
            extra_j = rows[i, 3] - (3 - min(3, rows[i, 4]))
            for s in range(4):
                c = s * 13 + r
                while extra_n > 0 and rem[c] > 0:
                    rem[c] -= 1
                    extra_n -= 1
                    _apply_layoff(mrow, mcards, mlen, mi, c, LAY_HIGH, 0)
                    a1, a2, aj = remove_card(a1, a2, aj, c)
                    nl = _log(log, nl, log_on, L_LAYOFF, p, mi, c, 0, 0)
            for u in range(extra_j):
                rem[52] -= 1
                _apply_layoff(mrow, mcards, mlen, mi, JOKER, LAY_HIGH, 0)
                aj -= 1
                nl = _log(log, nl, log_on, L_LAYOFF, p, mi, JOKER, 0, 0)
    return True, a1, a2, aj, nm, nl


# ----------------------------------------------------------------------------- one round
@njit(cache=True)
def _play_round(state, deck, first, k, m, H, prm, mp, pol, cseat, seatout, info,
                hands, mrow, mcards, mlen, mown, pile, log, nl, log_on):
    """Play one round from the shuffled pack ``deck`` (modified: it holds the stock).

    ``hands[s] = (a1, a2, jokers)`` (uint64, filled here), table melds ``mrow / mcards /
    mlen / mown``, discard ``pile``. Fills ``seatout[N_SEAT, P]`` and ``info[N_INFO]``.
    Returns ``(state, n melds, pile size, stock pointer, log rows)``.
    """
    P = prm[P_PLAYERS]
    D = deck.shape[0]
    claims_on = prm[P_CLAIMS]
    penalty = prm[P_PENALTY]
    maxc = prm[P_MAXCLAIMS]
    disc_claim = prm[P_DISC_CLAIM]
    swap_on = prm[P_SWAP]
    same_turn = prm[P_SAME_TURN]
    extend = prm[P_EXTEND]
    circular = mp[2]
    # Loba round whose contract uses every dealt card: the first lay-down goes out at once
    out_at_once = prm[P_GAME] == GAME_LOBA and 3 * k + 4 * m >= H
    a1 = np.zeros(P, np.uint64)
    a2 = np.zeros(P, np.uint64)
    aj = np.zeros(P, np.int64)
    down = np.zeros(P, np.int64)
    dist = np.zeros(P, np.int64)
    nclaims = np.zeros(P, np.int64)
    opts_m = np.zeros(1024, np.int64)
    opts_c = np.zeros(1024, np.int64)
    opts_w = np.zeros(1024, np.int64)
    for s in range(P):
        for t in range(H):
            a1[s], a2[s], aj[s] = add_card(a1[s], a2[s], aj[s], np.int64(deck[s * H + t]))
            deck[s * H + t] = -1
        nl = _log(log, nl, log_on, L_DEAL, s, np.int64(a1[s] & _M26), np.int64(a1[s] >> _U26),
                  np.int64(a2[s] & _M26), np.int64(a2[s] >> _U26) | (aj[s] << 32))
        if pol[s] == POL_HEURISTIC:
            dist[s] = contract_distance(a1[s], a2[s], aj[s], k, m, mp, HEUR_CAP)
    pile[0] = deck[P * H]
    deck[P * H] = -1
    npile = 1
    live = True
    last_disc = -1
    nl = _log(log, nl, log_on, L_UP, -1, np.int64(pile[0]), 0, 0, 0)
    sp = P * H + 1
    nm = 0
    went_out = -1
    turns = 0
    resh = 0
    capped = 0
    closed1 = 0
    p = first
    while True:
        if turns >= prm[P_MAXTURNS]:
            capped = 1
            break
        turns += 1
        laid_now = False
        heur = pol[p] == POL_HEURISTIC
        # ---- take
        top = np.int64(pile[npile - 1]) if (npile > 0 and live) else np.int64(-1)
        take_pile = False
        if top >= 0:
            if heur:
                if down[p]:
                    take_pile = _layable(mrow, nm, top, mp, False)[0] >= 0
                else:
                    take_pile = (_related(a1[p], aj[p], top, k, m, circular)
                                 and _improves(a1[p], a2[p], aj[p], top, dist[p], k, m, mp))
            else:
                state, x = randbelow(state, 2)
                take_pile = x == 1
        if take_pile:
            npile -= 1
            live = False
            a1[p], a2[p], aj[p] = add_card(a1[p], a2[p], aj[p], top)
            nl = _log(log, nl, log_on, L_TAKE_PILE, p, top, 0, 0, 0)
            if heur and not down[p]:
                dist[p] -= 1  # the take lowered the distance (by exactly one)
        else:
            c, sp, npile, state, r = _draw(deck, sp, pile, npile, state)
            if r:
                resh += 1
                nl = _log(log, nl, log_on, L_RESHUFFLE, -1, D - sp, 0, 0, 0)
            if c < 0:
                capped = 1
                break
            if heur and not down[p] and _improves(a1[p], a2[p], aj[p], c, dist[p], k, m, mp):
                dist[p] -= 1
            a1[p], a2[p], aj[p] = add_card(a1[p], a2[p], aj[p], c)
            nl = _log(log, nl, log_on, L_TAKE_STOCK, p, c, 0, 0, 0)
            # ---- claims on the refused pile card
            if claims_on and top >= 0 and live:
                winner = -1
                for o in range(1, P):
                    q = (p + o) % P
                    if not cseat[q] or (q == last_disc and not disc_claim):
                        continue
                    if maxc > 0 and nclaims[q] >= maxc:
                        continue
                    if pol[q] == POL_HEURISTIC:
                        want = (down[q] == 0 and not out_at_once and dist[q] - 1 <= CLAIM_MAX_DIST
                                and _related(a1[q], aj[q], top, k, m, circular)
                                and _improves(a1[q], a2[q], aj[q], top, dist[q], k, m, mp))
                    elif D - sp < penalty + P:
                        want = False  # random: never when the buy would empty the stock
                    else:
                        state, x = randbelow(state, 4 * (P - 1))
                        want = x == 0
                    if want:
                        winner = q
                        break
                if winner >= 0:
                    q = winner
                    npile -= 1
                    live = False
                    nclaims[q] += 1
                    a1[q], a2[q], aj[q] = add_card(a1[q], a2[q], aj[q], top)
                    nl = _log(log, nl, log_on, L_CLAIM, q, top, p, 0, 0)
                    for t in range(penalty):
                        c, sp, npile, state, r = _draw(deck, sp, pile, npile, state)
                        if r:
                            resh += 1
                            nl = _log(log, nl, log_on, L_RESHUFFLE, -1, D - sp, 0, 0, 0)
                        if c < 0:
                            break
                        a1[q], a2[q], aj[q] = add_card(a1[q], a2[q], aj[q], c)
                        nl = _log(log, nl, log_on, L_PENALTY, q, c, 0, 0, 0)
                    if pol[q] == POL_HEURISTIC and not down[q]:
                        dist[q] = contract_distance(a1[q], a2[q], aj[q], k, m, mp, HEUR_CAP)
        # ---- lay down
        if not down[p] and ((heur and dist[p] == 0) or (not heur and contract_ok(a1[p], a2[p], aj[p], k, m, mp))):
            if heur:
                go = True
            else:
                state, x = randbelow(state, 2)
                go = x == 1
            if go and out_at_once and _n_cards(a1[p], a2[p], aj[p]) > 3 * k + 4 * m + 1:
                # Loba's final round with bought cards: only a lay-down that takes the whole hand
                ok, a1[p], a2[p], aj[p], nm, nl = _laydown_out(a1[p], a2[p], aj[p], k, m, mp, p, mrow, mcards,
                                                               mlen, mown, nm, log, nl, log_on)
                if ok:
                    down[p] = 1
                    laid_now = True
            elif go:
                ok, left, rows, l1, l2, lj = best_laydown(a1[p], a2[p], aj[p], k, m, mp, extend)
                nm0 = nm
                nm = _build_melds(a1[p], a2[p], aj[p], l1, l2, lj, rows, p, mrow, mcards, mlen, mown, nm)
                a1[p], a2[p], aj[p] = l1, l2, lj
                down[p] = 1
                laid_now = True
                nl = _log(log, nl, log_on, L_LAYDOWN, p, nm - nm0, 0, 0, 0)
                for i in range(nm0, nm):
                    nl = _log(log, nl, log_on, L_MELD, p, i, _pack(mcards[i], mlen[i], 0),
                              _pack(mcards[i], mlen[i], 10), mlen[i])
        # ---- lay off
        if down[p] and (same_turn or not laid_now):
            if heur:
                changed = True
                while changed:
                    changed = False
                    for c in range(52):  # naturals
                        while _count(a1[p], a2[p], aj[p], c) > 0:
                            i, w = _layable(mrow, nm, c, mp, False)
                            if i < 0:
                                break
                            _apply_layoff(mrow, mcards, mlen, i, c, w, circular)
                            a1[p], a2[p], aj[p] = remove_card(a1[p], a2[p], aj[p], c)
                            nl = _log(log, nl, log_on, L_LAYOFF, p, i, c, w * mrow[i, 0], 0)
                            changed = True
                    if swap_on:
                        for c in range(52):
                            if _count(a1[p], a2[p], aj[p], c) == 0:
                                continue
                            i, kk, w = _swap_target(mrow, nm, c, mp)
                            if i < 0:
                                continue
                            _apply_layoff(mrow, mcards, mlen, i, c, LAY_SWAP, circular)
                            a1[p], a2[p], aj[p] = remove_card(a1[p], a2[p], aj[p], c)
                            nl = _log(log, nl, log_on, L_SWAP, p, i, c, 0, 0)
                            w = lay_off(mrow[kk], JOKER, mp, False)
                            _apply_layoff(mrow, mcards, mlen, kk, JOKER, w, circular)
                            nl = _log(log, nl, log_on, L_LAYOFF, p, kk, JOKER, w * mrow[kk, 0], 0)
                            changed = True
                    while aj[p] > 0:
                        i, w = _layable(mrow, nm, JOKER, mp, False)
                        if i < 0:
                            break
                        _apply_layoff(mrow, mcards, mlen, i, JOKER, w, circular)
                        aj[p] -= 1
                        nl = _log(log, nl, log_on, L_LAYOFF, p, i, JOKER, w * mrow[i, 0], 0)
                        changed = True
            else:
                while True:
                    no = 0
                    for c in range(53):
                        if _count(a1[p], a2[p], aj[p], c) == 0:
                            continue
                        for i in range(nm):
                            w = lay_off(mrow[i], c, mp, False)
                            if w != LAY_NO and no < 1024:
                                opts_m[no] = i
                                opts_c[no] = c
                                opts_w[no] = w
                                no += 1
                    if no == 0:
                        break
                    state, x = randbelow(state, no + 1)
                    if x == no:
                        break
                    c = opts_c[x]
                    _apply_layoff(mrow, mcards, mlen, opts_m[x], c, opts_w[x], circular)
                    a1[p], a2[p], aj[p] = remove_card(a1[p], a2[p], aj[p], c)
                    nl = _log(log, nl, log_on, L_LAYOFF, p, opts_m[x], c, opts_w[x] * mrow[opts_m[x], 0], 0)
        if a1[p] == 0 and aj[p] == 0:
            went_out = p
            break
        # ---- discard
        if heur:
            if down[p]:
                c = _heur_discard_down(a1[p], a2[p], aj[p], mrow, nm, mp)
            else:
                c, d = _heur_discard(a1[p], a2[p], aj[p], k, m, mp, dist[p], HEUR_CAP)
                dist[p] = d
        else:
            state, x = randbelow(state, _n_cards(a1[p], a2[p], aj[p]))
            c = _nth_card(a1[p], a2[p], aj[p], x)
        a1[p], a2[p], aj[p] = remove_card(a1[p], a2[p], aj[p], c)
        pile[npile] = c
        npile += 1
        live = True
        last_disc = p
        nl = _log(log, nl, log_on, L_DISCARD, p, c, 0, 0, 0)
        if a1[p] == 0 and aj[p] == 0:
            went_out = p
            break
        p = (p + 1) % P
    if went_out >= 0:
        closed1 = 1 if laid_now else 0
        nl = _log(log, nl, log_on, L_OUT, went_out, closed1, 0, 0, 0)
    else:
        nl = _log(log, nl, log_on, L_CAPPED, -1, turns, 0, 0, 0)
    for s in range(P):
        hands[s, 0] = a1[s]
        hands[s, 1] = a2[s]
        hands[s, 2] = np.uint64(aj[s])
        seatout[S_CLAIMS, s] = nclaims[s]
        seatout[S_DOWN, s] = down[s]
        if s == went_out:
            pts = -10 if (closed1 and prm[P_MINUS10]) else 0
        else:
            pts = _hand_points(a1[s], a2[s], aj[s])
        seatout[S_POINTS, s] = pts
        nl = _log(log, nl, log_on, L_POINTS, s, pts, 0, 0, 0)
    info[I_WENT_OUT] = went_out
    info[I_TURNS] = turns
    info[I_RESHUFFLES] = resh
    info[I_CAPPED] = capped
    info[I_CLOSED1] = closed1
    return state, nm, npile, sp, nl


# ----------------------------------------------------------------------------- games
@njit(cache=True)
def _shuffle(seed, index, r, R, deck, deck_base, sizes, products):
    deck[:] = deck_base
    state = game_key(seed, index * R + r)
    return shuffle_prefix_planned(state, deck, sizes, products)


@njit(cache=True)
def _play_game(seed, index, prm, mp, rk, rm, rh, pol, cseat, deck_base, sizes, products,
               info, seatout, row0, log, nl, log_on):
    """Play every round of game ``index`` into rows ``row0 .. row0+R-1`` of ``info[:, N_INFO]`` /
    ``seatout[:, N_SEAT, P]`` (whole arrays and an offset: one compiled signature for every caller)."""
    P = prm[P_PLAYERS]
    R = prm[P_ROUNDS]
    D = deck_base.shape[0]
    deck = deck_base.copy()
    hands = np.zeros((P, 3), np.uint64)
    mrow = np.zeros((MAXM, 6), np.int64)
    mcards = np.zeros((MAXM, MAXC), np.int64)
    mlen = np.zeros(MAXM, np.int64)
    mown = np.zeros(MAXM, np.int64)
    pile = np.zeros(D + 1, np.int64)
    for r in range(R):
        state = _shuffle(seed, index, r, R, deck, deck_base, sizes, products)
        nl = _log(log, nl, log_on, L_ROUND, r % P, r, 0, 0, 0)
        res = _play_round(state, deck, r % P, rk[r], rm[r], rh[r], prm, mp, pol, cseat, seatout[row0 + r],
                          info[row0 + r],
                          hands, mrow, mcards, mlen, mown, pile, log, nl, log_on)
        nl = res[4]
    return nl


@njit(cache=True)
def _play_block(seed, start, g0, count, prm, mp, rk, rm, rh, pol, cseat, deck_base, sizes, products, info, seatout,
                log, log_on):
    R = prm[P_ROUNDS]
    for g in range(g0, g0 + count):
        _play_game(seed, start + g, prm, mp, rk, rm, rh, pol, cseat, deck_base, sizes, products,
                   info, seatout, g * R, log, np.int64(0), log_on)


@njit(cache=True, parallel=True)
def _play_chunk_kernel(seed, start, count, prm, mp, rk, rm, rh, pol, cseat, deck_base, sizes, products,
                       n_blocks, info, seatout, log, log_on):
    for b in prange(n_blocks):
        g0 = (count * b) // n_blocks
        g1 = (count * (b + 1)) // n_blocks
        _play_block(seed, start, g0, g1 - g0, prm, mp, rk, rm, rh, pol, cseat, deck_base, sizes, products,
                    info, seatout, log, log_on)


# ----------------------------------------------------------------------------- Python side
def is_continental(rules) -> bool:
    return getattr(rules, "GAME", "") == "continental"


def rounds_of(rules):
    """``[(label, k, m, cards dealt)]`` of the game's rounds."""
    return list(rules.rounds())


def kernel_params(rules, max_turns: int = DEFAULT_MAX_TURNS) -> np.ndarray:
    prm = np.zeros(N_PARAMS, np.int64)
    prm[P_PLAYERS] = rules.players
    prm[P_ROUNDS] = len(rules.rounds())
    prm[P_DECK] = 104 + rules.deck_jokers()
    prm[P_MAXTURNS] = max_turns
    prm[P_CLAIMS] = int(bool(rules.claims))
    if is_continental(rules):
        prm[P_GAME] = GAME_CONTINENTAL
        prm[P_PENALTY] = rules.claim_penalty_cards
        prm[P_MAXCLAIMS] = rules.max_claims_per_hand
        prm[P_DISC_CLAIM] = 1
        prm[P_SWAP] = int(bool(rules.joker_swap))
        prm[P_SAME_TURN] = 1
        prm[P_MINUS10] = 1
        prm[P_EXTEND] = 1
    else:
        prm[P_GAME] = GAME_LOBA
        prm[P_PENALTY] = 1
        prm[P_MAXCLAIMS] = rules.max_claims_per_round
        prm[P_DISC_CLAIM] = 0
        prm[P_SWAP] = 0
        prm[P_SAME_TURN] = 0
        prm[P_MINUS10] = 0
        prm[P_EXTEND] = 0
    return prm


def policy_codes(policies, players: int) -> np.ndarray:
    """Policies as int64 codes per seat (see :func:`simcore.tasks.policy_codes`)."""
    return _policy_codes(policies, players, POLICIES)


def claim_mask(claim_seats, players: int) -> np.ndarray:
    """``claim_seats``: None (all seats), or an iterable of seats allowed to claim."""
    if claim_seats is None:
        return np.ones(players, np.int64)
    m = np.zeros(players, np.int64)
    for s in claim_seats:
        s = int(s)
        if not 0 <= s < players:
            raise ValueError(f"claim seat {s} out of range 0..{players - 1}")
        m[s] = 1
    return m


class _Setup:
    def __init__(self, rules, policies, claim_seats, max_turns=DEFAULT_MAX_TURNS):
        self.rules = rules
        self.P = rules.players
        self.rounds = rounds_of(rules)
        self.R = len(self.rounds)
        self.prm = kernel_params(rules, max_turns)
        self.mp = tuple(int(x) for x in rules.meld_params())
        self.rk = np.array([k for _, k, _, _ in self.rounds], np.int64)
        self.rm = np.array([m for _, _, m, _ in self.rounds], np.int64)
        self.rh = np.array([h for _, _, _, h in self.rounds], np.int64)
        self.pol = policy_codes(policies, self.P)
        self.cseat = claim_mask(claim_seats, self.P)
        self.deck_base = make_deck(rules.deck_jokers()).astype(np.int64)
        D = self.deck_base.shape[0]
        self.sizes, self.products = shuffle_plan(D, D - 1)
        self.labels = [self.contract_label(lab) for lab, *_ in self.rounds]

    def contract_label(self, label: str) -> str:
        return label.split("_", 1)[1] if label.startswith("r") and "_" in label else label

    def args(self):
        return (self.prm, self.mp, self.rk, self.rm, self.rh, self.pol, self.cseat, self.deck_base,
                self.sizes, self.products)


def _match_results(info, seatout, count, R, P, continental):
    """Per-game totals, winner (lowest total; ties: most recent round won, then lowest seat)."""
    pts = seatout[:, S_POINTS, :].reshape(count, R, P)
    totals = pts.sum(axis=1)
    went = info[:, I_WENT_OUT].reshape(count, R)
    winner = np.zeros(count, np.int64)
    for g in range(count):
        t = totals[g]
        best = np.flatnonzero(t == t.min())
        w = int(best[0])
        if len(best) > 1:
            for r in range(R - 1, -1, -1):
                if went[g, r] in best:
                    w = int(went[g, r])
                    break
        winner[g] = w
    return totals, winner


def build_tables(start, count, setup, info, seatout) -> dict[str, dict[str, np.ndarray]]:
    """Column dicts of the ``hands`` and ``matches`` tables."""
    R, P = setup.R, setup.P
    cont = is_continental(setup.rules)
    games = np.arange(start, start + count, dtype=np.int64)
    hands = {
        "game": np.repeat(games, R),
        "round": np.tile(np.arange(R, dtype=np.int8), count),
        "contract": np.tile(np.array(setup.labels, dtype=object), count),
        "went_out": info[:, I_WENT_OUT].astype(np.int8),
        "turns": info[:, I_TURNS].astype(np.int16),
        "reshuffles": np.minimum(info[:, I_RESHUFFLES], 127).astype(np.int8),
        "capped": info[:, I_CAPPED].astype(bool),
    }
    hands["closed_in_one_turn"] = info[:, I_CLOSED1].astype(bool)
    for s in range(P):
        hands[f"claims_{s}"] = seatout[:, S_CLAIMS, s].astype(np.int8)
    for s in range(P):
        hands[f"laid_down_{s}"] = seatout[:, S_DOWN, s].astype(bool)
    for s in range(P):
        hands[f"points_{s}"] = seatout[:, S_POINTS, s].astype(np.int16)
    totals, winner = _match_results(info, seatout, count, R, P, cont)
    matches = {"game": games}
    for s in range(P):
        matches[f"total_{s}"] = totals[:, s].astype(np.int32)
    matches["winner"] = winner.astype(np.int8)
    claims = seatout[:, S_CLAIMS, :].reshape(count, R, P).sum(axis=1)
    for s in range(P):
        matches[f"claims_{s}"] = claims[:, s].astype(np.int16)
    went = info[:, I_WENT_OUT].reshape(count, R)
    if cont:
        closed = info[:, I_CLOSED1].reshape(count, R)
        for s in range(P):
            matches[f"minus10_{s}"] = ((went == s) & (closed == 1)).sum(axis=1).astype(np.int8)
    for s in range(P):
        matches[f"rounds_won_{s}"] = (went == s).sum(axis=1).astype(np.int8)
    return {"hands": hands, "matches": matches}


def play_chunk(seed: int, start: int, count: int, rules, policies="heuristic", claim_seats=None,
               n_blocks: int | None = None, max_turns: int = DEFAULT_MAX_TURNS):
    """Play games ``start .. start+count-1`` of run ``seed``.

    Returns ``{"hands": columns, "matches": columns}`` (numpy arrays; see
    :mod:`simcore.rummy.play_task`). Games run in parallel over ``n_blocks`` blocks;
    results do not depend on blocks or threads.
    """
    st = _Setup(rules, policies, claim_seats, max_turns)
    if n_blocks is None:
        n_blocks = min(max(count, 1), 1024)
    n_blocks = max(1, min(int(n_blocks), max(count, 1)))
    info = np.zeros((count * st.R, N_INFO), np.int64)
    seatout = np.zeros((count * st.R, N_SEAT, st.P), np.int64)
    if count:
        _play_chunk_kernel(np.uint64(seed), np.int64(start), np.int64(count), *st.args()[:7],
                           st.deck_base, st.sizes, st.products, np.int64(n_blocks), info, seatout,
                           np.zeros((1, 6), np.int64), False)
    return build_tables(start, count, st, info, seatout)


def play_logged(seed: int, index: int, rules, policies="heuristic", claim_seats=None,
                max_turns: int = DEFAULT_MAX_TURNS):
    """Game ``index`` (serial) with its move log: ``(tables, log rows int64[n, 6])``."""
    st = _Setup(rules, policies, claim_seats, max_turns)
    info = np.zeros((st.R, N_INFO), np.int64)
    seatout = np.zeros((st.R, N_SEAT, st.P), np.int64)
    log = np.zeros((LOG_CAP, 6), np.int64)
    nl = _play_game(np.uint64(seed), np.int64(index), *st.args(), info, seatout, np.int64(0), log, np.int64(0), True)
    if nl >= LOG_CAP:
        raise RuntimeError("move log overflow")
    return build_tables(index, 1, st, info, seatout), log[:nl].copy()


@njit(cache=True)
def _round_kernel(state, deck, first, k, m, H, prm, mp, pol, cseat, log, log_on):
    P = prm[P_PLAYERS]
    D = deck.shape[0]
    hands = np.zeros((P, 3), np.uint64)
    mrow = np.zeros((MAXM, 6), np.int64)
    mcards = np.zeros((MAXM, MAXC), np.int64)
    mlen = np.zeros(MAXM, np.int64)
    mown = np.zeros(MAXM, np.int64)
    pile = np.zeros(D + 1, np.int64)
    seatout = np.zeros((N_SEAT, P), np.int64)
    info = np.zeros(N_INFO, np.int64)
    state, nm, npile, sp, nl = _play_round(state, deck, first, k, m, H, prm, mp, pol, cseat, seatout, info,
                                           hands, mrow, mcards, mlen, mown, pile, log, np.int64(0), log_on)
    return hands, mrow[:nm].copy(), mcards[:nm].copy(), mlen[:nm].copy(), mown[:nm].copy(), \
        pile[:npile].copy(), sp, seatout, info, nl


@njit(cache=True)
def _round_deck(seed, index, r, R, deck_base, sizes, products):
    deck = deck_base.copy()
    state = _shuffle(seed, index, r, R, deck, deck_base, sizes, products)
    return deck, state


def _state_dict(res, deck, log):
    hands, mrow, mcards, mlen, mown, pile, sp, seatout, info, nl = res
    from cardsim.simcore.rummy.cards import planes_cards
    return {
        "hands": [planes_cards(int(h[0]), int(h[1]), int(h[2])) for h in hands],
        "melds": [[int(c) for c in mcards[i, :mlen[i]]] for i in range(len(mlen))],
        "meld_rows": mrow, "meld_owner": mown.tolist(),
        "pile": [int(c) for c in pile],
        "stock": [int(c) for c in deck[sp:]],
        "points": seatout[S_POINTS].tolist(), "claims": seatout[S_CLAIMS].tolist(),
        "laid_down": seatout[S_DOWN].tolist(),
        "went_out": int(info[I_WENT_OUT]), "turns": int(info[I_TURNS]),
        "reshuffles": int(info[I_RESHUFFLES]), "capped": bool(info[I_CAPPED]),
        "closed_in_one_turn": bool(info[I_CLOSED1]),
        "log": log[:nl].copy(),
    }


def round_state(seed: int, index: int, r: int, rules, policies="heuristic", claim_seats=None,
                max_turns: int = DEFAULT_MAX_TURNS, log_on: bool = True) -> dict:
    """Round ``r`` of game ``index`` played alone (as in :func:`play_chunk`) with its final state:
    hands, table melds (cards), discard pile, stock, per-seat results and the move log."""
    st = _Setup(rules, policies, claim_seats, max_turns)
    deck, state = _round_deck(np.uint64(seed), np.int64(index), np.int64(r), np.int64(st.R), st.deck_base,
                              st.sizes, st.products)
    _, k, m, H = st.rounds[r]
    log = np.zeros((LOG_CAP if log_on else 1, 6), np.int64)
    res = _round_kernel(np.uint64(state), deck, np.int64(r % st.P), np.int64(k), np.int64(m), np.int64(H), st.prm,
                        st.mp, st.pol, st.cseat, log, log_on)
    return _state_dict(res, deck, log)


def play_round_from_deck(deck, rules, r: int = 0, policies="heuristic", claim_seats=None, first: int = 0,
                         state: int = 0, max_turns: int = DEFAULT_MAX_TURNS) -> dict:
    """Play round ``r``'s contract from a given pack order (card codes or texts; seat ``s`` gets
    ``deck[s*H:(s+1)*H]``, then the up-card, then the stock, drawn in order)."""
    from cardsim.simcore.rummy.cards import card_code
    st = _Setup(rules, policies, claim_seats, max_turns)
    codes = np.array([card_code(c) if isinstance(c, str) else int(c) for c in deck], np.int64)
    _, k, m, H = st.rounds[r]
    log = np.zeros((LOG_CAP, 6), np.int64)
    res = _round_kernel(np.uint64(state), codes, np.int64(first), np.int64(k), np.int64(m), np.int64(H), st.prm,
                        st.mp, st.pol, st.cseat, log, True)
    out = _state_dict(res, codes, log)
    out["lines"] = format_log(out["log"], rules)
    return out


# ----------------------------------------------------------------------------- text
def _unpack(b, c, n):
    out = []
    for i in range(n):
        v = b if i < 10 else c
        out.append((int(v) >> (6 * (i % 10))) & 63)
    return out


def _cards(codes) -> str:
    return " ".join(card_text(int(c)) for c in codes)


_WHERE = {LAY_HIGH: "high end", LAY_LOW: "low end"}


def format_log(log, rules) -> list[str]:
    """Text lines of a move log (see ``L_*`` kinds)."""
    from cardsim.simcore.rummy.cards import planes_cards
    lines = []
    labels = [lab for lab, *_ in rules.rounds()]
    for kind, seat, a, b, c, d in np.asarray(log).tolist():
        if kind == L_ROUND:
            lines.append(f"== round {a + 1} ({labels[a]}): seat {seat} plays first")
        elif kind == L_DEAL:
            a1 = a | (b << 26)
            a2 = c | ((d & 0xFFFFFFFF) << 26)
            lines.append(f"deal seat {seat}: {_cards(planes_cards(a1, a2, d >> 32))}")
        elif kind == L_UP:
            lines.append(f"up-card: {card_text(a)}")
        elif kind == L_TAKE_PILE:
            lines.append(f"seat {seat}: takes {card_text(a)} from the pile")
        elif kind == L_TAKE_STOCK:
            lines.append(f"seat {seat}: takes {card_text(a)} from the stock")
        elif kind == L_RESHUFFLE:
            lines.append(f"stock empty: pile reshuffled into a new stock of {a} cards")
        elif kind == L_CLAIM:
            lines.append(f"seat {seat}: claims {card_text(a)} (refused by seat {b})")
        elif kind == L_PENALTY:
            lines.append(f"seat {seat}: penalty card {card_text(a)} from the stock")
        elif kind == L_LAYDOWN:
            lines.append(f"seat {seat}: lays down {a} melds")
        elif kind == L_MELD:
            lines.append(f"  meld {a}: {_cards(_unpack(b, c, d))}")
        elif kind == L_LAYOFF:
            where = _WHERE.get(c, "")
            lines.append(f"seat {seat}: lays off {card_text(b)} on meld {a}" + (f" ({where})" if where else ""))
        elif kind == L_SWAP:
            lines.append(f"seat {seat}: swaps {card_text(b)} for the joker of meld {a}")
        elif kind == L_DISCARD:
            lines.append(f"seat {seat}: discards {card_text(a)}")
        elif kind == L_OUT:
            lines.append(f"seat {seat} goes out" + (" (laid down and closed in one turn)" if a else ""))
        elif kind == L_CAPPED:
            lines.append(f"round capped after {a} turns: nobody went out")
        elif kind == L_POINTS:
            lines.append(f"points seat {seat}: {a}")
    return lines


def replay_game(seed: int, index: int, rules, policies="heuristic", claim_seats=None,
                max_turns: int = DEFAULT_MAX_TURNS) -> list[str]:
    """Text of game ``index`` exactly as :func:`play_chunk` plays it."""
    tables, log = play_logged(seed, index, rules, policies, claim_seats, max_turns)
    m = tables["matches"]
    P = rules.players
    head = [f"{rules.GAME} game {index}, seed {seed}"]
    tail = ["totals: " + ", ".join(f"seat {s}: {int(m[f'total_{s}'][0])}" for s in range(P)),
            f"winner: seat {int(m['winner'][0])}"]
    return head + format_log(log, rules) + tail

"""The rummy search policy: determinized flat Monte Carlo over a seat's candidate decisions, rollouts to the end of the round.

At each decision of a ``search:N`` seat (take pile or stock, claim (buy / *robar de
contra*), lay down, lay off, discard) the search

1. lists candidates, the heuristic's own choice first (ties go to it): take 2 (pile,
   stock), claim 2, lay down 2 (when the hand holds the contract), lay off 2 (every
   lay-off the heuristic would make, or none; only when a card can be laid off), discard
   at most :data:`MAX_DISCARD_CANDIDATES` distinct cards (prefilter: the heuristic's card,
   then the cards whose removal keeps the contract distance, most points first, then the
   other cards in the same order), plus the card worth most points (a joker first) when
   it is not among them; a single candidate is played without search;
2. samples ``W = max(1, N // candidates)`` *worlds* (:func:`sample_world`) from what the seat
   knows: its hand, the table melds, the discard pile, every opponent's card count and
   the cards each opponent is known to hold (taken from the pile or claimed and not yet
   played), the stock size, the turns played. The other cards (the pack minus everything
   seen) are dealt with the search stream to the opponents' unknown places and the stock,
   an opponent holding what a player who keeps the cards serving its contract would hold
   (Loba: a random hand improved by the heuristic's own draw-and-discard over the turns it
   played; Continental: the nearest to the contract of a few random hands). Nothing else
   of the true state is read;
3. applies every candidate in every world (common worlds and common rollout streams:
   paired comparisons) and plays the round to its end with the heuristic at every seat
   (the same engine step as real play), scoring the end of the round by the seat's
   **chance to win the match** (:func:`match_win_chance`): from the match totals after
   the round and the rounds still to play (the state's match context); in the last round
   that is whether it wins;
4. plays the candidate with the highest mean chance when it beats the heuristic's choice by
   more than ``SWITCH_Z`` standard errors of the paired differences, else the heuristic's
   choice.

Early stopping (racing): the worlds are played in order and, after a quarter and half of
them (at least :data:`RACE_MIN_WORLDS`), an alternative that is no better than the heuristic's choice so far (its
paired mean difference trails by :data:`RACE_DROP_Z` standard errors or more) is no longer
rolled out; when none is left the heuristic's choice is played. The search keeps the
heuristic's choice in about 97% of its decisions, so most stop early: about half the
rollouts, with the same decision in more than 99% of the states (``python
benchmarks/race_settings.py``, ``python benchmarks/bench_search_rummy.py --skip-strength``). ``search-full:N`` (``FULL_FLAG``) rolls out
every candidate in every world: the search before racing, bit for bit.

``search-plain:N`` (``PLAIN_FLAG`` in the budget word) scores the round's own points
instead (0, or -10 for Continental's close in one turn, when it goes out; fewest is
best), whatever the match stands at: the search before it played for the match, bit for
bit (golden cases ``play_loba_search_plain``, ``play_continental_search_plain``, written by
the code before the change).

``oracle`` (a negative budget) is the same search where every world is the true state with
only the stock's order redrawn: it sees every hand and what the stock holds.

The search stream is ``search_key(seed, game * rounds + round)``, never the game's own
stream, so the deal, the stock and the other seats' random choices are the same whatever
the seats' policies (common random numbers across strengths), and a run is identical for
any chunking or thread count.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from cardsim.simcore.framework.tasks import FULL_FLAG, PLAIN_FLAG
from cardsim.simcore.primitives.rng import next_u64, randbelow
from cardsim.simcore.rummy.cards import add_card, card_points, remove_card
from cardsim.simcore.rummy.contract import _search_sorted as _search
from cardsim.simcore.rummy.contract import contract_ok
from cardsim.simcore.rummy.engine import (advance, apply_decision, count_of, distance, layable, n_cards,
                                          round_points)
from cardsim.simcore.rummy.luck import N_LUCK
from cardsim.simcore.rummy.policies import DISCARD_ORDER, HEUR_CAP, choose_heuristic
from cardsim.simcore.rummy.state import (F_DIST, F_DOWN, F_TOTAL, GAME_LOBA, LO_GREEDY, LO_STOP, P_CLOSE, P_GAME,
                                         P_PLAYERS, PH_CLAIM, PH_LAYDOWN, PH_LAYOFF, PH_TAKE, V_K, V_M, V_NM, V_NPILE,
                                         V_PHASE, V_ROUNDS_LEFT, V_SP, V_TURNS, V_WENT_OUT, copy_state, new_state)

MAX_DISCARD_CANDIDATES = 4
#: room for the discard candidates plus the card worth most points
MAX_CANDIDATES = 8
#: An alternative replaces the heuristic's choice only when its mean paired difference in points
#: is below ``-SWITCH_Z`` standard errors (flat Monte Carlo over noisy round scores otherwise
#: follows the noise: with plain argmin, search:64 scored more points than the heuristic; on the
#: same 160 Continental matches 2 gained 5.9 points per round against the heuristic, 3 gained 1.6;
#: on 160 Loba matches 1 lost 0.6-0.9 points per round where 2 gained 1.3-2.3).
SWITCH_Z = 2.0
#: Racing (``search:N``; ``search-full:N`` never stops early): after ``max(RACE_MIN_WORLDS,
#: W // f)`` of the ``W`` worlds for each ``f`` here, an alternative whose paired
#: mean difference trails the heuristic's choice by ``RACE_DROP_Z`` standard errors or more
#: (0: its mean is no better) stops being rolled out; when none is left, the heuristic's choice
#: is played. The search switches away from the heuristic in about 3% of its decisions, so
#: most decisions stop after a quarter or half of the worlds. (``python
#: benchmarks/race_settings.py`` replays settings on the full search's loss tables: checks at
#: an eighth too, or from 4 worlds, save more rollouts but lose some of the full search's
#: switches; these lose none in Loba's 1,115 decisions and need 0.57 of the rollouts.)
RACE_CHECKS = (4, 2)
RACE_MIN_WORLDS = 8
RACE_DROP_Z = 0.0
#: Candidate hands per opponent in a Continental world (see :func:`sample_world`).
MAX_TRIES = 4
#: Loba worlds: draw-and-discard turns replayed per opponent (see :func:`heuristic_hand`).
MAX_REPLAYED_TURNS = 8
#: Standard deviation of one seat's points in one round among heuristic players, the scale of
#: the rounds still to play in :func:`match_win_chance` (``cardsim play loba|continental
#: --games 400 --seed 1 --out D``, the ``points_s`` columns of ``hands``: Loba 43.8, Continental 48.2).
ROUND_POINTS_SD = 46.0
#: Probabilists' Gauss-Hermite rule (E[f(Z)], Z standard normal, = sum(w * f(z))): the seat's own
#: future points in :func:`match_win_chance`.
_GH_Z, _GH_W = np.polynomial.hermite_e.hermegauss(12)
_GH_W = _GH_W / _GH_W.sum()
#: the budget word without its variant flags
_BUDGET_MASK = np.int64(PLAIN_FLAG - 1)


@njit(cache=True, _nrt=False)
def _discard_rank(c):
    """The heuristic's discard preference: most points first, then the highest code; a joker last."""
    if c >= 52:
        return -1
    return card_points(c) * 64 + c


@njit(cache=True, _nrt=False)
def heuristic_hand(cards, t, n, cnt, turns, known, k, m, mp, sstate):
    """Deal an opponent's ``cnt`` unknown cards into ``cards[t:t+cnt]`` (drawn from ``cards[t:n]``,
    stream ``sstate``) as a heuristic player would hold them after ``turns`` turns: a random
    hand, then per turn a random card drawn from the rest and a discard by the heuristic's rule
    among the unknown cards (most points among the cards that keep the contract distance,
    ``known`` cards kept); a discarded card goes back among the rest. Returns ``(search state,
    d)``: ``d`` the capped contract distance of the hand (``known`` plus the dealt cards) as
    the replay kept it (exact: a card drawn lowers it by at most one, a card dropped raises it by
    at most one), or -1 when no turn was replayed.

    Why: a Loba player keeps what serves its contract; uniformly dealt hands looked ~0.5-0.9
    cards farther from the contract than the real heuristic hands mid-round, best-of-a-few
    hands too near early in the round. Replaying the heuristic's own selection matches both."""
    for i in range(cnt):
        sstate, x = randbelow(sstate, n - t - i)
        y = cards[t + i]
        cards[t + i] = cards[t + i + x]
        cards[t + i + x] = y
    turns = min(turns, n - t - cnt)
    if turns <= 0 or cnt <= 0:
        return sstate, -1
    b1 = np.uint64(0)
    b2 = np.uint64(0)
    bj = np.int64(0)
    for c in range(53):
        for u in range(known[c]):
            b1, b2, bj = add_card(b1, b2, bj, c)
    for i in range(cnt):
        b1, b2, bj = add_card(b1, b2, bj, cards[t + i])
    d = distance(b1, b2, bj, k, m, mp, HEUR_CAP)
    for _ in range(turns):
        # draw: a random card of the rest into cards[t + cnt]
        sstate, x = randbelow(sstate, n - t - cnt)
        y = cards[t + cnt]
        cards[t + cnt] = cards[t + cnt + x]
        cards[t + cnt + x] = y
        c = cards[t + cnt]
        if 0 < d <= HEUR_CAP + 1:
            c1, c2, cj = add_card(b1, b2, bj, c)
            if _search(c1, c2, cj, m, d - 1, k, mp[0], mp[1], mp[2], mp[3]):
                d -= 1
        b1, b2, bj = add_card(b1, b2, bj, c)
        # discard among cards[t:t+cnt+1], by preference, the first that keeps the distance
        tested = np.int64(0)  # bit i: cards[t + i] already tried
        pick = -1
        first = -1
        for _r in range(cnt + 1):
            bi = -1
            bv = -(1 << 30)
            for i in range(cnt + 1):
                if not (tested >> i) & 1 and _discard_rank(cards[t + i]) > bv:
                    bv = _discard_rank(cards[t + i])
                    bi = i
            tested |= np.int64(1) << bi
            if first < 0:
                first = bi
            if d > HEUR_CAP:  # beyond the cap the heuristic drops the card worth most points
                pick = bi
                break
            c1, c2, cj = remove_card(b1, b2, bj, cards[t + bi])
            if _search(c1, c2, cj, m, d, k, mp[0], mp[1], mp[2], mp[3]):
                pick = bi
                break
        if pick < 0:
            pick = first
            d = min(d + 1, HEUR_CAP + 1)
        b1, b2, bj = remove_card(b1, b2, bj, cards[t + pick])
        y = cards[t + pick]  # the discard goes back among the rest: cards[t + cnt]
        cards[t + pick] = cards[t + cnt]
        cards[t + cnt] = y
    return sstate, d


@njit(cache=True, _nrt=False)
def refresh_distance(st, q, mp):
    """Recompute seat ``q``'s contract distance (the heuristic's memory) from its hand."""
    seat, sv = st[3], st[11]
    if not seat[F_DOWN, q]:
        seat[F_DIST, q] = distance(st[0][q], st[1][q], st[2][q], sv[V_K], sv[V_M], mp, HEUR_CAP)


@njit(cache=True, _nrt=True)
def unseen_pool(st, me, prm):
    """Counts per card code (``int64[53]``, 52 = joker) of the cards seat ``me`` has not seen:
    the pack minus its hand, the table, the pile and the opponents' known cards."""
    h1, h2, hj, seen, mcards, mlen, pile, deck, sv = st[0], st[1], st[2], st[4], st[6], st[7], st[9], st[10], st[11]
    P = prm[P_PLAYERS]
    pool = np.full(53, 2, np.int64)
    pool[52] = deck.shape[0] - 104
    for c in range(53):
        pool[c] -= count_of(h1[me], h2[me], hj[me], c)
    for i in range(sv[V_NM]):
        for t in range(mlen[i]):
            pool[mcards[i, t]] -= 1
    for t in range(sv[V_NPILE]):
        pool[pile[t]] -= 1
    for q in range(P):
        if q != me:
            for c in range(53):
                pool[c] -= seen[q, c]
    return pool


@njit(cache=True, _nrt=True)
def sample_world(st, me, prm, mp, world, sstate):
    """Copy ``st`` into ``world`` with the cards seat ``me`` cannot see redealt at random (stream
    ``sstate``) consistently with its information; every seat's distance memory is recomputed
    from the sampled hands. Returns the new search state.

    Opponent model: players keep the cards that serve their contract, so a uniform redeal makes
    opponents who have played for a while look far weaker than they are (the search then
    overrates slow plans). Loba: each opponent not yet down gets :func:`heuristic_hand` over
    ``turns / players`` turns (at most :data:`MAX_REPLAYED_TURNS`). Continental: each opponent
    not yet down draws ``1 + turns / players`` (at most :data:`MAX_TRIES`) candidate hands from
    the unseen cards and keeps the one nearest to its contract. (Measured on the same 160
    matches, search:64 minus heuristic per round: Loba -4.3 points with the replay, -3.3 with
    best-of-N; Continental -6.4 with best-of-N, -3.1 with the replay.) Both use public
    information only (turns played, who is down)."""
    return _sample_world(st, me, prm, mp, world, sstate, np.int64(-1))


@njit(cache=True, _nrt=True)
def _sample_world(st, me, prm, mp, world, sstate, me_dist):
    """:func:`sample_world`; ``me_dist`` >= 0: seat ``me``'s contract distance, known exactly
    (its hand is the same in every world), is not searched again."""
    copy_state(world, st)
    h1, h2, hj, seat, seen, deck, sv = world[0], world[1], world[2], world[3], world[4], world[10], world[11]
    P = prm[P_PLAYERS]
    k, m = sv[V_K], sv[V_M]
    pool = unseen_pool(st, me, prm)
    n = 0
    for c in range(53):
        n += pool[c]
    cards = np.empty(max(n, 1), np.int64)
    keep = np.empty(max(n, 1), np.int64)
    t = 0
    for c in range(53):
        for u in range(pool[c]):
            cards[t] = c
            t += 1
    t = 0  # cards[:t] are dealt, cards[t:n] remain
    tries = min(MAX_TRIES, 1 + sv[V_TURNS] // P)
    kept_d = np.full(P, -1, np.int64)  # an opponent's distance known from its dealing: no need to search it again
    kept_d[me] = me_dist
    for q in range(P):
        if q == me:
            continue
        cnt = n_cards(h1[q], h2[q], hj[q])
        for c in range(53):
            cnt -= seen[q, c]
        if prm[P_GAME] == GAME_LOBA and not seat[F_DOWN, q]:
            sstate, kept_d[q] = heuristic_hand(cards, t, n, cnt, min(MAX_REPLAYED_TURNS, sv[V_TURNS] // P), seen[q],
                                               k, m, mp, sstate)
            nt = 0  # cards[t:t+cnt] hold the hand
        else:
            nt = tries if not seat[F_DOWN, q] else 1
        best_d = 1 << 20
        for trial in range(nt):
            for i in range(cnt):  # a uniform cnt-subset of the remaining cards into cards[t:t+cnt]
                sstate, x = randbelow(sstate, n - t - i)
                y = cards[t + i]
                cards[t + i] = cards[t + i + x]
                cards[t + i + x] = y
            if nt == 1:
                break
            b1 = np.uint64(0)
            b2 = np.uint64(0)
            bj = np.int64(0)
            for c in range(53):
                for u in range(seen[q, c]):
                    b1, b2, bj = add_card(b1, b2, bj, c)
            for i in range(cnt):
                b1, b2, bj = add_card(b1, b2, bj, cards[t + i])
            # only a hand nearer than the best so far is kept: search no deeper than best_d - 1
            # (the same hand is kept as with the full distance; the draws above are made either way)
            d = distance(b1, b2, bj, k, m, mp, min(HEUR_CAP, best_d - 1))
            if d < best_d:
                best_d = d
                for i in range(cnt):
                    keep[i] = cards[t + i]
        if nt > 1:  # move the kept hand to cards[t:t+cnt] (the chosen cards are among the remaining ones)
            kept_d[q] = best_d
            for i in range(cnt):
                for u in range(t + i, n):
                    if cards[u] == keep[i]:
                        y = cards[t + i]
                        cards[t + i] = cards[u]
                        cards[u] = y
                        break
        h1[q] = 0
        h2[q] = 0
        hj[q] = 0
        for c in range(53):
            for u in range(seen[q, c]):
                _add(world, q, c)
        for i in range(cnt):
            _add(world, q, cards[t + i])
        t += cnt
    for i in range(t, n - 1):  # the stock: the rest in random order
        sstate, x = randbelow(sstate, n - i)
        y = cards[i]
        cards[i] = cards[i + x]
        cards[i + x] = y
    for i in range(sv[V_SP], deck.shape[0]):
        deck[i] = cards[t]
        t += 1
    for q in range(P):
        if kept_d[q] >= 0:
            seat[F_DIST, q] = kept_d[q]
        else:
            refresh_distance(world, q, mp)
    return sstate


@njit(cache=True, _nrt=False)
def peek_world(st, world, sstate):
    """The ``oracle``'s world: a copy of the true ``st`` (every hand, the heuristic's
    memories) with only the stock's order redrawn (stream ``sstate``): it sees what every
    hand and the stock hold, not the order the stock will be drawn in. Returns the new
    search state."""
    copy_state(world, st)
    deck, sv = world[10], world[11]
    lo = sv[V_SP]
    n = deck.shape[0] - lo
    for i in range(n - 1):  # Fisher-Yates over the stock
        sstate, x = randbelow(sstate, n - i)
        y = deck[lo + i]
        deck[lo + i] = deck[lo + i + x]
        deck[lo + i + x] = y
    return sstate


@njit(cache=True, _nrt=False)
def _add(st, q, c):
    st[0][q], st[1][q], st[2][q] = add_card(st[0][q], st[1][q], st[2][q], c)


@njit(cache=True, _nrt=False, inline="always")
def rollout(st, prm, mp, cseat, reach, state, log, no_luck):
    """Play the round in ``st`` to its end with the heuristic at every seat (no log, no luck:
    ``no_luck`` has no rows)."""
    nl = np.int64(0)
    log_on = np.bool_(False)
    while True:
        state, nl, q = advance(st, prm, mp, cseat, state, log, nl, log_on, no_luck)
        if q < 0:
            return state
        d = choose_heuristic(st, q, prm, mp)
        state, nl = apply_decision(st, d, prm, mp, cseat, reach, state, log, nl, log_on, no_luck)


@njit(cache=True, _nrt=False)
def match_win_chance(st, prm, me):
    """Seat ``me``'s chance to win the match once the round in ``st`` has ended (float in [0, 1]).

    Totals after the round are the match context ``F_TOTAL`` plus the round's points. In the
    last round (``V_ROUNDS_LEFT`` 0) it is the result: 1 for the lowest total; a tie goes to
    the tied player who went out this round, else is shared. With ``L`` rounds to play, each
    seat's future points are modelled as independent normals of SD ``ROUND_POINTS_SD *
    sqrt(L)`` (equal means: nobody is assumed stronger): ``P = E_Z[prod_q Phi((T_q - T_me -
    s Z) / s)]``, ``Z`` the seat's own future points, by Gauss-Hermite quadrature."""
    seat, sv = st[3], st[11]
    P = prm[P_PLAYERS]
    mine = seat[F_TOTAL, me] + round_points(st, prm, me)
    left = sv[V_ROUNDS_LEFT]
    if left <= 0:
        tied = 1
        went = sv[V_WENT_OUT]
        for q in range(P):
            if q != me:
                t = seat[F_TOTAL, q] + round_points(st, prm, q)
                if t < mine:
                    return 0.0
                if t == mine:
                    if q == went:
                        return 0.0
                    tied += 1
        return 1.0 if went == me else 1.0 / tied
    scale = ROUND_POINTS_SD * math.sqrt(float(left))
    chance = 0.0
    for i in range(_GH_Z.shape[0]):
        mine_end = mine + scale * _GH_Z[i]
        prod = 1.0
        for q in range(P):
            if q != me:
                gap = (seat[F_TOTAL, q] + round_points(st, prm, q) - mine_end) / scale
                prod *= 0.5 * (1.0 + math.erf(gap / math.sqrt(2.0)))
        chance += _GH_W[i] * prod
    return chance


@njit(cache=True, _nrt=False)
def candidates(st, me, prm, mp, out):
    """The candidate decisions of seat ``me`` in the phase due, the heuristic's first, into ``out``; returns the count."""
    h1, h2, hj, seat, mrow, sv = st[0], st[1], st[2], st[3], st[5], st[11]
    refresh_distance(st, me, mp)
    ph = sv[V_PHASE]
    k, m = sv[V_K], sv[V_M]
    if ph == PH_LAYDOWN and not contract_ok(h1[me], h2[me], hj[me], k, m, mp):
        out[0] = 0
        return 1
    if ph == PH_LAYOFF:
        any_lay = False
        for c in range(53):
            if count_of(h1[me], h2[me], hj[me], c) > 0 and layable(mrow, sv[V_NM], c, mp)[0] >= 0:
                any_lay = True
                break
        out[0] = LO_GREEDY
        if not any_lay:
            return 1
        out[1] = LO_STOP
        return 2
    d_before = seat[F_DIST, me]
    h = choose_heuristic(st, me, prm, mp)
    seat[F_DIST, me] = d_before  # the heuristic's discard updates its memory: undo
    out[0] = h
    if ph == PH_TAKE or ph == PH_CLAIM or ph == PH_LAYDOWN:
        out[1] = 1 - h
        return 2
    # discard: the heuristic's card, then cards keeping the distance, then the rest (most points first)
    n = 1
    for rnd in range(2):
        for t in range(53):
            c = DISCARD_ORDER[t] if t < 52 else 52
            if c == h or count_of(h1[me], h2[me], hj[me], c) == 0 or n >= MAX_DISCARD_CANDIDATES:
                continue
            keeps = True
            if not seat[F_DOWN, me] and d_before <= HEUR_CAP:
                b1, b2, bj = h1[me], h2[me], hj[me]
                if c == 52:
                    bj -= 1
                else:
                    bit = np.uint64(1) << np.uint64(c)
                    if b2 & bit:
                        b2 ^= bit
                    else:
                        b1 ^= bit
                keeps = _search(b1, b2, bj, m, d_before, k, mp[0], mp[1], mp[2], mp[3])
            if keeps == (rnd == 0):
                out[n] = c
                n += 1
    # the card worth most points (a joker first): the heuristic never weighs the points it would be
    # caught with against its contract distance (Loba search:64 minus heuristic, same 160 matches:
    # -3.3 points per round with this candidate, -1.3 without)
    top = np.int64(52) if hj[me] > 0 else np.int64(-1)
    t = 0
    while top < 0 and t < 52:
        if count_of(h1[me], h2[me], hj[me], DISCARD_ORDER[t]) > 0:
            top = DISCARD_ORDER[t]
        t += 1
    for i in range(n):
        if out[i] == top:
            top = -1
    if top >= 0:
        out[n] = top
        n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=True)
def _paired_stats(diff, diff2, i, w):
    """Mean and standard error of candidate ``i``'s paired differences over ``w`` worlds."""
    mean = diff[i] / w
    var = (diff2[i] / w - mean * mean) * w / max(w - 1, 1)
    return mean, np.sqrt(max(var, 0.0) / w)


@njit(cache=True, _nrt=False, forceinline=True)
def _race_check(worlds, W):
    """Is ``worlds`` (of ``W``) one of the race's checkpoints?"""
    for f in RACE_CHECKS:
        if worlds == max(RACE_MIN_WORLDS, W // f):
            return True
    return False


@njit(cache=True, _nrt=True)
def search_choose(st, me, prm, mp, cseat, reach, budget, sstate):
    """The search's decision for seat ``me`` in the phase due. Returns ``(search state, decision)``.

    A negative ``budget`` is the ``oracle``: it **peeks**, every world being the true state
    with the stock reshuffled (:func:`peek_world`), the labelled upper bound of measured skill.
    ``PLAIN_FLAG`` in a positive budget: ``search-plain``, scoring the round's points;
    ``FULL_FLAG``: ``search-full``, no early stopping (:data:`RACE_CHECKS`; the oracle and
    ``search-plain`` never stop early either)."""
    plain = budget > 0 and (budget & PLAIN_FLAG) != 0
    race = budget > 0 and not plain and (budget & FULL_FLAG) == 0
    if budget > 0:
        budget &= _BUDGET_MASK
    cand = np.zeros(MAX_CANDIDATES, np.int64)
    nc = candidates(st, me, prm, mp, cand)
    if nc == 1:
        return sstate, cand[0]
    P = prm[P_PLAYERS]
    D = st[10].shape[0]
    world = new_state(P, D)
    work = new_state(P, D)
    log = np.zeros((1, 6), np.int64)
    no_luck = np.zeros((0, N_LUCK))  # the worlds' draws are not the game's: no luck recorded
    # paired differences to the heuristic's candidate (index 0): sum and sum of squares per candidate
    diff = np.zeros(nc, np.float64)
    diff2 = np.zeros(nc, np.float64)
    loss = np.zeros(nc, np.float64)  # lower is better: round points, or minus the match chance
    alive = np.ones(nc, np.bool_)  # candidates still raced (all of them without racing)
    peek = budget < 0
    W = max(1, abs(budget) // nc)
    # seat me's distance is exact in st (candidates() refreshed it): worlds keep it. After a
    # candidate, me's hand is often the same in every world (a discard): the same hand keeps
    # the distance found in the last world (both exactly what a new search would find)
    me_dist = st[3][F_DIST, me] if not st[3][F_DOWN, me] else np.int64(-1)
    # the rollouts' players check a close with the greedy lay-offs (switch exact_close off): the exact
    # close search costs ~3x in rollouts and only refines the simulated players; the decision
    # searched for (cand[i]) still uses the table's rules
    rprm = prm.copy()
    rprm[P_CLOSE] = 0
    memo_hand = np.full((nc, 3), -1, np.int64)
    memo_dist = np.zeros(nc, np.int64)
    for w in range(W):
        if peek:
            sstate = peek_world(st, world, sstate)
        else:
            sstate = _sample_world(st, me, prm, mp, world, sstate, me_dist)
        sstate, rstate = next_u64(sstate)
        for i in range(nc):
            if not alive[i]:
                continue
            copy_state(work, world)
            rs, nl = apply_decision(work, cand[i], prm, mp, cseat, reach, rstate, log, np.int64(0), np.bool_(False),
                                    no_luck)
            if not work[3][F_DOWN, me]:
                h1, h2, hj = np.int64(work[0][me]), np.int64(work[1][me]), work[2][me]
                if memo_hand[i, 0] == h1 and memo_hand[i, 1] == h2 and memo_hand[i, 2] == hj:
                    work[3][F_DIST, me] = memo_dist[i]
                else:
                    refresh_distance(work, me, mp)
                    memo_hand[i, 0], memo_hand[i, 1], memo_hand[i, 2] = h1, h2, hj
                    memo_dist[i] = work[3][F_DIST, me]
            rs = rollout(work, rprm, mp, cseat, reach, rs, log, no_luck)
            if plain:
                loss[i] = float(round_points(work, prm, me))
            else:
                loss[i] = -match_win_chance(work, prm, me)
        for i in range(1, nc):
            if alive[i]:
                x = loss[i] - loss[0]
                diff[i] += x
                diff2[i] += x * x
        if race and w + 1 < W and _race_check(w + 1, W):
            # drop the alternatives trailing the heuristic's choice by RACE_DROP_Z standard errors
            for i in range(1, nc):
                if alive[i]:
                    mean, se = _paired_stats(diff, diff2, i, w + 1)
                    if mean >= RACE_DROP_Z * se and not (se == 0.0 and mean < 0.0):
                        alive[i] = False
            if not alive[1:].any():
                return sstate, cand[0]
    # the heuristic's choice stands unless another candidate is better by SWITCH_Z standard errors
    best = 0
    best_mean = 0.0
    for i in range(1, nc):
        if not alive[i]:
            continue
        mean, se = _paired_stats(diff, diff2, i, W)
        if mean < best_mean and (mean < -SWITCH_Z * se or (se == 0.0 and W > 1)):
            best = i
            best_mean = mean
    return sstate, cand[best]

"""Tiến Lên search policy: determinized flat Monte Carlo with fitted opponent models.

At each decision of a ``search:N`` seat (every decision type of the game: a lead, a
follow or pass, and a passed player's bomb-or-pass-again under ``bombs_after_pass``):

1. **Candidates** -- every legal play when there are at most ``MAX_CANDIDATES``, else
   the heuristic's canonical plays (the lowest-suit play of each class and top rank)
   ranked by the heuristic's value, best ``MAX_CANDIDATES`` kept; plus the pass when it
   is allowed. Candidates are ordered by the heuristic's value, so ties go to the play
   the heuristic prefers. A play that empties the hand is taken at once, and a forced
   decision (one candidate) costs nothing.
2. **Worlds** -- ``max(1, N // candidates)`` determinizations, each shared by all
   candidates (paired comparisons); so ``N`` is the rollouts per decision, except that a
   budget below the number of candidates still gives each candidate one rollout. A
   world deals the cards the seat cannot see -- the 52 cards minus its hand, the cards
   played so far, and the cards below the match's first lead card (the first leader
   held the lowest dealt card, so those were not dealt) -- at random to the opponents
   by their card counts. The sampler reads only the seat's information (its hand, the
   played cards, the counts, the table), never the opponents' hands. (The worlds are
   uniform; what the opponents' decisions reveal enters through their models, 5. The
   absence of an instant win is not conditioned on.)
3. **Rollouts** -- each candidate is applied in each world and the game is played on
   (the same engine step as real play, :func:`.engine.run_turns`) until the seat's place
   is known (the end of the game under ``per_card`` scoring). The seat itself plays the
   heuristic; each opponent plays a model drawn, per world, from the seat's posterior
   over :data:`OPPONENT_MODELS` for that opponent (see 5).
4. **Choice** -- the most wins, then the most points (summed over the worlds); but the
   search keeps the heuristic's first candidate unless the paired evidence for the
   other is clear: the sum over worlds of the win differences must exceed ``GATE_Z``
   times the root of their sum of squares (a sign test on the shared worlds). With a
   few worlds per candidate an ungated argmax mostly follows rollout noise.
5. **Opponent models** -- every search seat keeps, for each opponent, a log-likelihood
   of each model of :data:`OPPONENT_MODELS` (heuristic, greedy, random), updated at
   every decision that opponent makes before it has passed in the trick
   (:func:`observe_decision`). The likelihood of a decision under a model is its
   probability under that model averaged over ``OBSERVE_WORLDS`` hands of the opponent
   drawn from the cards the observer cannot see and holding the cards the decision
   played, floored at ``MODEL_FLOOR``. (Holding the played cards is a factor common to
   every model, so conditioning on it changes no likelihood ratio.) The prior is
   :data:`MODEL_PRIOR`. It reads only the observer's hand and the public record, never
   an opponent's hand.

``search-plain:N`` is the search before the models and the gate (heuristic rollouts for
every seat, plain argmax): its budget word carries
:data:`~cardsim.simcore.framework.tasks.PLAIN_FLAG`. The gate and the models change
results on purpose; ``search-plain`` reproduces the old ones bit for bit.

The ``oracle`` (a negative budget) is the plain search on the true deal: it sees every
hand, so one rollout per candidate decides (the heuristic draws no random numbers).

Randomness comes only from the search stream (``search_key(seed, game)``, advanced
across the game's decisions), never from the game's own stream.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.framework.tasks import PLAIN_FLAG
from cardsim.simcore.primitives.bits import popcount
from cardsim.simcore.primitives.movelog import LOG_WIDTH
from cardsim.simcore.primitives.rng import next_u64, shuffle_prefix
from cardsim.simcore.tienlen.engine import (N_SEAT, ST_ACTIVE, ST_FLOOR, ST_NCARDS, ST_PLACE, ST_PLAYED, ST_REQ,
                                            ST_SIZE, ST_TABLE_CLS, ST_TURN, decide_and_apply, decision_options,
                                            opponents_min, run_turns, seat_points)
from cardsim.simcore.tienlen.rules import P_PLAYERS, P_SCORING, SCORING_PER_CARD
from cardsim.simcore.tienlen.moves import count_moves, count_moves_any, unrank_move, unrank_move_any
from cardsim.simcore.tienlen.policies import (GOES_OUT, POL_GREEDY, POL_HEURISTIC, POL_RANDOM, POL_SEARCH, _eval,
                                              choose_any, choose_greedy, choose_greedy_any, choose_heuristic,
                                              choose_heuristic_bigtwo, eval_bigtwo, heuristic_candidates,
                                              heuristic_candidates_any, pass_value, play_value, play_value_bigtwo)

#: Plays evaluated at one decision (plus the pass); more legal plays are prefiltered.
MAX_CANDIDATES = 10
#: The policies a search seat fits to each opponent (policy codes, in posterior order).
OPPONENT_MODELS = (POL_HEURISTIC, POL_GREEDY, POL_RANDOM)
N_MODELS = 3
#: Prior probability of each opponent model before any evidence.
MODEL_PRIOR = (0.8, 0.1, 0.1)
#: Opponent hands drawn per observed decision to score the models' likelihoods.
OBSERVE_WORLDS = 8
#: A model that never makes the observed decision keeps this likelihood (players err).
MODEL_FLOOR = 0.02
#: The search leaves the heuristic's first candidate only when the paired win difference
#: summed over the worlds exceeds ``GATE_Z * sqrt(sum of squared differences)``.
GATE_Z = 1.5
_PLAIN_MASK = np.int64(PLAIN_FLAG - 1)
_FULL_DECK = np.int64((1 << 52) - 1)
_U0 = np.uint64(0)
_U1 = np.uint64(1)


@njit(cache=True)
def search_candidates(h, n_acl, acls, amin, counts, req, can_pass, table_cls, opp_min, heads_up, cand, ccls,
                      out_m, out_c, out_v, five):
    """Candidate decisions into ``out_m, out_c`` (class -1 = pass), ordered by the
    heuristic's value ``out_v`` (best first, stable); returns their number. ``five``:
    the engine's profile (``None``: Tiến Lên; Big Two values plays with
    :func:`.policies.play_value_bigtwo`)."""
    if five is None:
        n_play = count_moves(h, n_acl, acls, amin, req, counts)
        base = _eval(h)
    else:
        n_play = count_moves_any(h, n_acl, acls, amin, req, counts)
        base = eval_bigtwo(h)
    n = 0
    if n_play <= MAX_CANDIDATES:
        for i in range(n_play):
            if five is None:
                m, c = unrank_move(h, n_acl, acls, amin, req, counts, i)
                v = play_value(h, base, m, c, table_cls, opp_min)
            else:
                m, c = unrank_move_any(h, n_acl, acls, amin, req, counts, i)
                v = play_value_bigtwo(h, base, m, c, table_cls, opp_min)
            out_m[n] = m
            out_c[n] = c
            out_v[n] = v
            n += 1
    else:
        if five is None:
            nc = heuristic_candidates(h, n_acl, acls, amin, req, cand, ccls)
        else:
            nc = heuristic_candidates_any(h, n_acl, acls, amin, req, cand, ccls)
        for i in range(nc):
            if five is None:
                v = play_value(h, base, cand[i], ccls[i], table_cls, opp_min)
            else:
                v = play_value_bigtwo(h, base, cand[i], ccls[i], table_cls, opp_min)
            if n < MAX_CANDIDATES:
                out_m[n] = cand[i]
                out_c[n] = ccls[i]
                out_v[n] = v
                n += 1
            else:  # replace the worst kept candidate if this one is better
                worst = 0
                for j in range(1, n):
                    if out_v[j] < out_v[worst]:
                        worst = j
                if v > out_v[worst]:
                    out_m[worst] = cand[i]
                    out_c[worst] = ccls[i]
                    out_v[worst] = v
    if can_pass:
        out_m[n] = _U0
        out_c[n] = -1
        out_v[n] = pass_value(opp_min, heads_up)
        n += 1
    # stable insertion sort, best value first
    for i in range(1, n):
        m, c, v = out_m[i], out_c[i], out_v[i]
        j = i
        while j > 0 and out_v[j - 1] < v:
            out_m[j], out_c[j], out_v[j] = out_m[j - 1], out_c[j - 1], out_v[j - 1]
            j -= 1
        out_m[j], out_c[j], out_v[j] = m, c, v
    return n


@njit(cache=True)
def unseen_cards(st, hand, cards):
    """The cards the seat to move cannot see, into ``cards``; returns their number.

    Everything but its hand, the cards played and the cards below the first lead's card."""
    pool = _FULL_DECK & ~np.int64(hand) & ~st[ST_PLAYED]
    if st[ST_FLOOR] > 0:
        pool &= ~((np.int64(1) << st[ST_FLOOR]) - 1)
    n = 0
    for c in range(52):
        if (pool >> c) & 1:
            cards[n] = c
            n += 1
    return n


@njit(cache=True)
def deal_world(st, P, me, hand, cards, world):
    """Opponents' hands from the (shuffled) unseen ``cards``, by their card counts."""
    pos = 0
    for o in range(P):
        if o == me:
            world[o] = hand
            continue
        m = _U0
        for j in range(st[ST_NCARDS + o]):
            m |= _U1 << np.uint64(cards[pos + j])
        pos += st[ST_NCARDS + o]
        world[o] = m


@njit(cache=True, _nrt=False)
def rollout(st, world, prm, pol, wts, me, move, mcls, is_passed, st2, hands2, seat2, log, acls, amin, counts, cand,
            ccls, stop, rrng, five):
    """Apply ``me``'s decision in a copy of ``st`` with the hands ``world`` and let the
    policies ``pol`` play on (random ones drawing from ``rrng``) until ``stop`` has a
    place (or the end of the game when ``stop < 0``). Returns ``(won, points)`` of ``me``."""
    P = prm[P_PLAYERS]
    for i in range(ST_SIZE):
        st2[i] = st[i]
    for i in range(8):
        hands2[i] = world[i]
    # Typed flags: the rollouts reuse the run_turns real play compiled (a literal
    # specialization compiles it again for no measurable speed).
    decide_and_apply(st2, hands2, P, seat2, POL_HEURISTIC, move, mcls, is_passed, log, np.int64(0), np.bool_(False))
    run_turns(st2, hands2, prm, pol, wts, rrng, seat2, log, np.int64(0), np.bool_(False), acls, amin, counts, cand,
              ccls, stop, np.bool_(False), five)
    return st2[ST_PLACE + me] == 1, seat_points(st2, hands2, prm, me)


@njit(cache=True, inline="always")
def is_fitted(policy, budget):
    """A seat playing the fitted search: a positive budget word without ``PLAIN_FLAG``
    (not ``search-plain``, not the ``oracle``)."""
    return policy == POL_SEARCH and 0 < budget < PLAIN_FLAG


@njit(cache=True)
def _draw_models(srng, opp_ll, P, me, pol):
    """Each opponent's rollout policy drawn from ``me``'s posterior ``opp_ll[me]`` (into
    ``pol``; ``me`` plays the heuristic). Returns the search stream's state."""
    for o in range(P):
        if o == me:
            pol[o] = POL_HEURISTIC
            continue
        top = opp_ll[me, o, 0]
        for m in range(1, N_MODELS):
            top = max(top, opp_ll[me, o, m])
        total = 0.0
        for m in range(N_MODELS):
            total += MODEL_PRIOR[m] * np.exp(opp_ll[me, o, m] - top)
        srng, x = next_u64(srng)
        u = (x >> np.uint64(11)) * (1.0 / 9007199254740992.0) * total
        pick = N_MODELS - 1
        acc = 0.0
        for m in range(N_MODELS):
            acc += MODEL_PRIOR[m] * np.exp(opp_ll[me, o, m] - top)
            if u < acc:
                pick = m
                break
        pol[o] = OPPONENT_MODELS[pick]
    return srng


@njit(cache=True)
def search_decision(st, hands, prm, budget, srng, acls, amin, counts, cand, ccls, opp_ll, wts, five):
    """The search's decision for the seat to move: ``(mask, class, srng, rollouts)``
    (class -1 = pass). Reads of ``hands`` only the mover's own hand.

    ``budget``: the seat's budget word: rollouts per decision (``worlds x candidates``, at
    least one world), plus ``PLAIN_FLAG`` for ``search-plain``; a negative budget is the
    ``oracle``: it **peeks**, rolling every candidate out once on the true hands (the
    labelled upper bound of measured skill, never a default). ``opp_ll``
    float64[players, players, N_MODELS]: each seat's log-likelihood of each opponent
    model (:func:`observe_decision`; read only by the fitted search). ``wts``
    float64[players, N_FEATURES]: the ``learned`` seats' weights. ``five``: the engine's
    profile (``None``: Tiến Lên, see :func:`.engine.decision_options`).
    """
    P = prm[P_PLAYERS]
    me = st[ST_TURN]
    h = hands[me]
    n_acl, can_pass, is_passed = decision_options(st, prm, acls, amin, five)
    opp_min = opponents_min(st, P, me)
    out_m = np.zeros(MAX_CANDIDATES + 1, np.uint64)
    out_c = np.zeros(MAX_CANDIDATES + 1, np.int64)
    out_v = np.zeros(MAX_CANDIDATES + 1, np.float64)
    n = search_candidates(h, n_acl, acls, amin, counts, st[ST_REQ], can_pass, st[ST_TABLE_CLS], opp_min,
                          st[ST_ACTIVE] == 2, cand, ccls, out_m, out_c, out_v, five)
    if n == 1 or out_v[0] == GOES_OUT:
        return out_m[0], out_c[0], srng, 0
    peek = budget < 0
    fitted = is_fitted(POL_SEARCH, budget)
    if budget >= PLAIN_FLAG:
        budget &= _PLAIN_MASK
    # the oracle's one world is the true deal: heuristic rollouts from it are deterministic
    worlds = 1 if peek else max(1, budget // n)
    cards = np.zeros(52, np.int64)
    n_unseen = 0 if peek else unseen_cards(st, h, cards)
    need = np.int64(0)  # typed: a literal would compile shuffle_prefix twice
    for o in range(P):
        if o != me:
            need += st[ST_NCARDS + o]
    wins = np.zeros(n, np.int64)
    points = np.zeros(n, np.int64)
    # per-world wins of each candidate, for the gate's paired test
    won_in = np.zeros((n, worlds if fitted else 1), np.int64)
    world = np.zeros(8, np.uint64)
    st2 = np.zeros(ST_SIZE, np.int64)
    hands2 = np.zeros(8, np.uint64)
    seat2 = np.zeros((N_SEAT, P), np.int16)
    pol = np.full(P, POL_HEURISTIC, np.int64)
    log = np.zeros((1, LOG_WIDTH), np.int64)
    stop = -1 if prm[P_SCORING] == SCORING_PER_CARD else me
    rrng = _U0
    for w in range(worlds):
        if peek:
            for o in range(8):
                world[o] = hands[o]
        else:
            srng = shuffle_prefix(srng, cards[:n_unseen], need)
            deal_world(st, P, me, h, cards, world)
        if fitted:
            srng = _draw_models(srng, opp_ll, P, me, pol)
            srng, rrng = next_u64(srng)
        for c in range(n):
            won, pts = rollout(st, world, prm, pol, wts, me, out_m[c], out_c[c], is_passed, st2, hands2, seat2, log,
                               acls, amin, counts, cand, ccls, stop, rrng, five)
            wins[c] += won
            points[c] += pts
            if fitted:
                won_in[c, w] = won
    best = 0
    for c in range(1, n):
        if wins[c] > wins[best] or (wins[c] == wins[best] and points[c] > points[best]):
            best = c
    if fitted and best != 0:
        total = 0.0
        squares = 0.0
        for w in range(worlds):
            d = float(won_in[best, w] - won_in[0, w])
            total += d
            squares += d * d
        if total <= GATE_Z * np.sqrt(squares):
            best = 0
    return out_m[best], out_c[best], srng, worlds * n


@njit(cache=True)
def observe_decision(st, hands, prm, pol, budgets, move, mcls, n_acl, can_pass, acls, amin, counts, cand, ccls, srng,
                     opp_ll, five):
    """Update every fitted search seat's model log-likelihoods ``opp_ll[seat, mover]``
    with the decision ``(move, mcls)`` (class -1 = pass) the seat to move is about to
    make, before it is applied. Reads of ``hands`` only each observer's own hand.
    Returns the search stream's state."""
    P = prm[P_PLAYERS]
    turn = st[ST_TURN]
    need = st[ST_NCARDS + turn] - popcount(move)
    opp_min = opponents_min(st, P, turn)
    heads_up = st[ST_ACTIVE] == 2
    req = st[ST_REQ]
    table_cls = st[ST_TABLE_CLS]
    cards = np.zeros(52, np.int64)
    like = np.zeros(N_MODELS)
    for s in range(P):
        if s == turn or not is_fitted(pol[s], budgets[s]):
            continue
        n = unseen_cards(st, hands[s], cards)
        k = 0
        for i in range(n):  # the mover holds the cards it plays
            if not (move >> np.uint64(cards[i])) & _U1:
                cards[k] = cards[i]
                k += 1
        like[:] = 0.0
        for w in range(OBSERVE_WORLDS):
            srng = shuffle_prefix(srng, cards[:k], need)
            hw = move
            for j in range(need):
                hw |= _U1 << np.uint64(cards[j])
            if five is None:
                hm, hc = choose_heuristic(hw, n_acl, acls, amin, req, can_pass, table_cls, opp_min, heads_up, cand,
                                          ccls)
            else:
                hm, hc = choose_heuristic_bigtwo(hw, n_acl, acls, amin, req, can_pass, table_cls, opp_min, heads_up,
                                                 cand, ccls)
            like[0] += 1.0 if (hc == mcls and hm == move) else 0.0
            if five is None:
                gm, gc = choose_greedy(hw, n_acl, acls, amin, req, table_cls, counts)
                n_play = count_moves(hw, n_acl, acls, amin, req, counts)
            else:
                gm, gc = choose_greedy_any(hw, n_acl, acls, amin, req, table_cls, counts)
                n_play = count_moves_any(hw, n_acl, acls, amin, req, counts)
            like[1] += 1.0 if (gc == mcls and gm == move) else 0.0
            like[2] += 1.0 / (n_play + (1 if can_pass else 0))
        for m in range(N_MODELS):
            opp_ll[s, turn, m] += np.log(MODEL_FLOOR + (1.0 - MODEL_FLOOR) * like[m] / OBSERVE_WORLDS)
    return srng


@njit(cache=True)
def any_fitted(pol, budgets):
    """Whether some seat plays the fitted search (it observes every decision)."""
    for s in range(pol.shape[0]):
        if is_fitted(pol[s], budgets[s]):
            return True
    return False


@njit(cache=True)
def decide_pending(st, hands, prm, pol, budgets, wts, rng, srng, opp_ll, observe, seat, log, nl, log_on, acls, amin,
                   counts, cand, ccls, five):
    """Make and apply the decision :func:`.engine.run_turns` paused at (a search seat's,
    or any seat's when fitted search seats ``observe``). Returns ``(rng, srng, log rows)``."""
    P = prm[P_PLAYERS]
    turn = st[ST_TURN]
    p = pol[turn]
    if p == POL_SEARCH:
        move, mcls, srng, used = search_decision(st, hands, prm, budgets[turn], srng, acls, amin, counts, cand, ccls,
                                                 opp_ll, wts, five)
        n_acl, can_pass, is_passed = decision_options(st, prm, acls, amin, five)
    else:
        n_acl, can_pass, is_passed = decision_options(st, prm, acls, amin, five)
        move, mcls, rng = choose_any(p, hands[turn], n_acl, acls, amin, counts, st[ST_REQ], can_pass,
                                     st[ST_TABLE_CLS], opponents_min(st, P, turn), st[ST_ACTIVE] == 2, rng, cand, ccls,
                                     wts[turn], five)
    if observe and not is_passed:
        srng = observe_decision(st, hands, prm, pol, budgets, move, mcls, n_acl, can_pass, acls, amin, counts, cand,
                                ccls, srng, opp_ll, five)
    nl = decide_and_apply(st, hands, P, seat, p, move, mcls, is_passed, log, nl, log_on)
    return rng, srng, nl

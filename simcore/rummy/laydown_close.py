"""Continental's -10 close found exactly (``@njit``): the same-turn lay-offs that leave at most one card.

Switch ``exact_close`` (issue 50). After a lay-down, the player closes at once (-10) when the
same-turn lay-offs on the table's melds, the new ones included, and joker swaps leave at most
one card to discard. The heuristic's greedy lay-offs (:func:`cardsim.simcore.rummy.table.greedy_layoffs`)
miss closes that need a joker placed first: the diamond escalera 7♦ 8♦ 9♦ with a joker and J♦
in hand closes through 7♦ 8♦ 9♦ JK J♦, while the greedy order lays J♦ nowhere and the joker on
the first meld that takes it. :func:`close_search` is a depth-first search over every sequence
of lay-offs on the escaleras (a natural at the end it fits, a joker at either end, a joker swap
with the released joker at either end of any escalera), which is exact because:

- a natural laid on a trío or a joker laid on a trío never changes what else can be laid (a
  trío takes every natural of its rank and any number of jokers, Continental's rules), so such
  lay-offs are left to the end: a position is counted as closing when its naturals without a
  trío of their rank, plus its jokers when no trío is on the table, are at most one card;
- every other lay-off is tried in every order, with the positions already shown not to close
  remembered (a table keyed by the hand and two independent 64-bit hashes of the escaleras).

The lay-down solver asks whether a lay-down closes this way (:func:`table_closes_exact`, from
:func:`cardsim.simcore.rummy.laydown_score._score`), and the lay-down turn's lay-offs follow the
plan found (:func:`exact_close_layoffs`, from the ``LO_GREEDY`` decision) when the heuristic's
greedy lay-offs would not close. ``exact_close = off`` keeps the old greedy check and lay-offs.

Scratch rows (int64, 6 columns) from row ``off`` of the caller's array: a header ``[stamp, positions
visited by the last search]``,
:data:`MEMO` memo rows ``[c1, c2, jokers, hash_a, hash_b, stamp]``, then 4 rows per depth:
``[c1, c2, jokers, next card, next meld, next variant]``, the move ``[kind, card, meld, where,
meld2, where2]`` and the two rows it changed, saved for the undo.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.bits import popcount
from cardsim.simcore.rummy.cards import JOKER, remove_card
from cardsim.simcore.rummy.contract import _SUIT13, _U1, LAY_HIGH, LAY_LOW, LAY_NO, LAY_SWAP, RANK_COL, RUN, TRIO, _take
from cardsim.simcore.rummy.log import L_LAYOFF, L_SWAP, _log
from cardsim.simcore.rummy.melds import lay_off
from cardsim.simcore.rummy.state import P_SWAP, V_NM, V_P
from cardsim.simcore.rummy.table import apply_layoff, lay_row

_U0 = np.uint64(0)
MEMO = 1024  # memo rows (open addressing; when full, positions are no longer remembered: slower, still exact)
#: positions one search visits at most: past it the search gives up (no close found), so that a hand of
#: many cards beside many escaleras cannot stall a run (deterministic; not reached in the tests' samples).
#: The exact lay-down also counts these positions against its own budget (switch ``laydown_budget``,
#: :func:`cardsim.simcore.rummy.laydown_score._score`), which may give a search a smaller ``limit``
#: and, once spent, checks closes with the greedy lay-offs alone.
BUDGET = 20_000
M_NAT, M_JOKER, M_SWAP = 0, 1, 2
_H62 = (1 << 62) - 1


def scratch_rows(cards: int) -> int:
    """Rows of scratch :func:`close_search` needs from ``off`` for a hand of ``cards`` cards."""
    return 1 + MEMO + 4 * (cards + 2)


@njit(cache=True, _nrt=False)
def _scratch_rows(cards):
    return 1 + MEMO + 4 * (cards + 2)


@njit(cache=True, _nrt=False, forceinline=True)
def _joker_fits(row, high, mp):
    """Can a joker go on escalera ``row``'s high (low) end (the rules of :func:`lay_off`)?"""
    circular, no_adjacent = mp[2], mp[3]
    L = row[3]
    if row[0] != RUN or L >= 13:
        return False
    if high:
        return (circular or row[2] + L <= 13) and not (no_adjacent and (row[4] >> (L - 1)) & 1)
    return (circular or row[2] >= 1) and not (no_adjacent and row[4] & 1)


@njit(cache=True, _nrt=False)
def _swap_pos(row, c):
    """The position of the joker of escalera ``row`` that natural ``c`` replaces (-1: none)."""
    r = c % 13
    for t in range(row[3]):
        if (row[4] >> t) & 1 and (row[2] + t) % 13 == r:
            return t
    return -1


@njit(cache=True, _nrt=False)
def _next_move(sim, nr, c1, c2, jl, mp, swap, mc, mi, mv):
    """The first lay-off at or after counters ``(card, meld, variant)``: ``(card, meld, variant, kind,
    where, meld2, where2)``; card 53 when none is left. Variants: natural 0 = where it fits, 1 + 2 k + e
    = swap with the joker to escalera ``k``'s high (``e = 0``) or low end; joker 0 = high, 1 = low end.

    A joker from the hand goes on an escalera end only when the natural after it is in hand (a
    bridge). Exact: a joker after which no natural is ever laid can be laid last instead (on a trío,
    or on a free escalera end: :func:`_left_at_end`), and a swap of it is the natural laid at that
    end, so some closing sequence, if any, places hand jokers only as bridges before the end. A
    joker freed by a swap goes on any escalera end (it must be laid at once)."""
    for c in range(mc, 53):
        if c < 52:
            if not (c1 & (_U1 << np.uint64(c))):
                continue
        elif jl == 0:
            continue
        i0 = mi if c == mc else 0
        for i in range(i0, nr):
            if sim[i, 0] != RUN:
                continue
            v0 = mv if (c == mc and i == mi) else 0
            if c == 52:
                for v in range(v0, 2):
                    if not _joker_fits(sim[i], v == 0, mp):
                        continue
                    # a bridge: the natural after the joker is in hand
                    after = (sim[i, 2] + sim[i, 3] + 1) % 13 if v == 0 else (sim[i, 2] - 2) % 13
                    if not (c1 & (_U1 << np.uint64(sim[i, 1] * 13 + after))):
                        continue
                    return c, i, v, M_JOKER, LAY_HIGH if v == 0 else LAY_LOW, -1, 0
                continue
            if c // 13 != sim[i, 1]:
                continue
            if v0 == 0:
                w = lay_off(sim[i], np.int64(c), mp, np.bool_(False))
                if w != LAY_NO:
                    return c, i, 0, M_NAT, w, -1, 0
                v0 = 1
            if not swap:
                continue
            t = _swap_pos(sim[i], c)
            if t < 0:
                continue
            jm = sim[i, 4]
            sim[i, 4] = jm & ~(1 << t)  # the escalera after the swap, restored below
            for v in range(v0, 1 + 2 * nr):
                k = (v - 1) // 2
                if _joker_fits(sim[k], (v - 1) % 2 == 0, mp):
                    sim[i, 4] = jm
                    return c, i, v, M_SWAP, LAY_SWAP, k, LAY_HIGH if (v - 1) % 2 == 0 else LAY_LOW
            sim[i, 4] = jm
    return 53, 0, 0, 0, 0, -1, 0


@njit(cache=True, _nrt=False)
def _hashes(sim, nr):
    """Two independent 62-bit hashes of the escaleras ``sim[:nr]`` (start, length, jokers)."""
    ha = np.uint64(0x9E3779B97F4A7C15)
    hb = np.uint64(0x632BE59BD9B4E019)
    for i in range(nr):
        if sim[i, 0] != RUN:
            continue
        x = np.uint64(sim[i, 2] | (sim[i, 3] << 4) | (sim[i, 4] << 9) | (i << 24))
        ha = (ha ^ x) * np.uint64(0xBF58476D1CE4E5B9)
        ha ^= ha >> np.uint64(31)
        hb = (hb + x) * np.uint64(0x94D049BB133111EB)
        hb ^= hb >> np.uint64(29)
    return np.int64(ha & np.uint64(_H62)), np.int64(hb & np.uint64(_H62))


@njit(cache=True, _nrt=False)
def _memo_slot(sim, off, c1, c2, jl, ha, hb, stamp):
    """``(found, slot)``: the memo row of this position, or the free row it would take (-1: full)."""
    s = ha % MEMO
    for _ in range(MEMO):
        r = off + 1 + s
        if sim[r, 5] != stamp:
            return False, r
        if sim[r, 0] == c1 and sim[r, 1] == c2 and sim[r, 2] == jl and sim[r, 3] == ha and sim[r, 4] == hb:
            return True, r
        s = (s + 1) % MEMO
    return False, np.int64(-1)


@njit(cache=True, _nrt=False)
def _left_at_end(sim, nr, c1, c2, jl, trio_bits, has_trio, mp):
    """Cards left once the tríos take their naturals and the jokers go where they can: any number
    on a trío; without one, one on each escalera end that takes a joker (no natural after it)."""
    keep = ~trio_bits
    n = popcount(c1 & keep) + popcount(c2 & keep)
    if has_trio or jl == 0:
        return n
    slots = 0
    for i in range(nr):
        if sim[i, 0] != RUN or sim[i, 3] >= 13:
            continue
        hi = _joker_fits(sim[i], True, mp)
        lo = _joker_fits(sim[i], False, mp)
        if mp[2] and sim[i, 3] == 12:  # both ends are the same cell
            slots += 1 if (hi and lo) else 0
        else:
            slots += (1 if hi else 0) + (1 if lo else 0)
    return n + max(0, jl - slots)


@njit(cache=True, _nrt=False)
def _stuck(sim, nr, c1, c2, jl, trio_bits, swap, circular):
    """A lower bound on the cards that stay in hand, however the lay-offs go: the naturals without
    a trío of their rank that no escalera of their suit can reach. An escalera reaches a natural
    when the cells between its end and the natural (at most 13 cards in all) are held naturals or
    jokers, two jokers never adjacent, and no more jokers than the hand has or can free by swaps;
    or when the natural can replace one of its jokers. Exact lay-offs only ever do that, so more
    than one stuck natural means no close (circular escaleras only; else 0)."""
    if not circular:
        return 0
    free = jl  # jokers the hand holds or can free by a swap
    if swap:
        for i in range(nr):
            if sim[i, 0] != RUN or sim[i, 4] == 0:
                continue
            for t in range(sim[i, 3]):
                if (sim[i, 4] >> t) & 1:
                    c = sim[i, 1] * 13 + (sim[i, 2] + t) % 13
                    if c1 & (_U1 << np.uint64(c)):
                        free += 1
    stuck = 0
    for c in range(52):
        bit = _U1 << np.uint64(c)
        if not (c1 & bit) or (trio_bits & bit):
            continue
        s = c // 13
        r = c % 13
        ok = False
        for i in range(nr):
            if sim[i, 0] != RUN or sim[i, 1] != s:
                continue
            start, L, jm = sim[i, 2], sim[i, 3], sim[i, 4]
            if swap and jm:
                for t in range(L):
                    if (jm >> t) & 1 and (start + t) % 13 == r:
                        ok = True
                        break
                if ok:
                    break
            for high in (True, False):
                gap = (r - (start + L)) % 13 if high else (start - 1 - r) % 13
                if L + gap + 1 > 13:
                    continue
                prev_joker = 0  # (an end joker may be swapped out first: not counted, a bound)
                need = 0
                fits = True
                for g in range(gap):
                    rank = (start + L + g) % 13 if high else (start - 1 - g) % 13
                    if c1 & (_U1 << np.uint64(s * 13 + rank)):
                        prev_joker = 0
                        continue
                    if prev_joker:
                        fits = False
                        break
                    need += 1
                    prev_joker = 1
                if fits and need <= free:
                    ok = True
                    break
            if ok:
                break
        if not ok:
            stuck += 1 + (1 if c2 & bit else 0)
            if stuck > 1:
                return stuck
    return stuck


@njit(cache=True, _nrt=False)
def _undo(sim, nr, base, depth):
    """Put back the rows the moves of the stack changed (last move first)."""
    for d in range(depth - 1, -1, -1):
        b = base + 4 * d
        i = sim[b + 1, 2]
        if sim[b + 1, 0] == M_SWAP:
            k = sim[b + 1, 4]
            for col in range(6):
                sim[k, col] = sim[b + 3, col]
        for col in range(6):
            sim[i, col] = sim[b + 2, col]


@njit(cache=True, _nrt=False)
def close_search(sim, nr, off, c1, c2, jl, mp, swap, limit=BUDGET):
    """Is there a sequence of lay-offs (and joker swaps, ``swap``) of the hand ``c1, c2`` + ``jl``
    jokers on the melds ``sim[:nr]`` that leaves at most one card? Returns ``(found, depth)``: the
    moves are the rows ``off + 1 + MEMO + 4 d + 1`` for ``d < depth`` (the tríos' lay-offs left out:
    they can be made after them). ``sim[off:]`` is the scratch (:func:`scratch_rows`); ``sim[:nr]``
    is left as it was. Past ``limit`` positions (:data:`BUDGET`, or less: the lay-down's budget) the
    search gives up: not found. The positions visited are left in ``sim[off, 1]``."""
    sim[off, 1] = 0
    c1 = np.int64(c1)
    c2 = np.int64(c2)
    trio_bits = _U0
    suit_bits = 0
    has_trio = False
    for i in range(nr):
        if sim[i, 0] == TRIO:
            trio_bits |= RANK_COL[sim[i, 1]]
            has_trio = True
        else:
            suit_bits |= 1 << sim[i, 1]
    u1 = np.uint64(c1)
    u2 = np.uint64(c2)
    if _left_at_end(sim, nr, u1, u2, jl, trio_bits, has_trio, mp) <= 1:
        return True, 0
    # a natural of a rank without a trío and a suit without an escalera stays in hand
    mask = trio_bits
    for s in range(4):
        if (suit_bits >> s) & 1:
            mask |= _SUIT13 << np.uint64(13 * s)
    if popcount(u1 & ~mask) + popcount(u2 & ~mask) > 1:
        return False, 0
    circular = mp[2]
    if _stuck(sim, nr, u1, u2, jl, trio_bits, swap, circular) > 1:
        return False, 0
    stamp = sim[off, 0] + 1
    sim[off, 0] = stamp
    base = off + 1 + MEMO
    d = 0
    b = base
    sim[b, 0], sim[b, 1], sim[b, 2] = c1, c2, jl
    sim[b, 3], sim[b, 4], sim[b, 5] = 0, 0, 0
    visited = 0
    while True:
        visited += 1
        sim[off, 1] = visited
        if visited > limit:
            _undo(sim, nr, base, d)
            return False, 0
        b = base + 4 * d
        h1 = np.uint64(sim[b, 0])
        h2 = np.uint64(sim[b, 1])
        hj = sim[b, 2]
        mc, mi, mv, kind, w, k, w2 = _next_move(sim, nr, h1, h2, hj, mp, swap, sim[b, 3], sim[b, 4], sim[b, 5])
        if mc >= 53:
            # no lay-off from here closes: remember the position, go back one move
            ha, hb = _hashes(sim, nr)
            found, r = _memo_slot(sim, off, sim[b, 0], sim[b, 1], hj, ha, hb, stamp)
            if not found and r >= 0:
                sim[r, 0], sim[r, 1], sim[r, 2], sim[r, 3], sim[r, 4], sim[r, 5] = sim[b, 0], sim[b, 1], hj, ha, hb, stamp
            if d == 0:
                return False, 0
            d -= 1
            b = base + 4 * d
            i = sim[b + 1, 2]
            for col in range(6):
                sim[i, col] = sim[b + 2, col]
            if sim[b + 1, 0] == M_SWAP:
                k = sim[b + 1, 4]
                for col in range(6):
                    sim[k, col] = sim[b + 3, col]
            continue
        # the next move from this position: counters after it, the move, the rows it changes
        sim[b, 3], sim[b, 4], sim[b, 5] = mc, mi, mv + 1
        sim[b + 1, 0], sim[b + 1, 1], sim[b + 1, 2] = kind, mc, mi
        sim[b + 1, 3], sim[b + 1, 4], sim[b + 1, 5] = w, k, w2
        for col in range(6):
            sim[b + 2, col] = sim[mi, col]
        if kind == M_SWAP:
            for col in range(6):
                sim[b + 3, col] = sim[k, col]
        if kind == M_JOKER:
            lay_row(sim, mi, 52, w, circular)
            hj -= 1
        else:
            lay_row(sim, mi, mc, w, circular)
            h1, h2 = _take(h1, h2, _U1 << np.uint64(mc))
            if kind == M_SWAP:
                lay_row(sim, k, 52, w2, circular)
        d += 1
        nb = base + 4 * d
        sim[nb, 0], sim[nb, 1], sim[nb, 2] = np.int64(h1), np.int64(h2), hj
        sim[nb, 3], sim[nb, 4], sim[nb, 5] = 0, 0, 0
        if _left_at_end(sim, nr, h1, h2, hj, trio_bits, has_trio, mp) <= 1:
            _undo(sim, nr, base, d)
            return True, d
        if _stuck(sim, nr, h1, h2, hj, trio_bits, swap, circular) > 1:
            sim[nb, 3] = 53  # no close from here: no move left to try
            continue
        ha, hb = _hashes(sim, nr)
        found, r = _memo_slot(sim, off, np.int64(h1), np.int64(h2), hj, ha, hb, stamp)
        if found:  # shown not to close: skip it (its counters say "no move left")
            sim[nb, 3] = 53


@njit(cache=True, _nrt=False, inline="always")
def fill_table_rows(work, m, k, t_rank, tab, sim):
    """Copy the table melds ``tab[1:]``, then this lay-down's escaleras ``work[:m]`` and tríos
    (ranks ``t_rank[:k]``) into the rows of ``sim``; returns the number of rows."""
    nt = tab[0, 0]
    nr = 0
    for i in range(nt):
        for c in range(6):
            sim[nr, c] = tab[i + 1, c]
        nr += 1
    for i in range(m):
        for c in range(6):
            sim[nr, c] = work[i, c]
        nr += 1
    for t in range(k):
        sim[nr, 0] = TRIO
        sim[nr, 1] = t_rank[t]
        for c in range(2, 6):
            sim[nr, c] = 0
        nr += 1
    return nr


@njit(cache=True, _nrt=False)
def table_closes_exact(work, m, c1, c2, jl, k, t_rank, tab, sim, limit):
    """:func:`cardsim.simcore.rummy.laydown_score._table_closes` by :func:`close_search`: can some
    sequence of same-turn lay-offs and joker swaps of the hand ``c1, c2`` + ``jl`` jokers on the
    table melds ``tab[1:]`` and this lay-down's melds (escaleras ``work``, tríos ``t_rank``) leave
    at most one card? ``sim``: the table's rows, then the search's scratch from row ``tab[0, 0] + 6``.
    ``limit``: positions the search may visit (:data:`BUDGET` or less). Returns ``(found, positions
    visited)``."""
    nt = tab[0, 0]
    nr = fill_table_rows(work, m, k, t_rank, tab, sim)
    mp = (tab[0, 4], tab[0, 5], tab[0, 2], tab[0, 3])
    found, _ = close_search(sim, nr, nt + 6, c1, c2, jl, mp, tab[0, 1] != 0, limit)
    return found, sim[nt + 6, 1]


@njit(cache=True, _nrt=False)
def _greedy_left(sim, nr, c1, c2, jl, mp, swap):
    """Cards the heuristic's lay-offs (:func:`cardsim.simcore.rummy.table.greedy_layoffs`, on the
    rows ``sim[:nr]`` alone, changed in place) leave of the hand."""
    circular = mp[2]
    left = popcount(c1) + popcount(c2) + jl
    changed = True
    while changed:
        changed = False
        for c in range(52):
            bit = _U1 << np.uint64(c)
            while c1 & bit:
                i = -1
                w = LAY_NO
                for u in range(nr):
                    w = lay_off(sim[u], np.int64(c), mp, np.bool_(False))
                    if w != LAY_NO:
                        i = u
                        break
                if i < 0:
                    break
                lay_row(sim, i, c, w, circular)
                c1, c2 = _take(c1, c2, bit)
                left -= 1
                changed = True
        if swap:
            for c in range(52):
                bit = _U1 << np.uint64(c)
                if not (c1 & bit):
                    continue
                done = False
                for i in range(nr):
                    if sim[i, 0] != RUN or lay_off(sim[i], np.int64(c), mp, np.bool_(True)) != LAY_SWAP:
                        continue
                    jm = sim[i, 4]
                    t = _swap_pos(sim[i], c)
                    sim[i, 4] = jm & ~(1 << t)
                    for u in range(nr):
                        if sim[u, 0] != RUN:
                            continue
                        w = lay_off(sim[u], np.int64(JOKER), mp, np.bool_(False))
                        if w != LAY_NO:
                            sim[i, 4] = jm
                            lay_row(sim, i, c, LAY_SWAP, circular)
                            c1, c2 = _take(c1, c2, bit)
                            left -= 1
                            w = lay_off(sim[u], np.int64(52), mp, np.bool_(False))
                            lay_row(sim, u, 52, w, circular)
                            changed = True
                            done = True
                            break
                    if done:
                        break
                    sim[i, 4] = jm
        while jl > 0:
            i = -1
            w = LAY_NO
            for u in range(nr):
                w = lay_off(sim[u], np.int64(52), mp, np.bool_(False))
                if w != LAY_NO:
                    i = u
                    break
            if i < 0:
                break
            lay_row(sim, i, 52, w, circular)
            jl -= 1
            left -= 1
            changed = True
    return left


@njit(cache=True, _nrt=True, forceinline=False)
def exact_close_layoffs(st, prm, mp, log, nl, log_on):
    """Seat ``V_P`` has just laid down: when the heuristic's lay-offs would not close the hand but
    some lay-offs do (:func:`close_search`), make those (logged like the heuristic's); the caller's
    greedy lay-offs then lay the rest on the tríos. Returns the log length."""
    h1, h2, hj, seat, seen, mrow, mcards, mlen, mown, pile, deck, sv = st
    p = sv[V_P]
    nm = sv[V_NM]
    a1, a2, aj = h1[p], h2[p], hj[p]
    n = popcount(a1) + popcount(a2) + aj
    if n <= 1 or nm == 0:
        return nl
    swap = prm[P_SWAP] != 0
    sim = np.zeros((nm + _scratch_rows(n), 6), np.int64)
    for i in range(nm):
        for c in range(6):
            sim[i, c] = mrow[i, c]
    if _greedy_left(sim, nm, a1, a2, aj, mp, swap) <= 1:
        return nl
    for i in range(nm):
        for c in range(6):
            sim[i, c] = mrow[i, c]
    found, depth = close_search(sim, nm, nm, a1, a2, aj, mp, swap, np.int64(BUDGET))
    if not found:
        return nl
    circular = mp[2]
    base = nm + 1 + MEMO
    for d in range(depth):
        b = base + 4 * d + 1
        kind, c, i, w, k, w2 = sim[b, 0], sim[b, 1], sim[b, 2], sim[b, 3], sim[b, 4], sim[b, 5]
        if kind == M_JOKER:
            apply_layoff(mrow, mcards, mlen, i, np.int64(JOKER), w, circular)
            hj[p] -= 1
            nl = _log(log, nl, log_on, L_LAYOFF, p, i, JOKER, w * mrow[i, 0], 0)
        elif kind == M_NAT:
            apply_layoff(mrow, mcards, mlen, i, c, w, circular)
            h1[p], h2[p], hj[p] = remove_card(h1[p], h2[p], hj[p], c)
            nl = _log(log, nl, log_on, L_LAYOFF, p, i, c, w * mrow[i, 0], 0)
        else:
            apply_layoff(mrow, mcards, mlen, i, c, np.int64(LAY_SWAP), circular)
            h1[p], h2[p], hj[p] = remove_card(h1[p], h2[p], hj[p], c)
            nl = _log(log, nl, log_on, L_SWAP, p, i, c, 0, 0)
            apply_layoff(mrow, mcards, mlen, k, np.int64(JOKER), w2, circular)
            nl = _log(log, nl, log_on, L_LAYOFF, p, k, JOKER, w2 * mrow[k, 0], 0)
    return nl

"""Meld engine against an independent whole-hand brute-force search, plus hand-built cases."""
from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

from cardsim.simcore.tusac import melds as M
from cardsim.simcore.tusac.cards import (GENERAL_TYPES, N_COLOURS, N_TYPES, SOLDIER_TYPES, parse_hand, parse_type,
                                 type_id)

POINT_SETS = [
    (2, 1, 1, 4, True),   # the spec's default
    (1, 2, 3, 5, True),
    (2, 1, 1, 4, False),  # no Soldier pairs
    (1, 1, 3, 4, False),
]


# ------------------------------------------------------------------ brute-force oracle

def all_melds(points):
    """Every meld of the spec as ``(types tuple with repeats, concealed, taken)``."""
    command, field, three, full, soldier_pairs = points
    out = []
    for t in range(N_TYPES):
        if t in GENERAL_TYPES:
            out.append(((t,), 1, 1))
            out.append(((t, t), 2, 2))  # two identical Generals score as two Generals
        elif t not in SOLDIER_TYPES or soldier_pairs:
            out.append(((t, t), 0, 0))
        out.append(((t,) * 3, 3, 1))
        out.append(((t,) * 4, 8, 6))
    for c in range(N_COLOURS):
        out.append(((type_id(c, 0), type_id(c, 1), type_id(c, 2)), command, command))
        out.append(((type_id(c, 3), type_id(c, 4), type_id(c, 5)), field, field))
    for trio in itertools.combinations(SOLDIER_TYPES, 3):
        out.append((trio, three, three))
    out.append((SOLDIER_TYPES, full, full))
    return [(np.bincount(ts, minlength=N_TYPES), a, b) for ts, a, b in out]


class Oracle:
    def __init__(self, points):
        self.melds = all_melds(points)
        self.by_type = {t: [m for m in self.melds if m[0][t]] for t in range(N_TYPES)}

    @functools.lru_cache(maxsize=None)
    def free(self, counts):
        if not any(counts):
            return (0, 0)
        c = np.array(counts)
        i = int(np.nonzero(c)[0][0])
        c[i] -= 1
        t, s = self.free(tuple(c))
        best = (t + 1, s)
        c[i] += 1
        for vec, pts, _ in self.by_type[i]:
            if (vec <= c).all():
                t, s = self.free(tuple(c - vec))
                if t < best[0] or (t == best[0] and s + pts > best[1]):
                    best = (t, s + pts)
        return best

    def locked(self, counts, locked):
        """The 3 locked copies of each locked type stay together: triple, or quadruple with a 4th copy."""
        lk = [t for t in range(N_TYPES) if locked >> t & 1 and counts[t] >= 3]
        best = None
        for choice in itertools.product(*[[3, 4] if counts[t] == 4 else [3] for t in lk]):
            c = np.array(counts)
            pts = 0
            for t, k in zip(lk, choice):
                c[t] -= k
                pts += 3 if k == 3 else 8
            t, s = self.free(tuple(c))
            if best is None or t < best[0] or (t == best[0] and s + pts > best[1]):
                best = (t, s + pts)
        return best

    def win(self, counts, taken, locked):
        hidden = np.array(counts)
        best = -1
        for vec, _, taken_pts in self.by_type[taken]:
            use = vec.copy()
            use[taken] -= 1
            if (use > hidden).any():
                continue
            ok = True
            for t in range(N_TYPES):
                if locked >> t & 1 and hidden[t] >= 3 and use[t] > hidden[t] - 3:
                    ok = ok and t == taken and use[t] == 3  # only the quadruple keeps it whole
            if not ok:
                continue
            rest = hidden - use
            t, s = self.locked(tuple(rest), locked if use[taken] != 3 else locked & ~(1 << taken))
            if t == 0:
                best = max(best, s + taken_pts)
        return best


@functools.lru_cache(maxsize=None)
def oracle(points):
    return Oracle(points)


# ------------------------------------------------------------------ random hands

DECK = np.repeat(np.arange(N_TYPES), 4)


def random_hand(rng, size, types=None):
    deck = DECK if types is None else np.repeat(np.array(types), 4)
    return np.bincount(rng.choice(deck, size, replace=False), minlength=N_TYPES).astype(np.int8)


def random_lock(rng, counts):
    cand = [t for t in range(N_TYPES) if counts[t] >= 2]
    return M.locked_mask(t for t in cand if rng.random() < 0.6)


def check(counts, points, locked=0, with_win=True):
    tabs = M.meld_tables(points)
    ora = oracle(points)
    got = M.meld_eval(counts, np.int64(locked), tabs.trash, tabs.score)
    want = ora.locked(tuple(int(x) for x in counts), locked)
    assert tuple(int(x) for x in got) == want, (counts.tolist(), points, locked)
    assert M.can_meld_all(counts, np.int64(locked), tabs.trash) == (want[0] == 0)
    assert M.best_score(counts, np.int64(locked), tabs.trash, tabs.score) == (want[1] if want[0] == 0 else -1)
    if with_win:
        for taken in range(N_TYPES):
            if counts[taken] < 4:
                w = M.win_score(counts, taken, np.int64(locked), tabs.trash, tabs.score, tabs.win)
                assert w == ora.win(tuple(int(x) for x in counts), taken, locked), (counts.tolist(), taken, locked)


@pytest.mark.parametrize("points", POINT_SETS)
def test_small_random_hands(points):
    rng = np.random.default_rng(hash(points) % 2**32)
    for _ in range(150):
        size = int(rng.integers(3, 10))
        if rng.random() < 0.5:
            types = None
        else:  # concentrate on a few types so that melds are likely
            c = int(rng.integers(4))
            pool = list(range(7 * c, 7 * c + 7)) + list(SOLDIER_TYPES)
            types = rng.choice(sorted(set(pool)), int(rng.integers(3, 7)), replace=False)
        counts = random_hand(rng, size, types)
        check(counts, points, random_lock(rng, counts) if rng.random() < 0.4 else 0)


@pytest.mark.parametrize("points", POINT_SETS[:3])
def test_full_hands_few_types(points):
    rng = np.random.default_rng(7 + POINT_SETS.index(points))
    for k in range(12):
        size = 20 + k % 2
        types = rng.choice(N_TYPES, 6, replace=False)
        if k % 3 == 0:  # bias towards one colour's families and the Soldiers
            c = int(rng.integers(4))
            types = np.array([type_id(c, j) for j in range(6)] + [SOLDIER_TYPES[(c + 1) % 4]])
        counts = random_hand(rng, size, types)
        check(counts, points, random_lock(rng, counts) if k % 2 else 0, with_win=k < 6)


def test_composed_meldable_hands():
    """Hands built from random melds are fully meldable, and the engine finds the oracle's best."""
    points = POINT_SETS[0]
    rng = np.random.default_rng(3)
    melds = all_melds(points)
    for _ in range(25):
        counts = np.zeros(N_TYPES, np.int8)
        lower = 0
        for _ in range(40):
            vec, pts, _ = melds[int(rng.integers(len(melds)))]
            if (counts + vec <= 4).all() and counts.sum() + vec.sum() <= 21:
                counts += vec.astype(np.int8)
                lower += pts
        t, s = M.evaluate(counts, points)
        assert t == 0 and s >= lower
        check(counts, points, with_win=False)


def test_dealt_hands_against_oracle_by_part():
    """Real 20/21-card dealt hands: whole-hand oracle is too slow, so check each part against it."""
    from cardsim.simcore.tusac.deal import deal_rows
    hands, _ = deal_rows(17, 0, 40, 4)
    points = POINT_SETS[0]
    ora = oracle(points)
    tabs = M.meld_tables(points)
    for h in hands[:, :4].reshape(-1, N_TYPES):
        tot_t = tot_s = 0
        for p in range(M.PART_TYPES.shape[0]):
            sub = np.zeros(N_TYPES, np.int8)
            for t in M.PART_TYPES[p]:
                if t >= 0:
                    sub[t] = h[t]
            t, s = ora.free(tuple(int(x) for x in sub))
            tot_t += t
            tot_s += s
        assert tuple(int(x) for x in M.meld_eval(h, np.int64(0), tabs.trash, tabs.score)) == (tot_t, tot_s)


# ------------------------------------------------------------------ hand-built cases

def ev(text, points=POINT_SETS[0], locked=()):
    return M.evaluate(parse_hand(text), points, M.locked_mask(parse_type(t) for t in locked))


def test_command_group_vs_triple():
    # Triple of Advisors + General (4 points) leaves the Elephant; Command + pair melds all.
    assert ev("RG RA RA RA RE") == (0, 2)
    # Two triples and a single General beat the Command group when everything melds.
    assert ev("RG RA RA RA RE RE RE") == (0, 7)
    # With Command worth 1 the same choice holds.
    assert ev("RG RA RA RA RE", (1, 1, 1, 4, True)) == (0, 1)
    # Field group: 1 point.
    assert ev("YC YH YN") == (0, 1)
    assert ev("YC YH YN", (2, 2, 1, 4, True)) == (0, 2)


def test_generals_stand_alone():
    assert ev("RG YG GG WG") == (0, 4)
    assert ev("RG RG") == (0, 2)  # pair of Generals = two Generals
    assert ev("RG RG RG RG") == (0, 8)  # quadruple beats four singles
    assert ev("WG WA") == (1, 1)


def test_soldiers_across_colours():
    assert ev("RS YS GS WS") == (0, 4)
    assert ev("RS YS GS WS", (2, 1, 3, 5, True)) == (0, 5)
    assert ev("RS YS GS") == (0, 1)
    assert ev("RS YS GS", (2, 1, 3, 4, True)) == (0, 3)
    # 7 soldiers: full-colour + three-colour (5) melds everything.
    assert ev("RS YS GS WS RS YS GS") == (0, 5)
    # With three-colour worth 3: full + three-colour = 4 + 3 = 7 (two three-colour groups would
    # leave a Soldier unmelded).
    assert ev("RS YS GS WS RS YS GS", (2, 1, 3, 4, True)) == (0, 7)
    assert ev("RS RS RS YS YS YS") == (0, 6)  # two triples
    assert ev("RS RS YS YS GS GS") == (0, 2)  # two three-colour groups


def test_soldier_pairs_switch():
    on, off = (2, 1, 1, 4, True), (2, 1, 1, 4, False)
    assert ev("RS RS", on) == (0, 0)
    assert ev("RS RS", off) == (2, 0)
    assert ev("RS RS YS", on) == (1, 0)
    assert ev("RS RS YS", off) == (3, 0)
    assert ev("RS RS YS GS", off) == (1, 1)  # three-colour + a lone soldier
    assert ev("RA RA", off) == (0, 0)  # only Soldier pairs are affected


def test_trio_lock():
    # Unlocked: Command + Advisor pair melds everything; locked: the triple must stay whole.
    assert ev("RG RA RA RA RE") == (0, 2)
    assert ev("RG RA RA RA RE", locked=["RA"]) == (1, 4)
    # A 4th copy is free: locked triple + Command group, or the quadruple.
    assert ev("RG RA RA RA RA RE", locked=["RA"]) == (0, 5)
    assert ev("RA RA RA RA", locked=["RA"]) == (0, 8)
    # A lock on a type no longer held 3 times is ignored.
    assert ev("RG RA RE", locked=["RA"]) == (0, 2)
    # Locked soldiers cannot feed the cross-colour melds.
    assert ev("RS RS RS YS GS") == (0, 1)  # pair + three-colour melds all (the triple would leave 2)
    assert ev("RS RS RS YS GS", locked=["RS"]) == (2, 3)


def test_win_with_taken_card():
    tabs = M.meld_tables()

    def win(hidden, taken, locked=()):
        h = parse_hand(hidden) if hidden else np.zeros(N_TYPES, np.int8)
        lk = M.locked_mask(parse_type(t) for t in locked)
        return int(M.win_score(h, parse_type(taken), np.int64(lk), tabs.trash, tabs.score, tabs.win))

    assert win("RA RA", "RA") == 1  # triple made with a taken card: 1
    assert win("RA RA RA", "RA") == 6  # quadruple with a taken card: 6
    assert win("RA RA RA", "RA", locked=["RA"]) == 6
    assert win("RA", "RA") == 0
    assert win("RA RE", "RG") == 2
    assert win("RG", "RG") == 2
    assert win("", "RG") == 1
    assert win("RA RE", "RA") == -1
    # Taken Elephant: pair of Elephants (0) + General (1) + Advisor triple (3); a Command group
    # with the taken card would leave RA RA RE unmeldable.
    assert win("RG RA RA RA RE", "RE") == 4
    # A locked triple may not give a card to the taken card's meld.
    assert win("RA RA RA RG", "RE") == 2  # Command (taken) + Advisor pair
    assert win("RA RA RA RG", "RE", locked=["RA"]) == -1
    assert win("RA RA RA RA RG", "RE", locked=["RA"]) == 2 + 3  # the 4th copy is free


def test_triple_mask_and_batch_eval():
    from cardsim.simcore.tusac.deal import deal_rows
    hands = np.ascontiguousarray(deal_rows(4, 0, 300, 4)[0][:, :4].reshape(-1, N_TYPES))
    locked = np.array([M.triple_mask(h) for h in hands], np.int64)
    assert all(int(m) == M.dealt_triples(h) for m, h in zip(locked, hands))
    assert (locked != 0).mean() > 0.3
    tabs = M.meld_tables()
    trash, score = M.meld_eval_many(hands, locked, tabs.trash, tabs.score)
    for i in range(0, len(hands), 37):
        assert (trash[i], score[i]) == M.meld_eval(hands[i], locked[i], tabs.trash, tabs.score)
    # a lock can only make things worse (more trash, or equal trash and lower score)
    t0, s0 = M.meld_eval_many(hands, np.zeros_like(locked), tabs.trash, tabs.score)
    assert ((trash > t0) | ((trash == t0) & (score <= s0))).all()


def test_decompose_agrees_with_engine():
    rng = np.random.default_rng(5)
    for points in POINT_SETS:
        for _ in range(30):
            counts = random_hand(rng, int(rng.integers(5, 22)))
            locked = random_lock(rng, counts)
            t, s, melds = M.decompose(counts, points, locked)
            assert (t, s) == M.evaluate(counts, points, locked)
            cards = np.bincount([c for _, ts in melds for c in ts], minlength=N_TYPES)
            assert (cards == counts).all()
            assert sum(len(ts) for name, ts in melds if name == "trash") == t

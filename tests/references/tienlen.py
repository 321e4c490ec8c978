"""Readable pure-Python reference of the Tiến Lên rules (slow; for cross-checks).

* :func:`combo` — what a card set is (class id, top card), or ``None``.
* :func:`beats` / :func:`is_legal` — the play-legality checker, written from the spec.
* :func:`legal_moves` — brute-force enumeration (itertools) filtered by :func:`is_legal`.
* :func:`play_match` / :func:`play_game` — a whole game with the random policy, drawing
  from the same addressable stream as the numba kernel and listing moves in the same
  order (class id, then mask), so with random seats it must play *exactly* the games of
  :func:`simcore.tienlen.play.play_chunk`. Only the deal is borrowed from the kernel
  (:func:`simcore.tienlen.play.deal_with_state`); the play is plain Python.

Class ids are those of :mod:`simcore.tienlen.moves` (0 single, 1 pair, 2 triple,
3 four, 4+L-3 sequence of L ranks, 14+L-3 double sequence of L pairs).
"""
from __future__ import annotations

from itertools import combinations, product

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
SINGLE, PAIR, TRIPLE, FOUR = 0, 1, 2, 3
DSEQ3, DSEQ4, DSEQ5 = 14, 15, 16
SCORING_LADDERS = {"3-2-1-0": (3, 2, 1, 0), "4-3-2-1": (4, 3, 2, 1)}


def cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def combo(mask: int):
    """``(class_id, top_card)`` of a card set, or ``None`` if it is not a combination."""
    cs = cards(mask)
    if not cs:
        return None
    by_rank: dict[int, int] = {}
    for c in cs:
        by_rank[c // 4] = by_rank.get(c // 4, 0) + 1
    ranks = sorted(by_rank)
    top = cs[-1]
    if len(ranks) == 1:
        return len(cs) - 1, top
    consecutive = ranks == list(range(ranks[0], ranks[0] + len(ranks)))
    if not consecutive or 12 in ranks or len(ranks) < 3:
        return None
    if all(n == 1 for n in by_rank.values()):
        return 4 + len(ranks) - 3, top
    if all(n == 2 for n in by_rank.values()):
        return 14 + len(ranks) - 3, top
    return None


def is_bomb(cls: int) -> bool:
    return cls == FOUR or cls >= DSEQ3


def beats(play, table, chop_rules: str = "seed", chop_length: str = "at_least") -> bool:
    """Does combination ``play = (cls, top)`` beat ``table = (cls, top)`` (``None``: lead)?

    ``chop_length``: under the seed ladder, 3/4/5 pairs "or more" (``at_least``) or
    exactly (``exact``) chop one/two/three 2s."""
    if table is None:
        return True
    pc, pt = play
    tc, tt = table
    if pc == tc:
        return pt > tt  # same type and length, higher top card (four 2s: nothing is higher)
    table_twos = tt // 4 == 12 and tc in (SINGLE, PAIR, TRIPLE)
    if chop_rules == "seed":
        if not table_twos:
            return False
        if tc == SINGLE and pc == FOUR:
            return True
        pairs_needed = {SINGLE: 3, PAIR: 4, TRIPLE: 5}[tc]
        pairs = pc - DSEQ3 + 3 if pc >= DSEQ3 else 0
        return pairs == pairs_needed or (chop_length == "at_least" and pairs > pairs_needed)
    # southern
    if pc == FOUR:
        return (table_twos and tc in (SINGLE, PAIR)) or tc == DSEQ3
    if pc == DSEQ4:
        return (table_twos and tc in (SINGLE, PAIR)) or tc == DSEQ3 or (tc == FOUR and tt // 4 != 12)
    if pc == DSEQ3:
        return table_twos and tc == SINGLE
    return False


def is_legal(hand: int, play: int, table, *, chop_rules="seed", passed=False,
             bombs_after_pass="none", required=-1, alone=False, chop_length="at_least") -> bool:
    """Is the non-empty card set ``play`` a legal play from ``hand``?

    ``table``: ``(cls, top)`` of the play to beat, or ``None`` on a lead. ``passed``: the
    player has passed this trick (pass is final). ``required``: card the play must contain
    (first lead of a match), ``alone``: and nothing else.
    """
    if play == 0 or play & ~hand:
        return False
    c = combo(play)
    if c is None:
        return False
    if required >= 0:
        if not play >> required & 1:
            return False
        if alone and play != 1 << required:
            return False
    if passed:
        if bombs_after_pass == "none":
            return False
        if bombs_after_pass == "all" and not is_bomb(c[0]):
            return False
        if bombs_after_pass == "four_pairs" and c[0] != DSEQ4:
            return False
    return beats(c, table, chop_rules, chop_length)


def all_combos(hand: int) -> set[int]:
    """Every combination that can be formed from ``hand`` (brute force)."""
    by_rank = {r: [c for c in cards(hand) if c // 4 == r] for r in range(13)}
    out: set[int] = set()
    for r, cs in by_rank.items():
        for k in range(1, len(cs) + 1):
            for sub in combinations(cs, k):
                out.add(sum(1 << c for c in sub))
    for per_rank in (1, 2):  # sequences and double sequences: ranks lo..hi, no 2s
        picks = [[sum(1 << c for c in sub) for sub in combinations(by_rank[r], per_rank)]
                 for r in range(12)]
        for lo in range(12):
            for hi in range(lo, 12):
                if not picks[hi]:
                    break
                if hi - lo >= 2:
                    for choice in product(*picks[lo:hi + 1]):
                        out.add(sum(choice))
    return out


def move_key(mask: int):
    return combo(mask)[0], mask


def legal_moves(hand: int, table, **kw) -> list[int]:
    """Legal plays (no pass), sorted by (class id, mask) like the kernel's move order."""
    return sorted((m for m in all_combos(hand) if is_legal(hand, m, table, **kw)), key=move_key)


# --- random numbers: pure-Python SplitMix64 + Lemire, as simcore.primitives.rng ---------------

def _mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def next_u64(state: int):
    state = (state + GOLDEN) & MASK64
    return state, _mix64(state)


def randbelow(state: int, n: int):
    state, r = next_u64(state)
    m = (r >> 32) * n
    low = m & 0xFFFFFFFF
    if low < n:
        threshold = ((1 << 32) - n) % n
        while low < threshold:
            state, r = next_u64(state)
            m = (r >> 32) * n
            low = m & 0xFFFFFFFF
    return state, m >> 32


# --- the game ----------------------------------------------------------------------

def points_for(rules, places: list[int], hands: list[int]) -> list[int]:
    """Points of one game (see :mod:`simcore.tienlen.engine` for the scoring rules)."""
    n = len(places)
    if rules.scoring == "per_card":
        pay = [0 if places[s] == 1 else len(cards(hands[s])) + len(cards(hands[s] >> 48))
               for s in range(n)]
        return [sum(pay) if places[s] == 1 else -pay[s] for s in range(n)]
    ladder = SCORING_LADDERS[rules.scoring]
    return [ladder[places[s] - 1] for s in range(n)]


def play_game(seed: int, index: int, rules, first: bool, prev_winner: int) -> dict:
    """One game with the random policy at every seat. Returns places, points, log, ..."""
    from cardsim.simcore.tienlen.play import deal_with_state, instant_flags
    from cardsim.simcore.tienlen.rules import INSTANT_WIN_KINDS

    n = rules.players
    hands, state = deal_with_state(seed, index, n, rules.cards_per_player)
    hands = [int(h) for h in hands]
    if first:
        lowest = min(cards(h)[0] for h in hands)
        leader = next(s for s in range(n) if hands[s] >> lowest & 1)
        required = lowest
    else:
        leader, required = prev_winner, -1
    log: list[tuple] = []
    places = [0] * n
    # instant wins: priority order, ties by play order from the leader
    flags = instant_flags(hands, rules.black_mask())
    for kind, name in enumerate(INSTANT_WIN_KINDS):
        if name not in rules.instant_wins:
            continue
        seats = [(leader + i) % n for i in range(n) if flags[(leader + i) % n] >> kind & 1]
        if seats:
            w = seats[0]
            places[w] = 1
            others = sorted((s for s in range(n) if s != w),
                            key=lambda s: (len(cards(hands[s])), (s - w) % n))
            for p, s in enumerate(others):
                places[s] = p + 2
            return dict(places=places, points=points_for(rules, places, hands), hands=hands,
                        log=log, leader=leader, instant=(w, kind))
    table = None  # (cls, top)
    last = leader
    passed: set[int] = set()
    turn = leader
    out_order: list[int] = []
    while True:
        hand = hands[turn]
        if table is None:
            moves = legal_moves(hand, None, chop_rules=rules.chop_rules, chop_length=rules.chop_length,
                                required=required,
                                alone=rules.three_spades_alone)
            can_pass = False
        else:
            is_passed = turn in passed and not rules.pass_resets
            moves = legal_moves(hand, table, chop_rules=rules.chop_rules, chop_length=rules.chop_length,
                                passed=is_passed,
                                bombs_after_pass=rules.bombs_after_pass)
            can_pass = True
            if is_passed and not moves:
                moves = None  # skipped: no decision
        if moves is not None:
            options = len(moves) + can_pass
            idx = 0
            if options > 1:
                state, idx = randbelow(state, options)
            if idx == len(moves):
                log.append((turn, 0))
                passed.add(turn)
            else:
                play = moves[idx]
                log.append((turn, play))
                required = -1
                hands[turn] &= ~play
                table = combo(play)
                last = turn
                if hands[turn] == 0:
                    out_order.append(turn)
                    if len(out_order) == n - 1:
                        out_order += [s for s in range(n) if hands[s]]
                        break
        # next player; back at the last player to play: the trick is over
        t = turn
        while True:
            t = (t + 1) % n
            if t == last:
                table = None
                passed = set()
                turn = last
                while hands[turn] == 0:
                    turn = (turn + 1) % n
                log.append(("lead", turn))
                break
            if hands[t]:
                turn = t
                break
    for p, s in enumerate(out_order):
        places[s] = p + 1
    return dict(places=places, points=points_for(rules, places, hands), hands=hands, log=log,
                leader=leader, instant=(-1, -1))


def play_match(seed: int, start: int, count: int, rules) -> list[dict]:
    """Games ``start..start+count-1`` of one match (``start`` = the match's first game)."""
    out = []
    winner = -1
    for i in range(count):
        g = play_game(seed, start + i, rules, i == 0, winner)
        winner = g["places"].index(1)
        out.append(g)
    return out

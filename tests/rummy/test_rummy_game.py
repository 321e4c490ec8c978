"""Loba / Continental full-game kernel: conservation, meld legality, scoring, determinism,
replay, CLI task wiring and policy strength."""
import math
from collections import Counter

import numba
import numpy as np
import pytest

import cardsim.simcore.framework.registry as registry
from cardsim.simcore.rummy import log as L
from cardsim.simcore.rummy.replay import replay_game
from cardsim.simcore.rummy import play as G
from references import rummy as ref
from cardsim.simcore.rummy.cards import make_deck
from cardsim.simcore.rummy.rules import ContinentalRules
from cardsim.simcore.rummy.rules import LobaRules
from cardsim.simcore.run.runner import RunConfig, run_chunk

MIX = ["heuristic", "random", "heuristic", "random"]

CASES = [
    (LobaRules(), "heuristic", None),
    (LobaRules(claims=True), MIX, None),
    (LobaRules(players=5, claims=True, max_claims_per_round=2), "random", None),
    (LobaRules(players=2, contracts=("2T", "3E")), MIX[:2], None),
    (ContinentalRules(), "heuristic", None),
    (ContinentalRules(), MIX, [1, 3]),
    (ContinentalRules(players=3, jokers_per_deck=2, joker_swap=False), "random", None),
    (ContinentalRules(players=2, claim_penalty_cards=2), MIX[:2], None),
]


def _laydown_melds(log):
    """Card lists of every lay-down meld in a move log."""
    out = []
    for kind, seat, a, b, c, d in log.tolist():
        if kind == L.L_MELD:
            out.append(L._unpack(b, c, d))
    return out


@pytest.mark.parametrize("rules,policy,seats", CASES)
def test_conservation_melds_and_scoring_every_hand(rules, policy, seats):
    deck = Counter(int(c) for c in make_deck(rules.deck_jokers()))
    assert sum(deck.values()) == (108 if rules.GAME == "loba" or rules.deck_jokers() == 4 else 110)
    cont = rules.GAME == "continental"
    for index in range(6):
        for r in range(len(rules.rounds())):
            st = G.round_state(5, index, r, rules, policy, seats)
            held = Counter()
            for h in st["hands"]:
                held.update(h)
            for mcards in st["melds"]:
                held.update(mcards)
            held.update(st["pile"])
            held.update(st["stock"])
            assert held == deck, (index, r)
            for mcards in st["melds"]:
                assert ref.valid_table_meld(mcards, rules), (index, r, mcards)
            lay = _laydown_melds(st["log"])
            for cards in lay:
                assert ref.valid_laydown_meld(cards, rules), (index, r, cards)
            # the lay-downs are exactly the contract
            _, k, m, _ = rules.rounds()[r]
            downs = sum(st["laid_down"])
            assert len(lay) == downs * (k + m)
            if not cont:  # Loba: exact contract, tríos of 3 and escaleras of 4
                assert sorted(len(c) for c in lay) == sorted([3] * k * downs + [4] * m * downs)
            pts = ref.round_points(st["hands"], st["went_out"], st["closed_in_one_turn"], cont)
            assert st["points"] == pts
            # every move of the log is legal under the reference's rules
            assert ref.check_round_log(st["log"], rules, r, seats) == (pts, [sorted(h) for h in st["hands"]])
            if st["went_out"] >= 0:
                assert st["hands"][st["went_out"]] == [] and not st["capped"]
                assert st["laid_down"][st["went_out"]]
            else:
                assert st["capped"]


def test_minus10_only_when_laid_down_and_closed_in_one_turn():
    rules = ContinentalRules()
    seen = 0
    for index in range(8):
        for r in range(7):
            st = G.round_state(9, index, r, rules, "heuristic")
            w = st["went_out"]
            if w < 0:
                continue
            rows = st["log"].tolist()
            # the closer's last turn: rows after its last take
            last_take = max(i for i, x in enumerate(rows) if x[1] == w and x[0] in (L.L_TAKE_PILE, L.L_TAKE_STOCK))
            laid_last_turn = any(x[0] == L.L_LAYDOWN and x[1] == w for x in rows[last_take:])
            assert st["closed_in_one_turn"] == laid_last_turn
            assert st["points"][w] == (-10 if laid_last_turn else 0)
            seen += laid_last_turn
    assert seen > 0


def test_loba_final_round_first_lay_down_goes_out():
    rules = LobaRules()
    for index in range(10):
        st = G.round_state(3, index, 5, rules, "heuristic")
        assert sum(st["laid_down"]) <= 1
        if st["went_out"] >= 0:
            assert st["laid_down"][st["went_out"]]
            # out on the lay-down turn (12th card discarded), and Loba has no -10
            assert st["closed_in_one_turn"] and st["points"][st["went_out"]] == 0
    h = G.play_chunk(3, 0, 20, rules, "heuristic")["hands"]
    assert (h["points_0"] >= 0).all() and "minus10_0" not in G.play_chunk(3, 0, 2, rules)["matches"]


def test_tables_match_round_states_and_match_results():
    for rules in (LobaRules(claims=True), ContinentalRules()):
        P, R = rules.players, len(rules.rounds())
        t = G.play_chunk(21, 10, 4, rules, MIX)
        h, m = t["hands"], t["matches"]
        assert len(h["game"]) == 4 * R and len(m["game"]) == 4
        for g in range(4):
            went = []
            for r in range(R):
                st = G.round_state(21, 10 + g, r, rules, MIX, log_on=False)
                i = g * R + r
                assert h["game"][i] == 10 + g and h["round"][i] == r + 1  # 1-based
                assert [int(h[f"points_{s}"][i]) for s in range(P)] == st["points"]
                assert [int(h[f"claims_{s}"][i]) for s in range(P)] == st["claims"]
                assert [bool(h[f"laid_down_{s}"][i]) for s in range(P)] == [bool(x) for x in st["laid_down"]]
                assert h["went_out"][i] == st["went_out"] and h["turns"][i] == st["turns"]
                assert h["capped"][i] == st["capped"] and h["reshuffles"][i] == st["reshuffles"]
                went.append(st["went_out"])
            totals = [sum(int(h[f"points_{s}"][g * R + r]) for r in range(R)) for s in range(P)]
            assert [int(m[f"total_{s}"][g]) for s in range(P)] == totals
            assert m["winner"][g] == ref.match_winner(totals, went)
            assert [int(m[f"rounds_won_{s}"][g]) for s in range(P)] == [went.count(s) for s in range(P)]


def test_match_winner_tie_break():
    assert ref.match_winner([10, 5, 5, 20], [1, 2, 1, 2, 0]) == 2  # seat 2 won the most recent round of {1, 2}
    assert ref.match_winner([10, 5, 5, 20], [2, 2, 1, 0]) == 1
    assert ref.match_winner([5, 5], [-1, -1]) == 0


def _frame(cols):
    return {k: np.asarray(v) for k, v in cols.items()}


def test_reproducible_across_chunks_blocks_and_threads():
    rules = ContinentalRules(players=3)
    base = G.play_chunk(77, 0, 12, rules, "random", n_blocks=1)
    parts = [G.play_chunk(77, s, c, rules, "random", n_blocks=3) for s, c in ((0, 5), (5, 7))]
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = G.play_chunk(77, 0, 12, rules, "random")
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = G.play_chunk(77, 0, 12, rules, "random", n_blocks=12)
    finally:
        numba.set_num_threads(old)
    for tab in ("hands", "matches"):
        for col in base[tab]:
            joined = np.concatenate([np.asarray(p[tab][col]) for p in parts])
            assert (np.asarray(base[tab][col]) == joined).all(), col
            assert (np.asarray(base[tab][col]) == np.asarray(one[tab][col])).all(), col
            assert (np.asarray(base[tab][col]) == np.asarray(two[tab][col])).all(), col


def test_run_chunk_tables_and_chunk_sizes():
    spec = registry.get_task("loba", "play")
    rules = LobaRules(claims=True)
    opts = spec.parse_options(rules, {"policy": "heuristic,random,heuristic,random"})
    spec.check_options(rules, opts)
    a = RunConfig("loba", "play", rules, n=6, seed=3, chunk_size=6, options=opts)
    b = RunConfig("loba", "play", rules, n=6, seed=3, chunk_size=4, options=opts)
    ta = run_chunk(a, 0)
    tb = [run_chunk(b, c) for c in range(2)]
    assert set(ta) == set(spec.tables(a)) == {"hands", "matches"}
    import pyarrow as pa
    for name in ("hands", "matches"):
        assert ta[name].equals(pa.concat_tables([t[name] for t in tb]))
    h = ta["hands"]
    assert h.schema.field("round").type == pa.int8() and h.schema.field("points_0").type == pa.int16()
    assert h.schema.field("claims_0").type == pa.int8() and h.schema.field("capped").type == pa.bool_()
    m = ta["matches"]
    assert m.schema.field("total_0").type == pa.int32() and m.schema.field("winner").type == pa.int8()
    assert m.schema.field("claims_0").type == pa.int16() and m.schema.field("rounds_won_0").type == pa.int8()
    c = registry.get_task("continental", "play")
    copts = c.parse_options(ContinentalRules(), {"claim_seats": "0,2"})
    assert copts["claim_seats"] == [0, 2]
    cfg = RunConfig("continental", "play", ContinentalRules(), n=2, seed=1, chunk_size=2, options=copts)
    ct = run_chunk(cfg, 0)
    assert "minus10_0" in ct["matches"].column_names and "closed_in_one_turn" in ct["hands"].column_names
    assert sum(ct["hands"][f"claims_{s}"].to_numpy().sum() for s in (1, 3)) == 0


@pytest.mark.parametrize("rules", [LobaRules(claims=True), ContinentalRules()])
def test_replay_matches_play_chunk(rules):
    P = rules.players
    t = G.play_chunk(8, 0, 3, rules, MIX)
    for g in range(3):
        lines = replay_game(8, g, rules, MIX)
        pts = [[] for _ in range(P)]
        for line in lines:
            if line.startswith("points seat"):
                s, v = line[len("points seat "):].split(": ")
                pts[int(s)].append(int(v))
        R = len(rules.rounds())
        for s in range(P):
            assert pts[s] == [int(x) for x in t["hands"][f"points_{s}"][g * R:(g + 1) * R]]
        assert lines[-1] == f"winner: seat {int(t['matches']['winner'][g])}"
        n_claims = sum(1 for x in lines if " claims " in x)
        assert n_claims == sum(int(t["matches"][f"claims_{s}"][g]) for s in range(P))
        n_out = sum(1 for x in lines if x.endswith("goes out") or "goes out (" in x)
        assert n_out == int((t["hands"]["went_out"][g * R:(g + 1) * R] >= 0).sum())
    spec = registry.get_task(rules.GAME, "play")
    opts = spec.parse_options(rules, {"policy": ",".join(MIX)})
    assert spec.replay(8, 1, rules, opts) == replay_game(8, 1, rules, MIX)


@pytest.mark.parametrize("rules", [LobaRules(), ContinentalRules()])
def test_heuristic_beats_random_and_rounds_end(rules):
    n = 60
    t = G.play_chunk(1234, 0, n, rules, MIX)
    m = t["matches"]
    d = (m["total_1"].astype(float) + m["total_3"] - m["total_0"] - m["total_2"]) / 2
    z = d.mean() / (d.std(ddof=1) / math.sqrt(n))
    assert z > 4, z
    wins = np.bincount(m["winner"], minlength=4)
    assert wins[0] + wins[2] > 0.8 * n
    h = G.play_chunk(99, 0, 40, rules, "heuristic")["hands"]
    assert h["capped"].mean() < 0.01
    assert (h["went_out"] >= 0).mean() > 0.99


def test_reference_hand_plays():
    for rules in (LobaRules(claims=True), ContinentalRules()):
        for r in range(len(rules.rounds())):
            out = ref.play_hand(rules, r, "heuristic", seed=r)
            assert out["went_out"] >= 0
            for cards in out["melds"]:
                assert ref.valid_table_meld(cards, rules)


def test_sorted_search_equals_solver_search():
    from cardsim.simcore.rummy import melds as M
    from cardsim.simcore.rummy.cards import hand_planes
    rng = np.random.default_rng(7)
    for mp, jk in (((99, 1, 1, 1), 6), ((1, 2, 0, 0), 4)):
        deck = make_deck(jk)
        for _ in range(150):
            a1, a2, j = hand_planes([int(x) for x in rng.choice(deck, rng.integers(7, 16), replace=False)])
            a1, a2 = np.uint64(a1), np.uint64(a2)
            for k, m in ((0, 2), (0, 3), (1, 2), (2, 1), (1, 1)):
                for b in range(5):
                    assert M._search(a1, a2, j, m, b, k, *mp) == M._search_sorted(a1, a2, j, m, b, k, *mp)

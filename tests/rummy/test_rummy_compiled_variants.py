"""The kernels compiled without the claim code and the lay-down solvers the rules cannot reach
(None arguments that numba prunes) play exactly like the full kernels when those parts cannot act."""
import numpy as np
import pytest

from cardsim.simcore.rummy import play as G
from cardsim.simcore.rummy.rules import ContinentalRules
from cardsim.simcore.rummy.rules import LobaRules

MIX = ["heuristic", "random", "heuristic", "random"]


@pytest.mark.parametrize("make_rules", [
    lambda **kw: LobaRules(**kw),
    lambda **kw: ContinentalRules(**kw),
], ids=["loba", "continental"])
def test_no_claims_kernel_equals_claims_kernel_with_no_claiming_seat(make_rules):
    """Claims on with no seat allowed to claim (claim code compiled, never acting) and claims
    off (claim code left out) give the same games, card for card."""
    with_code = G.play_chunk(31, 5, 40, make_rules(claims=True), MIX, claim_seats=[])
    without = G.play_chunk(31, 5, 40, make_rules(claims=False), MIX)
    assert G._Setup(make_rules(claims=False), MIX, None).cseat is None
    assert G._Setup(make_rules(claims=True), MIX, []).cseat is not None
    for table in ("hands", "matches"):
        assert with_code[table].keys() == without[table].keys()
        for col, values in with_code[table].items():
            assert np.array_equal(values, without[table][col]), (table, col)
    assert without["hands"]["turns"].sum() > 0


def test_reach_markers_name_only_the_code_the_rules_and_policies_can_reach():
    # (go out at once, its exact solver, the exact solver for an ordinary lay-down, a random seat)
    assert G._Setup(LobaRules(), "heuristic", None).reach == (None, None, None, None)  # no buys: never out at once
    assert G._Setup(LobaRules(claims=True), "heuristic", None).reach == (1, 1, None, None)
    assert G._Setup(LobaRules(claims=True, exact_go_out=False), MIX, None).reach == (1, None, None, 1)
    assert G._Setup(ContinentalRules(), "heuristic", None).reach == (None, None, 1, None)  # Loba's final round only
    assert G._Setup(ContinentalRules(exact_laydown=False, claims=False), "random", None).reach == (None, None, None, 1)
    assert G._Setup(ContinentalRules(), ["search", "heuristic", "heuristic", "heuristic"], None).reach[3] is None


def test_the_markers_pick_the_code_while_compiling():
    from numba import types

    from cardsim.simcore.rummy import engine as E
    from cardsim.simcore.rummy import policies

    greedy = E._solve_laydown_typed(types.none, *[types.int64] * 12)
    exact = E._solve_laydown_typed(types.int64, *[types.int64] * 12)
    # the exact solver also weighs the table's melds (Continental, issue 34): exact_laydown_table
    assert "best_laydown" in greedy.__code__.co_names and "exact_laydown_table" not in greedy.__code__.co_names
    assert "exact_laydown_table" in exact.__code__.co_names and "best_laydown" not in exact.__code__.co_names
    heuristic_only = policies._choose_typed(*[types.int64] * 6, types.none)
    mixed = policies._choose_typed(*[types.int64] * 6, types.int64)
    assert "choose_random" not in heuristic_only.__code__.co_names and "choose_random" in mixed.__code__.co_names

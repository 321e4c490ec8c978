"""TuSacRules: defaults = the spec, parsing and validation."""
import pytest

from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.tusac.rules import TuSacRules


def test_defaults_are_the_spec():
    r = TuSacRules()
    assert r.players == 4 and r.dead_wall == 0 and r.mulligan and not r.trio_lock and r.soldier_pairs
    assert (r.command_points, r.field_points, r.three_colour_soldier_points, r.full_colour_soldier_points) == (2, 1, 1, 4)
    assert (r.steals, r.general_steals, r.priority, r.win_threshold) == ("on", "quad_only", "default", 0)
    assert r.steal_seats == ("0", "1", "2", "3") and r.steal_seat_mask() == 0b1111
    assert r.hand_sizes == (21, 20, 20, 20) and r.stock_size == 31
    assert set(TuSacRules.SWITCHES) == set(r.to_dict())


def test_parse_values():
    r = TuSacRules.from_settings({"players": "2", "command_points": "1", "three_colour_soldier_points": 3,
                                  "full_colour_soldier_points": "5", "steals": "win_only", "priority": "taiwanese",
                                  "steal_seats": "0,2,3", "soldier_pairs": "off", "win_threshold": "10"})
    assert r.stock_size == 71 and r.steal_seat_mask() == 0b01  # seats >= players ignored
    assert r.points() == (1, 1, 3, 5, False)
    assert TuSacRules.from_settings({"steal_seats": "none"}).steal_seat_mask() == 0


@pytest.mark.parametrize("bad", [{"players": 5}, {"command_points": 3}, {"three_colour_soldier_points": 2},
                                 {"full_colour_soldier_points": 3}, {"steals": "maybe"}, {"general_steals": "x"},
                                 {"steal_seats": "4"}, {"nope": 1}, {"dead_wall": 71}, {"trio_lock": "perhaps"},
                                 {"players": 4, "dead_wall": 31}])
def test_rejects(bad):
    with pytest.raises(ConfigError):
        TuSacRules.from_settings(bad)


def test_describe_rows():
    rows = {r[0]: r for r in TuSacRules.describe()}
    assert rows["command_points"][1:3] == ("2", "1 | 2")
    assert rows["steal_seats"][1] == "0,1,2,3"


def test_play_metric_units():
    from cardsim.simcore.tusac.spec import SPEC

    metrics = SPEC.metric_spec("play")
    assert metrics.unit_of("steals_seat_0") == "steals per game"  # a count per game, not a rate
    assert metrics.unit_of("points_seat_2") == "points"
    assert metrics.unit_of("turns") == "turns"
    assert metrics.unit_of("win_seat_1") == "rate" and metrics.unit_of("draw") == "rate"


def test_triple_steal_switch_is_listed():
    rows = {name: (default, allowed) for name, default, allowed, _ in TuSacRules.describe()}
    assert rows["triple_steal"] == ("pair", "pair | pair_or_triple")
    assert "triple_steal" in TuSacRules.HOUSE_CHOICES

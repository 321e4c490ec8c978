"""Under ``bombs_after_pass`` a seat that already passed gets a decision when it holds a bomb
that beats the table; declining it must show in the replay (issue 50, item 2), while
the games themselves (every column) stay as they were."""
from __future__ import annotations

import numpy as np

from cardsim.simcore.primitives.movelog import new_log
from cardsim.simcore.tienlen.log import LOG_DECLINE, LOG_KINDS, format_log
from cardsim.simcore.tienlen.play import play_chunk, play_logged
from cardsim.simcore.tienlen.rules import TienLenRules
from cli_helpers import run


def test_the_issues_game_prints_seat_0_declining_its_four_sevens(capsys):
    code, out, err = run(capsys, "replay", "tienlen", "--seed", 43, "--index", 349, "--policy",
                         "learned,search:64,random,heuristic", "--set", "bombs_after_pass=all")
    assert code == 0, err
    lines = out.splitlines()
    # the trick of the 2♦: seat 3 had passed, seat 2 passes, and seat 0 (four 7s, passed
    # earlier in the trick) is offered the bomb and declines it before seat 1 leads again
    i = next(i for i, line in enumerate(lines) if line.startswith("seat 1: 2♦"))
    assert lines[i + 1] == "seat 2: pass"
    assert lines[i + 2].startswith("seat 0: declines to bomb"), lines[i:i + 4]
    assert lines[i + 3] == "-- trick: seat 1 leads"


def test_a_decline_is_logged_only_for_a_passed_seat_and_changes_no_game():
    rules = TienLenRules(bombs_after_pass="all")
    policies = ["heuristic"] * 4
    cols, log, nlog = play_logged(5, 0, 400, rules, policies)
    kinds = np.concatenate([log[i, :nlog[i], 0] for i in range(400)])
    assert (kinds == LOG_DECLINE).sum() == 1  # rare: the heuristic bombs when it can, nearly always
    fast = play_chunk(5, 0, 400, rules, policies)
    for name in cols:
        np.testing.assert_array_equal(fast[name], cols[name])
    # no decline under the default rules (a passed seat never decides again)
    _, log, nlog = play_logged(5, 0, 300, TienLenRules(), ["heuristic"] * 4)
    assert not any((log[i, :nlog[i], 0] == LOG_DECLINE).any() for i in range(300))


def test_the_decline_line():
    assert LOG_KINDS[LOG_DECLINE] == "decline"
    log = new_log(4)
    log[0, :2] = (LOG_DECLINE, 2)
    row = {"place_0": 1, "place_1": 2, "points_0": 1, "points_1": 0}
    lines = format_log(log, 1, row, 2)
    assert lines[0] == "seat 2: declines to bomb (passed earlier in this trick)"

"""Big Two stepped from outside (``cardsim.env``) on hand-built deals: the first lead, passes that
do not lock a player out (and the lock-out switch), the end of a trick, the end of the game."""
import pytest

import cardsim

HANDS = [
    "3D 4D 5C 6H 7S 9D 9C JD QC KH AS 2D 2C",
    "3C 4C 5D 6C 8D 8C 10D JC QD KD AD 2H 4S",
    "3H 4H 5H 6D 7D 9H 10C JH QH KC AC 2S 5S",
    "3S 6S 7C 7H 8H 8S 9S 10H 10S JS QS KS AH",
]


def play(g, text):
    """Make the seat to move play the cards ``text`` (``pass`` for a pass)."""
    for action in g.legal_actions():
        shown = g.action_text(action)
        if shown.split("  [")[0].split(" [")[0] == text:
            g.step(action)
            return
    raise AssertionError(f"{text!r} is not legal for seat {g.to_move}: {[g.action_text(a) for a in g.legal_actions()]}")


def texts(g):
    return [g.action_text(a).split(" [")[0] for a in g.legal_actions()]


def new_game(**rules):
    return cardsim.env("bigtwo", rules={k: "on" if v is True else "off" if v is False else v for k, v in rules.items()},
                       deal={"hands": HANDS, "first": True})


def test_the_three_of_diamonds_leads_and_must_be_played():
    g = new_game()
    assert g.to_move == 0
    options = texts(g)
    assert "pass" not in options and all(o.split()[0] == "3♦" for o in options)
    assert "3♦ 4♦ 5♣ 6♥ 7♠" in options  # a straight containing it
    assert texts(new_game(three_diamonds_alone=True)) == ["3♦"]


def test_a_pass_does_not_lock_a_player_out_of_the_trick():
    g = new_game()
    play(g, "3♦")
    play(g, "pass")          # seat 1 passes ...
    play(g, "6♦")            # seat 2
    play(g, "7♣")            # seat 3
    play(g, "9♦")            # seat 0
    assert g.to_move == 1    # ... and is asked again in the same trick
    assert "10♦" in texts(g)
    play(g, "10♦")
    play(g, "pass")
    play(g, "pass")
    play(g, "pass")          # three passes in a row: the trick ends, seat 1 leads
    assert g.to_move == 1 and g.decision_kind() == "lead" and "pass" not in texts(g)


def test_pass_locks_skips_a_player_who_passed():
    g = new_game(pass_locks=True)
    play(g, "3♦")
    play(g, "pass")          # seat 1 passes: out of this trick
    play(g, "6♦")
    play(g, "7♣")
    play(g, "9♦")
    assert g.to_move == 2    # seat 1 is skipped
    play(g, "pass")
    play(g, "pass")          # seat 0 played last: it leads
    assert g.to_move == 0 and g.decision_kind() == "lead"


def test_five_card_hands_answer_five_card_hands():
    g = new_game()
    play(g, "3♦ 4♦ 5♣ 6♥ 7♠")                     # a straight
    assert all(len(o.split()) == 5 for o in texts(g) if o != "pass")
    play(g, "pass")
    play(g, "3♥ 4♥ 5♥ 9♥ J♥")                     # seat 2: a flush beats it
    options = texts(g)                              # seat 3: only a higher flush (spades, from K down)
    assert "pass" in options and "6♠ 7♣ 8♥ 9♠ 10♥" not in options  # a straight no longer beats it
    assert "3♠ 6♠ 8♠ 9♠ 10♠" not in options        # 10-high flush < J-high flush
    assert "3♠ 6♠ 8♠ 9♠ Q♠" in options


@pytest.mark.parametrize("doubling", [True, False])
def test_the_game_ends_at_the_first_player_out(doubling):
    g = new_game(doubling=doubling)
    while not g.done:
        g.step(g.policy_action())
    row = g.result()["games"]
    winner = row["winner"]
    assert row[f"cards_left_{winner}"] == 0 and row[f"place_{winner}"] == 1
    left = [row[f"cards_left_{s}"] for s in range(4)]
    assert sum(1 for n in left if n == 0) == 1
    pay = [(3 * n if n >= 13 else 2 * n if n >= 10 else n) if doubling else n for n in left]
    assert [row[f"points_{s}"] for s in range(4)] == [sum(pay) if s == winner else -pay[s] for s in range(4)]

"""Two custom deal events, one per hand representation.

    cardsim deal tienlen --deals 1e6 --event examples/deal_events.py:two_bombs
    cardsim deal tusac --deals 1e6 --event examples/deal_events.py:three_generals_one_colour

A deal event is a plain function of ONE hand returning a bool. cardsim compiles it with
Numba (write it as you would numpy-free Python: loops, ints, arrays) and counts it per
seat and for the table ("any": at least one seat) beside the built-in events.

Hand representations (the ones the kernels use):

* Tiến Lên: an int64 52-bit mask; card id ``4 * rank + suit``, ranks 3 4 5 6 7 8 9 10 J
  Q K A 2 = 0..12, suits ♠ ♣ ♦ ♥ = 0..3 (3♠ = bit 0, 2♥ = bit 51);
  ``(hand >> (4 * r)) & 15`` are the four suits of rank ``r``.
* Tứ Sắc: an int8 array of 28 counts (0..4), index ``7 * colour + character``; colours
  red, yellow, green, white = 0..3; characters General, Advisor, Elephant, Chariot,
  Horse, Cannon, Soldier = 0..6.
"""


def two_bombs(hand):
    """Tiến Lên: the hand holds two four-of-a-kinds (two "bombs")."""
    fours = 0
    for rank in range(13):
        if (hand >> (4 * rank)) & 15 == 15:
            fours += 1
    return fours >= 2


def three_generals_one_colour(counts):
    """Tứ Sắc: three or more copies of the General of one colour."""
    for colour in range(4):
        if counts[7 * colour] >= 3:
            return True
    return False

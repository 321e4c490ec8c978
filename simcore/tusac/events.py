"""Tứ Sắc hands for users' own deal events (``cardsim deal tusac --event PATH.py:NAME``).

A user function gets one hand as an ``int8[28]`` array of counts per card type
``7 * colour + character`` (colours red, yellow, green, white; characters General,
Advisor, Elephant, Chariot, Horse, Cannon, Soldier), each 0..4.
"""
from __future__ import annotations

import numpy as np
from numba import types

from cardsim.simcore.framework.custom_events import HandsSpec


def _hands(seed, start, count, rules):
    from cardsim.simcore.tusac.deal import deal_rows

    hands, _ = deal_rows(seed, start, count, rules.players)
    return np.ascontiguousarray(hands[:, :rules.players, :])


HANDS = HandsSpec(types.Array(types.int8, 1, "C", readonly=False), "an int8[28] array of counts per type", _hands)

"""Card type ids and notation."""
import numpy as np
import pytest

from cardsim.simcore.tusac import cards as C


def test_type_ids():
    assert C.N_TYPES == 28 and C.N_CARDS == 112
    assert C.type_name(0) == "RG" and C.type_name(27) == "WS" and C.long_name(27) == "white Soldier"
    assert C.GENERAL_TYPES == (0, 7, 14, 21) and C.SOLDIER_TYPES == (6, 13, 20, 27)
    assert [C.parse_type(C.type_name(t)) for t in range(28)] == list(range(28))


def test_parse_and_print_hands():
    h = C.parse_hand("RG rg 3WS, YN")
    assert h.dtype == np.int8 and h.sum() == 6
    assert C.hand_str(h) == "2RG YN 3WS"
    assert (C.parse_hand(C.hand_str(h)) == h).all()
    assert C.hand_str(np.zeros(28)) == "-"
    with pytest.raises(ValueError):
        C.parse_hand("RX")
    with pytest.raises(ValueError):
        C.parse_hand("4RG RG")

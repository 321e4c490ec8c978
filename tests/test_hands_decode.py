"""analysis.hand_cards / rank_counts / suit_counts decode stored hands like the kernels."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cardsim import analysis
from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.tienlen.cards import hand_str
from cli_helpers import run


def test_tienlen_hands_decode(tmp_path, capsys):
    code, _, err = run(capsys, "deal", "tienlen", "--deals", 300, "--seed", 4, "--per-deal", "--out", tmp_path / "d", "--quiet")
    assert code == 0, err
    deals = pd.read_parquet(tmp_path / "d" / "per_deal")
    text = analysis.hand_cards(deals["hand_1"], "tienlen")
    assert text.tolist() == [hand_str(int(m)) for m in deals["hand_1"]]
    ranks = analysis.rank_counts(deals["hand_1"], "tienlen")
    suits = analysis.suit_counts(deals["hand_1"], "tienlen")
    assert (ranks.sum(axis=1) == 13).all() and (suits.sum(axis=1) == 13).all()
    twos = np.array([bin(int(m) >> 48).count("1") for m in deals["hand_1"]])
    assert (ranks["2"].to_numpy() == twos).all()
    spades = np.array([sum(int(m) >> (4 * r) & 1 for r in range(13)) for m in deals["hand_1"]])
    assert (suits["♠"].to_numpy() == spades).all()


def test_tusac_hands_decode(tmp_path, capsys):
    code, _, err = run(capsys, "deal", "tusac", "--deals", 200, "--seed", 4, "--per-deal", "--out", tmp_path / "d", "--quiet")
    assert code == 0, err
    deals = pd.read_parquet(tmp_path / "d" / "per_deal")
    counts = analysis.card_counts(deals["hand_0"], "tusac")
    assert counts.shape == (200, 28) and (counts.sum(axis=1) == 21).all()
    assert (analysis.rank_counts(deals["hand_0"], "tusac").sum(axis=1) == 21).all()
    colours = analysis.suit_counts(deals["hand_0"], "tusac")
    assert list(colours.columns) == ["red", "yellow", "green", "white"]
    assert "red General" in " ".join(analysis.hand_cards(deals["hand_0"], "tusac"))
    with pytest.raises(ConfigError):
        analysis.card_counts(deals["hand_0"], "loba")

"""Big Two one decision at a time: Tiến Lên's :class:`~cardsim.simcore.tienlen.step.TienLenStep`
on the Big Two profile of the engine (same state, action ids and explicit deals; cards
written in Big Two's suit order), with Big Two's games row and table classes."""
from __future__ import annotations

from typing import Any

from cardsim.simcore.tienlen.fives import FIVE_BASE
from cardsim.simcore.tienlen.step import TienLenStep

#: Table classes of the observation vector: single, pair, triple, four alone, then the five-card types.
N_TABLE_CLASSES = 9


def table_class_index(cls: int) -> int:
    """A class id as its index in the observation's ``table_class`` block."""
    return 4 + ((cls - FIVE_BASE) & 7) if cls >= FIVE_BASE else cls


class BigTwoStep(TienLenStep):
    """One Big Two game stepped decision by decision (see :mod:`cardsim.simcore.tienlen.step`)."""

    game = "bigtwo"

    @classmethod
    def observation_layout(cls, rules) -> list[tuple[str, int]]:
        """As Tiến Lên's, with ``table_class`` over Big Two's 9 classes (single, pair,
        triple, four alone, straight, flush, full house, four + kicker, straight flush)."""
        return [(name, N_TABLE_CLASSES if name == "table_class" else n)
                for name, n in TienLenStep.observation_layout(rules)]

    TABLE_CLASS_SLOTS = N_TABLE_CLASSES
    table_class_slot = staticmethod(table_class_index)

    def result(self) -> dict[str, Any]:
        from cardsim.simcore.bigtwo.tasks import bigtwo_columns

        row = TienLenStep.result(self)["games"]
        return {"games": bigtwo_columns(row)}

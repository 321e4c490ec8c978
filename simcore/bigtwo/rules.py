"""Big Two rule switches (spec: ``docs/rules/bigtwo.md``) and their Tiến Lên engine parameters.

Big Two is a profile of the Tiến Lên engine (:mod:`cardsim.simcore.tienlen`), not a second
engine: :meth:`BigTwoRules.kernel_params` fills the engine's own parameter vector
(:data:`cardsim.simcore.tienlen.rules.PARAMS`), with the suits in Big Two's order
(``DCHS``: ♦ < ♣ < ♥ < ♠, so that the 3♦ is card 0 and the 2♠ card 51), five-card hands
on (:mod:`cardsim.simcore.tienlen.fives`), no bombs, the game over at the first player
out and Big Two's payment per card left.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cardsim.simcore.framework.config import ConfigError, Rules, Switch
from cardsim.simcore.tienlen.rules import FLUSH_ORDERS, PARAMS, SCORING_PER_CARD, STRAIGHT_VARIANTS

#: Big Two's suit order, lowest first (the engine's ``suit_order``): ♦ ♣ ♥ ♠.
SUIT_ORDER = "DCHS"


@dataclass(frozen=True)
class BigTwoRules(Rules):
    """Big Two switches; defaults are the standard (Hong Kong style) game."""

    players: int = 4
    cards_per_player: int = 13
    straights: str = "no_twos"
    flush_order: str = "ranks"
    four_card_quads: bool = False
    pass_locks: bool = False
    three_diamonds_alone: bool = False
    doubling: bool = True

    GAME: ClassVar[str] = "bigtwo"
    SWITCHES: ClassVar = {
        "players": Switch("int", "number of players", low=2, high=4),
        "cards_per_player": Switch("int", "cards dealt to each player (players x cards <= 52)", low=1, high=17),
        "straights": Switch("choice", "straight windows: no_twos (3-4-5-6-7 .. 10-J-Q-K-A), wheels (also A-2-3-4-5 "
                            "and 2-3-4-5-6, the lowest two) or twos_high (also J-Q-K-A-2, the highest)",
                            choices=STRAIGHT_VARIANTS),
        "flush_order": Switch("choice", "flushes compare by ranks (highest rank first, then the next ..., then the "
                              "suit) or by suit first (then the ranks)", choices=FLUSH_ORDERS),
        "four_card_quads": Switch("bool", "a four of a kind may also be played alone (4 cards), beaten only by a "
                                  "higher four"),
        "pass_locks": Switch("bool", "a pass is final for the trick (the lock-out variant); off: a player who "
                             "passed may play again, the trick ends after all others pass in a row"),
        "three_diamonds_alone": Switch("bool", "the first lead must be the 3♦ alone (not a combination)"),
        "doubling": Switch("bool", "losers pay x2 per card when holding 10-12 cards, x3 when holding 13 or more"),
    }
    HOUSE_CHOICES: ClassVar = {
        "first_leader": "the holder of the lowest dealt card (the 3♦ when it is dealt) leads, with a play that "
                        "contains it",
        "straight_ties": "two straights (or straight flushes) of the same window compare by the suit of their top "
                         "card (the 5 of A-2-3-4-5, the 6 of 2-3-4-5-6, the 2 of J-Q-K-A-2)",
        "flush_ranks": "flush_order=ranks: the highest ranks decide, then the next ones ...; equal ranks: the suit",
        "full_house": "a full house compares by its triple, a four + kicker by its four (the pair or kicker never "
                      "matters: one pack)",
        "straight_vs_flush": "five cards of one suit that form a straight window are a straight flush, never a "
                             "straight or a flush",
        "trick_end": "the trick ends when the turn comes back to the last player who played (three passes in a "
                     "row with four players); if that player has gone out the game is over",
        "game_end": "the game ends when the first player goes out; the others are placed by cards left, ties by "
                    "play order after the winner",
        "scoring": "each loser pays one point per card left (x2 at 10-12 cards, x3 at 13 or more with doubling); "
                   "the winner receives the total",
        "fewer_players": "with 2 or 3 players the undealt cards stay out of play (no extra card to the 3♦ holder)",
        "learned": "the learned policy scores Big Two's heuristic's candidates by Tiến Lên's features, read as "
                   "Big Two's heuristic reads them, with Big Two's own weights (cardsim train bigtwo)",
    }

    @property
    def suit_order(self) -> str:
        """The engine's suit order for Big Two (not a switch)."""
        return SUIT_ORDER

    @property
    def instant_wins(self) -> tuple[str, ...]:
        return ()

    def validate(self) -> None:
        if self.players * self.cards_per_player > 52:
            raise ConfigError(f"impossible deal: {self.players} players x {self.cards_per_player} cards > 52")

    def black_mask(self) -> int:
        """52-bit mask of the black cards (clubs, spades) in Big Two's suit order."""
        suits = sum(1 << i for i, suit in enumerate(SUIT_ORDER) if suit in "SC")
        return sum(suits << (4 * rank) for rank in range(13))

    def instant_win_mask(self) -> int:
        return 0

    def five_profile(self) -> int:
        """The engine's ``five`` parameter: 1 + the five-card variant (:mod:`cardsim.simcore.tienlen.fives`)."""
        return 1 + 2 * STRAIGHT_VARIANTS.index(self.straights) + FLUSH_ORDERS.index(self.flush_order)

    def kernel_params(self, games_per_match: int = 1):
        """The Tiến Lên engine's int64 parameter vector (:data:`~cardsim.simcore.tienlen.rules.PARAMS`) for these rules."""
        import numpy as np

        values = {
            "players": self.players, "cards_per_player": self.cards_per_player, "instant_wins": 0,
            "chop_rules": 0, "chop_length": 0, "bombs_after_pass": 0, "pass_resets": 0 if self.pass_locks else 1,
            "three_spades_alone": int(self.three_diamonds_alone), "scoring": SCORING_PER_CARD,
            "games_per_match": int(games_per_match), "black_mask": self.black_mask(), "five": self.five_profile(),
            "quads_alone": int(self.four_card_quads), "end_first": 1, "card_pay": 1,
            "double_at": 10 if self.doubling else 0, "triple_at": 13 if self.doubling else 0,
        }
        params = np.zeros(len(PARAMS), np.int64)
        for name, index in PARAMS.items():
            params[index] = values.pop(name)
        if values:
            raise TypeError(f"unknown kernel parameter(s): {', '.join(values)}")
        return params

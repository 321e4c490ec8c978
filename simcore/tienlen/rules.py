"""Tiến Lên rule switches (spec: ``docs/rules/tienlen.md``) and the kernels' parameter vector.

The kernels receive the rules as one int64 vector (:func:`kernel_params`, layout
:data:`PARAMS`); every integer a kernel compares a switch with is derived here from the
switch's choices (:meth:`~cardsim.simcore.framework.config.Switch.encode`: a choice is its
index), never typed again in a kernel module.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cardsim.simcore.framework.config import ConfigError, Rules, Switch, param_layout

#: Instant-win kinds in priority order (highest first), as in the spec.
INSTANT_WIN_KINDS = (
    "dragon",
    "four_twos",
    "five_consecutive_pairs",
    "six_pairs",
    "three_consecutive_triples",
    "one_colour",
)

CHOP_RULES = ("seed", "southern")
#: Double-sequence lengths that chop 2s under the seed ladder: 3 / 4 / 5 pairs "or more"
#: (the seed) or exactly (an older reading).
CHOP_LENGTHS = ("at_least", "exact")
BOMBS_AFTER_PASS = ("none", "all", "four_pairs")
SCORING = ("3-2-1-0", "4-3-2-1", "per_card")
#: Big Two's five-card variants (the engine's ``five`` profile, :mod:`.fives`; switches of
#: ``simcore/bigtwo``): straight windows (switch ``straights``) and flush comparisons
#: (switch ``flush_order``).
STRAIGHT_VARIANTS = ("no_twos", "wheels", "twos_high")
FLUSH_ORDERS = ("ranks", "suit")
#: Suit orders, lowest first (S ♠, C ♣, D ♦, H ♥); the spec's default is SCDH.
SUIT_ORDERS = tuple("".join(p) for p in __import__("itertools").permutations("SCDH"))


@dataclass(frozen=True)
class TienLenRules(Rules):
    """Tiến Lên switches; defaults are the seed's game."""

    players: int = 4
    cards_per_player: int = 13
    instant_wins: tuple[str, ...] = ("dragon", "four_twos")
    chop_rules: str = "seed"
    chop_length: str = "at_least"
    bombs_after_pass: str = "none"
    pass_resets: bool = False
    three_spades_alone: bool = False
    scoring: str = "3-2-1-0"
    suit_order: str = "SCDH"

    GAME: ClassVar[str] = "tienlen"
    SWITCHES: ClassVar = {
        "players": Switch("int", "number of players", low=2, high=4),
        "cards_per_player": Switch("int", "cards dealt to each player (players x cards <= 52)", low=1, high=26),
        "instant_wins": Switch(
            "set",
            "instant-win kinds checked after the deal (priority: dragon > four_twos > "
            "five_consecutive_pairs > six_pairs > three_consecutive_triples > one_colour)",
            choices=INSTANT_WIN_KINDS,
        ),
        "chop_rules": Switch("choice", "bomb ladder: seed (spec default) or southern", choices=CHOP_RULES),
        "chop_length": Switch(
            "choice", "seed ladder: a double sequence of 3/4/5 pairs or more (at_least, the seed's 'o más') "
            "or of exactly 3/4/5 pairs (exact) chops one/two/three 2s", choices=CHOP_LENGTHS),
        "bombs_after_pass": Switch(
            "choice", "which bombs a player who passed this trick may still play", choices=BOMBS_AFTER_PASS
        ),
        "pass_resets": Switch("bool", "a pass is not final: a passed player may play again in the trick"),
        "three_spades_alone": Switch("bool", "the first lead must be the 3♠ alone (not a combination)"),
        "scoring": Switch("choice", "points: 3-2-1-0, 4-3-2-1, or per_card (losers pay per card left)", choices=SCORING),
        "suit_order": Switch("choice", "suits from lowest to highest (S ♠, C ♣, D ♦, H ♥): breaks ties between "
                             "equal ranks; the 3 of the first suit leads", choices=SUIT_ORDERS),
    }
    HOUSE_CHOICES: ClassVar = {
        "first_leader": "the holder of the lowest dealt card leads the first game (3♠ when it is dealt; "
                        "with another suit_order, the 3 of its lowest suit: event holds_three_spades then "
                        "means 'holds the lowest card')",
        "instant_win_ties": "equal kinds go to the earlier seat in play order from the first leader",
        "instant_win_others": "after an instant win the others are ranked by cards left, ties by play order after the winner",
        "colours": "black = spades, clubs; red = diamonds, hearts; one_colour means >= 12 cards of one colour",
        "six_pairs": "a four of a kind counts as two pairs; pairs of 2s count",
        "consecutive": "five consecutive pairs and three consecutive triples never contain a 2 (no wrap)",
        "chop_length": "applies to the seed ladder; under chop_rules=southern the bombs are the ones listed there "
                       "(a 4-pair double sequence is the longest that chops)",
    }

    def validate(self) -> None:
        if self.players * self.cards_per_player > 52:
            raise ConfigError(
                f"impossible deal: {self.players} players x {self.cards_per_player} cards > 52"
            )

    def black_mask(self) -> int:
        """52-bit mask of the black cards (spades, clubs) under ``suit_order``."""
        suits = sum(1 << i for i, suit in enumerate(self.suit_order) if suit in "SC")
        return sum(suits << (4 * rank) for rank in range(13))

    def instant_win_mask(self) -> int:
        """Bit ``k`` set when kind ``INSTANT_WIN_KINDS[k]`` is enabled."""
        return sum(1 << k for k, kind in enumerate(INSTANT_WIN_KINDS) if kind in self.instant_wins)


# ----------------------------------------------------------------------------- the kernels' parameters
#: The kernels' int64 parameter vector: the switches the kernels read, then the run's extras.
PARAMS = param_layout(
    TienLenRules,
    ("players", "cards_per_player", "instant_wins", "chop_rules", "chop_length", "bombs_after_pass", "pass_resets",
     "three_spades_alone", "scoring"),
    ("games_per_match", "black_mask", *("five", "quads_alone", "end_first", "card_pay", "double_at", "triple_at")),
)
P_PLAYERS = PARAMS["players"]
P_CARDS = PARAMS["cards_per_player"]
P_INSTANT = PARAMS["instant_wins"]
P_CHOP = PARAMS["chop_rules"]
P_CHOP_LEN = PARAMS["chop_length"]
P_BAP = PARAMS["bombs_after_pass"]
P_RESETS = PARAMS["pass_resets"]
P_ALONE = PARAMS["three_spades_alone"]
P_SCORING = PARAMS["scoring"]
P_K = PARAMS["games_per_match"]
P_BLACK = PARAMS["black_mask"]
#: The Big Two profile of the engine (``simcore/bigtwo``); 0 everywhere is Tiến Lên.
#: ``five``: 0, or 1 + the five-card variant (:mod:`.fives`: five-card hands, no bombs);
#: ``quads_alone``: a four of a kind may be played alone; ``end_first``: the game ends
#: when the first player goes out (the others placed by cards left); ``card_pay``: 1 =
#: ``per_card`` losers pay cards left times a multiplier (x2 from ``double_at`` cards,
#: x3 from ``triple_at``; 0 = off) instead of Tiến Lên's card + 2s.
P_FIVE = PARAMS["five"]
P_QUADS = PARAMS["quads_alone"]
P_END_FIRST = PARAMS["end_first"]
P_CARD_PAY = PARAMS["card_pay"]
P_DOUBLE_AT = PARAMS["double_at"]
P_TRIPLE_AT = PARAMS["triple_at"]

#: The encoded values the kernels compare with (a choice switch encodes as its index).
CHOP_SEED, CHOP_SOUTHERN = (CHOP_RULES.index(c) for c in ("seed", "southern"))
CHOP_AT_LEAST, CHOP_EXACT = (CHOP_LENGTHS.index(c) for c in ("at_least", "exact"))
BAP_NONE, BAP_ALL, BAP_FOUR_PAIRS = (BOMBS_AFTER_PASS.index(c) for c in ("none", "all", "four_pairs"))
SCORING_PER_CARD = SCORING.index("per_card")
#: Points by place of the ladder scorings, one row per ``SCORING`` code below ``SCORING_PER_CARD``.
SCORING_LADDERS = tuple(tuple(int(x) for x in name.split("-")) for name in SCORING if name != "per_card")


def profile_arg(prm):
    """The kernels' ``five`` argument for the parameter vector ``prm``: ``None`` for Tiến Lên
    (numba then compiles no Big Two code, as it leaves the search out when no seat
    searches) or the Big Two profile ``prm[P_FIVE]`` as an int64."""
    import numpy as np

    return None if int(prm[P_FIVE]) == 0 else np.int64(prm[P_FIVE])


def kernel_params(rules: TienLenRules, games_per_match: int = 1):
    """Rules (and the match length) as the kernels' int64 parameter vector (:data:`PARAMS`).

    Another game on this engine (Big Two) gives its own vector: ``rules.kernel_params``."""
    if games_per_match < 1:
        raise ValueError("games_per_match must be >= 1")
    if not isinstance(rules, TienLenRules):
        return rules.kernel_params(games_per_match)
    return rules.encode_params(PARAMS, {"games_per_match": games_per_match, "black_mask": rules.black_mask(),
                                        "five": 0, "quads_alone": 0, "end_first": 0, "card_pay": 0, "double_at": 0,
                                        "triple_at": 0})

"""Tứ Sắc rule switches (spec: ``docs/rules/tusac.md``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    import numpy

from cardsim.simcore.framework.config import ConfigError, Rules, Switch, param_layout

STEALS = ("on", "off", "win_only")
GENERAL_STEALS = ("quad_only", "never")
PRIORITIES = ("default", "taiwanese")
TRIPLE_STEALS = ("pair", "pair_or_triple")
SEATS = ("0", "1", "2", "3")

DEALER_CARDS = 21
PLAYER_CARDS = 20
DECK_CARDS = 112


@dataclass(frozen=True)
class IntChoice(Switch):
    """An integer switch restricted to a few values (e.g. ``1 | 2`` points)."""

    values: tuple[int, ...] = ()

    def allowed(self) -> str:
        return " | ".join(str(v) for v in self.values)

    def parse(self, name: str, raw: Any) -> Any:
        bad = f"bad value {raw!r} for switch '{name}': expected {self.allowed()}"
        if isinstance(raw, bool):
            raise ConfigError(bad)
        try:
            value = int(str(raw).strip(), 10)
        except ValueError:
            raise ConfigError(bad) from None
        if value not in self.values:
            raise ConfigError(bad)
        return value


@dataclass(frozen=True)
class TuSacRules(Rules):
    """Tứ Sắc switches; defaults are the seed's game (the spec's default profile)."""

    players: int = 4
    dead_wall: int = 0
    mulligan: bool = True
    trio_lock: bool = False
    soldier_pairs: bool = True
    command_points: int = 2
    field_points: int = 1
    three_colour_soldier_points: int = 1
    full_colour_soldier_points: int = 4
    steals: str = "on"
    general_steals: str = "quad_only"
    priority: str = "default"
    steal_seats: tuple[str, ...] = SEATS
    win_threshold: int = 0
    triple_steal: str = "pair"

    GAME: ClassVar[str] = "tusac"
    SWITCHES: ClassVar = {
        "players": Switch("int", "number of players (dealer 21 cards, others 20, the rest is the stock)",
                          low=2, high=4),
        "dead_wall": Switch("int", "stock cards left unplayed that end the hand as a draw (0: play it out)",
                            low=0, high=70),
        "mulligan": Switch("bool", "a weak hand (no General, triple, quadruple or full-colour soldiers) voids the deal"),
        "trio_lock": Switch("bool", "a dealt triple may never be split in play"),
        "soldier_pairs": Switch("bool", "a pair of identical Soldiers is a meld"),
        "command_points": IntChoice("int", "points of a Command group (General+Advisor+Elephant, one colour)",
                                    values=(1, 2)),
        "field_points": IntChoice("int", "points of a Field group (Chariot+Horse+Cannon, one colour)",
                                  values=(1, 2)),
        "three_colour_soldier_points": IntChoice("int", "points of three Soldiers of three colours",
                                                 values=(1, 3)),
        "full_colour_soldier_points": IntChoice("int", "points of four Soldiers of four colours",
                                                values=(4, 5)),
        "steals": Switch("choice", "out-of-turn claims: on, off, or win_only", choices=STEALS),
        "general_steals": Switch("choice", "a drawn General may be stolen (besides to win) only to make a "
                                 "quadruple, or never", choices=GENERAL_STEALS),
        "priority": Switch("choice", "claim order: default (win > triple/quad > normal taker) or taiwanese "
                           "(win > triple/quad > any meld by the next player)", choices=PRIORITIES),
        "steal_seats": Switch("set", "seats allowed to steal (seats >= players are ignored)", choices=SEATS),
        "win_threshold": Switch("int", "minimum points to declare a win (spec: 0, 9 or 10)", low=0, high=99),
        "triple_steal": Switch("choice", "an out-of-turn claim for a triple needs a pair (seed: the claimant "
                               "announces a pair; with three copies only a quadruple), or pair_or_triple (a "
                               "holder of three copies may also claim for a triple and keep the third)",
                               choices=TRIPLE_STEALS),
    }
    HOUSE_CHOICES: ClassVar = {
        "dealer": "seat 0 is the dealer and gets 21 cards, seats 1.. get 20; the stock is the rest",
        "card_encoding": "type id = 7*colour + character (colours red, yellow, green, white; characters General, "
                         "Advisor, Elephant, Chariot, Horse, Cannon, Soldier); copies are identical, hands are "
                         "28 counts",
        "weak_hand": "no General, no type held 3 or 4 times, and not a Soldier of every colour",
        "dealt_triple": "a dealt triple is a type held exactly 3 times; a quadruple is not also a triple",
        "generals_buckets": "number of General cards in a hand, top bucket generals_8plus",
        "general_pair": "a pair of identical Generals scores as two single Generals (2), so it is never "
                        "formed as a 0-point pair",
        "trio_lock": "with trio_lock the 3 locked copies may only be melded together (triple, or quadruple "
                     "with the 4th copy); a 4th copy is otherwise free",
        "steal_seats": "seats numbered from the dealer (0) in play order",
        "play_switches": "dead_wall, steals, general_steals, priority, steal_seats and win_threshold only "
                         "affect play; deal statistics ignore them",
        "play_order": "play passes from seat s to seat s+1 (mod players); the dealer (seat 0) opens by "
                      "discarding",
        "dealt_quadruple": "a dealt quadruple is laid face up at the start as a concealed quadruple (8 points) "
                           "and never split",
        "stock": "each draw takes a uniformly random remaining stock card (same law as a shuffled stock)",
        "claims": "wins are always claimed; the discarder never claims its own discard; a drawer who does "
                  "not meld its drawn card exposes it again as its discard (claims, the next player may eat)",
        "taiwanese_priority": "level 3 (any meld) belongs to the next player for drawn cards too: the drawer "
                              "keeps a drawn non-General card only to win or to make a triple/quadruple; if "
                              "the next player does not eat it, it stays discarded and the next player draws",
        "no_legal_discard": "a player keeps 20 cards between turns (21 at a win): a take that is not a win "
                            "must leave a legal discard, so below win_threshold a fully melded hand of Generals "
                            "or locked cards may not take, and a drawn General it cannot keep is discarded as "
                            "drawn; a dealer with no legal opening discard discards its lowest non-General "
                            "card, else its lowest General",
        "mulligan_limit": "after 100 redeals the deal is played even if a hand is weak",
        "triple_steal": "applies to every level-2 claim: steals out of turn and, under taiwanese priority, the "
                        "drawer keeping its drawn card; the next player's eat (any meld) may still make a triple "
                        "from three copies",
        "payment": "each loser pays the winner's score: winner +score*(players-1), losers -score",
    }

    def validate(self) -> None:
        stock = DECK_CARDS - PLAYER_CARDS * self.players - 1
        if self.dead_wall >= stock:
            raise ConfigError(f"dead_wall {self.dead_wall} leaves nothing to draw from the stock of "
                              f"{stock} cards with {self.players} players")

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Cards dealt to seats 0..players-1 (the dealer first)."""
        return (DEALER_CARDS,) + (PLAYER_CARDS,) * (self.players - 1)

    @property
    def stock_size(self) -> int:
        return DECK_CARDS - sum(self.hand_sizes)

    def steal_seat_mask(self) -> int:
        """Bit ``s`` set when seat ``s`` (< players) may steal."""
        return sum(1 << int(s) for s in self.steal_seats if int(s) < self.players)

    def points(self) -> tuple[int, int, int, int, bool]:
        """``(command, field, three_colour, full_colour, soldier_pairs)`` for :mod:`.melds`."""
        return (self.command_points, self.field_points, self.three_colour_soldier_points,
                self.full_colour_soldier_points, self.soldier_pairs)


# ------------------------------------------------------------------ the kernel's parameter vector

#: Switches the play kernel reads, in parameter-vector order (generated, never retyped).
KERNEL_SWITCHES = ("players", "dead_wall", "mulligan", "trio_lock", "steals", "general_steals", "priority",
                   "steal_seats", "win_threshold", "command_points", "field_points",
                   "three_colour_soldier_points", "full_colour_soldier_points", "soldier_pairs", "triple_steal")
PARAM_LAYOUT = param_layout(TuSacRules, KERNEL_SWITCHES)
(P_PLAYERS, P_DEAD, P_MULL, P_LOCK, P_STEALS, P_GSTEALS, P_PRIO, P_SEATS, P_THR, P_CMD, P_FIELD, P_S3, P_S4,
 P_SPAIRS, P_TSTEAL) = (PARAM_LAYOUT[name] for name in KERNEL_SWITCHES)
#: Encoded choice values (``Switch.encode``: the index in the switch's choices).
ST_ON, ST_OFF, ST_WIN = (STEALS.index(x) for x in ("on", "off", "win_only"))
GSTEAL_NEVER = GENERAL_STEALS.index("never")
PRIO_TAIWANESE = PRIORITIES.index("taiwanese")
TSTEAL_PAIR = TRIPLE_STEALS.index("pair")


def kernel_params(rules: TuSacRules) -> "numpy.ndarray":
    """Rules as the kernel's int64 parameter vector (layout :data:`PARAM_LAYOUT`)."""
    return rules.encode_params(PARAM_LAYOUT)

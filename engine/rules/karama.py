"""Basic Karama (A-14): a faction readies a Karama card against one use of another faction's advantage.

Play by post cannot stop the table at every moment an advantage is used, so Karama is a secret standing
order: the card stays in the hand (hand sizes leak nothing) until the advantage is next used, then it is
revealed, discarded and the use is cancelled. Rules code asks `karama_cancels` before using an advantage.
The one exception is a BT traitor reveal (BT-51): it is public and rare, so every faction but the BT is asked
about it once it is seen (engine/factions/bt_reveal_karama.py); an order readied against it answers that window.
"""

from __future__ import annotations

from enum import StrEnum

from engine.actions import UseKarama
from engine.data import load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog, EventType
from engine.flow import handles
from engine.ids import CardCategory, Faction
from engine.model import GameState, KaramaOrder
from engine.names import faction_does

RULE = "A-14"


class Advantage(StrEnum):
    """The advantages a Karama can cancel, per faction (`karama_can_block` in data/factions.json)."""

    SEE_AUCTION_CARDS = "see_auction_cards"
    SEE_SPICE_DECK = "see_spice_deck"
    PRESCIENCE = "prescience"
    VOICE = "voice"
    SPIRITUAL_ADVISOR = "spiritual_advisor"
    CARD_PAYMENTS = "card_payments"
    TWO_TERRITORY_MOVE = "two_territory_move"
    WORM_IMMUNITY = "worm_immunity"
    SHIPMENT_PAYMENTS = "shipment_payments"
    HALF_PRICE_SHIPPING = "half_price_shipping"
    CROSS_SHIPPING = "cross_shipping"
    EXTRA_CARD = "extra_card"
    BT_TRAITOR_REVEAL = "bt_traitor_reveal"  # BT-26, BT-51: cancel one BT traitor reveal
    # A-15 `character_advantages` only (data/factions.json: "(optional)"):
    HALF_STORM_LOSSES = "half_storm_losses"
    WORM_PLACEMENT = "worm_placement"
    OUT_OF_ORDER_SHIPPING = "out_of_order_shipping"
    KWISATZ_HADERACH = "kwisatz_haderach"
    SARDAUKAR = "sardaukar"
    LEADER_CAPTURE = "leader_capture"


OWNER: dict[Advantage, Faction] = {
    Advantage.SEE_AUCTION_CARDS: Faction.ATREIDES,
    Advantage.SEE_SPICE_DECK: Faction.ATREIDES,
    Advantage.PRESCIENCE: Faction.ATREIDES,
    Advantage.VOICE: Faction.BENE_GESSERIT,
    Advantage.SPIRITUAL_ADVISOR: Faction.BENE_GESSERIT,
    Advantage.CARD_PAYMENTS: Faction.EMPEROR,
    Advantage.TWO_TERRITORY_MOVE: Faction.FREMEN,
    Advantage.WORM_IMMUNITY: Faction.FREMEN,
    Advantage.SHIPMENT_PAYMENTS: Faction.GUILD,
    Advantage.HALF_PRICE_SHIPPING: Faction.GUILD,
    Advantage.CROSS_SHIPPING: Faction.GUILD,
    Advantage.EXTRA_CARD: Faction.HARKONNEN,
    Advantage.BT_TRAITOR_REVEAL: Faction.BENE_TLEILAXU,
    Advantage.HALF_STORM_LOSSES: Faction.FREMEN,
    Advantage.WORM_PLACEMENT: Faction.FREMEN,
    Advantage.OUT_OF_ORDER_SHIPPING: Faction.GUILD,
    Advantage.KWISATZ_HADERACH: Faction.ATREIDES,
    Advantage.SARDAUKAR: Faction.EMPEROR,
    Advantage.LEADER_CAPTURE: Faction.HARKONNEN,
}

# Advantages that exist only with an option on: readying a Karama against them otherwise is refused.
NEEDS_OPTION: dict[Advantage, str] = {
    Advantage.HALF_STORM_LOSSES: "character_advantages",
    Advantage.WORM_PLACEMENT: "character_advantages",
    Advantage.OUT_OF_ORDER_SHIPPING: "character_advantages",
    Advantage.KWISATZ_HADERACH: "character_advantages",
    Advantage.SARDAUKAR: "character_advantages",
    Advantage.LEADER_CAPTURE: "character_advantages",
}

DESCRIPTIONS: dict[Advantage, str] = {
    Advantage.SEE_AUCTION_CARDS: "look at a card up for auction",
    Advantage.SEE_SPICE_DECK: "look at the top of the spice deck",
    Advantage.PRESCIENCE: "ask the prescience question",
    Advantage.VOICE: "use the Voice",
    Advantage.SPIRITUAL_ADVISOR: "send a free spiritual advisor",
    Advantage.CARD_PAYMENTS: "receive payment for a Treachery card (it goes to the bank)",
    Advantage.TWO_TERRITORY_MOVE: "move two territories",
    Advantage.WORM_IMMUNITY: "be spared by Shai-Hulud",
    Advantage.SHIPMENT_PAYMENTS: "receive payment for a shipment (it goes to the bank)",
    Advantage.HALF_PRICE_SHIPPING: "ship at half price",
    Advantage.CROSS_SHIPPING: "ship territory to territory or back to reserves",
    Advantage.EXTRA_CARD: "draw a free extra card",
    Advantage.BT_TRAITOR_REVEAL: "betray a territory by revealing a traitor (BT-51)",
    Advantage.HALF_STORM_LOSSES: "lose only half their tokens to the storm",
    Advantage.WORM_PLACEMENT: "place a Shai-Hulud",
    Advantage.OUT_OF_ORDER_SHIPPING: "take its shipment-and-movement turn out of storm order",
    Advantage.KWISATZ_HADERACH: "have the Kwisatz Haderach fight beside a leader",
    Advantage.SARDAUKAR: "count the Sardaukar double in a battle",
    Advantage.LEADER_CAPTURE: "capture a leader",
}


def advantage_words(advantage: Advantage) -> str:
    """ "the Spacing Guild ships at half price": the advantage as its owner uses it, in the one grammar."""
    verb, rest = DESCRIPTIONS[advantage].split(" ", 1)
    return f"{faction_does(OWNER[advantage], verb)} {rest}"


def is_karama(card_id: str) -> bool:
    return load_game_data().card(card_id).name == "Karama"


def karama_words(card_id: str) -> str:
    """The card a faction plays as a Karama, as the table reads it: "Karama", or "Baliset as Karama" (A-15)."""
    return "Karama" if is_karama(card_id) else f"{load_game_data().card(card_id).name} as Karama"


def counts_as_karama(state: GameState, faction: Faction, card_id: str) -> bool:
    """A Karama card; for the Bene Gesserit with `character_advantages` (A-15), a worthless card too."""
    if is_karama(card_id):
        return True
    bg_worthless = faction == Faction.BENE_GESSERIT and state.setup.options.character_advantages
    return bg_worthless and load_game_data().card(card_id).category == CardCategory.WORTHLESS


def karama_cards(state: GameState, faction: Faction) -> list[str]:
    """The cards in the faction's hand it may play as a Karama card."""
    return [c for c in state.faction(faction).hand if counts_as_karama(state, faction, c)]


def advantage_in_play(state: GameState, advantage: Advantage) -> bool:
    """An optional advantage exists only with its option on (A-15)."""
    option = NEEDS_OPTION.get(advantage)
    return option is None or bool(getattr(state.setup.options, option))


@handles(UseKarama)
def ready_karama(state: GameState, action: UseKarama, log: EventLog) -> None:
    hand = state.faction(action.faction).hand
    if action.card not in hand or not counts_as_karama(state, action.faction, action.card):
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE, "You must hold the Karama card you name.",
                            karama_cards(state, action.faction))
    try:
        advantage = Advantage(action.advantage)
    except ValueError:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE, f"{action.advantage!r} is no advantage Karama can "
                            "cancel.", [a.value for a in Advantage]) from None
    if not advantage_in_play(state, advantage):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "A-15", f"{advantage.value} is an advantage of the option "
                            f"{NEEDS_OPTION[advantage]}, which is off in this game.")
    owner = OWNER[advantage]
    if owner != action.against or owner == action.faction:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE,
                            f"{advantage.value} belongs to {owner.value}; Karama cancels another faction's advantage.",
                            [a.value for a, f in OWNER.items() if f == action.against and f != action.faction])
    if not state.in_game(owner):
        raise RuleViolation(ViolationCode.NOT_IN_GAME, RULE, f"{owner.value} is not in this game.")
    if any(o.card == action.card for o in state.karama_orders):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE, "That Karama card is already readied.")
    if any(o.card == action.card for o in state.special_karama_orders):
        # One card, one use: the special power's order would lapse when this one fired (and the other way round).
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE, "That Karama card is readied for your special Karama "
                            "power; use another card.")
    state.karama_orders.append(KaramaOrder(faction=action.faction, card=action.card, advantage=advantage))
    log.private(EventType.KARAMA_READIED, action.faction,
                f"Your Karama will cancel the next time {advantage_words(advantage)}.",
                advantage=advantage.value, card=action.card)


def karama_cancels(state: GameState, advantage: Advantage, log: EventLog) -> bool:
    """Called just before an advantage is used: fire the first readied Karama against it, if any."""
    for order in list(state.karama_orders):
        if order.advantage != advantage:
            continue
        state.karama_orders.remove(order)
        hand = state.faction(order.faction).hand
        if order.card not in hand:  # the card was played or lost since; the order lapses
            continue
        hand.remove(order.card)
        state.treachery_discard.append(order.card)
        log.public(
            EventType.KARAMA_PLAYED,
            f"{faction_does(order.faction, 'play', start=True)}"
            f" {karama_words(order.card)}: {faction_does(OWNER[advantage], 'may')} not "
            f"{DESCRIPTIONS[advantage]} this time (A-14).",
            faction=order.faction.value, advantage=advantage.value, card=order.card,
        )
        return True
    return False


def drop_lapsed_karama_orders(state: GameState) -> None:
    """A readied Karama whose card has left the hand (played, given, taken) is no order any more; so is a special
    Karama power readied with it (engine/factions/special_karama.py), which then stays unused."""
    state.karama_orders = [o for o in state.karama_orders if o.card in state.faction(o.faction).hand]
    state.special_karama_orders = [o for o in state.special_karama_orders if o.card in state.faction(o.faction).hand]

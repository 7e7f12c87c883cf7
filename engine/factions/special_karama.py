"""Special Karama powers (A-14, option `special_karama_powers`, 1979 optional rule XVII; digest section 15):
each faction's once-per-game power, spending a Karama card (for the Bene Gesserit with `character_advantages`,
a worthless card too, A-15).

- Atreides: in their own battle, once the opponent's plan is in and before theirs, see that whole plan.
- Emperor: at any time outside a battle, revive up to 3 tokens or one leader from the tanks, free.
- Fremen: a secret standing order naming a sand territory: Shai-Hulud devours it at the end of the next spice blow
  after turn 1 (engine/phases/spice_blow.py), a Nexus following. A standing order, because the blow is never
  held open for "whoever might play a Karama" (docs/design.md, Design notes).
- Guild: a secret standing order naming a faction: its next shipment from off-planet is stopped (not made, not
  paid; engine/phases/shipment.py), when it is revealed.
- Harkonnen: at any time outside a battle, take another faction's whole hand and give back as many cards of
  their choice (a secret HAND_SWAP decision).
- Bene Gesserit: the digest gives no AH power (UNSURE; GF9's is worthless cards as Karama, which A-15 puts under
  `character_advantages`), so they have none here. The Bene Tleilaxu have none either: their Karama use is
  BT-50, and against them Karama does only what BT-51 lists (R-27), so no power here targets them.

A power is used once per game: `state.special_karama_used` (public). A readied order is secret; its card stays in
the hand (hand sizes tell nothing) and the order lapses if the card leaves the hand before it fires.
"""

from __future__ import annotations

from engine.events import EventLog, EventType
from engine.ids import Faction
from engine.model import GameState, SpecialKaramaOrder
from engine.names import the_faction

RULE = "A-14"
FREMEN_WORM = "fremen_worm"
STOP_SHIPMENT = "stop_shipment"


def power_available(state: GameState, faction: Faction) -> bool:
    """The option is on, the faction has a power, and has neither used nor readied it."""
    return (state.setup.options.special_karama_powers and faction not in (Faction.BENE_GESSERIT, Faction.BENE_TLEILAXU)
            and faction not in state.special_karama_used
            and not any(o.faction == faction for o in state.special_karama_orders))


def spend_special_karama(state: GameState, order: SpecialKaramaOrder, log: EventLog) -> None:
    """The card goes to the discard pile, the power is spent for the game, the order (if readied) is done."""
    state.faction(order.faction).hand.remove(order.card)
    state.treachery_discard.append(order.card)
    state.special_karama_used.append(order.faction)
    if order in state.special_karama_orders:
        state.special_karama_orders.remove(order)


def shipment_stopped(state: GameState, shipper: Faction, log: EventLog) -> bool:
    """Called before a shipment from off-planet: a Guild order against the shipper fires (True: not made)."""
    order = next((o for o in state.special_karama_orders if o.power == STOP_SHIPMENT and o.target == shipper), None)
    if order is None:
        return False
    spend_special_karama(state, order, log)
    log.public(EventType.SPECIAL_KARAMA, f"The Spacing Guild plays Karama (special power, A-14): the shipment of "
               f"{the_faction(shipper)} is stopped; it is not made and costs nothing.", faction=Faction.GUILD.value,
               card=order.card, power=STOP_SHIPMENT, target=shipper.value)
    return True

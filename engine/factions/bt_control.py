"""The Bene Tleilaxu's hold on territories (bene-tleilaxu.md BT-24, BT-25; R-6, R-23, R-26, R-30): the wait of a
stronghold betrayal and BT control end when tokens arrive; the BT collect the spice where they control.

Called by engine/rules/forces.py (arrivals), the shipment and movement rules (departures) and the collection round.
The reveal that takes control lives in engine/factions/bt_traitors.py.
"""

from __future__ import annotations

from engine.events import EventLog, EventType
from engine.ids import Faction
from engine.model import GameState
from engine.names import faction_does, location_label
from engine.rules.board import locations_of
from engine.rules.economy import collect_spice

BT = Faction.BENE_TLEILAXU


def tokens_arrive(state: GameState, territory: str, faction: Faction, log: EventLog) -> None:
    """Tokens ship, move, ride or are placed into a territory (engine/rules/forces.py `land`): BT control of it ends
    (BT-24) and an open stronghold betrayal there can no longer be revealed (BT-25, R-6, R-23)."""
    if state.victories:
        state.victories = [v for v in state.victories if not (v.stronghold and v.territory == territory)]
    if state.bt is not None and territory in state.bt.controlled:
        state.bt.controlled.remove(territory)
        log.public(EventType.BT_CONTROL_ENDED, f"{faction_does(faction, 'enter', start=True)}"
                                       f" {territory}: the Bene Tleilaxu control of it "
                   "ends (BT-24).", territory=territory, faction=faction.value)


def tokens_leave(state: GameState, territory: str, faction: Faction) -> None:
    """Tokens of `faction` move or ship out of a territory: if they were waiting to be betrayed in a
    stronghold, the wait is over (R-23)."""
    if state.victories:
        state.victories = [v for v in state.victories
                           if not (v.stronghold and v.territory == territory and v.faction == faction)]


def bt_collect(state: GameState, log: EventLog) -> None:
    """BT-24, R-30: in the collection round the BT collect all the spice in each territory they control."""
    if state.bt is None:
        return
    for territory in state.bt.controlled:
        for location in locations_of(territory):
            taken = collect_spice(state, BT, location, state.spice_on_board.get(location, 0))
            if taken:
                log.public(EventType.SPICE_COLLECTED,
                           f"The Bene Tleilaxu collect {taken} spice in {location_label(location)}, "
                           "which they control (BT-24).", faction=BT.value, location=location, spice=taken)

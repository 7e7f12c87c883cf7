"""Spice collection (A-12): tokens collect 2 spice each (3 for a faction in Arrakeen or Carthag) from the
spice in their territory, unless their sector is under the storm, up to what is there."""

from __future__ import annotations

from engine.board import has_ornithopters, in_storm, locations_of, territory_of
from engine.economy import collect_spice
from engine.events import EventLog
from engine.factions.bt_traitors import bt_collect
from engine.flow import runs_phase
from engine.model import GameState, Phase
from engine.names import faction_name, location_label
from engine.order import storm_order
from engine.phases.turn import end_phase

BASE_RATE = 2
CITY_RATE = 3


def collection_rate(state: GameState, faction) -> int:
    return CITY_RATE if has_ornithopters(state, faction) else BASE_RATE


@runs_phase(Phase.COLLECTION)
def run_collection(state: GameState, log: EventLog) -> bool:
    bt_collect(state, log)  # BT-24, R-30: all the spice in territories the BT control
    for spice_location in sorted(state.spice_on_board):
        territory = territory_of(spice_location)
        for faction in storm_order(state):
            tokens = sum(state.tokens_at(loc, faction) for loc in locations_of(territory) if not in_storm(state, loc))
            if not tokens or spice_location not in state.spice_on_board:
                continue
            taken = collect_spice(state, faction, spice_location, tokens * collection_rate(state, faction))
            log.public("spice_collected", f"{faction_name(faction)} collect {taken} spice in "
                       f"{location_label(spice_location)}.", faction=faction.value, location=spice_location,
                       spice=taken)
    end_phase(state, log)
    return True

"""Spice collection (A-12): tokens collect 2 spice each (3 for a faction in Arrakeen or Carthag) from the
spice in their territory, unless their sector is under the storm, up to what is there.

Increased spice flow (A-15 `increased_spice_flow`): in the collection round the occupant of Arrakeen and of
Carthag takes 2 spice from the bank, of Tuek's Sietch 1. The occupant is the one faction with tokens there
(A-11: co-existing Bene Gesserit advisors are not on the board); a stronghold the BT control without tokens
(BT-24) has no occupant (R-26's reading of "somebody in"). Paid whatever the storm: the income is not spice
on the board, and strongholds shelter from the storm.
"""

from __future__ import annotations

from engine.events import EventLog, EventType
from engine.factions.bt_control import bt_collect
from engine.flow import runs_phase
from engine.ids import Faction
from engine.model import GameState, Phase
from engine.names import faction_does, location_label
from engine.phases.end_of_turn import end_turn
from engine.rules.board import factions_in_territory, has_ornithopters, in_storm, locations_of, territory_of
from engine.rules.economy import bank_pays, collect_spice
from engine.rules.order import storm_order

BASE_RATE = 2
CITY_RATE = 3
STRONGHOLD_INCOME = {"Arrakeen": 2, "Carthag": 2, "Tuek's Sietch": 1}


def collection_rate(state: GameState, faction: Faction) -> int:
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
            log.public(EventType.SPICE_COLLECTED, f"{faction_does(faction, 'collect', start=True)} {taken} spice in "
                       f"{location_label(spice_location)}.", faction=faction.value, location=spice_location,
                       spice=taken)
    if state.setup.options.increased_spice_flow:
        _stronghold_income(state, log)
    end_turn(state, log)  # the turn ends with its victory checks
    return True


def _stronghold_income(state: GameState, log: EventLog) -> None:
    for stronghold, income in STRONGHOLD_INCOME.items():
        occupants = factions_in_territory(state, stronghold)
        if len(occupants) != 1:
            continue
        bank_pays(state, occupants[0], income)
        log.public(EventType.STRONGHOLD_INCOME, f"{faction_does(occupants[0], 'occupy', start=True)} {stronghold}: "
                   f"{income} spice from the bank (A-15, increased spice flow).", faction=occupants[0].value,
                   stronghold=stronghold, spice=income)

"""Token movements between reserves, the board and the tanks; each faction's 20 tokens are always somewhere."""

from __future__ import annotations

from engine.board import is_stronghold, territory_of
from engine.events import EventLog
from engine.factions.bene_tleilaxu import spring_trap_if_laid
from engine.factions.bt_traitors import tokens_arrive
from engine.ids import Faction
from engine.model import GameState


def send_to_tanks(state: GameState, location: str, faction: Faction, count: int) -> None:
    state.add_tokens(location, faction, -count)
    state.faction(faction).tanks += count


def wipe_out(state: GameState, location: str, faction: Faction) -> int:
    """Every token of the faction at a location to the tanks; returns how many."""
    count = state.tokens_at(location, faction)
    if count:
        send_to_tanks(state, location, faction, count)
    return count


def land(state: GameState, faction: Faction, location: str, count: int, log: EventLog) -> None:
    """Tokens arrive at a location (shipment, move, placement); a trapped stronghold springs (BT-31); BT
    control there ends and a stronghold betrayal there can no longer be revealed (BT-24, BT-25)."""
    state.add_tokens(location, faction, count)
    territory = territory_of(location)
    tokens_arrive(state, territory, faction, log)
    if is_stronghold(territory):
        spring_trap_if_laid(state, territory, faction, log)


def from_reserves(state: GameState, faction: Faction, location: str, count: int, log: EventLog) -> None:
    state.faction(faction).reserves -= count
    land(state, faction, location, count, log)


def to_reserves(state: GameState, faction: Faction, location: str, count: int) -> None:
    state.add_tokens(location, faction, -count)
    state.faction(faction).reserves += count


def revive_tokens(state: GameState, faction: Faction, count: int) -> None:
    fs = state.faction(faction)
    fs.tanks -= count
    fs.reserves += count

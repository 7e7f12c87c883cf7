"""Hand limits: Harkonnen 8, everyone else 4 (R-2 for the BT), from data/factions.json."""

from __future__ import annotations

from engine.data import load_game_data
from engine.ids import Faction
from engine.model import GameState


def hand_limit(faction: Faction) -> int:
    return load_game_data().factions[faction].hand_limit


def hand_full(state: GameState, faction: Faction) -> bool:
    return len(state.faction(faction).hand) >= hand_limit(faction)

"""Storm order (A-4, R-1): who acts first each turn, and in what order the others follow."""

from __future__ import annotations

from engine.ids import Faction
from engine.model import GameState

SECTORS = 18


def storm_order(state: GameState) -> list[Faction]:
    """A-4: the first faction's dot is in the storm's sector or is the next dot counterclockwise from it;
    the others follow counterclockwise. R-1: the BT, who have no dot, come last."""
    dots = {fs.faction: fs.dot for fs in state.factions.values() if fs.dot is not None}

    def distance_from_storm(dot: int) -> int:
        # Sectors are numbered counterclockwise, so counterclockwise means counting up.
        return (dot - state.storm_sector) % SECTORS

    ordered = sorted(dots, key=lambda faction: distance_from_storm(dots[faction]))
    ordered += [f for f in state.factions if state.factions[f].dot is None]
    return ordered

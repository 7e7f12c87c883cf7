"""The battle round.

PROVISIONAL RULE until the battles issue lands: in every territory where two or more factions have tokens
(not the Polar Sink; tokens separated by the storm do not meet), the faction with the most tokens there wins
(ties go to the earlier faction in storm order) and every other faction's tokens there go to the tanks.
Leaders, cards and dials play no part yet.
"""

from __future__ import annotations

from engine.data import POLAR_SINK, load_game_data
from engine.events import EventLog
from engine.flow import runs_phase
from engine.forces import wipe_out
from engine.ids import Faction
from engine.model import GameState, Phase
from engine.names import faction_name
from engine.order import storm_order
from engine.phases.turn import end_phase

SECTORS = 18
PROVISIONAL_RULE = "provisional battle rule: more tokens win (until the battles issue)"


def _arc(sectors: tuple[int, ...]) -> list[int]:
    """A territory's sectors in counterclockwise order, starting after the gap (18, 1, 2 for a wrap)."""
    for start in sectors:
        if (start - 2) % SECTORS + 1 not in sectors:
            index = sectors.index(start)
            return list(sectors[index:]) + list(sectors[:index])
    return list(sectors)


def meeting_groups(state: GameState, territory: str) -> list[list[str]]:
    """The territory's locations that can fight each other: the storm's sector splits the territory, and
    tokens inside the storm's sector meet only each other."""
    board = load_game_data().board
    t = board.territory(territory)
    by_sector = {board.location_sector(loc): loc for loc in t.locations}
    groups: list[list[str]] = []
    current: list[str] = []
    for sector in _arc(t.sectors):
        if sector == state.storm_sector:
            groups += [current, [by_sector[sector]]]
            current = []
        else:
            current.append(by_sector[sector])
    groups.append(current)
    return [g for g in groups if g]


def pending_battles(state: GameState) -> list[tuple[str, list[str], list[Faction]]]:
    """Every battle to fight: (territory, its meeting locations, the factions there in storm order)."""
    order = storm_order(state)
    found = []
    for territory in load_game_data().board.territories:
        if territory == POLAR_SINK:
            continue
        for group in meeting_groups(state, territory):
            present = {f for loc in group for f in state.forces.get(loc, {})}
            allied = any(present <= set(alliance) for alliance in state.alliances)
            if len(present) >= 2 and not allied:
                found.append((territory, group, [f for f in order if f in present]))
    return found


@runs_phase(Phase.BATTLE)
def run_battles(state: GameState, log: EventLog) -> bool:
    for territory, group, factions in pending_battles(state):
        strength = {f: sum(state.tokens_at(loc, f) for loc in group) for f in factions}
        winner = max(factions, key=lambda f: strength[f])  # max keeps the first of equals: storm order
        for loser in factions:
            if loser == winner:
                continue
            lost = sum(wipe_out(state, loc, loser) for loc in group)
            log.public(
                "battle_lost",
                f"Battle in {territory}: {faction_name(winner)} ({strength[winner]}) beat "
                f"{faction_name(loser)} ({strength[loser]}), whose {lost} tokens go to the tanks ({PROVISIONAL_RULE}).",
                territory=territory, winner=winner.value, loser=loser.value, tokens=lost,
            )
    end_phase(state, log)
    return True

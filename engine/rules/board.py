"""Questions about the board in a given state: storm, occupancy, control (A-2, A-11, A-12)."""

from __future__ import annotations

from functools import cache

from engine.data import load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.ids import Faction, TerritoryKind
from engine.model import GameState

SECTORS = 18


class BoardIndex:
    """Plain dictionaries over the board, for the rules' hot paths (pydantic attribute access is slow)."""

    def __init__(self) -> None:
        board = load_game_data().board
        locations = board.all_locations()
        self.position = {loc: i for i, loc in enumerate(locations)}  # board order
        self.territory = {loc: board.location_territory(loc) for loc in locations}
        self.sector = {loc: board.location_sector(loc) for loc in locations}
        self.neighbours = {loc: board.location_neighbours(loc) for loc in locations}
        # Each neighbour with its territory and sector, for the movement search (engine/phases/movement.py).
        self.links = {loc: tuple((near, self.territory[near], self.sector[near]) for near in near_by)
                      for loc, near_by in self.neighbours.items()}
        self.locations = {name: t.locations for name, t in board.territories.items()}
        self.strongholds = {name for name, t in board.territories.items() if t.kind == TerritoryKind.STRONGHOLD}


@cache
def board_index() -> BoardIndex:
    """The one index (read-only), for searches that visit many locations."""
    return BoardIndex()


def territory_of(location: str) -> str:
    try:
        return board_index().territory[location]
    except KeyError:
        raise KeyError(f"unknown location {location!r} (write 'Territory#sector' or 'Polar Sink')") from None


def sector_of(location: str) -> int | None:
    territory_of(location)
    return board_index().sector[location]


def locations_of(territory: str) -> tuple[str, ...]:
    try:
        return board_index().locations[territory]
    except KeyError:
        raise KeyError(f"unknown territory {territory!r}") from None


def is_stronghold(territory: str) -> bool:
    return territory in board_index().strongholds


def in_storm(state: GameState, location: str) -> bool:
    """A location lies under the storm when its sector is the storm's (the Polar Sink never is)."""
    return sector_of(location) == state.storm_sector


def exposed_to_storm(state: GameState, territory: str) -> bool:
    """A-2: sand is exposed; Imperial Basin, Arrakeen and Carthag lose protection with the Shield Wall."""
    board = load_game_data().board
    if state.shield_wall_destroyed and territory in board.shield_wall_protected:
        return True
    return not board.territory(territory).protected_from_storm


def storm_path(start: int, distance: int) -> list[int]:
    """The sectors the storm enters when it moves `distance` sectors counterclockwise from `start` (A-17)."""
    return [(start - 1 + step) % SECTORS + 1 for step in range(1, distance + 1)]


def tokens_in_territory(state: GameState, territory: str, faction: Faction) -> int:
    return sum(state.tokens_at(loc, faction) for loc in locations_of(territory))


def factions_in_territory(state: GameState, territory: str) -> list[Faction]:
    """Factions with tokens anywhere in the territory, in the order they appear in the game."""
    present = {f for loc in locations_of(territory) for f in state.forces.get(loc, {})}
    return [f for f in state.factions if f in present]


def factions_by_territory(state: GameState) -> dict[str, set[Faction]]:
    """The factions with tokens in each occupied territory: one pass over the board's tokens, for questions
    asked of every territory."""
    territory = board_index().territory
    present: dict[str, set[Faction]] = {}
    for location, here in state.forces.items():
        present.setdefault(territory[location], set()).update(here)
    return present


def controller(state: GameState, stronghold: str) -> Faction | None:
    """A-11: a stronghold is controlled by the only faction with tokens in it; BT-24: an empty one the Bene
    Tleilaxu took by a traitor's reveal is theirs."""
    present = factions_in_territory(state, stronghold)
    if not present and state.bt is not None and stronghold in state.bt.controlled:
        return Faction.BENE_TLEILAXU
    return present[0] if len(present) == 1 else None


def occupied_territories(state: GameState, faction: Faction) -> list[str]:
    territory_at = board_index().territory
    seen: list[str] = []
    for location, here in state.forces.items():
        territory = territory_at[location]
        if faction in here and territory not in seen:
            seen.append(territory)
    return seen


def has_ornithopters(state: GameState, faction: Faction) -> bool:
    """Tokens in Arrakeen or Carthag give a faction a move of three territories."""
    board = load_game_data().board
    return any(tokens_in_territory(state, t.name, faction) for t in board.territories.values() if t.ornithopters)


def resolve_location(where: str, rule: str) -> str:
    """A location key as given, or a territory name standing for its only location; a territory of
    several sectors must name one (1979 rules: Shipment, "must name the sector")."""
    board = load_game_data().board
    if where in board.all_locations():
        return where
    try:
        territory = board.territory(where)
    except KeyError:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, rule, f"There is no territory {where!r}.") from None
    if len(territory.locations) == 1:
        return territory.locations[0]
    raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, rule,
                        f"{where} spans several sectors; name one.", list(territory.locations))

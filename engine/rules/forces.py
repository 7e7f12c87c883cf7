"""Token movements between reserves, the board and the tanks; each faction's 20 tokens are always somewhere,
and its elite tokens (engine/factions/elites.py, A-15) go with them."""

from __future__ import annotations

from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog, EventType
from engine.factions.bene_tleilaxu import spring_trap_if_laid, tokens_lost
from engine.factions.bt_control import tokens_arrive
from engine.factions.elites import add_elites, elites_at, elites_in_reserves, revivable_elites, revivable_tokens
from engine.ids import Faction
from engine.model import GameState
from engine.names import counted, faction_name, location_label
from engine.rules.board import exposed_to_storm, is_stronghold, sector_of, territory_of
from engine.rules.economy import remove_spice
from engine.rules.karama import Advantage, karama_cancels


def send_to_tanks(state: GameState, location: str, faction: Faction, count: int, elites: int | None = None) -> None:
    """`count` tokens to the tanks, `elites` of them elite; by default regular tokens go first."""
    here = elites_at(state, location, faction)
    if elites is None:
        elites = max(0, count - (state.tokens_at(location, faction) - here))
    state.add_tokens(location, faction, -count)
    state.faction(faction).tanks += count
    if elites:
        add_elites(state, location, faction, -elites)
        state.faction(faction).elite_tanks += elites
    tokens_lost(state, location, faction)  # BT-31: a trap's frozen count


def wipe_out(state: GameState, location: str, faction: Faction) -> int:
    """Every token of the faction at a location to the tanks; returns how many."""
    count = state.tokens_at(location, faction)
    if count:
        send_to_tanks(state, location, faction, count)
    return count


def destroy_every_token(state: GameState, location: str) -> tuple[dict[Faction, int], int]:
    """Everything at a location is destroyed (an explosion, Family Atomics): every faction's tokens go to the
    tanks, and R-38: the Bene Gesserit advisors co-existing there with them. Returns the tokens each faction lost
    (advisors not counted) and the advisors lost."""
    lost = {faction: wipe_out(state, location, faction) for faction in list(state.forces.get(location, {}))}
    return lost, kill_advisors(state, location)


def land(state: GameState, faction: Faction, location: str, count: int, log: EventLog) -> None:
    """Tokens arrive at a location (shipment, move, placement); a trapped stronghold springs (BT-31); BT
    control there ends and a stronghold betrayal there can no longer be revealed (BT-24, BT-25)."""
    state.add_tokens(location, faction, count)
    territory = territory_of(location)
    tokens_arrive(state, territory, faction, log)
    if is_stronghold(territory):
        spring_trap_if_laid(state, territory, faction, count, log)


def from_reserves(state: GameState, faction: Faction, location: str, count: int, log: EventLog) -> None:
    """Tokens ship from the reserves; elites go first (engine/factions/elites.py)."""
    elites = min(count, elites_in_reserves(state, faction))
    state.faction(faction).reserves -= count
    land(state, faction, location, count, log)
    if elites:
        add_elites(state, location, faction, elites)


def _take_along(state: GameState, faction: Faction, location: str, count: int) -> int:
    """`count` tokens leave a location, elites first; returns how many of them are elite."""
    elites = min(count, elites_at(state, location, faction))
    state.add_tokens(location, faction, -count)
    if elites:
        add_elites(state, location, faction, -elites)
    return elites


def move_tokens(state: GameState, faction: Faction, sources: dict[str, int], destination: str,
                log: EventLog) -> None:
    """Tokens go from board locations to one location (a move, a cross-shipment, a worm ride), taking their
    elites along first, and land there once."""
    elites = sum(_take_along(state, faction, source, count) for source, count in sources.items())
    land(state, faction, destination, sum(sources.values()), log)
    if elites:
        add_elites(state, destination, faction, elites)


def to_reserves(state: GameState, faction: Faction, location: str, count: int) -> None:
    _take_along(state, faction, location, count)
    state.faction(faction).reserves += count


def revive_tokens(state: GameState, faction: Faction, count: int) -> None:
    """Tokens from the tanks to the reserves: an elite first, at most one a turn (A-15); refused when more are
    asked than may come back."""
    if count > revivable_tokens(state, faction):
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "A-15", f"Only {revivable_tokens(state, faction)} of "
                            "your tokens in the tanks may be revived this turn: one elite token a turn at most.")
    fs = state.faction(faction)
    elites = min(count, revivable_elites(state, faction))
    fs.tanks -= count
    fs.reserves += count
    if elites:
        fs.elite_tanks -= elites
        fs.elite_revived_turn = state.turn


def sweep(state: GameState, sectors: set[int], log: EventLog, note: str = "") -> None:
    """A-2: tokens in exposed territories of these sectors go to the tanks (the Fremen's halved with
    `character_advantages`, A-24) and their spice to the bank; so do Bene Gesserit advisors (A-15)."""
    caught = [loc for loc in sorted(set(state.forces) | set(state.spice_on_board) | set(state.bg_advisors))
              if sector_of(loc) in sectors and exposed_to_storm(state, territory_of(loc))]
    spared = _fremen_spared(state, caught, log)
    for location in caught:
        for faction in list(state.forces.get(location, {})):
            lost = state.tokens_at(location, faction) - spared.get(location, 0) * (faction == Faction.FREMEN)
            if lost:
                send_to_tanks(state, location, faction, lost)
                log.public(EventType.STORM_LOSSES,
                           f"The storm kills {counted(lost, faction_name(faction) + ' token')} in "
                           f"{location_label(location)}{note}.", faction=faction.value, location=location,
                           tokens=lost)
        advisors = kill_advisors(state, location)
        if advisors:
            log.public(EventType.STORM_LOSSES, f"The storm kills {advisors} Bene Gesserit advisors in "
                       f"{location_label(location)}{note}.", faction=Faction.BENE_GESSERIT.value,
                       location=location, tokens=advisors, advisors=True)
        removed = remove_spice(state, location)
        if removed:
            log.public(EventType.STORM_SPICE, f"The storm destroys {removed} spice in {location_label(location)}.",
                       location=location, spice=removed)


def _fremen_spared(state: GameState, caught: list[str], log: EventLog) -> dict[str, int]:
    """A-2, A-24 (`character_advantages`): the Fremen lose only half their tokens caught in each territory,
    rounded up; the survivors are counted from the territory's first caught location on. Location -> spared."""
    fremen = Faction.FREMEN
    if not state.setup.options.character_advantages or not any(state.tokens_at(loc, fremen) for loc in caught):
        return {}
    if karama_cancels(state, Advantage.HALF_STORM_LOSSES, log):
        return {}
    by_territory: dict[str, list[str]] = {}
    for location in caught:
        if state.tokens_at(location, fremen):
            by_territory.setdefault(territory_of(location), []).append(location)
    spared: dict[str, int] = {}
    for territory, locations in by_territory.items():
        caught_here = sum(state.tokens_at(loc, fremen) for loc in locations)
        keep = caught_here // 2  # they lose half, rounded up
        log.public(EventType.FREMEN_HALF_STORM_LOSSES,
                   f"The Fremen lose only half of the {counted(caught_here, 'token')} "
                   f"the storm caught in {territory}, rounded up (A-24): {keep} "
                   f"{'survives' if keep == 1 else 'survive'}.", territory=territory, caught=caught_here, spared=keep)
        for location in locations:
            spared[location] = min(keep, state.tokens_at(location, fremen))
            keep -= spared[location]
    return spared


def kill_advisors(state: GameState, location: str) -> int:
    """Bene Gesserit advisors (A-15, engine/factions/coexistence.py) at a location go to the tanks; returns how many."""
    count = state.bg_advisors.pop(location, 0)
    if count:
        state.faction(Faction.BENE_GESSERIT).tanks += count
    return count

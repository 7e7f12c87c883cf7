"""Facts that hold after every action of every game; automatic play checks them all the time."""

from __future__ import annotations

from collections import Counter

from engine.data import GameData, load_game_data
from engine.factions.elites import elites_in_reserves
from engine.ids import Faction
from engine.model import GameState
from engine.phases.battle import cards_on_the_table
from engine.rules.board import exposed_to_storm, in_storm, is_stronghold, territory_of, tokens_in_territory
from engine.rules.economy import total_spice_outside_bank


def violations(state: GameState) -> list[str]:
    """Every broken invariant, in words; an empty list when all hold."""
    data = load_game_data()
    found: list[str] = []
    for faction, fs in state.factions.items():
        on_board = sum(here.get(faction, 0) for here in state.forces.values())
        if faction == Faction.BENE_GESSERIT:
            on_board += sum(state.bg_advisors.values())  # co-existing advisors (engine/factions/coexistence.py)
        total = fs.reserves + on_board + fs.tanks
        if total != data.factions[faction].tokens_total or min(fs.reserves, fs.tanks) < 0:
            found.append(f"{faction.value} tokens: reserves {fs.reserves} + board {on_board} + tanks {fs.tanks}")
        dead = Counter(fs.leaders_in_tanks)
        own = {leader.id for leader in data.factions[faction].leaders}
        if any(n > 1 for n in dead.values()) or not set(dead) <= own:
            found.append(f"{faction.value} leaders in the tanks: {fs.leaders_in_tanks}")
        if fs.spice < 0 or fs.bribes < 0:
            found.append(f"{faction.value} spice {fs.spice}, bribes {fs.bribes}")
    if any(amount <= 0 for amount in state.spice_on_board.values()):
        found.append(f"spice on the board not positive: {state.spice_on_board}")
    if total_spice_outside_bank(state) != state.spice_outside_bank:
        found.append(f"spice ledger {state.spice_outside_bank} != spice held {total_spice_outside_bank(state)}")
    found += _card_violations(state, data)
    found += _board_violations(state)
    found += _battle_violations(state)
    found += _movement_violations(state)
    found += _elite_and_captive_violations(state)
    return found


def _elite_and_captive_violations(state: GameState) -> list[str]:
    """A-15: elite tokens are among their faction's tokens wherever they are; a captive is alive and held by the
    Harkonnen."""
    problems = []
    for location, here in state.elites.items():
        for faction, count in here.items():
            if not 0 < count <= state.tokens_at(location, faction):
                problems.append(f"{count} {faction.value} elites among {state.tokens_at(location, faction)} tokens "
                                f"in {location}")
    for faction, fs in state.factions.items():
        in_reserves = elites_in_reserves(state, faction)
        if not 0 <= fs.elite_tanks <= fs.tanks or not 0 <= in_reserves <= fs.reserves:
            problems.append(f"{faction.value} elites: {fs.elite_tanks} in the tanks ({fs.tanks} tokens), "
                            f"{in_reserves} in reserves ({fs.reserves} tokens)")
    for leader, captor in state.captured.items():
        owner = load_game_data().leader(leader).faction
        if captor != Faction.HARKONNEN or owner == captor or leader in state.faction(owner).leaders_in_tanks:
            problems.append(f"captive {leader} held by {captor.value}")
    return problems


def _movement_violations(state: GameState) -> list[str]:
    """A faction takes one shipment-and-movement turn a round (1979 rules: Movement; the Guild's out of order too,
    A-15)."""
    if state.movement is None:
        return []
    twice = sorted(f.value for f, n in Counter(state.movement.turns_taken).items() if n > 1)
    return [f"{faction} take a second shipment-and-movement turn this round" for faction in twice]


def _battle_violations(state: GameState) -> list[str]:
    """A leader fights in one territory a turn; a dead leader is never in a plan."""
    if state.battle is None or state.battle.current is None:
        return []
    battle = state.battle.current
    dead = {leader for fs in state.factions.values() for leader in fs.leaders_in_tanks}
    problems = []
    for faction, plan in battle.plans.items():
        if plan.leader is None:
            continue
        if plan.leader in dead and battle.step != "traitors":
            problems.append(f"{faction.value} plans with the dead leader {plan.leader}")
        fought_in = state.battle.leader_territory.get(plan.leader, battle.territory)
        if fought_in != battle.territory and not battle.attack:
            problems.append(f"{plan.leader} fights in {battle.territory} after fighting in {fought_in}")
    return problems


def _card_violations(state: GameState, data: GameData) -> list[str]:
    places = [*state.treachery_deck, *state.treachery_discard, *state.removed_cards]
    places += [c for fs in state.factions.values() for c in fs.hand]
    places += [trap.card for trap in state.traps.values()]
    if state.bidding is not None:
        places += state.bidding.cards
    places += cards_on_the_table(state)
    counts = Counter(places)
    every = {c.id for c in data.treachery_cards}
    problems = []
    if set(counts) != every or any(n != 1 for n in counts.values()):
        doubled = sorted(c for c, n in counts.items() if n > 1)
        problems.append(f"treachery cards: missing {sorted(every - set(counts))}, doubled {doubled}")
    spice = Counter([*state.spice_deck, *state.spice_discard, *state.spice_discard_b])
    if set(spice) != {c.id for c in data.spice_cards} or any(n != 1 for n in spice.values()):
        problems.append("spice cards are not each in exactly one place")
    return problems


def _board_violations(state: GameState) -> list[str]:
    problems = []
    by_territory: dict[str, set[Faction]] = {}
    for location, here in state.forces.items():
        if any(n <= 0 for n in here.values()):
            problems.append(f"non-positive token count in {location}: {here}")
        by_territory.setdefault(territory_of(location), set()).update(here)
        storm_spares = state.setup.options.character_advantages  # Fremen half losses leave some there
        if in_storm(state, location) and exposed_to_storm(state, territory_of(location)) and not storm_spares \
                and state.phase.value != "setup":
            problems.append(f"tokens in sand under the storm: {location} {here}")
    for territory, factions in by_territory.items():
        if is_stronghold(territory) and len(factions) > 2:
            problems.append(f"{len(factions)} factions in the stronghold {territory}")
    for stronghold, trap in state.traps.items():  # BT-31: the frozen are among the triggering faction's tokens there
        there = tokens_in_territory(state, stronghold, trap.triggered_by) if trap.triggered_by else 0
        if not 0 <= trap.frozen <= there:
            problems.append(f"the trap on {stronghold} freezes {trap.frozen} tokens of {there} there")
    return problems

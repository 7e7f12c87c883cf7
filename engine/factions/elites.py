"""Sardaukar (Emperor) and Fedaykin (Fremen), option `character_advantages` (A-15, 1979 optional rule XV):
elite tokens among the faction's 20 (factions.json `special_tokens`: 5 and 3).

Model: `state.forces` keeps counting every token; `state.elites` counts the elite ones among the tokens at
each location, `FactionState.elite_tanks` those in the tanks, and the rest of the elites are in the reserves
(derived, so nothing needs placing at setup: every elite starts in the reserves, the Fremen's too — the
rules do not say where the Fedaykin start; they come out with the first Fremen shipment).

Which tokens move, die or revive is not asked of the player; the engine's fixed reading (engine/rules/forces.py):
a group that ships or moves takes the elites along first; a partial loss (the winner's dial, half storm
losses) takes regular tokens first; a revival revives an elite first, at most one a turn.
"""

from __future__ import annotations

from engine.data import load_game_data
from engine.ids import Faction
from engine.model import GameState

ELITE_WORTH = 2  # an elite counts as 2 tokens in battle, in strength and in losses
NAMES = {Faction.EMPEROR: "Sardaukar", Faction.FREMEN: "Fedaykin"}


def elite_total(state: GameState, faction: Faction) -> int:
    """How many of the faction's tokens are elite: none unless `character_advantages` is on."""
    if not state.setup.options.character_advantages or not state.in_game(faction):
        return 0
    return load_game_data().factions[faction].special_tokens


def elites_at(state: GameState, location: str, faction: Faction) -> int:
    return state.elites.get(location, {}).get(faction, 0)


def elites_in_reserves(state: GameState, faction: Faction) -> int:
    on_board = sum(here.get(faction, 0) for here in state.elites.values())
    return elite_total(state, faction) - on_board - state.faction(faction).elite_tanks


def add_elites(state: GameState, location: str, faction: Faction, count: int) -> None:
    here = state.elites.setdefault(location, {})
    total = here.get(faction, 0) + count
    if total:
        here[faction] = total
    else:
        here.pop(faction, None)
        if not here:
            del state.elites[location]


def elite_worth(faction: Faction, opponent: Faction) -> int:
    """2, except Sardaukar against the Fremen, who count single."""
    if faction == Faction.EMPEROR and opponent == Faction.FREMEN:
        return 1
    return ELITE_WORTH


def battle_tokens(state: GameState, locations: list[str], faction: Faction, worth: int) -> int:
    """What the faction's tokens there are worth in a battle, each elite `worth`: the most it may dial."""
    tokens = sum(state.tokens_at(loc, faction) for loc in locations)
    elites = sum(elites_at(state, loc, faction) for loc in locations)
    return tokens + elites * (worth - 1)


def loss_plan(state: GameState, location: str, faction: Faction, worth: int, due: int) -> tuple[int, int]:
    """(regular, elite) tokens lost at one location to cover `due` of a dial: regular tokens first, then
    elites, each covering `worth`; the last elite may cover more than is left due."""
    elites = elites_at(state, location, faction)
    regular = min(due, state.tokens_at(location, faction) - elites)
    left = due - regular
    elite_lost = min(elites, -(-left // worth))
    return regular, elite_lost


def revivable_elites(state: GameState, faction: Faction) -> int:
    """A-15: only one elite token may be revived a turn."""
    fs = state.faction(faction)
    return 0 if fs.elite_revived_turn == state.turn else min(1, fs.elite_tanks)


def revivable_tokens(state: GameState, faction: Faction) -> int:
    """Tokens in the tanks that may come back this turn: every regular one and one elite (A-15)."""
    fs = state.faction(faction)
    return fs.tanks - fs.elite_tanks + revivable_elites(state, faction)


def elite_name(faction: Faction) -> str:
    return NAMES.get(faction, "elite")

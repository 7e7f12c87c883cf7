"""The end of a turn: victory checks (A-9, A-10, A-11, A-25, R-10, the BT spice win BT-27), bribes released
(A-16), the BT spice-win declaration (BT-27), the next turn."""

from __future__ import annotations

from engine.data import load_game_data
from engine.events import EventLog, EventType
from engine.factions.bt_spice import SPICE_WIN_REASON, declare_if_ordered, spice_win_due, spice_win_team
from engine.factions.bt_traitors import bt_turn_ends
from engine.ids import Faction
from engine.model import GameState, Phase, required
from engine.names import faction_name, the_faction
from engine.phases.turn import start_phase
from engine.rules.alliances import release_bribes
from engine.rules.board import controller, factions_in_territory
from engine.rules.order import storm_order

SOLO_STRONGHOLDS = 3


def teams(state: GameState) -> list[list[Faction]]:
    """Alliances and unallied factions, each a team that wins together (A-8: allies share every win)."""
    allied = {f for alliance in state.alliances for f in alliance}
    return [list(a) for a in state.alliances] + [[f] for f in state.factions if f not in allied]


def stronghold_controllers(state: GameState) -> list[Faction | None]:
    """Each stronghold's controller (A-11), None where nobody controls it; asked once for every team."""
    return [controller(state, s) for s in load_game_data().board.strongholds]


def strongholds_held(controllers: list[Faction | None], team: list[Faction]) -> int:
    return sum(1 for holder in controllers if holder in team)


def stronghold_winners(state: GameState) -> list[Faction]:
    """A-9: 3 strongholds alone or the alliance threshold together; several at once: earliest in storm order."""
    controllers = stronghold_controllers(state)
    winning = []
    for team in teams(state):
        needed = state.setup.options.alliance_strongholds_to_win if len(team) > 1 else SOLO_STRONGHOLDS
        if strongholds_held(controllers, team) >= needed:
            winning.append(team)
    return earliest_team(state, winning)


def earliest_team(state: GameState, candidates: list[list[Faction]]) -> list[Faction]:
    if not candidates:
        return []
    order = storm_order(state)
    return min(candidates, key=lambda team: min(order.index(f) for f in team))


def fremen_condition(state: GameState) -> bool:
    """A-10: only Fremen (or nobody) in Sietch Tabr and Habbanya Sietch, and no Atreides, Harkonnen or
    Emperor tokens in Tuek's Sietch."""
    for sietch in ("Sietch Tabr", "Habbanya Sietch"):
        if any(f != Faction.FREMEN for f in factions_in_territory(state, sietch)):
            return False
    intruders = {Faction.ATREIDES, Faction.HARKONNEN, Faction.EMPEROR}
    return not intruders & set(factions_in_territory(state, "Tuek's Sietch"))


def _team_of(state: GameState, faction: Faction) -> list[Faction]:
    return [faction, *state.ally_of(faction)]


def last_turn_winners(state: GameState) -> tuple[list[Faction], str]:
    """A-10: the Fremen condition, else the Guild, else the team holding the most strongholds (a tie: nobody)."""
    if state.in_game(Faction.FREMEN) and fremen_condition(state):
        return _team_of(state, Faction.FREMEN), "the Fremen hold the sietches (A-10)"
    if state.in_game(Faction.GUILD):
        return _team_of(state, Faction.GUILD), "the Guild wins when nobody else has (A-10)"
    controllers = stronghold_controllers(state)
    held = {tuple(team): strongholds_held(controllers, team) for team in teams(state)}
    best = max(held.values(), default=0)
    leaders = [list(team) for team, count in held.items() if count == best]
    if best == 0 or len(leaders) > 1:
        return [], "nobody holds the most strongholds (A-10)"
    return leaders[0], "most strongholds held at the end (A-10)"


def apply_prediction(state: GameState, winners: list[Faction]) -> tuple[list[Faction], bool]:
    """A-25: a win by the predicted faction (or its alliance) on the predicted turn is the Bene Gesserit's."""
    prediction = state.bg_prediction
    if prediction and prediction.turn == state.turn and prediction.faction in winners:
        return [Faction.BENE_GESSERIT], True
    return winners, False


def end_turn(state: GameState, log: EventLog) -> None:
    release_bribes(state, log)
    bt_turn_ends(state, log)  # BT-21, BT-22, R-7 (engine/factions/bt_traitors.py)
    winners = stronghold_winners(state)
    reason = "strongholds held at the end of the turn (A-9)"
    if not winners and spice_win_due(state, log):  # after the stronghold victories, before the defaults
        winners, reason = spice_win_team(state), SPICE_WIN_REASON
    if not winners and state.turn >= state.setup.options.turns:
        winners, reason = last_turn_winners(state)
    if winners:
        winners, predicted = apply_prediction(state, winners)
        if predicted:
            predicted_faction = required(state.bg_prediction, "the Bene Gesserit's prediction").faction
            reason = f"the Bene Gesserit predicted {the_faction(predicted_faction)} on turn {state.turn} (A-25)"
        declare_winners(state, winners, reason, log)
    elif state.turn >= state.setup.options.turns:
        declare_winners(state, [], reason, log)
    else:
        declare_if_ordered(state, log)  # BT-27: a declaration at the end of this collection round
        state.turn += 1
        start_phase(state, Phase.STORM, log)


def declare_winners(state: GameState, winners: list[Faction], reason: str, log: EventLog) -> None:
    state.winners = winners
    state.phase, state.step = Phase.ENDED, ""
    outcome = ("Winners: " + " and ".join(faction_name(f) for f in winners)) if winners else "No winner"
    log.public(EventType.GAME_OVER, f"The game ends on turn {state.turn}. {outcome}: {reason}.",
               winners=[f.value for f in winners], reason=reason, turn=state.turn)

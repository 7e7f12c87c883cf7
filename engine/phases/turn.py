"""The order of a turn (1979 rules, section V): storm, spice blow, bidding, movement, battles, collection."""

from __future__ import annotations

from engine.events import EventLog, EventType
from engine.model import GameState, Phase

TURN_PHASES = (Phase.STORM, Phase.SPICE_BLOW, Phase.BIDDING, Phase.MOVEMENT, Phase.BATTLE, Phase.COLLECTION)

PHASE_TITLES = {
    Phase.STORM: "Storm",
    Phase.SPICE_BLOW: "Spice blow",
    Phase.BIDDING: "Bidding",
    Phase.MOVEMENT: "Revival, shipment and movement",
    Phase.BATTLE: "Battles",
    Phase.COLLECTION: "Spice collection",
}


def start_phase(state: GameState, phase: Phase, log: EventLog) -> None:
    state.phase, state.step = phase, ""
    log.public(EventType.PHASE_STARTED,
               f"Turn {state.turn}: {PHASE_TITLES[phase]}.", turn=state.turn, phase=phase.value)


def end_phase(state: GameState, log: EventLog) -> None:
    """Move on to the next phase of the turn. Collection, the last, hands over to the end of the turn instead
    (engine/phases/end_of_turn.py: victory checks, A-9)."""
    start_phase(state, TURN_PHASES[TURN_PHASES.index(state.phase) + 1], log)

"""The order of a turn (1979 rules, section V): storm, spice blow, bidding, movement, battles, collection."""

from __future__ import annotations

from engine.events import EventLog
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
    log.public("phase_started", f"Turn {state.turn}: {PHASE_TITLES[phase]}.", turn=state.turn, phase=phase.value)


def end_phase(state: GameState, log: EventLog) -> None:
    """Move on to the next phase; after collection the turn ends (victory checks, A-9)."""
    index = TURN_PHASES.index(state.phase)
    if index + 1 < len(TURN_PHASES):
        start_phase(state, TURN_PHASES[index + 1], log)
    else:
        from engine.phases.end_of_turn import end_turn  # the end of a turn needs every phase's rules

        end_turn(state, log)

"""The storm round (A-1, A-2, A-4): two secret dials, the storm moves, sand under it is swept."""

from __future__ import annotations

from engine.actions import DialStorm
from engine.board import storm_path
from engine.cards import STORM_CARDS_STEP, close_storm_window, open_storm_window
from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog
from engine.flow import default_for, handles, open_prompt, runs_phase, sampler_for, take_prompt
from engine.forces import sweep
from engine.model import GameState, Phase, Prompt, PromptKind
from engine.names import faction_name
from engine.order import storm_order
from engine.phases.turn import end_phase
from engine.rng import Rng

FIRST_TURN_DIAL = (0, 20)
LATER_DIAL = (1, 3)
DIALING = "dialing"


def dial_range(state: GameState) -> tuple[int, int]:
    return FIRST_TURN_DIAL if state.turn == 1 else LATER_DIAL


def storm_dialers(state: GameState) -> list:
    """A-1: the first and the last faction with a dot in storm order; the BT never dial (BT-3)."""
    with_dots = [f for f in storm_order(state) if state.faction(f).dot is not None]
    return [with_dots[0], with_dots[-1]]


@runs_phase(Phase.STORM)
def run_storm(state: GameState, log: EventLog) -> bool:
    if state.step == "":
        if state.turn == 1 and state.setup.fixed.storm_sector is not None:
            log.public("storm_fixed", f"The storm starts at sector {state.storm_sector} (fixed at setup).",
                       sector=state.storm_sector)
            end_phase(state, log)
            return True
        low, high = dial_range(state)
        dialers = storm_dialers(state)
        for faction in dialers:
            open_prompt(state, PromptKind.STORM_DIAL, faction, secret=True,
                        options=[str(v) for v in range(low, high + 1)])
        state.storm_dials = {}
        state.step = DIALING
        log.public("storm_dialing", f"{' and '.join(faction_name(f) for f in dialers)} dial the storm "
                   f"({low}-{high}).", dialers=[f.value for f in dialers])
        return True
    if state.step in (DIALING, STORM_CARDS_STEP):
        dials = dict(state.storm_dials)
        distance = sum(dials.values())
        reason = "Storm dials: " + ", ".join(f"{faction_name(f)} {v}" for f, v in dials.items()) + "."
        # Treachery cards hook (engine/cards.py): Weather Control and Family Atomics are played after the
        # distance is known and before the storm moves (base-game digest §5).
        if state.step == DIALING and open_storm_window(state, distance, reason, log):
            state.step = STORM_CARDS_STEP
            return True
        if state.step == STORM_CARDS_STEP:
            distance, reason = close_storm_window(state, distance, reason, log)
        move_storm(state, distance, log, reason)
        state.storm_dials = {}
        end_phase(state, log)
        return True
    return False


@handles(DialStorm)
def dial_storm(state: GameState, action: DialStorm, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.STORM_DIAL, "A-1")
    low, high = dial_range(state)
    if not low <= action.value <= high:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "A-1",
                            f"On turn {state.turn} the storm dial is {low} to {high}, not {action.value}.",
                            prompt.options)
    state.storm_dials[action.faction] = action.value
    log.private("storm_dialed", action.faction, f"You dialed {action.value} for the storm.", value=action.value)
    log.public("decision_made", f"{faction_name(action.faction)} dialed the storm.",
               faction=action.faction.value, kind=PromptKind.STORM_DIAL.value)


def move_storm(state: GameState, distance: int, log: EventLog, reason: str) -> None:
    """A-2: move counterclockwise; every sector entered is swept (the start sector is not swept again)."""
    path = storm_path(state.storm_sector, distance)
    state.storm_sector = path[-1] if path else state.storm_sector
    log.public("storm_moved", f"{reason} The storm moves {distance} sectors to sector {state.storm_sector}.",
               distance=distance, sector=state.storm_sector, path=path)
    sweep(state, set(path), log)


@default_for(PromptKind.STORM_DIAL)
def _default_dial(state: GameState, prompt: Prompt) -> DialStorm:
    """A dial drawn from the game's own generator, so a forced default favours nobody."""
    low, high = dial_range(state)
    return DialStorm(faction=prompt.faction, value=low + state.rng.below(high - low + 1))


@sampler_for(PromptKind.STORM_DIAL)
def _sample_dial(state: GameState, prompt: Prompt, rng: Rng) -> DialStorm:
    return DialStorm(faction=prompt.faction, value=int(rng.choice(prompt.options)))

"""The storm round (A-1, A-2, A-4): two secret dials, the storm moves, sand under it is swept.

Weather (A-15 `weather`, 1979 optional rule XVI: the Fremen learn the storm's next move in advance). The
digest leaves the mechanism UNSURE; we take the AH-era reading ([BJ]: the distance of next turn's storm is
fixed in advance and told to the Fremen): right after the storm moves, next turn's two dialers (A-1, from the
storm order the storm now gives) dial 1-3 for next turn, secretly; once both are in, the Fremen alone learn
the sum (a private event and their view). Next turn those dials move the storm, with no new dialing; the
storm-card window (Weather Control, Family Atomics) still opens as usual. No forecast after the last turn.
"""

from __future__ import annotations

from engine.actions import DialStorm
from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog, EventType
from engine.flow import Details, default_for, details_for, handles, open_prompt, runs_phase, sampler_for, take_prompt
from engine.ids import Faction
from engine.model import GameState, Phase, Prompt, PromptKind
from engine.names import counted, faction_does, faction_name
from engine.phases.turn import end_phase
from engine.rng import Rng
from engine.rules.board import storm_path
from engine.rules.cards import STORM_CARDS_STEP, close_storm_window, open_storm_window
from engine.rules.forces import sweep
from engine.rules.order import storm_order

FIRST_TURN_DIAL = (0, 20)
LATER_DIAL = (1, 3)
DIALING = "dialing"
FORECAST = "forecast"  # A-15 `weather`: next turn's dials are being made


@details_for(PromptKind.STORM_DIAL)
class StormDialDetails(Details):
    forecast: bool = False  # A-15 weather: next turn's storm, dialed now
    turn: int | None = None  # the turn a forecast dial is for


def dial_range(state: GameState, prompt: Prompt | None = None) -> tuple[int, int]:
    """A-1: 0-20 on turn 1, 1-3 after; a weather forecast dial is always for a later turn."""
    if prompt is not None and prompt.detail.get("forecast"):
        return LATER_DIAL
    return FIRST_TURN_DIAL if state.turn == 1 else LATER_DIAL


def weather_forecasts(state: GameState) -> bool:
    """A-15 `weather`: a forecast is made after this turn's storm when the Fremen play and a turn follows."""
    return state.setup.options.weather and state.in_game(Faction.FREMEN) and state.turn < state.setup.options.turns


def storm_dialers(state: GameState) -> list[Faction]:
    """A-1: the first and the last faction with a dot in storm order; the BT never dial (BT-3)."""
    with_dots = [f for f in storm_order(state) if state.faction(f).dot is not None]
    return [with_dots[0], with_dots[-1]]


@runs_phase(Phase.STORM)
def run_storm(state: GameState, log: EventLog) -> bool:
    if state.step == "":
        if state.turn == 1 and state.setup.fixed.storm_sector is not None:
            log.public(EventType.STORM_FIXED, f"The storm starts at sector {state.storm_sector} (fixed at setup).",
                       sector=state.storm_sector)
            _after_the_storm(state, log)
            return True
        if state.storm_forecast:  # A-15 `weather`: dialed last turn
            state.storm_dials, state.storm_forecast = dict(state.storm_forecast), {}
            state.step = DIALING
            log.public(EventType.STORM_FORECAST_USED, "The storm moves as dialed last turn (weather).")
            return True
        low, high = dial_range(state)
        dialers = storm_dialers(state)
        for faction in dialers:
            open_prompt(state, PromptKind.STORM_DIAL, faction, secret=True,
                        options=[str(v) for v in range(low, high + 1)])
        state.storm_dials = {}
        state.step = DIALING
        log.public(EventType.STORM_DIALING, f"{' and '.join(faction_name(f) for f in dialers)} dial the storm "
                   f"({low}-{high}).", dialers=[f.value for f in dialers])
        return True
    if state.step in (DIALING, STORM_CARDS_STEP):
        dials = dict(state.storm_dials)
        distance = sum(dials.values())
        reason = "Storm dials: " + ", ".join(f"{faction_name(f)} {v}" for f, v in dials.items()) + "."
        # Treachery cards hook (engine/rules/cards.py): Weather Control and Family Atomics are played after the
        # distance is known and before the storm moves (base-game digest §5).
        if state.step == DIALING and open_storm_window(state, distance, reason, log):
            state.step = STORM_CARDS_STEP
            return True
        if state.step == STORM_CARDS_STEP:
            distance, reason = close_storm_window(state, distance, reason, log)
        move_storm(state, distance, log, reason)
        state.storm_dials = {}
        _after_the_storm(state, log)
        return True
    if state.step == FORECAST:
        forecast = sum(state.storm_forecast.values())
        log.private(EventType.STORM_FORECAST, Faction.FREMEN, "Weather: next turn the storm will move "
                    f"{counted(forecast, 'sector')} (A-15; secret to you).", distance=forecast, turn=state.turn + 1)
        end_phase(state, log)
        return True
    return False


def _after_the_storm(state: GameState, log: EventLog) -> None:
    """End the storm round, or first have next turn's storm dialed (A-15 `weather`)."""
    if not weather_forecasts(state):
        end_phase(state, log)
        return
    dialers = storm_dialers(state)
    low, high = LATER_DIAL
    for faction in dialers:
        open_prompt(state, PromptKind.STORM_DIAL, faction, secret=True,
                    options=[str(v) for v in range(low, high + 1)], forecast=True, turn=state.turn + 1)
    state.storm_forecast = {}
    state.step = FORECAST
    log.public(EventType.STORM_FORECAST_DIALING, f"Weather: {' and '.join(faction_name(f) for f in dialers)} dial next "
               f"turn's storm now ({low}-{high}); the Fremen will learn the distance (A-15).",
               dialers=[f.value for f in dialers], turn=state.turn + 1)


@handles(DialStorm)
def dial_storm(state: GameState, action: DialStorm, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.STORM_DIAL, "A-1")
    low, high = dial_range(state, prompt)
    if not low <= action.value <= high:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "A-1",
                            f"This storm dial is {low} to {high}, not {action.value}.", prompt.options)
    if prompt.detail.get("forecast"):
        state.storm_forecast[action.faction] = action.value
    else:
        state.storm_dials[action.faction] = action.value
    log.private(EventType.STORM_DIALED, action.faction, f"You dialed {action.value} for the storm.", value=action.value)
    log.public(EventType.DECISION_MADE, f"{faction_does(action.faction, 'dialed', start=True)} the storm.",
               faction=action.faction.value, kind=PromptKind.STORM_DIAL.value)


def move_storm(state: GameState, distance: int, log: EventLog, reason: str) -> None:
    """A-2: move counterclockwise; every sector entered is swept (the start sector is not swept again)."""
    path = storm_path(state.storm_sector, distance)
    state.storm_sector = path[-1] if path else state.storm_sector
    log.public(EventType.STORM_MOVED,
               f"{reason} The storm moves {counted(distance, 'sector')} to sector {state.storm_sector}.",
               distance=distance, sector=state.storm_sector, path=path)
    sweep(state, set(path), log)


@default_for(PromptKind.STORM_DIAL)
def _default_dial(state: GameState, prompt: Prompt) -> DialStorm:
    """A dial drawn from a generator derived from the game's own and the prompt, so a forced default favours
    nobody, and the game's generator is not drawn from (the default must leave the state as it is)."""
    low, high = dial_range(state, prompt)
    return DialStorm(faction=prompt.faction, value=low + state.rng.derived(prompt.id).below(high - low + 1))


@sampler_for(PromptKind.STORM_DIAL)
def _sample_dial(state: GameState, prompt: Prompt, rng: Rng) -> DialStorm:
    return DialStorm(faction=prompt.faction, value=int(rng.choice(prompt.options)))

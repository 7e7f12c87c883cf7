"""The days a whole game takes at each pace, for a group whose players answer each decision after a random delay
(ANSWER_DELAY, uniformly) and leave some to their deadline (NEVER_ANSWERED of the decisions), and where the days
go by phase.

No Discord and no waiting: the GameService runs on the memory store with a virtual clock, which jumps to the next
moment something happens (a player's answer, or the game's next reminder or default: the store's due time, which
the tick reads). The players answer with the engine's automatic players' legal choices (engine/checks/autoplay.py
play_prompt). A decision asked again under a new id (engine/flow.py ask_again) is the same decision to its player,
answered when he meant to answer the first. The bot runs its tick at every drain, seconds apart: here at the very
moment something is due."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from datetime import UTC, datetime, timedelta

from bench.engine_figures import bt_game
from bench.service_figures import FIRST_USER_ID, GUILD_ID, user_of
from bench.timing import now
from bot.app.paces import Pace
from bot.app.service import GameService, ServiceError
from bot.store.memory import MemoryGameStore
from engine.checks.autoplay import play_prompt
from engine.ids import Faction
from engine.model import Phase, Prompt
from engine.rng import Rng

PACES = (Pace.FAST, Pace.DAILY, Pace.WEEKLY)
ANSWER_DELAY = (timedelta(minutes=30), timedelta(hours=12))
NEVER_ANSWERED = 0.10
GAMES = 8  # per pace
START = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)
MAX_DAYS = 3650  # a game still going after this long stalled
DAY_SECONDS = 86400


class VirtualClock:
    def __init__(self, moment: datetime) -> None:
        self.now = moment

    def __call__(self) -> datetime:
        return self.now


def _decision(prompt: Prompt) -> tuple[str, str, int]:
    """A decision as its player sees it: asked again under a new id, it keeps its faction, kind and opening."""
    return prompt.faction.value, prompt.kind.value, prompt.opened_at


def _delay(delays: random.Random) -> timedelta:
    return ANSWER_DELAY[0] + (ANSWER_DELAY[1] - ANSWER_DELAY[0]) * delays.random()


async def play_at_pace(pace: Pace, seed: int) -> dict:
    """One whole 7-faction game at `pace`: its virtual days, by phase, and who decided (players, defaults)."""
    clock = VirtualClock(START)
    store = MemoryGameStore(clock=clock)
    service = GameService(store, clock=clock)
    setup = bt_game(seed)
    row = await service.create_game(GUILD_ID, 1, list(Faction), setup.options, seed, pace=pace)
    game = row.game_id
    for number, faction in enumerate(Faction):
        await service.seat(game, faction, FIRST_USER_ID + number)
    await service.start(game)
    delays, choices = random.Random(seed), Rng.from_seed(seed)
    answer_at: dict[tuple[str, str, int], datetime | None] = {}
    by_phase: Counter[str] = Counter()
    answered = defaults = 0
    state = await service.state_of(game)
    while state.phase != Phase.ENDED and clock.now - START < timedelta(days=MAX_DAYS):
        for prompt in state.prompts:  # a new decision: when its player will answer it, if ever
            if _decision(prompt) not in answer_at:
                never = delays.random() < NEVER_ANSWERED
                answer_at[_decision(prompt)] = None if never else clock.now + _delay(delays)
        answers = sorted((when, prompt.id) for prompt in state.prompts
                          if (when := answer_at[_decision(prompt)]) is not None)
        due = (await store.load_game(game)).due_at
        moments = [moment for moment in (answers[0][0] if answers else None, due) if moment is not None]
        if not moments:
            break  # nothing will happen: stalled
        moment = max(min(moments), clock.now)
        by_phase[state.phase.value] += (moment - clock.now).total_seconds()
        clock.now = moment
        if due is not None and due <= moment:
            defaults += await service.tick(moment)
        else:
            prompt = state.prompt(answers[0][1])
            action, _ = play_prompt(state, prompt, choices)  # a legal choice, tried on a copy
            try:
                await service.submit(game, user_of(action), action, prompt_id=prompt.id)
                answered += 1
                # a decision still open after its answer (an offer at the Nexus waits for the other side): its
                # player looks in again after another delay
                answer_at[_decision(prompt)] = clock.now + _delay(delays)
            except ServiceError:  # not taken after all: left to its deadline
                answer_at[_decision(prompt)] = None
        state = await service.state_of(game)
    return {"finished": state.phase == Phase.ENDED, "turns": state.turn,
            "days": (clock.now - START).total_seconds() / DAY_SECONDS,
            "days_by_phase": {phase: seconds / DAY_SECONDS for phase, seconds in by_phase.items()},
            "answered": answered, "defaults": defaults}


def days_figures(seed: int, games: int = GAMES, log=print) -> dict:
    """For each pace: `games` whole games; their mean and longest virtual days, the mean days of each phase, and
    the share of decisions left to their default."""
    figures: dict = {"answer_delay_hours": [d.total_seconds() / 3600 for d in ANSWER_DELAY],
                     "never_answered": NEVER_ANSWERED, "games": games, "paces": {}}
    for pace in PACES:
        started = now()
        played = [asyncio.run(play_at_pace(pace, seed + number)) for number in range(games)]
        phases = sorted({phase for game in played for phase in game["days_by_phase"]}, key=list(Phase).index)
        decided = sum(game["answered"] + game["defaults"] for game in played)
        figures["paces"][pace.value] = {
            "finished": sum(game["finished"] for game in played),
            "turns_mean": round(sum(game["turns"] for game in played) / games, 1),
            "days_mean": round(sum(game["days"] for game in played) / games, 1),
            "days_max": round(max(game["days"] for game in played), 1),
            "days_by_phase_mean": {phase: round(sum(game["days_by_phase"].get(phase, 0) for game in played) / games, 2)
                                   for phase in phases},
            "defaults_share": round(sum(game["defaults"] for game in played) / decided, 2) if decided else None}
        log(f"  days, {pace.value}: {games} games ({now() - started:.0f} s)")
    return figures

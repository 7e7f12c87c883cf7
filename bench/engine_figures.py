"""Engine figures: `apply` per action over whole random games, whole games per second, the replay of a
15-turn game, and the memory one game's state takes. Each time is taken on the wall clock and as this
process's CPU time, which other processes on a busy machine cannot inflate."""

from __future__ import annotations

import contextlib
import tracemalloc
from collections.abc import Iterator
from dataclasses import dataclass, field

from bench.timing import cpu_now, now, spread
from engine.actions import Action
from engine.checks import autoplay
from engine.checks.autoplay import play_game
from engine.game import Transition
from engine.ids import Faction
from engine.model import GameState
from engine.options import GameOptions, GameSetup
from engine.record import GameRecord, record_game, replay, verify


def bt_game(seed: int) -> GameSetup:
    """A 7-faction game with the Bene Tleilaxu and every BT option (their default)."""
    return GameSetup(factions=tuple(Faction), options=GameOptions(), seed=seed)


@dataclass
class TimedGame:
    setup: GameSetup
    turns: int = 0
    seconds: float = 0.0  # the whole game
    cpu_seconds: float = 0.0
    apply_seconds: list[float] = field(default_factory=list)  # one per accepted action, in order
    apply_cpu_seconds: list[float] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)


@contextlib.contextmanager
def timing_apply(game: TimedGame) -> Iterator[None]:
    """Time every accepted `apply` the automatic players make (a refused sample is not an action) and
    record the action, so the game can be replayed."""
    original = autoplay.apply

    def timed(state: GameState, action: Action) -> Transition:
        started, started_cpu = now(), cpu_now()
        result = original(state, action)
        game.apply_seconds.append(now() - started)
        game.apply_cpu_seconds.append(cpu_now() - started_cpu)
        game.actions.append(action)
        return result

    autoplay.apply = timed
    try:
        yield
    finally:
        autoplay.apply = original


def timed_games(seeds: list[int]) -> list[TimedGame]:
    """Whole games by the automatic players; the hook adds about a microsecond per apply to a game's time."""
    games = []
    for seed in seeds:
        game = TimedGame(setup=bt_game(seed))
        with timing_apply(game):
            started, started_cpu = now(), cpu_now()
            result = play_game(game.setup, seed)
            game.seconds, game.cpu_seconds = now() - started, cpu_now() - started_cpu
        assert result.finished, f"the game of seed {seed} did not finish"
        game.turns = result.turns
        games.append(game)
    return games


def longest_record(games: list[TimedGame]) -> tuple[GameRecord, GameState]:
    game = max(games, key=lambda g: (g.turns, len(g.actions)))
    state, _ = replay(game.setup, game.actions)
    return record_game(game.setup, game.actions, state), state


def state_memory(state: GameState) -> dict[str, float]:
    """What one game's state takes: as a Python object (tracemalloc, building it from its JSON) and as JSON."""
    text = state.model_dump_json()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        rebuilt = GameState.model_validate_json(text)
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert rebuilt == state
    return {"state_object_kib": round((current - before) / 1024, 1), "state_build_peak_kib": round(peak / 1024, 1),
            "state_json_kib": round(len(text.encode()) / 1024, 1)}


def game_peak_memory(seed: int) -> float:
    """Peak traced memory (MiB) while one whole game is played: its states, events and copies."""
    tracemalloc.start()
    try:
        play_game(bt_game(seed), seed)
        return round(tracemalloc.get_traced_memory()[1] / 2**20, 2)
    finally:
        tracemalloc.stop()


def engine_figures(games: int, seed: int) -> tuple[dict, GameRecord]:
    timed = timed_games([seed + number for number in range(games)])
    record, final = longest_record(timed)
    replays, replays_cpu = [], []
    for _ in range(3):
        started, started_cpu = now(), cpu_now()
        verify(record)
        replays.append(now() - started)
        replays_cpu.append(cpu_now() - started_cpu)
    figures = {
        "games": games,
        "apply": spread([s for game in timed for s in game.apply_seconds]),
        "apply_cpu": spread([s for game in timed for s in game.apply_cpu_seconds]),
        "actions_per_game": round(sum(len(game.actions) for game in timed) / games),
        "whole_game": {**spread([game.seconds for game in timed]),
                       "games_per_second": round(games / sum(game.seconds for game in timed), 2)},
        "whole_game_cpu": spread([game.cpu_seconds for game in timed]),
        "replay": {"turns": final.turn, "actions": len(record.actions), "best_ms": round(min(replays) * 1000, 1),
                   "best_cpu_ms": round(min(replays_cpu) * 1000, 1)},
        "memory": {**state_memory(final), "game_peak_mib": game_peak_memory(seed)},
    }
    return figures, record

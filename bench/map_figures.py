"""Map figures: the time to draw the table's picture and its size, over the board as each turn of a whole
game begins."""

from __future__ import annotations

from bench.timing import now, percentile, spread
from bot.app.map_picture import render_map
from engine.game import apply, new_game
from engine.model import GameState
from engine.record import GameRecord


def turn_states(record: GameRecord) -> list[GameState]:
    """The state as each turn begins, and the final one."""
    state, _ = new_game(record.setup)
    states = []
    for action in record.actions:
        turn = state.turn
        state, _ = apply(state, action)
        if state.turn != turn:
            states.append(state)
    return [*states, state]


def map_figures(record: GameRecord, repeats: int) -> dict:
    seconds, sizes = [], []
    for state in turn_states(record):
        for _ in range(repeats):
            started = now()
            picture = render_map(state, None)
            seconds.append(now() - started)
        sizes.append(len(picture))
    return {"render": spread(seconds), "size_kb_p50": round(percentile(sizes, 0.5) / 1000, 1),
            "size_kb_max": round(max(sizes) / 1000, 1)}

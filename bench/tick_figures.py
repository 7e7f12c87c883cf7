"""Deadline tick figures: a tick over 1,000 and then 10,000 stored games, of which WAITING have something due (a
reminder), on SQLite and on PostgreSQL. The tick asks the store's index of due times (GameStore.games_due) for
the games whose time has come, so it reads those alone: its time follows the games waiting, not the games stored.

The games are copies of a few opened through the service (7 factions with the BT), at the daily pace: the traitor
picks open at the start, due in a day, reminded at half time. WAITING of them are at their half time when each
tick runs; the others wait on a decision due in a month, as a game whose players take their time does. Each tick
is timed whole (its reads, its reminders and their writes); between two ticks, untimed, the waiting games are put
back as they were (no reminder sent, due at half time), so that every tick does the same work. Beside it, the
listing of every game stored, which every tick began with before the index (and then it read every action of each
game with deadlines)."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from bench.service_figures import open_game
from bench.timing import now, spread
from bot.app.paces import DAY, Pace, pace_deadlines
from bot.app.ports import GameRecordRow, GameStore
from bot.app.service import GameService
from bot.store.opening import open_store
from engine.model import PromptKind

STORED = (1_000, 10_000)
WAITING = 100
TICKS = 30  # measured ticks at each size
QUIET_DEADLINE = 30 * DAY  # the traitor picks' deadline of the games that wait on nothing soon
LISTINGS = 3  # timings of the listing of every game stored, which each tick made before the index
TEMPLATES = 5
CREATE_BATCH = 50


class ReadCount:
    """The games a tick loads (GameStore.load_game), counted."""

    def __init__(self, store: GameStore) -> None:
        self.games = 0
        load = store.load_game

        async def counted(game_id: str):
            self.games += 1
            return await load(game_id)

        store.load_game = counted


def _copies(template: GameRecordRow, first: int, count: int, waiting: bool) -> list[GameRecordRow]:
    """`count` copies of the template under new ids and channels: due at the picks' half time when `waiting`,
    else with a month to pick (due at half that)."""
    deadlines = pace_deadlines(Pace.DAILY) | ({} if waiting else {PromptKind.TRAITOR_PICK.value: QUIET_DEADLINE})
    settings = {**template.settings, "pace": Pace.DAILY.value, "deadlines": deadlines}
    due = template.started_at + timedelta(seconds=deadlines[PromptKind.TRAITOR_PICK.value] / 2)
    return [template.model_copy(update={"game_id": f"t{number}", "channel_id": 30_000_000 + number,
                                        "settings": settings, "due_at": due})
            for number in range(first, first + count)]


async def _create(store: GameStore, rows: list[GameRecordRow]) -> None:
    for batch in range(0, len(rows), CREATE_BATCH):
        await asyncio.gather(*(store.create_game(row, []) for row in rows[batch:batch + CREATE_BATCH]))


async def _measure(location: str, stored_sizes: tuple[int, ...], ticks: int, seed: int, log) -> dict:
    store = await open_store(location)
    try:
        service = GameService(store)
        # The templates have no deadline: they count among the games stored, never due.
        templates = [await store.load_game(await open_game(service, 20_000_000 + n, seed + n))
                     for n in range(TEMPLATES)]
        waiting = _copies(templates[0], TEMPLATES, WAITING, waiting=True)
        await _create(store, waiting)
        half_time: datetime = waiting[0].due_at
        figures, created, reads = {}, TEMPLATES + WAITING, ReadCount(store)
        for stored in stored_sizes:
            await _create(store, [copy for number in range(created, stored, WAITING) for copy in _copies(
                templates[number // WAITING % TEMPLATES], number, min(WAITING, stored - number), waiting=False)])
            created = max(created, stored)
            log(f"    {created:,} games stored")
            times, read = [], []
            for _ in range(ticks):
                for game in waiting:  # as before the reminders: untimed
                    await store.set_settings(game.game_id, game.settings, due_at=half_time)
                reads.games = 0
                began = now()
                await service.tick(half_time)
                times.append(now() - began)
                read.append(reads.games)
            listed = []
            for _ in range(LISTINGS):  # what every tick read before the index: every game stored
                began = now()
                await store.list_games()
                listed.append(now() - began)
            figures[str(created)] = {**spread(times), "games_read_per_tick": sorted(set(read)),
                                     "listing_every_game": spread(listed)}
        return figures
    finally:
        await store.close()


def tick_figures(locations: dict[str, str], seed: int, stored_sizes: tuple[int, ...] = STORED, ticks: int = TICKS,
                 log=print) -> dict:
    """For each store (name -> location): the tick's time over `ticks` ticks at each number of games stored, each
    finding WAITING games due, and how many games each tick read."""
    figures: dict = {"waiting": WAITING, "ticks": ticks, "stores": {}}
    for name, location in locations.items():
        log(f"  tick, {name}:")
        figures["stores"][name] = asyncio.run(_measure(location, stored_sizes, ticks, seed, log))
    return figures

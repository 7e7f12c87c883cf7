"""Service figures on SQLite, the bot's own store: a submitted action until its transaction is committed,
against a bare commit of a row of the same size on the same database; and the load of 1,000 open games."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.engine_figures import bt_game
from bench.timing import cpu_now, now, percentile, spread
from bot.app.history import events_json
from bot.app.ports import GameStatus
from bot.app.service import GameService
from bot.store.common import pack_snapshot
from bot.store.sqlite import CONNECTION_PRAGMAS, SqliteGameStore
from engine import __version__
from engine.actions import Action
from engine.checks.autoplay import play_prompt
from engine.ids import Faction
from engine.rng import Rng

GUILD_ID = 1
FIRST_USER_ID = 1000
OPENING_BATCH = 25


async def open_game(service: GameService, channel_id: int, seed: int) -> str:
    """Create a 7-faction game with the BT in its own channel, seat a player at each faction and start it."""
    row = await service.create_game(GUILD_ID, channel_id, list(Faction), bt_game(seed).options, seed)
    for number, faction in enumerate(Faction):
        await service.seat(row.game_id, faction, FIRST_USER_ID + number)
    await service.start(row.game_id)
    return row.game_id


async def next_action(service: GameService, game_id: str, rng: Rng) -> tuple[Action, str] | None:
    """An automatic player's legal answer to one open decision of the game, or None when none is open."""
    state = await service.state_of(game_id)
    if not state.prompts:
        return None
    prompt = rng.choice(state.prompts)
    action, _ = play_prompt(state, prompt, rng)  # a sample the rules accept (tried on a copy)
    return action, prompt.id


def user_of(action: Action) -> int:
    return FIRST_USER_ID + list(Faction).index(action.faction)


class TimedStore:
    """The store, with the time of each snapshot read and each action's commit kept: the parts of a submit;
    and how many calls were handed to the connection's thread (each a trip there and back)."""

    def __init__(self, store: SqliteGameStore) -> None:
        self.store = store
        self.loads: list[float] = []
        self.commits: list[float] = []
        self.trips = 0
        handover = store._on_thread  # the store hands every call to its connection's thread through this

        async def counted(call, *args):
            self.trips += 1
            return await handover(call, *args)

        store._on_thread = counted

    def __getattr__(self, name: str):
        return getattr(self.store, name)

    async def load_game(self, game_id: str):
        started = now()
        try:
            return await self.store.load_game(game_id)
        finally:
            self.loads.append(now() - started)

    async def commit_action(self, *args, **kwargs) -> int:
        started = now()
        try:
            return await self.store.commit_action(*args, **kwargs)
        finally:
            self.commits.append(now() - started)


class BareCommits:
    """A second connection to the same database, with the store's pragmas, writing one row per commit: on a
    thread of its own, as the store runs its connection, so that a commit is one hand-over there too."""

    def __init__(self, db: sqlite3.Connection, thread: ThreadPoolExecutor) -> None:
        self.db = db
        self.thread = thread

    @classmethod
    async def open(cls, path: Path) -> BareCommits:
        thread = ThreadPoolExecutor(max_workers=1)

        def connect() -> sqlite3.Connection:
            db = sqlite3.connect(path, isolation_level=None)
            for pragma in CONNECTION_PRAGMAS:
                db.execute(pragma)
            db.execute("CREATE TABLE IF NOT EXISTS bench_rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            return db

        return cls(await asyncio.get_running_loop().run_in_executor(thread, connect), thread)

    async def commit(self, size: int) -> float:
        """Seconds to write (upsert) one row of `size` characters in its own transaction."""
        body = "x" * size

        def write() -> None:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("INSERT INTO bench_rows (id, body) VALUES (1, ?)"
                            " ON CONFLICT (id) DO UPDATE SET body = excluded.body", (body,))
            self.db.execute("COMMIT")

        started = now()
        await asyncio.get_running_loop().run_in_executor(self.thread, write)
        return now() - started

    async def close(self) -> None:
        await asyncio.get_running_loop().run_in_executor(self.thread, self.db.close)
        self.thread.shutdown()


async def submit_figures(path: Path, seed: int, max_actions: int) -> dict:
    """One whole game through GameService.submit on SQLite; after each submit, a bare commit of a row as
    large as what the submit wrote (the snapshot, the action and its messages, and kept with the action its events
    and the snapshot it applied to), on the same database."""
    store = TimedStore(await SqliteGameStore.open(path))
    bare = await BareCommits.open(path)
    try:
        service = GameService(store)
        game_id = await open_game(service, 1, seed)
        state_before = (await store.load_game(game_id)).state_json
        rng = Rng.from_seed(seed)
        submits, submits_cpu, commits, sizes, loads, store_commits, trips = [], [], [], [], [], [], []
        for _ in range(max_actions):
            chosen = await next_action(service, game_id, rng)
            if chosen is None:
                break
            action, prompt_id = chosen
            store.loads.clear()
            store.commits.clear()
            store.trips = 0
            started, started_cpu = now(), cpu_now()
            accepted = await service.submit(game_id, user_of(action), action, prompt_id=prompt_id)
            submits.append(now() - started)
            submits_cpu.append(cpu_now() - started_cpu)
            trips.append(store.trips)
            loads += store.loads
            store_commits += store.commits
            row = await store.load_game(game_id)
            size = (len(row.state_json) + len(action.model_dump_json())
                    + sum(len(e.message) for e in accepted.events)  # the messages are built from the events
                    # kept with the action: its events, its version, and the snapshot it applied to, packed
                    + len(events_json(accepted.events)) + len(__version__)
                    + len(pack_snapshot(state_before, row.state_json)))
            state_before = row.state_json
            sizes.append(size)
            commits.append(await bare.commit(size))
        ended = (await store.load_game(game_id)).status == GameStatus.ENDED
    finally:
        await bare.close()
        await store.close()
    submit, commit = spread(submits), spread(commits)
    return {"actions": len(submits), "game_ended": ended, "row_bytes_p50": percentile(sizes, 0.5),
            "submit": submit, "submit_cpu": spread(submits_cpu),
            "of_which_load": spread(loads), "of_which_commit": spread(store_commits),
            "trips_per_submit": dict(sorted(Counter(trips).items())),
            "bare_commit": commit,
            "ratio_p50": round(submit["p50_ms"] / commit["p50_ms"], 2),
            "ratio_p99": round(submit["p99_ms"] / commit["p99_ms"], 2)}


async def load_figures(path: Path, games: int, rounds: int, paced: int, seed: int) -> dict:
    """`games` games open in one store; then `rounds` bursts, each one action submitted in every game at once
    (asyncio.gather), each submit timed from its call; then `paced` submits arriving one by one at random
    games at a steady rate (half the burst throughput), each timed from its arrival."""
    store = await SqliteGameStore.open(path)
    try:
        service = GameService(store)
        started = now()
        ids: list[str] = []
        for first in range(1, games + 1, OPENING_BATCH):  # a few at a time: one computes while another commits
            channels = range(first, min(first + OPENING_BATCH, games + 1))
            ids += await asyncio.gather(*(open_game(service, channel, seed + channel) for channel in channels))
        opening = now() - started
        rng = Rng.from_seed(seed)
        errors: Counter[str] = Counter()
        burst: list[float] = []
        burst_seconds = 0.0

        async def timed_submit(game_id: str, chosen: tuple[Action, str] | None, since: float) -> float | None:
            if chosen is None:
                return None
            action, prompt_id = chosen
            try:
                await service.submit(game_id, user_of(action), action, prompt_id=prompt_id)
            except Exception as error:  # noqa: BLE001 - every failure is a figure of the load test
                errors[type(error).__name__] += 1
                return None
            return now() - since

        for _ in range(rounds):
            chosen = [await next_action(service, game_id, rng) for game_id in ids]
            since = now()
            timings = await asyncio.gather(*(timed_submit(g, c, since) for g, c in zip(ids, chosen, strict=True)))
            burst_seconds += now() - since
            burst += [t for t in timings if t is not None]
        rate = len(burst) / burst_seconds / 2  # arrivals per second, at half what the bursts sustained
        draw = random.Random(seed)
        pending: dict[str, asyncio.Task] = {}
        steady: list[float] = []

        def finished(game_id: str, task: asyncio.Task) -> None:
            del pending[game_id]
            if task.result() is not None:
                steady.append(task.result())

        steady_started = now()
        for number in range(paced):
            await asyncio.sleep(max(0.0, steady_started + number / rate - now()))
            # a player acts on what they see: not in a game whose last action is still being committed
            game_id = draw.choice([g for g in ids if g not in pending])
            chosen_now = await next_action(service, game_id, rng)  # the player's own thinking, before arrival
            pending[game_id] = asyncio.create_task(timed_submit(game_id, chosen_now, now()))
            pending[game_id].add_done_callback(lambda task, done=game_id: finished(done, task))
        await asyncio.gather(*pending.values())
    finally:
        await store.close()
    return {"games": games, "opening_seconds": round(opening, 1),
            "burst": {**spread(burst), "rounds": rounds, "submits_per_second": round(len(burst) / burst_seconds)},
            "steady": {**spread(steady), "arrivals_per_second": round(rate)},
            "errors": dict(errors)}

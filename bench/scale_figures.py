"""Scale figures: 10,000 open games on SQLite and on PostgreSQL, served by one bot process or (PostgreSQL) by two
processes sharing the database, each running half the shards.

Each configuration starts from the same games: a few opened through the service (7 factions with the BT),
then copied under new ids, one guild each, so that half of them fall in each of 2 shards. The players'
actions are chosen before the clock starts (an automatic player's legal answer to one open decision of the
game), so the measurement holds only the service's work. Two measurements, in worker processes (one, or one
per half of the shards), the parent only coordinating:

- burst: one action in each of 1,000 games, all submitted at the same instant; each timed from that instant.
  Done BURSTS times, each on games of its own, one after the other: the figure is the burst of median p99 (one
  burst is over in about a second, and on a 2-CPU machine a single one swings by a third from run to run).
- steady: actions arriving one by one at a steady rate, each in a game of its own, timed from its arrival.
  The rate is half what one process sustained in that store's burst, and the same for one and two processes.

Both clocks are the system's monotonic clock, which every process reads alike.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import sqlite3
import sys
from collections import Counter
from contextlib import closing
from dataclasses import dataclass
from multiprocessing.connection import Connection

import asyncpg

from bench.disk_probe import DiskProbe
from bench.service_figures import next_action, open_game, user_of
from bench.timing import now, percentile, spread
from bot.app.ports import Shards
from bot.app.service import GameService
from bot.process import tune_garbage_collector
from bot.store.opening import is_postgres_url, open_store
from engine.actions import Action, parse_action
from engine.rng import Rng

TEMPLATES = 20  # distinct games (seeds) the open games are copies of
BURSTS = 3
SHARD_COUNT = 2
START_DELAY = 1.0  # seconds between the parent's "go" and the instant every worker starts at
CREATE_BATCH = 50


@dataclass(frozen=True)
class Plan:
    """What one worker does: its bursts, each a list of (game, action JSON, prompt id), and its arrivals (number
    in the arrival order, game, action JSON, prompt id): arrival n comes n/rate seconds after the steady start."""

    bursts: list[list[tuple[str, str, str]]]
    arrivals: list[tuple[int, str, str, str]]


def guild_of(number: int) -> int:
    """Game number n's guild: its shard ((id >> 22) % SHARD_COUNT) is n % SHARD_COUNT."""
    return (number << 22) + 1


async def create_games(location: str, games: int, seed: int) -> list[str]:
    """`games` running games in the store: TEMPLATES opened through the service, the rest copies of them."""
    store = await open_store(location)
    try:
        service = GameService(store)
        templates = [await store.load_game(await open_game(service, 10_000_000 + n, seed + n))
                     for n in range(TEMPLATES)]
        ids = []
        for first in range(0, games, CREATE_BATCH):
            rows = [templates[n % TEMPLATES].model_copy(update={
                "game_id": f"s{n}", "channel_id": n + 1, "guild_id": guild_of(n), "created_at": None})
                for n in range(first, min(first + CREATE_BATCH, games))]
            await asyncio.gather(*(store.create_game(row, []) for row in rows))
            ids += [row.game_id for row in rows]
        return ids
    finally:
        await store.close()


async def choose_actions(location: str, game_ids: list[str], seed: int) -> dict[str, tuple[str, str]]:
    """An automatic player's action (JSON) and its prompt id for each game, as the game stands now."""
    store = await open_store(location)
    try:
        service = GameService(store)
        rng = Rng.from_seed(seed)
        chosen = {}
        for game_id in game_ids:
            action, prompt_id = await next_action(service, game_id, rng)
            chosen[game_id] = (action.model_dump_json(), prompt_id)
        return chosen
    finally:
        await store.close()


def plans(ids: list[str], chosen: dict[str, tuple[str, str]], burst_games: int, workers: int,
          seed: int) -> list[Plan]:
    """The bursts go to the first BURSTS * `burst_games` games, `burst_games` each; the arrivals to the others,
    one each, in a random order; each worker gets those of its shards' games."""
    bursts = [ids[n * burst_games:(n + 1) * burst_games] for n in range(BURSTS)]
    order = random.Random(seed).sample(ids[BURSTS * burst_games:], len(ids) - BURSTS * burst_games)
    result = []
    for worker in range(workers):
        def mine(game_id: str, worker=worker) -> bool:
            return workers == 1 or int(game_id[1:]) % SHARD_COUNT == worker

        result.append(Plan(bursts=[[(g, *chosen[g]) for g in burst if mine(g)] for burst in bursts],
                           arrivals=[(n, g, *chosen[g]) for n, g in enumerate(order) if mine(g)]))
    return result


def worker_main(location: str, shard_ids: list[int], plan: Plan, link: Connection) -> None:
    """A bot process: its own store and service, its collector tuned as the bot's (bot/process.py); runs its
    part of each burst, then of the arrivals, each at the instant the parent sends, and sends back the timings
    (seconds) and errors."""
    tune_garbage_collector()
    asyncio.run(_worker(location, Shards(frozenset(shard_ids), SHARD_COUNT), plan, link))


async def _worker(location: str, shards: Shards, plan: Plan, link: Connection) -> None:
    store = await open_store(location)
    try:
        service = GameService(store, shards=shards)
        errors: Counter[str] = Counter()
        bursts = [[(game_id, parse_action(action), prompt_id) for game_id, action, prompt_id in burst]
                  for burst in plan.bursts]
        arrivals = [(number, game_id, parse_action(action), prompt_id)
                    for number, game_id, action, prompt_id in plan.arrivals]

        async def submit(game_id: str, action: Action, prompt_id: str, since: float) -> float | None:
            try:
                await service.submit(game_id, user_of(action), action, prompt_id=prompt_id)
            except Exception as error:  # noqa: BLE001 - every failure is a figure of the load test
                errors[type(error).__name__] += 1
                return None
            return now() - since

        link.send("ready")
        for burst in bursts:
            start = link.recv()
            await asyncio.sleep(max(0.0, start - now()))
            timings = await asyncio.gather(*(submit(game_id, action, prompt_id, start)
                                             for game_id, action, prompt_id in burst))
            link.send([t for t in timings if t is not None])

        start, rate = link.recv()
        tasks = []
        for number, game_id, action, prompt_id in arrivals:
            arrival = start + number / rate
            await asyncio.sleep(max(0.0, arrival - now()))
            tasks.append(asyncio.create_task(submit(game_id, action, prompt_id, arrival)))
        steady = await asyncio.gather(*tasks)
        link.send({"steady": [t for t in steady if t is not None], "errors": dict(errors)})
    finally:
        await store.close()


def settle(location: str) -> None:
    """Start the next measurement from a settled, warm store. Settled: PostgreSQL's vacuum (three bursts update
    3,000 rows in three seconds, which sets autovacuum off in the middle of the next measurement), the store's
    checkpoint (its pages written back, SQLite's write-ahead log folded into the file), then every file the
    kernel still holds; the steady arrivals right after the bursts otherwise met that work, and their p99
    measured the disk's stall (hundreds of ms here) rather than the bot. Warm: SQLite's file read once, as a
    running bot's games are in the page cache (this machine's kernel pages out what went unread for about a
    minute; PostgreSQL keeps its pages in its own shared buffers)."""
    if is_postgres_url(location):
        asyncio.run(_settle_postgres(location))
        os.sync()
        return
    with closing(sqlite3.connect(location)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    os.sync()
    with open(location, "rb") as file:
        while file.read(1 << 20):
            pass


async def _settle_postgres(url: str) -> None:
    db = await asyncpg.connect(url)
    try:
        await db.execute("VACUUM")
        await db.execute("CHECKPOINT")
    except asyncpg.InsufficientPrivilegeError:  # a database of --database-url, without the right: said, not hidden
        print("  (no CHECKPOINT before the measurement: the database user may not run it)", file=sys.stderr)
    finally:
        await db.close()


def run_workers(location: str, worker_plans: list[Plan], rate: float | None, probe_directory: str) -> dict:
    """Start one worker per plan (one shard each when there are two; both for one), run the bursts and then the
    steady arrivals at the same instants in all, and gather the timings. The arrival rate is `rate`, or half
    what the median burst sustained. While the arrivals come, a DiskProbe in `probe_directory` times the
    disk's own syncs."""
    context = multiprocessing.get_context("spawn")
    links, processes = [], []
    for number, plan in enumerate(worker_plans):
        parent_end, child_end = context.Pipe()
        shard_ids = list(range(SHARD_COUNT)) if len(worker_plans) == 1 else [number]
        process = context.Process(target=worker_main, args=(location, shard_ids, plan, child_end))
        process.start()
        links.append(parent_end)
        processes.append(process)
    try:
        for link in links:
            assert link.recv() == "ready"
        bursts = []
        for _ in range(BURSTS):
            settle(location)
            start = now() + START_DELAY
            for link in links:
                link.send(start)
            bursts.append([t for link in links for t in link.recv()])
        median = sorted(bursts, key=lambda timings: percentile(timings, 0.99))[BURSTS // 2]
        rate = rate or len(median) / max(median) / 2
        settle(location)
        with DiskProbe(probe_directory) as probe:
            start = now() + START_DELAY
            for link in links:
                link.send((start, rate))
            steadies = [link.recv() for link in links]
        disk = probe.figures(since=start)
    finally:
        for process in processes:
            process.join(timeout=600)
    errors: Counter[str] = Counter()
    for part in steadies:
        errors.update(part["errors"])
    return {"bursts": bursts, "burst": median, "steady": [t for part in steadies for t in part["steady"]],
            "errors": dict(errors), "rate": rate, "disk": disk}


def scale_figures(locations: dict[str, str], games: int, burst_games: int, arrivals: int, seed: int,
                  probe_directory: str, log=print) -> dict:
    """For each store (name -> location) one process, and for PostgreSQL also two: the burst and the steady
    figures over `games` open games, and this machine's disk during the steady arrivals (a DiskProbe in
    `probe_directory`). Each run acts on games of its own (a slice of burst_games + arrivals), so every run
    finds its games as they were opened; the two-process run arrives at the one-process rate."""
    figures: dict = {"games": games, "burst_games": burst_games, "arrivals": arrivals, "runs": {}}
    for name, location in locations.items():
        started = now()
        runs = (1, 2) if name == "postgres" else (1,)
        size = BURSTS * burst_games + arrivals
        if size * len(runs) > games:
            raise ValueError(f"{games} games are too few for {len(runs)} runs of {size} actions")
        ids = asyncio.run(create_games(location, games, seed))
        log(f"  {name}: {games} games open ({now() - started:.0f} s)")
        chosen = asyncio.run(choose_actions(location, ids[:size * len(runs)], seed))
        log(f"  {name}: {len(chosen)} actions chosen ({now() - started:.0f} s)")
        rate = None
        for number, workers in enumerate(runs):
            label = f"{name}, {workers} process{'es' if workers > 1 else ''}"
            result = run_workers(location, plans(ids[number * size:(number + 1) * size], chosen, burst_games,
                                                 workers, seed), rate, probe_directory)
            rate = result["rate"]
            figures["runs"][label] = {
                "store": name, "processes": workers,
                "burst": {**spread(result["burst"]),
                          "submits_per_second": round(len(result["burst"]) / max(result["burst"])),
                          "p99_ms_of_each": [spread(timings)["p99_ms"] for timings in result["bursts"]]},
                "steady": {**spread(result["steady"]), "arrivals_per_second": round(rate)},
                "disk_during_steady": result["disk"],
                "errors": result["errors"]}
            log(f"  {label}: done ({now() - started:.0f} s)")
    return figures

"""Delivery figures through the Discord model: the time from a player's click to the last message it causes being
delivered, for one game alone and for one game among busy games, on SimCord's virtual clock.

The real MentatBot runs in SimCord (tests/playthrough.py: random players who answer the cards they are sent), and
Discord is the model of tests/discord_model.py: each request takes `LATENCY` seconds, each channel takes 5 posts
and 5 edits per 5 seconds, the bot 50 requests a second (429s waited out as discord.py does), interaction tokens
expire after 15 minutes, threads archive. The games are seated first without the model (their deal is delivered
at once), then the model is laid over SimCord and the measured game's players answer cards one at a time: each
answer is timed from the moment its last interaction began (the click or submit that commits it) to the moment
Discord served the last request carrying one of its messages (a post or an edit in the game's channel, its
threads or its players' DMs), after which the game's outbox is empty. The next answer comes `THINK` seconds
later. Meanwhile each busy game's players answer a card at random moments, `busy_interval` seconds apart on
average (exponential gaps), every game in its own server and channel, all on one shard, delivered by the one
bot. An answer that causes no message (a menu choice: it only edits its card) is not a sample.

SimCord, the players and the clock run in this process: the figures are virtual seconds, independent of how
fast the machine is; the wall time only decides how long the benchmark takes."""

from __future__ import annotations

import random
import re
from typing import Any

import discord
import pytest

from bench.timing import now, spread
from bot.app.service import GameService
from bot.discord.client import MentatBot
from bot.store.memory import MemoryGameStore
from engine.ids import Faction
from tests.discord_model import DiscordModel, InteractionTokens, ThreadArchiving, Transport
from tests.playthrough import MODEL_SETTLE_TIMEOUT, QuickEnv, Summary, Table, seat_the_table

LATENCY = 0.1  # seconds a request takes, there and back (issue 24's emulation used 100 ms)
ANSWER_TIME = 0.5  # virtual seconds let pass after each interaction: the bot's answer comes back meanwhile
THINK = 5.0  # seconds between a measured answer's last message and the next answer
POLL = 0.5  # seconds of virtual time between two looks whether the measured game's outbox is empty
GIVE_UP = 600.0  # seconds after which an answer still undelivered is counted at that (and said)
WRITES = ("POST", "PATCH", "PUT")
CHANNEL = re.compile(r"^/channels/(\d+)")


class Scene:
    """The bot, SimCord, the Discord model and the games: one measured, the others busy."""

    def __init__(self, env: Any, transport: Transport, tokens: InteractionTokens, measured: Table,
                 busy: list[Table], busy_interval: float, rng: random.Random):
        self.env, self.transport, self.tokens = env, transport, tokens
        self.measured, self.busy, self.busy_interval, self.rng = measured, busy, busy_interval, rng
        self.next_busy = [self.clock + rng.expovariate(1 / busy_interval) for _ in busy]
        self.busy_answers = 0
        self.given_up = 0

    @property
    def clock(self) -> float:
        return self.env.backend.clock.elapsed

    async def run_until(self, until: float) -> None:
        """Let the clock run to `until`; each busy game answers a card when its moment comes."""
        while self.clock < until:
            due = min(range(len(self.busy)), key=self.next_busy.__getitem__, default=None)
            if due is not None and self.next_busy[due] <= self.clock:
                await answer_one(self.busy[due], self.rng)
                self.busy_answers += 1
                self.next_busy[due] = self.clock + self.rng.expovariate(1 / self.busy_interval)
                continue
            step = until if due is None else min(until, self.next_busy[due])
            await self.env.advance_time(max(step - self.clock, 0.001))

    async def measured_pending(self, game_id: str) -> bool:
        rows = await self.env.bot.service.store.pending_outbox(limit=1_000_000)
        return any(row.game_id == game_id for row in rows)

    def places(self) -> set[int]:
        """The measured game's channel, its threads and its players' DMs."""
        table, backend = self.measured, self.env.backend
        threads = {c.id for c in backend.channels.values() if c.parent_id == table.channel.id}
        return {table.channel.id, *threads, *(m.user.dm_channel.id for m in table.players.values())}

    async def sample(self, game_id: str) -> float | None:
        """One answer in the measured game, timed to its last message delivered; None when it caused none."""
        first = len(self.transport.served)
        if not await answer_one(self.measured, self.rng):
            return None
        clicked = self.measured.last_interaction_at
        while await self.measured_pending(game_id) and self.clock - clicked < GIVE_UP:
            await self.run_until(self.clock + POLL)
        if self.clock - clicked >= GIVE_UP:
            self.given_up += 1
            return GIVE_UP
        places = self.places()
        delivered = [at for at, method, path in self.transport.served[first:]
                     if at >= clicked and method in WRITES and (found := CHANNEL.match(path))
                     and int(found[1]) in places]
        return max(delivered) - clicked if delivered else None


async def answer_one(table: Table, rng: random.Random) -> bool:
    """A player of the game who holds an open card answers it; False when no one holds one (the game waits on
    its deliveries, or on a decision no control answers: the moderator is not called here)."""
    table.look()
    holding = {f: cards for f in table.players if (cards := table.open_cards(f))}
    if table.ended or not holding:
        return False
    faction = rng.choice(sorted(holding))
    await table.answer_card(faction, rng.choice(holding[faction]))
    return True


async def seat(env: Any, seed: int) -> Table:
    summary = Summary(seed=seed, factions=[f.value for f in Faction], options="all")
    table = await seat_the_table(env, list(Faction), seed, "all", summary)
    return table


async def delivery_figures(samples: int, busy_games: int, busy_interval: float, seed: int,
                           log: Any = print) -> dict:
    """Click to last message delivered, p50 / p99 (virtual seconds), for one game alone and for one game among
    `busy_games` busy games."""
    figures: dict = {"latency_s": LATENCY, "samples_asked": samples, "busy_games": busy_games,
                     "busy_interval_s": busy_interval,
                     "model": "tests/discord_model.py: latency, 5 creates and 5 edits per 5 s a channel, 50 "
                              "requests a second, tokens expire after 15 minutes, threads archive"}
    for label, others in (("alone", 0), (f"among {busy_games} busy games", busy_games)):
        started = now()
        figures[label] = await one_scene(samples, others, busy_interval, seed)
        figures[label]["wall_seconds"] = round(now() - started, 1)
        log(f"delivery {label}: {figures[label]}")
    return figures


async def one_scene(samples: int, others: int, busy_interval: float, seed: int) -> dict:
    rng = random.Random(seed)
    bot = MentatBot(GameService(MemoryGameStore(clock=discord.utils.utcnow), clock=discord.utils.utcnow))
    env = QuickEnv(bot, check_errors=False, settle_timeout=MODEL_SETTLE_TIMEOUT)  # a busy step takes a while
    await env.start()
    try:
        with env.time_context():
            measured = await seat(env, seed)
            busy = [await seat(env, seed + 1 + n) for n in range(others)]
            game_id = (await bot.service.store.game_in_channel(measured.channel.id)).game_id
            await env.advance_time(1.0)  # the deals delivered
            with pytest.MonkeyPatch.context() as patcher:
                # SimCord reads every message for a poll that is due at every move of its clock; the bot makes no
                # poll, and with a hundred games that reading was most of the benchmark's time
                patcher.setattr(env.backend, "expire_due_polls", lambda: None)
                patcher.setattr(env.backend, "next_poll_deadline", lambda: None)
                tokens, transport = InteractionTokens(), Transport(latency=LATENCY)
                DiscordModel(env, ThreadArchiving(), tokens, transport=transport).install(patcher)
                for table in (measured, *busy):
                    table.answer_time = ANSWER_TIME
                scene = Scene(env, transport, tokens, measured, busy, busy_interval, rng)
                times: list[float] = []
                began = scene.clock
                tries = 0
                while len(times) < samples and tries < samples * 20:
                    tries += 1
                    took = await scene.sample(game_id)
                    if took is not None:
                        times.append(took)
                    await scene.run_until(scene.clock + THINK)
                virtual = scene.clock - began
    finally:
        await env.shutdown()
    figures = spread(times) if times else {"n": 0}
    figures.update(busy_games=others, busy_answers=scene.busy_answers, virtual_seconds=round(virtual, 1),
                   requests_served=len(transport.served), rate_limited=len(transport.refused),
                   tokens_used_late=len(tokens.late), undelivered_after_give_up=scene.given_up,
                   bot_errors=len(env.errors))
    return figures

"""`python -m tests.playthrough_life --seed N` (issue 26's acceptance game): a whole 7-faction game played as a
group spread over the world would play it for weeks, through the Discord model (tests/playthrough.py --model:
latency, rate limits, 15-minute tokens, archiving threads; the `weekly` pace, 20 virtual minutes between answers).

- Every player lives in another time zone (LIFE_ZONES) and sets it with quiet hours from 23:00 to 07:00 with
  `/me settings` as they sit down, before the game starts; a player answers only while awake, and while nobody
  holding a card is, the clock runs on (WAKE_STEP at a time).
- In turn AWAY_TURN one player goes away for AWAY_DAYS days (`/me away until:3d`, the game's absence mode
  `wait`): their deadlines stand still and they answer nothing until the absence is over.
- In turn VOTE_TURN another player calls a table vote to replace a third (`/game vote kind:replace`); every seat
  answers its ballot in its DMs while awake (the replaced player no, the others yes); the vote passes, the seat is
  offered in the channel, a newcomer presses "Take this seat" and plays it on from the catch-up DM.

Checked, from what Discord stored: no DM that notifies (without the suppress-notifications flag) and no post
that pings a player lands inside that player's quiet hours. Counted: the mentions and the DMs each player got,
silent and not, and the game's virtual days. The summary's `life` part holds them; the last line of stdout is
the whole summary, as with tests/playthrough.py.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import discord

from engine.ids import Faction
from tests import playthrough as pt

LIFE_ZONES = ["America/Los_Angeles", "America/New_York", "America/Sao_Paulo", "Europe/London", "Europe/Berlin",
              "Asia/Kolkata", "Asia/Tokyo"]
QUIET_FROM, QUIET_UNTIL = 23, 7  # each player's quiet hours, in their own zone
AWAY_TURN, AWAY_DAYS = 4, 3
VOTE_TURN = 7
WAKE_STEP = 30 * 60.0  # virtual seconds the clock runs on while every player holding a card sleeps or is away
# discord-api-docs, Resources > Message, Message Flags: SUPPRESS_NOTIFICATIONS (1 << 12), "this message will not
# trigger push and desktop notifications"
SUPPRESS_NOTIFICATIONS = 1 << 12
BALLOT = "**Table vote: "  # a ballot's words (bot/app/votes.py): not a decision card
TAKE_SEAT = "Take this seat"


def quiet_at(zone: ZoneInfo, moment: datetime) -> bool:
    hour = moment.astimezone(zone).hour
    return hour >= QUIET_FROM or hour < QUIET_UNTIL


@dataclass
class Life:
    """The group's lives beside the game, and what the bot's messages did to them."""

    zones: dict[int, ZoneInfo] = field(default_factory=dict)  # user id -> their zone
    away: Faction | None = None
    away_until: datetime | None = None
    replaced: Faction | None = None
    substitute: Any = None  # the member who takes the replaced seat
    vote_called: bool = False
    ballots: dict[Faction, int] = field(default_factory=dict)  # the ballot each seat answered (message id)
    seat_taken: bool = False
    substitute_answers: int = 0
    seen: set[int] = field(default_factory=set)  # the messages checked, by id
    mentions: Counter = field(default_factory=Counter)  # by player name
    dms: Counter = field(default_factory=Counter)
    silent_dms: Counter = field(default_factory=Counter)
    in_quiet_hours: list[str] = field(default_factory=list)  # a notification inside the reader's quiet hours

    def awake(self, member: Any) -> bool:
        return not quiet_at(self.zones[member.id], discord.utils.utcnow())

    def figures(self) -> dict[str, Any]:
        return {"mentions_per_player": dict(self.mentions), "dms_per_player": dict(self.dms),
                "silent_dms_per_player": dict(self.silent_dms), "notified_in_quiet_hours": self.in_quiet_hours[:20],
                "notified_in_quiet_hours_count": len(self.in_quiet_hours), "away": self.away and self.away.value,
                "replaced": self.replaced and self.replaced.value, "seat_taken": self.seat_taken,
                "substitute_answers": self.substitute_answers}


class LifeTable:
    """A Table (tests/playthrough.py) whose players keep their hours, one goes away and one is voted out."""

    def __init__(self, table: pt.Table, life: Life, members: list[Any]):
        self.table, self.life = table, life
        self.members = members  # everyone who held a seat, the substitute included: whose notifications count

    def check_new_messages(self) -> None:
        """Read what Discord stored since the last look: each DM (notifying or silent) and each ping, at the time
        it was posted, against its reader's quiet hours."""
        env, life = self.table.env, self.life
        bot_id = env.bot.user.id
        places = {self.table.channel.id: None, **{t.id: None for t in self.table.channel.threads}}
        for member in self.members:
            if member.user.dm_channel is not None:
                places[member.user.dm_channel.id] = member
        for place, reader in places.items():
            for message in env.backend.messages.get(place, {}).values():
                if message.id in life.seen or message.author_id != bot_id or message.is_ephemeral \
                        or message.interaction_metadata is not None:
                    continue
                life.seen.add(message.id)
                posted = datetime.fromisoformat(message.timestamp)
                if reader is not None:
                    silent = bool(message.flags & SUPPRESS_NOTIFICATIONS)
                    (life.silent_dms if silent else life.dms)[reader.name] += 1
                    if not silent and quiet_at(life.zones[reader.id], posted):
                        life.in_quiet_hours.append(f"DM to {reader.name} at {posted:%Y-%m-%d %H:%M} UTC: "
                                                   f"{message.content[:80]!r}")
                    continue
                for user_id in message.ping_user_ids:
                    pinged = next((m for m in self.members if m.id == user_id), None)
                    if pinged is None:
                        continue
                    life.mentions[pinged.name] += 1
                    if quiet_at(life.zones[user_id], posted):
                        life.in_quiet_hours.append(f"ping of {pinged.name} at {posted:%Y-%m-%d %H:%M} UTC: "
                                                   f"{message.content[:80]!r}")

    def available(self, faction: Faction) -> bool:
        """Whether the player of this seat would look at Discord now: awake, and not away."""
        life = self.life
        if faction == life.away and life.away_until is not None and discord.utils.utcnow() < life.away_until:
            return False
        return life.awake(self.table.players[faction])

    def cards(self, faction: Faction) -> list[int]:
        """The seat's decision cards to answer, without its ballots (they carry buttons but are no card)."""
        screen = self.table.screens[faction]
        return [i for i in self.table.open_cards(faction) if BALLOT not in screen.message(i).content]

    async def go_away(self) -> None:
        table, life = self.table, self.life
        life.away = table.rng.choice(sorted(f for f in table.players if f != life.replaced))
        answer = pt.reply_text(await table.slash(table.players[life.away], "me away", until=f"{AWAY_DAYS}d"))
        pt.log(f"turn {table.turn}: {life.away.value} goes away: {answer}")
        life.away_until = discord.utils.utcnow() + timedelta(days=AWAY_DAYS)

    async def call_vote(self) -> None:
        table, life = self.table, self.life
        caller = next(f for f in sorted(table.players) if f not in (life.replaced, life.away))
        answer = pt.reply_text(await table.slash(table.players[caller], "game vote", kind="replace",
                                                 faction=life.replaced.value))
        pt.log(f"turn {table.turn}: {caller.value} calls a vote to replace {life.replaced.value}: {answer}")
        life.vote_called = True

    async def answer_ballots(self) -> bool:
        """Each awake seat answers the ballot in its DMs once (the replaced player no); True if one did."""
        table, life = self.table, self.life
        for faction, member in table.players.items():
            if faction in life.ballots or not self.available(faction):
                continue
            screen = table.screens[faction]
            ballot = next((i for i in screen.with_controls() if BALLOT in screen.message(i).content), None)
            if ballot is None:
                continue
            message = screen.message(ballot)
            label = "No" if faction == life.replaced else "Yes"
            answer = pt.reply_text(await table.interact("click", member.user.click(message, label=label)))
            pt.log(f"{faction.value} votes {label.lower()}: {answer}")
            life.ballots[faction] = ballot
            return True
        return False

    async def take_the_seat(self) -> bool:
        """The newcomer presses "Take this seat" under the call in the channel, once awake; then plays it."""
        table, life = self.table, self.life
        if not life.awake(life.substitute):
            return False
        for message in reversed(table.channel.history()):
            if any(getattr(c, "label", None) == TAKE_SEAT for c in pt.enabled(message)):
                answer = pt.reply_text(await table.interact(
                    "click", life.substitute.click(message, label=TAKE_SEAT)))
                pt.log(f"the newcomer takes the {life.replaced.value} seat: {answer}")
                await table.env.advance_time(pt.WAKE)
                table.players[life.replaced] = life.substitute
                table.screens[life.replaced] = pt.Screen(table.env, life.substitute.user.dm_channel.id,
                                                         life.substitute.id)
                life.seat_taken = True
                return True
        return False


async def play_life(lt: LifeTable, max_interactions: int) -> None:
    table, life = lt.table, lt.life
    while not table.over(max_interactions):
        lt.check_new_messages()
        acted = False
        if table.turn >= AWAY_TURN and life.away is None:
            await lt.go_away()
            acted = True
        elif table.turn >= VOTE_TURN and not life.vote_called:
            await lt.call_vote()
            acted = True
        elif life.vote_called and len(life.ballots) < len(table.players):
            acted = await lt.answer_ballots()
        elif life.vote_called and not life.seat_taken:
            acted = await lt.take_the_seat()
        if not acted:
            holding = {f: cards for f in table.players if (cards := lt.cards(f))}
            ready = {f: cards for f, cards in holding.items() if lt.available(f)}
            if ready:
                faction = table.rng.choice(sorted(ready))
                await table.answer_card(faction, table.rng.choice(ready[faction]))
                life.substitute_answers += life.seat_taken and faction == life.replaced
            elif holding or (life.vote_called and not life.seat_taken):
                await table.model.pass_quiet_time(WAKE_STEP)  # everyone who could answer sleeps, or is away
                while await table.pending_delivery():
                    await table.env.advance_time(pt.DELIVERY_STEP)
                continue
            elif not await table.force_one():
                return
        await table.let_time_pass()


async def life_playthrough(seed: int = 1, max_interactions: int = pt.MAX_INTERACTIONS) -> pt.Summary:
    factions = list(Faction)
    summary = pt.Summary(seed=seed, factions=[f.value for f in factions], options="all")
    started, cpu = pt.time.perf_counter(), pt.time.process_time()
    bot = pt.MentatBot(pt.GameService(pt.MemoryGameStore(clock=discord.utils.utcnow), clock=discord.utils.utcnow),
                       drain_interval=pt.ModelGame.drain_interval)
    env = pt.QuickEnv(bot, check_errors=False, settle_timeout=pt.MODEL_SETTLE_TIMEOUT)
    await env.start()
    try:
        with env.time_context(), pt.pytest.MonkeyPatch.context() as patcher:
            modelled = pt.ModelGame(env, patcher, 20 * 60.0)
            life, rng = Life(), pt.random.Random(seed)

            async def set_hours(table: pt.Table) -> None:
                """Each player sets their zone and quiet hours as they sit down, before the game starts; the
                newcomer who will take the replaced seat lives where its player did."""
                zones = rng.sample(LIFE_ZONES, len(factions))
                for member, zone in zip(table.players.values(), zones, strict=True):
                    life.zones[member.id] = ZoneInfo(zone)
                    await table.slash(member, "me settings", time_zone=zone, quiet_from=QUIET_FROM,
                                      quiet_until=QUIET_UNTIL)
                life.replaced = rng.choice(factions)
                life.substitute = table.guild.add_member(env.create_user("newcomer"))
                life.zones[life.substitute.id] = life.zones[table.players[life.replaced].id]
                await table.slash(life.substitute, "me settings", time_zone=str(life.zones[life.substitute.id]),
                                  quiet_from=QUIET_FROM, quiet_until=QUIET_UNTIL)

            table = await pt.seat_the_table(env, factions, seed, "all", summary, pace=modelled.pace,
                                            answer_time=modelled.answer_time, before_start=set_hours)
            table.model, table.gap = modelled.model, modelled.gap
            lt = LifeTable(table, life, [*table.players.values(), life.substitute])
            for faction in factions:
                await table.set_standing_orders(faction)
            await play_life(lt, max_interactions)
            lt.check_new_messages()
            pt.tally(table)
            summary.model = modelled.figures(table)
            summary.model["life"] = life.figures()
    finally:
        await env.shutdown()
    summary.seconds = round(pt.time.perf_counter() - started, 1)
    summary.cpu_seconds = round(pt.time.process_time() - cpu, 1)
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.playthrough_life", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-interactions", type=int, default=pt.MAX_INTERACTIONS)
    args = parser.parse_args(argv)
    summary = asyncio.run(life_playthrough(args.seed, args.max_interactions))
    life = summary.model.get("life", {})
    pt.log(f"{summary.stopped}: turn {summary.turns}, winner {summary.winner}, {summary.model.get('virtual_days')} "
           f"virtual days, {life.get('notified_in_quiet_hours_count')} notifications in quiet hours, "
           f"{summary.seconds} s")
    print(summary.to_json())
    return 0 if summary.finished and not life.get("notified_in_quiet_hours_count") and life.get("seat_taken") else 1


if __name__ == "__main__":
    sys.exit(main())

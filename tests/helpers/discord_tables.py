"""SimCord tables for the end-to-end tests: the bot fixture, a room and a seated table, delivery of the outbox, and
what the channel and the DMs show."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord
import pytest

from bot.app.service import GameService
from bot.discord.client import MentatBot
from bot.store.memory import MemoryGameStore
from engine.ids import Faction
from engine.model import GameState, Phase, PromptKind
from tests.conftest import BT, A, H, enter_phase, ready_game, store_running_game

WAKE = 0.001  # seconds of simulated time that let a woken drain run (far below DRAIN_INTERVAL)


@pytest.fixture
def simcord_bot():
    # discord.utils.utcnow reads SimCord's virtual clock inside the environment, so deadlines follow advance_time
    return MentatBot(GameService(MemoryGameStore(clock=discord.utils.utcnow), clock=discord.utils.utcnow))


def reply(result) -> str:
    """The text a command answered with, whether it replied directly or deferred and followed up."""
    return result.followups[-1].content if result.followups else result.response.content


def answered(result):
    """The message a command answered with (a deferred answer's first follow-up replaces its "thinking")."""
    return result.followups[-1] if result.followups else result.response


def table_messages(channel, viewer=None) -> list:
    """The game's channel and its threads as one feed, oldest first (Discord ids grow with time); the notices
    that a thread was started are Discord's, not the bot's posts."""
    posts = [m for place in (channel, *channel.threads) for m in place.history(viewer=viewer)
             if m.type != discord.MessageType.thread_created]
    return sorted(posts, key=lambda m: m.id)


class Shown(str):
    """A message's text as shown, knowing which message it is (so that lines added to it later can be told)."""

    message_id: int

    @classmethod
    def of(cls, message) -> Shown:
        shown = cls(message.content)
        shown.message_id = message.id
        return shown


def contents(channel) -> list[str]:
    return [message.content for message in table_messages(channel)]


def feed_text(channel) -> str:
    """The table's whole feed as it reads now: posts edited since (a counter, an auction, a phase post) included."""
    return "\n".join(contents(channel))


async def deliver(env) -> None:
    """Let the drain a command woke run: `wake_outbox()` makes the loop's parked sleep due at once, a virtual
    timer SimCord fires only when its clock moves, so one millisecond of simulated time delivers."""
    await env.advance_time(WAKE)


@dataclass
class Room:
    """#dune with three players (alice, a moderator, plays the Atreides; bob the Harkonnen; carol the BT) and
    dave, a member who is not in the game."""

    env: Any
    guild: Any
    channel: Any
    players: dict[Faction, Any]
    dave: Any

    def screens(self) -> dict[str, list[Shown]]:
        """What the table shows a member outside the game (the channel and its turn threads, in the order posted),
        and what each player's DMs show."""
        shown = {"channel": [Shown.of(m) for m in table_messages(self.channel, self.dave)]}
        for faction, member in self.players.items():
            shown[faction.value] = [Shown.of(m) for m in member.user.dm_channel.history()]
        return shown

    def news(self, before: dict[str, list[Shown]]) -> dict[str, str]:
        """Everything each place shows that it did not show in `before`, as one text per place: the new posts, and
        the lines added to a post that grows (a phase's detail in the turn's thread), in the order posted."""
        news = {}
        for place, texts in self.screens().items():
            was = {text.message_id: text for text in before[place]}
            added = [text if text.message_id not in was else text.removeprefix(was[text.message_id]).lstrip("\n")
                     for text in texts
                     if text.message_id not in was or (text != was[text.message_id]
                                                       and text.startswith(was[text.message_id]))]
            news[place] = "\n".join(added)
        return news

    def new_posts(self, before: dict[str, list[Shown]]) -> dict[str, list[str]]:
        """The posts each place shows that it did not show in `before` (lines added to older posts left out)."""
        return {place: [text for text in texts if text.message_id not in {t.message_id for t in before[place]}]
                for place, texts in self.screens().items()}

    async def play_from(self, state: GameState) -> str:
        """Run a game from this engine state in #dune, seated with the three players."""
        return await store_running_game(self.env.bot.service.store, state,
                                        {f: m.id for f, m in self.players.items()},
                                        channel_id=self.channel.id, guild_id=self.guild.id)

    async def actions(self) -> list:
        game = await self.env.bot.service.store.game_in_channel(self.channel.id)
        return await self.env.bot.service.store.actions(game.game_id)


async def open_room(env, members: dict[Faction, str]) -> Room:
    """A server with a #dune channel, a member of each name (the first a moderator) and dave, who plays no
    faction."""
    await env.bot.tree.sync()
    guild = env.create_guild()
    channel = guild.create_text_channel("dune")
    moderators = guild.create_role("moderators", permissions=discord.Permissions(manage_guild=True))
    first = next(iter(members))
    players = {faction: guild.add_member(env.create_user(name), roles=[moderators] if faction == first else [])
               for faction, name in members.items()}
    return Room(env, guild, channel, players, guild.add_member(env.create_user("dave")))


@pytest.fixture
async def room(simcord_env):
    return await open_room(simcord_env, {A: "alice", H: "bob", BT: "carol"})


@pytest.fixture
async def table(room):
    """The three seated through /game new, /game join and /game start; the opening deal delivered."""
    alice = room.players[A]
    opened = await alice.slash(room.channel, "game new", factions="atreides, harkonnen, bt", seed=7)
    assert opened.ephemeral and "its lobby is posted in this channel" in opened.response.content  # the lobby: news
    for faction, member in room.players.items():
        joined = await member.slash(room.channel, "game join", faction=faction.value)
        assert not joined.ephemeral and joined.response.content.startswith(member.mention)
    started = await alice.slash(room.channel, "game start")
    assert started.ephemeral and "The game has started" in reply(started)
    await deliver(room.env)
    return room


def status_boards(table) -> list:
    """The bot's status posts in the channel, as Discord stores them (pinned or not)."""
    stored = table.env.backend.messages.get(table.channel.id, {}).values()
    return [m for m in stored if m.author_id == table.env.bot.user.id and m.content.startswith("**Status · ")]


def bidding_with_a_gift_to_make() -> GameState:
    """Turn 1's bidding round, the auction dealt: the BT decide traps and gifts first (R-21, BT-40)."""
    state, _ = enter_phase(ready_game((A, H, BT), seed=3), Phase.BIDDING)
    assert [p.kind for p in state.prompts] == [PromptKind.BT_TRAPS_AND_GIFTS]
    return state


def table_posts(room) -> list:
    """Every bot post of the channel and its threads, as Discord stores them (with whom each pinged)."""
    backend = room.env.backend
    places = [room.channel.id, *(thread.id for thread in room.channel.threads)]
    return [m for place in places for m in sorted(backend.messages.get(place, {}).values(), key=lambda m: m.id)
            if m.author_id == room.env.bot.user.id]

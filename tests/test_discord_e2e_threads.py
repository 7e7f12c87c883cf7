"""Turn threads over weeks, end to end through SimCord with Discord's thread archiving modelled
(tests/discord_model.py ThreadArchiving, which cites Discord's documentation): a thread archived after a quiet week
takes every later line and edit; a line for a post deleted meanwhile comes in a new post; a thread a moderator
locked sends its lines to the channel. What the thread shows is read as a member outside the game reads it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord
import pytest
from simcord.backend.models import Overwrite
from simcord.enums import OverwriteType

from bot.app.ports import MENTION, OutgoingMessage
from bot.discord.gateway import THREAD_ARCHIVE_MINUTES, DiscordGateway
from engine.ids import Faction
from tests.discord_model import DiscordModel, ThreadArchiving
from tests.helpers import discord_tables as e2e
from tests.helpers.discord_tables import deliver

simcord_bot, room = e2e.simcord_bot, e2e.room  # the fixtures of tests/helpers/discord_tables.py
A, H, F, BT = Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN, Faction.BENE_TLEILAXU
WEEK = THREAD_ARCHIVE_MINUTES * 60


@dataclass
class Table:
    room: Any
    model: DiscordModel
    handed: list[OutgoingMessage]  # what the service handed the gateway to deliver, in order

    @property
    def thread(self):
        [thread] = self.room.channel.threads  # the setup's thread
        return thread

    def metadata(self):
        return self.room.env.backend.channels[self.thread.id].thread_metadata

    def shown(self, place) -> list[str]:
        return [m.content for m in place.history(viewer=self.room.dave)
                if m.type != discord.MessageType.thread_created]

    async def act(self, press) -> list[OutgoingMessage]:
        """Run one player's action and its delivery; what the service handed the gateway for it."""
        start = len(self.handed)
        await press()
        await deliver(self.room.env)
        return self.handed[start:]

    async def pick_traitor(self, faction: Faction) -> list[OutgoingMessage]:
        member = self.room.players[faction]
        card = next(m for m in member.user.dm_channel.history() if "Your decision: your traitor" in m.content)
        leader = [item for row in card.components for item in row.children][0].label
        return await self.act(lambda: member.user.click(card, label=leader))

    async def lay_no_traps(self) -> list[OutgoingMessage]:
        member = self.room.players[BT]
        card = next(m for m in member.user.dm_channel.history() if "traps at setup" in m.content)
        return await self.act(lambda: member.user.click(card, label="Submit"))

    def into_thread(self, messages: list[OutgoingMessage]) -> list[str]:
        """The texts of the messages for the thread, each called player written as their mention."""
        return [MENTION.sub(lambda called: self.room.players[Faction(called[1])].mention, m.text)
                for m in messages if m.recipient.thread is not None]

    def reads_in_thread(self, messages: list[OutgoingMessage]) -> bool:
        """Whether each of the messages' texts for the thread reads there now (a post of its own, or lines added
        to the phase's post)."""
        shown = "\n".join(self.shown(self.thread))
        return all(text in shown for text in self.into_thread(messages))

    async def nothing_pending(self) -> bool:
        return not await self.room.env.bot.service.store.pending_outbox()


@pytest.fixture
async def table(room, monkeypatch):
    """#dune with four seated (fred plays the Fremen, so the traitor picks are a window of two, counted in the
    thread), without deadlines (a week passes with nothing posted), over Discord's thread archiving."""
    model = DiscordModel(room.env, ThreadArchiving()).install(monkeypatch)
    handed: list[OutgoingMessage] = []
    deliver_one = DiscordGateway.deliver

    async def recorded(gateway, game, message, then=()):
        handed.extend((message, *then))  # a merged edit: each of its messages
        return await deliver_one(gateway, game, message, then)

    monkeypatch.setattr(DiscordGateway, "deliver", recorded)
    room.players[F] = room.guild.add_member(room.env.create_user("fred"))
    alice = room.players[A]
    await alice.slash(room.channel, "game new", factions="atreides, harkonnen, fremen, bt", seed=7, pace="none")
    for faction, member in room.players.items():
        await member.slash(room.channel, "game join", faction=faction.value)
    await alice.slash(room.channel, "game start")
    await deliver(room.env)
    return Table(room, model, handed)


async def test_a_thread_archived_after_a_quiet_week_takes_every_later_line_and_edit(table):
    assert table.metadata().auto_archive_duration == 10080  # Discord's longest: a week without a new message
    await table.model.pass_quiet_time(WEEK - 60)
    assert not table.metadata().archived
    await table.model.pass_quiet_time(120)
    assert table.metadata().archived
    assert table.room.env.bot.get_channel(table.thread.id) is None  # discord.py dropped it from its cache

    counted = await table.pick_traitor(A)  # counted on the status board: nothing for the thread yet
    assert table.into_thread(counted) == [] and table.metadata().archived
    told = await table.pick_traitor(F)  # a line added to the phase's post, the window's post edited: both archived
    assert table.into_thread(told) == ["The Fremen chose a traitor.\nTraitor picks: all answered."]
    assert table.reads_in_thread(told) and not table.metadata().archived
    assert await table.nothing_pending()

    await table.model.pass_quiet_time(WEEK + 60)  # archived again: a line added there reopens it
    assert table.metadata().archived
    laid = await table.lay_no_traps()
    assert table.into_thread(laid)[0].startswith("The Bene Tleilaxu lay no traps.\nThe Atreides start with 10 in")
    assert table.reads_in_thread(laid)
    assert not table.metadata().archived and await table.nothing_pending()
    # one unarchiving a week: a thread that is open costs no request (discord.py's copy says so)
    unarchivings = [r for r in table.room.env.backend.http_requests
                    if (r.method, r.path, r.json) == ("PATCH", f"/channels/{table.thread.id}", {"archived": False})]
    assert len(unarchivings) == 2


async def test_a_line_for_a_post_deleted_meanwhile_comes_in_a_new_post_and_the_thread_keeps_its_place(table):
    janitors = table.room.guild.create_role("janitors", permissions=discord.Permissions(manage_messages=True))
    mia = table.room.guild.add_member(table.room.env.create_user("mia"), roles=[janitors])
    [setup] = [m for m in table.room.channel.history() if m.content.startswith("**Setup.**")]  # opened the thread
    await mia.delete(setup)
    await table.pick_traitor(A)
    await table.pick_traitor(F)

    laid = await table.lay_no_traps()
    [line] = [m.text for m in laid if m.edit_of == "turn:0"]  # lines added to the setup's post
    assert line.startswith("- The Bene Tleilaxu lay no traps.")
    assert table.shown(table.room.channel)[-1] == line  # the same text, in a new post of the channel
    assert table.reads_in_thread(laid)  # the thread still goes by the deleted post
    assert await table.nothing_pending()


async def test_a_thread_locked_by_a_moderator_sends_its_lines_to_the_channel(table):
    backend, bot_id = table.room.env.backend, table.room.env.bot.user.id
    backend.set_overwrite(table.room.channel.id, Overwrite(bot_id, OverwriteType.MEMBER,
                                                           deny=discord.Permissions(manage_threads=True).value))
    backend.edit_channel(table.thread.id, {}, thread_metadata={"archived": True, "locked": True})
    before = table.shown(table.thread)

    await table.pick_traitor(A)  # counted on the status board: nothing for the thread yet
    told = await table.pick_traitor(F)
    assert table.into_thread(told) == ["The Fremen chose a traitor.\nTraitor picks: all answered."]
    assert "The Fremen chose a traitor.\nTraitor picks: all answered." in table.shown(table.room.channel)
    assert table.shown(table.thread) == before and table.metadata().archived
    assert await table.nothing_pending()

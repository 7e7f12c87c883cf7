"""The model of Discord's thread archiving (tests/discord_model.py ThreadArchiving) does what Discord's documentation
says, as discord.py meets it through SimCord; and the gateway posts anew a line Discord will never let it add."""

from __future__ import annotations

import discord
import pytest
from simcord.backend.models import Overwrite
from simcord.enums import OverwriteType

from bot.app.ports import GameRecordRow, GameStatus, OutgoingMessage, Recipient
from bot.discord.gateway import DiscordGateway
from tests import test_discord_e2e as e2e
from tests.discord_model import DiscordModel, ThreadArchiving, route_of

simcord_bot, room = e2e.simcord_bot, e2e.room  # the fixtures, shared with tests/test_discord_e2e.py
HOUR = 3600


@pytest.fixture
def model(room, monkeypatch) -> DiscordModel:
    return DiscordModel(room.env, ThreadArchiving()).install(monkeypatch)


async def opened_thread(room, minutes: int = 60) -> tuple[discord.Thread, discord.Message]:
    """A thread the bot opened in #dune with a post of its own."""
    opening = await room.env.bot.get_channel(room.channel.id).send("Turn 1")
    thread = await opening.create_thread(name="Turn 1", auto_archive_duration=minutes)
    return thread, await thread.send("Card 1 of 3 is up for auction.")


def metadata(room, thread):
    return room.env.backend.channels[thread.id].thread_metadata


def game_in(room) -> GameRecordRow:
    return GameRecordRow(game_id="g1", guild_id=room.guild.id, channel_id=room.channel.id, status=GameStatus.RUNNING,
                         setup_json="{}", state_json="{}", seq=0, seats={})


def shut(room, thread) -> None:
    """A moderator locks the thread (and it is archived), and the bot may not manage threads in #dune."""
    room.env.backend.set_overwrite(room.channel.id, Overwrite(room.env.bot.user.id, OverwriteType.MEMBER,
                                                              deny=discord.Permissions(manage_threads=True).value))
    room.env.backend.edit_channel(thread.id, {}, thread_metadata={"archived": True, "locked": True})


async def test_a_thread_archives_after_its_duration_without_a_new_message_and_then_refuses_edits(room, model):
    thread, post = await opened_thread(room)
    await model.pass_quiet_time(HOUR - 60)
    await thread.send("Atreides bid 2 spice.")  # a new message: the hour starts again
    await model.pass_quiet_time(HOUR - 60)
    assert not metadata(room, thread).archived
    await model.pass_quiet_time(120)
    assert metadata(room, thread).archived
    assert room.env.bot.get_channel(thread.id) is None  # Discord told the bot, and discord.py dropped the thread
    with pytest.raises(discord.HTTPException) as refused:
        await post.edit(content="Card 1 of 3 is up for auction.\nAtreides bid 2 spice.")
    assert (refused.value.status, refused.value.code, refused.value.text) == (400, 50083, "Thread is archived")

    await thread.send("Harkonnen bid 3 spice.")  # a new message unarchives it
    assert not metadata(room, thread).archived
    await post.edit(content="edited")
    assert room.env.backend.messages[thread.id][post.id].content == "edited"


async def test_a_locked_archived_thread_opens_only_to_a_bot_that_may_manage_threads(room, model):
    thread, _ = await opened_thread(room)
    shut(room, thread)
    with pytest.raises(discord.HTTPException) as refused:
        await thread.send("Atreides bid 2 spice.")
    assert refused.value.code == 50083
    with pytest.raises(discord.Forbidden):
        await thread.edit(archived=False)
    assert metadata(room, thread).archived

    room.env.backend.delete_overwrite(room.channel.id, room.env.bot.user.id)
    await thread.edit(archived=False)
    assert not metadata(room, thread).archived and metadata(room, thread).locked


async def test_a_line_for_a_post_in_a_thread_shut_for_good_is_posted_anew_in_the_channel(room, model):
    thread, post = await opened_thread(room)
    shut(room, thread)
    line = OutgoingMessage(recipient=Recipient(channel=True, thread="turn:1"), text="Atreides bid 2 spice.",
                           edit_of="auction:1:1", key="auction:1:1", edit_ref=f"{thread.id}:{post.id}",
                           thread_ref=f"{room.channel.id}:{thread.id}")
    ref = await DiscordGateway(room.env.bot).deliver(game_in(room), line)

    last = room.channel.history(viewer=room.dave)[-1]
    assert last.content == "Atreides bid 2 spice." and ref == f"{room.channel.id}:{last.id}"  # the key's new place
    assert room.env.backend.messages[thread.id][post.id].content == "Card 1 of 3 is up for auction."


async def test_after_a_crash_an_edit_whose_post_is_gone_is_looked_for_as_the_new_post_it_became(room):
    gateway, channel = DiscordGateway(room.env.bot), room.env.bot.get_channel(room.channel.id)
    since = discord.utils.utcnow()
    phase = await channel.send("**Bidding.**")
    await phase.delete()
    line = OutgoingMessage(recipient=Recipient(channel=True), text="- Atreides bought card 1.",
                           edit_of="phase:1:bidding", key="phase:1:bidding", edit_ref=f"{channel.id}:{phase.id}")
    assert await gateway.find(game_in(room), line, since) is None  # the crash came before the new post: send it

    anew = await channel.send("- Atreides bought card 1.")
    assert await gateway.find(game_in(room), line, since) == f"{channel.id}:{anew.id}"


def test_a_route_names_its_method_and_path_with_ids_and_tokens_in_braces():
    assert route_of("PATCH", "/channels/12/messages/34") == "PATCH /channels/{id}/messages/{id}"
    assert route_of("POST", "/interactions/5/simcord_interaction_5/callback") == \
        "POST /interactions/{id}/{token}/callback"
    assert route_of("PATCH", "/webhooks/7/aW50ZXJhY3Rpb24/messages/@original") == \
        "PATCH /webhooks/{id}/{token}/messages/@original"
    assert route_of("POST", "/users/@me/channels") == "POST /users/@me/channels"

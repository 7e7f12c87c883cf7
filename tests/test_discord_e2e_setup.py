"""A stranger's server, end to end through SimCord: the bot registers its commands with Discord by itself, and checks
its own permissions in a game's channel before it needs them.

- The command sync. Unlike the other SimCord tests (whose `room` runs `bot.tree.sync()` itself), these start the bot
  with no DEV_GUILD_ID and sync nothing by hand: SimCord's strict_sync refuses a command that was never synced
  ("exists in the command tree but was never synced"), so /game new working in a server created after the start
  shows the bot synced globally on its own. Syncs are counted as the requests SimCord's HTTP layer received for
  Discord's bulk-overwrite route (PUT /applications/{id}/commands, and /guilds/{id}/commands for a server).
- Permissions. SimCord gives the bot a managed role with every permission but Administrator, honours channel
  overwrites for the bot's member or role, sends the channel (with its overwrites) to discord.py's cache, and
  refuses REST calls the bot's permissions do not allow (403, code 50013). So `channel.permissions_for(guild.me)`
  is discord.py's own computation over SimCord's data, not a stand-in.
"""

from __future__ import annotations

import hashlib
import json
import logging

import discord
import pytest
from discord import app_commands
from simcord.backend.models.channel import Overwrite
from simcord.builders import ChannelHandle
from simcord.enums import OverwriteType

from bot.app.ports import GameStatus, OutgoingMessage, Recipient
from bot.app.service import GameService
from bot.discord.client import DRAIN_INTERVAL, MentatBot
from bot.discord.command_sync import synced_key
from bot.discord.lobby import START_LABEL
from bot.discord.permissions import REQUIRED, Needed, invite_url
from bot.store.memory import MemoryGameStore
from tests.helpers.discord_tables import deliver, reply

GLOBAL_SYNC = "/applications/{}/commands"


def new_bot(service: GameService | None = None, **options) -> MentatBot:
    """A bot as `python -m bot` makes it (no DEV_GUILD_ID unless given), over `service` or a new one; the store and
    the service read SimCord's clock."""
    service = service or GameService(MemoryGameStore(clock=discord.utils.utcnow), clock=discord.utils.utcnow)
    return MentatBot(service, **options)


@pytest.fixture
def simcord_bot(caplog):
    caplog.set_level(logging.INFO)  # before the start: its log is part of what is tested
    return new_bot()


def syncs(env, guild_id: int | None = None) -> list:
    """The bulk-overwrite requests the bot sent: global ones, or those for one server."""
    path = f"/applications/{env.backend.application_id}" + (f"/guilds/{guild_id}" if guild_id else "") + "/commands"
    return [request for request in env.http_requests if request.method == "PUT" and request.path == path]


def hash_of(commands: list[dict]) -> str:
    """What Discord received, hashed as the bot hashes its tree (bot/discord/manifest.py manifest_hash)."""
    ordered = sorted(commands, key=lambda command: (command.get("type", 1), command["name"]))
    return hashlib.sha256(json.dumps(ordered, sort_keys=True).encode()).hexdigest()[:12]


def messages_shown(text: str, records) -> list[str]:
    return [record.getMessage() for record in records if text in record.getMessage()]


async def open_lobby(env, guild, channel):
    """/game new by alice (a moderator), with bob as the second player; both seated from the command line."""
    moderators = guild.create_role("moderators", permissions=discord.Permissions(manage_guild=True))
    alice = guild.add_member(env.create_user("alice"), roles=[moderators])
    bob = guild.add_member(env.create_user("bob"))
    opened = await alice.slash(channel, "game new", factions="atreides, harkonnen", seed=7)
    assert reply(opened).startswith("Game ")
    await alice.slash(channel, "game join", faction="atreides")
    await bob.slash(channel, "game join", faction="harkonnen")
    await deliver(env)
    return alice, bob


def lobby_of(channel):
    [lobby] = [m for m in channel.history() if m.content.startswith("**A game of Dune is open")]
    return lobby


# --- the command sync ------------------------------------------------------------------------------------------


async def test_started_without_a_dev_guild_the_bot_registers_its_commands_globally_and_they_work_in_a_new_server(
        simcord_env, caplog):
    env = simcord_env
    [sync] = syncs(env)  # at start, by itself
    assert sync.json == [command.to_dict(env.bot.tree) for command in env.bot.tree.get_commands()]
    # what it keeps is the hash of what Discord received: every field of every command, not a summary of them
    assert await env.bot.service.store.get_value(synced_key(env.backend.application_id)) == hash_of(sync.json)
    assert messages_shown("synced 8 commands globally", caplog.get_records("setup"))

    guild = env.create_guild("A stranger's server")  # the bot joins a server after it started
    channel = guild.create_text_channel("dune")
    await open_lobby(env, guild, channel)
    assert lobby_of(channel).content.startswith("**A game of Dune is open: Atreides, Harkonnen.**")


async def test_a_restart_with_the_same_commands_makes_no_sync_and_a_changed_tree_syncs_again(simcord_env, caplog):
    env = simcord_env
    service = env.bot.service
    await env.restart_bot(new_bot(service))  # a new bot over the same store, the same commands
    assert len(syncs(env)) == 1
    assert messages_shown("commands unchanged since the last sync", caplog.records)

    await env.bot.tree.sync()  # a sync by hand (as the other SimCord tests make) changes nothing of this
    await env.restart_bot(new_bot(service))
    assert len(syncs(env)) == 2  # the one by hand

    changed = new_bot(service)

    @app_commands.command(name="ping", description="A command added since the last sync")
    async def ping(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("pong", ephemeral=True)

    changed.tree.add_command(ping)
    await env.restart_bot(changed)
    assert len(syncs(env)) == 3 and "ping" in [command["name"] for command in syncs(env)[-1].json]
    assert messages_shown("synced 9 commands globally", caplog.records)
    member = env.create_guild().add_member(env.create_user("erin"))
    answered = await member.slash(member.guild.create_text_channel("general"), "ping")
    assert answered.response.content == "pong"

    await env.restart_bot(new_bot(service))  # the usual commands again: a change again
    assert len(syncs(env)) == 4
    await env.restart_bot(new_bot(service, force_sync=True))  # forced: synced though nothing changed since
    assert len(syncs(env)) == 5


async def test_a_refused_sync_leaves_the_bot_running_and_the_next_start_tries_again(simcord_env, caplog):
    env = simcord_env
    service = env.bot.service
    key = synced_key(env.backend.application_id)
    await service.store.set_value(key, "an older tree")
    env.inject_error("PUT", GLOBAL_SYNC.format(env.backend.application_id), status=403, code=50001,
                     message="Missing Access", times=1)
    await env.restart_bot(new_bot(service))
    assert messages_shown("the command sync failed", caplog.records) and env.bot.sync_outcome is None
    assert await service.store.get_value(key) == "an older tree"  # not recorded as synced
    guild = env.create_guild()
    channel = guild.create_text_channel("dune")
    alice = guild.add_member(env.create_user("alice"))
    answered = await alice.slash(channel, "game new", factions="atreides, harkonnen")  # the commands Discord had
    assert reply(answered).startswith("Game ")

    await env.restart_bot(new_bot(service))
    assert env.bot.sync_outcome.startswith("synced 8 commands globally")


async def test_a_dev_guild_gets_the_commands_at_every_start_and_nothing_is_synced_globally(simcord_env):
    env = simcord_env
    before = len(syncs(env))
    guild = env.create_guild("Development", id=(4242 << 22) + 1)
    for start in (1, 2):
        await env.restart_bot(new_bot(env.bot.service, dev_guild_id=guild.id))
        assert len(syncs(env, guild.id)) == start and len(syncs(env)) == before
    assert env.bot.sync_outcome.startswith(f"synced 8 commands to the server {guild.id} alone")


async def test_the_start_up_log_gives_the_invite_url_and_says_no_privileged_intent_is_needed(simcord_env, caplog):
    [line] = messages_shown("to add the bot to a server", caplog.get_records("setup"))
    assert invite_url(simcord_env.backend.application_id) in line
    assert "no privileged intent is needed" in line
    assert not simcord_env.bot.intents.members and not simcord_env.bot.intents.presences
    assert not simcord_env.bot.intents.message_content


# --- permissions checked before they are needed ----------------------------------------------------------------


# Discord's implicit permissions (developer docs, Permissions, "Implicit Permissions"): without View Channel nothing
# else is held in the channel, and without Send Messages no file can be attached (discord.py's permissions_for
# applies both).
IMPLIED = {"view_channel": {needed.flag for needed in REQUIRED}, "send_messages": {"send_messages", "attach_files"}}


def denying(needed: Needed) -> discord.PermissionOverwrite:
    """An overwrite that takes the permission away, and any permission that would serve instead (Manage Messages
    pins too)."""
    return discord.PermissionOverwrite(**{flag: False for flag in (needed.flag, *needed.instead)})


def dms(member) -> list[str]:
    """What the member's DMs with the bot show."""
    return [m.content for m in member.user.dm_channel.history()] if member.user.dm_channel is not None else []


async def assert_nothing_happened(env, channel, *members) -> None:
    """No game stored for the channel, nothing in it (after a drain), no DM to anyone."""
    await env.advance_time(DRAIN_INTERVAL)
    assert await env.bot.service.store.game_in_channel(channel.id) is None
    assert [m.content for m in channel.history()] == []
    assert all(dms(member) == [] for member in members)


@pytest.mark.parametrize("needed", REQUIRED, ids=lambda needed: needed.flag)
async def test_game_new_is_refused_naming_the_permission_the_channel_denies_the_bot(simcord_env, needed):
    env = simcord_env
    guild = env.create_guild()
    me = env.bot.get_guild(guild.id).me
    channel = guild.create_text_channel("dune", overwrites={me: denying(needed)})
    alice = guild.add_member(env.create_user("alice"))

    refused = await alice.slash(channel, "game new", factions="atreides, harkonnen")
    text = reply(refused)
    assert refused.ephemeral and text.startswith("Refused: The bot lacks th")
    assert f" in <#{channel.id}>:\n" in text and f"- **{needed.name}**: {needed.why}" in text
    lacking = IMPLIED.get(needed.flag, {needed.flag})
    assert [other.name for other in REQUIRED if f"**{other.name}**" in text] == [
        other.name for other in REQUIRED if other.flag in lacking]  # that one, and what Discord denies with it
    assert "A server admin grants" in text and "in the channel's settings" in text
    await assert_nothing_happened(env, channel, alice)


async def test_a_permission_the_bots_role_lacks_counts_as_well_and_each_missing_one_is_named(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    bot_role = env.bot.get_guild(guild.id).me.top_role
    channel = guild.create_text_channel("dune", overwrites={bot_role: discord.PermissionOverwrite(
        attach_files=False, create_public_threads=False)})
    alice = guild.add_member(env.create_user("alice"))
    refused = reply(await alice.slash(channel, "game new", factions="atreides, harkonnen"))
    assert refused.startswith(f"Refused: The bot lacks these permissions in <#{channel.id}>:\n"
                              "- **Create Public Threads**: to open a thread for each turn\n"
                              "- **Attach Files**: to post the map\nA server admin grants them")
    await assert_nothing_happened(env, channel, alice)


async def test_in_a_thread_the_parent_channels_permissions_count_with_send_messages_in_threads(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    me = env.bot.get_guild(guild.id).me
    channel = guild.create_text_channel("dune", overwrites={me: discord.PermissionOverwrite(
        send_messages_in_threads=False)})
    alice = guild.add_member(env.create_user("alice"))
    thread = ChannelHandle(env, guild, env.backend.create_thread(channel.id, "our game", alice.id))
    refused = reply(await alice.slash(thread, "game new", factions="atreides, harkonnen"))
    assert f"in <#{thread.id}>" in refused and "- **Send Messages in Threads**" in refused
    assert await env.bot.service.store.game_in_channel(thread.id) is None

    env.backend.set_overwrite(channel.id, Overwrite(target_id=me.id, type=OverwriteType.MEMBER, allow=0, deny=0))
    opened = await alice.slash(thread, "game new", factions="atreides, harkonnen")
    assert reply(opened).startswith("Game ")  # granted on the parent channel: the thread has it


async def test_game_start_and_the_start_button_are_refused_when_a_permission_was_taken_since_the_lobby(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("dune")
    alice, bob = await open_lobby(env, guild, channel)
    posted = [m.id for m in channel.history()]
    lobby = lobby_of(channel)
    me = env.bot.get_guild(guild.id).me
    env.backend.set_overwrite(channel.id, Overwrite(target_id=me.id, type=OverwriteType.MEMBER, allow=0,
                                                    deny=discord.Permissions(pin_messages=True,
                                                                             manage_messages=True).value))

    for refused in (await alice.slash(channel, "game start"), await alice.click(lobby, label=START_LABEL)):
        assert refused.ephemeral and reply(refused).startswith(
            f"Refused: The bot lacks this permission in <#{channel.id}>:\n- **Pin Messages**: to pin the status board")
    await env.advance_time(DRAIN_INTERVAL)
    game = await env.bot.service.store.game_in_channel(channel.id)
    assert game.status == GameStatus.OPEN  # not started: no deal, no welcome DM, no status board
    assert [m.id for m in channel.history()] == posted
    assert dms(alice) == dms(bob) == []


async def test_game_import_is_refused_before_the_file_is_read_when_a_permission_is_missing(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    me = env.bot.get_guild(guild.id).me
    channel = guild.create_text_channel("dune", overwrites={me: discord.PermissionOverwrite(send_messages=False)})
    moderators = guild.create_role("moderators", permissions=discord.Permissions(manage_guild=True))
    alice = guild.add_member(env.create_user("alice"), roles=[moderators])
    refused = await alice.slash(channel, "game import", file=("game.json", b"not read"))
    assert reply(refused).startswith(f"Refused: The bot lacks these permissions in <#{channel.id}>:\n"
                                     "- **Send Messages**: to post")
    await assert_nothing_happened(env, channel, alice)


# --- a permission lost mid-game ----------------------------------------------------------------------------------


async def test_a_post_refused_for_a_lost_permission_is_logged_naming_the_channel_and_what_is_missing(
        simcord_env, caplog):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("dune")
    await open_lobby(env, guild, channel)
    game = await env.bot.service.store.game_in_channel(channel.id)
    assert env.bot.gateway.channel_problem(game) is None
    queue = [OutgoingMessage(recipient=Recipient(channel=True), text="A message for the table.")]

    env.inject_error("POST", f"/channels/{channel.id}/messages", status=403, code=50013,
                     message="Missing Permissions", times=1)  # refused, for a reason the permissions do not show
    await env.bot.service.store.queue(game.game_id, queue)
    with caplog.at_level(logging.WARNING, logger="bot.discord.gateway"):
        await env.advance_time(DRAIN_INTERVAL)
    assert [r.getMessage() for r in caplog.records  # the gateway's words (the drain also logs the failure)
            if r.levelno == logging.WARNING and r.name == "bot.discord.gateway"] == [
        f"Discord refused a message of {game.game_id} to #dune ({channel.id}) (Missing Permissions): the bot's "
        "permissions there look complete"]
    await env.advance_time(DRAIN_INTERVAL)  # the retry goes through
    assert channel.history()[-1].content == "A message for the table."
    caplog.clear()

    me = env.bot.get_guild(guild.id).me
    env.backend.set_overwrite(channel.id, Overwrite(target_id=me.id, type=OverwriteType.MEMBER, allow=0,
                                                    deny=discord.Permissions(send_messages=True,
                                                                             attach_files=True).value))

    posted = len(channel.history())
    await env.bot.service.store.queue(game.game_id, queue)
    with caplog.at_level(logging.WARNING, logger="bot.discord.gateway"):
        await env.advance_time(DRAIN_INTERVAL)
    assert [r.getMessage() for r in caplog.records  # the gateway's words (the drain also logs the failure)
            if r.levelno == logging.WARNING and r.name == "bot.discord.gateway"] == [
        f"Discord refused a message of {game.game_id} to #dune ({channel.id}) (Missing Permissions): the bot lacks "
        "Send Messages, Attach Files there"]
    assert len(channel.history()) == posted
    problem = env.bot.gateway.channel_problem(game)  # the words for the moderators
    assert problem.startswith(f"The bot lacks these permissions in #dune ({channel.id}):\n- **Send Messages**: ")
    assert "- **Attach Files**: to post the map" in problem

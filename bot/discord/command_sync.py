"""Registering the slash commands with Discord (a sync), only when they changed.

Discord rate-limits command registration (its docs: 200 application command creates a day), so the bot keeps in its
store the hash of what it last sent (manifest.manifest_hash) and syncs at start only when the tree differs from it. A
global sync reaches every server the bot is in; with DEV_GUILD_ID the commands go to that one server instead, at
every start (guild commands change at once; a command registered both ways would show twice there). Discord's
docs (Application Commands, "Registering a Command"): global commands are available on all the app's servers, and a
Discord app still showing an older version of a command reloads it when someone uses it.
"""

from __future__ import annotations

import logging
from typing import Protocol

import discord
from discord import app_commands

from bot.discord.manifest import manifest_hash

log = logging.getLogger(__name__)


def synced_key(application_id: int | None) -> str:
    """The name of the store's value that holds the hash of the tree last synced globally, per Discord application:
    a database kept when the bot moves to another application must not keep that application from its commands."""
    return f"commands_synced:{application_id}"


class ValueKeeper(Protocol):
    """Where the hash is kept: the service (GameService.get_value / set_value)."""

    async def get_value(self, key: str) -> str | None: ...

    async def set_value(self, key: str, value: str) -> None: ...


async def sync_globally(tree: app_commands.CommandTree, values: ValueKeeper, *, force: bool = False) -> str:
    """Sync the tree to every server when it changed since the last global sync (or when `force`d) and record its
    hash; say what was done, in the log and in the returned line. Raises discord.HTTPException when Discord refuses
    the sync (the hash is then left as it was, so the next start tries again)."""
    current, key = manifest_hash(tree), synced_key(tree.client.application_id)
    if not force and await values.get_value(key) == current:
        done = f"commands unchanged since the last sync (tree {current}): not synced"
    else:
        synced = await tree.sync()
        await values.set_value(key, current)
        done = (f"synced {len(synced)} commands globally (tree {current}): Discord offers them at once in every "
                "server the bot is in; a Discord app still showing older ones reloads them when one is used")
    log.info(done)
    return done


async def sync_to_guild(tree: app_commands.CommandTree, guild_id: int) -> str:
    """Development (DEV_GUILD_ID): the whole tree to one server, where guild commands change at once; nothing is
    synced globally (a command registered both globally and in a server shows twice there)."""
    guild = discord.Object(id=guild_id)
    tree.copy_global_to(guild=guild)
    synced = await tree.sync(guild=guild)
    done = (f"synced {len(synced)} commands to the server {guild_id} alone (DEV_GUILD_ID), where they appear at once; "
            "nothing is synced globally while DEV_GUILD_ID is set")
    log.info(done)
    return done

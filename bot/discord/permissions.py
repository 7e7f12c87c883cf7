"""What the bot needs from Discord in a game's channel, and why: the one table that the invite URL, `mentat check`,
the start-up log and the checks of /game new and /game start all read.

Discord's permission names and bits: https://discord.com/developers/docs/topics/permissions. No privileged
intent is needed (slash commands, buttons and DMs work without Message Content, Server Members or Presence).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

import discord

from bot.app.service import NotAllowed

INVITE_SCOPES = ("bot", "applications.commands")
INVITE_BASE = "https://discord.com/oauth2/authorize"


@dataclass(frozen=True)
class Needed:
    """One permission the bot needs in a game's channel: its attribute on `discord.Permissions`, its name as
    Discord's settings show it, why the bot needs it, and any permission that serves instead."""

    flag: str
    name: str
    why: str
    instead: tuple[str, ...] = ()

    def held(self, permissions: discord.Permissions) -> bool:
        return any(getattr(permissions, flag) for flag in (self.flag, *self.instead))


REQUIRED = (
    Needed("view_channel", "View Channel", "to see the game's channel"),
    Needed("send_messages", "Send Messages", "to post the lobby, each phase's story and the status board"),
    Needed("send_messages_in_threads", "Send Messages in Threads", "to post each turn's detail in its thread"),
    Needed("create_public_threads", "Create Public Threads", "to open a thread for each turn"),
    Needed("attach_files", "Attach Files", "to post the map"),
    Needed("read_message_history", "Read Message History",
           "to edit its own posts (the status board, a phase's story) and to find, after a restart, what it sent"),
    # Discord split pinning from Manage Messages in 2025; a server that gave the older permission still works.
    Needed("pin_messages", "Pin Messages", "to pin the status board", instead=("manage_messages",)),
)


def permissions_integer() -> int:
    """The permissions the invite asks for, as Discord's integer."""
    return discord.Permissions(**{needed.flag: True for needed in REQUIRED}).value


def invite_url(application_id: int | str) -> str:
    """The URL a server admin opens to add the bot with its commands and exactly the permissions it needs (with a
    placeholder in place of the id when it is not known)."""
    return (f"{INVITE_BASE}?client_id={application_id}&scope={'+'.join(INVITE_SCOPES)}"
            f"&permissions={permissions_integer()}")


def application_id_from_token(token: str) -> int | None:
    """A bot token begins with its bot user's id in base64, and a bot's user id is its application's id; None
    when the token does not read that way (then DISCORD_APPLICATION_ID must say it)."""
    first = token.split(".", 1)[0]
    try:
        text = base64.b64decode(first + "=" * (-len(first) % 4), validate=True).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return int(text) if text.isdigit() else None


def missing(permissions: discord.Permissions) -> list[Needed]:
    """The required permissions that `permissions` (the bot's in a channel) lacks, in the table's order."""
    return [needed for needed in REQUIRED if not needed.held(permissions)]


def missing_words(lacking: list[Needed], place: str) -> str:
    """A refusal naming each missing permission, why it is needed and how a server admin grants it."""
    lines = "\n".join(f"- **{needed.name}**: {needed.why}" for needed in lacking)
    one = len(lacking) == 1
    return (f"The bot lacks {'this permission' if one else 'these permissions'} in {place}:\n{lines}\n"
            f"A server admin grants {'it' if one else 'them'} in the channel's settings (Edit Channel > Permissions > "
            "the bot's role or the bot itself > allow each), or adds the bot again with its invite URL (`mentat check` "
            "and the bot's start-up log show it).")


Channel = discord.abc.GuildChannel | discord.Thread | discord.abc.PrivateChannel  # what Client.get_channel finds


def bot_permissions(channel: Channel | None) -> discord.Permissions | None:
    """The bot's permissions in a server's channel or thread, as discord.py computes them from its cache (a thread's
    are its parent channel's, less what a thread withholds without Send Messages in Threads); None when the cache
    cannot tell (no channel, a direct message, a thread whose parent is not cached)."""
    me = getattr(getattr(channel, "guild", None), "me", None)
    if me is None or channel is None or isinstance(channel, discord.abc.PrivateChannel):  # not in a server
        return None
    try:
        return channel.permissions_for(me)
    except discord.ClientException:  # a thread whose parent channel is not cached
        return None


def require_in_channel(interaction: discord.Interaction) -> None:
    """Refuse (NotAllowed, naming each missing permission) unless the bot holds every permission of the table in
    the interaction's channel: checked before a game is created or started there, so that nothing is posted half
    way. The channel is the one discord.py caches (not the partial one an interaction may carry, which has no
    permission overwrites); where the cache cannot tell, Discord's own figure sent with the interaction counts."""
    channel = interaction.client.get_channel(interaction.channel_id) if interaction.channel_id is not None else None
    held = bot_permissions(channel)
    lacking = missing(held if held is not None else interaction.app_permissions)
    if lacking:
        raise NotAllowed(missing_words(lacking, f"<#{interaction.channel_id}>"))

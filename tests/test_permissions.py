"""The permission table (bot/discord/permissions.py): the invite's integer is Discord's bits of exactly the table's
permissions (https://discord.com/developers/docs/topics/permissions), and the refusal names what is missing."""

from __future__ import annotations

import base64

import discord

from bot.discord.permissions import (
    REQUIRED,
    application_id_from_token,
    invite_url,
    missing,
    missing_words,
    permissions_integer,
)

# Discord's documented bits for each permission the bot needs
DOCUMENTED_BITS = {"view_channel": 10, "send_messages": 11, "send_messages_in_threads": 38,
                   "create_public_threads": 35, "attach_files": 15, "read_message_history": 16, "pin_messages": 51}


def test_the_invite_asks_for_exactly_the_tables_permissions_by_discords_bits():
    assert {needed.flag for needed in REQUIRED} == set(DOCUMENTED_BITS)
    assert permissions_integer() == sum(1 << bit for bit in DOCUMENTED_BITS.values())
    assert invite_url(42) == ("https://discord.com/oauth2/authorize?client_id=42&scope=bot+applications.commands"
                              f"&permissions={permissions_integer()}")


def test_the_application_id_is_read_from_the_tokens_first_part():
    first = base64.b64encode(b"987654321098765432").decode().rstrip("=")
    assert application_id_from_token(f"{first}.GhIjKl.secretpart") == 987654321098765432
    assert application_id_from_token("not-a-token") is None
    assert application_id_from_token(base64.b64encode(b"hello").decode() + ".x.y") is None


def test_each_missing_permission_is_named_with_why_and_manage_messages_serves_for_pinning():
    everything = discord.Permissions(permissions_integer())
    assert missing(everything) == []
    without_history = discord.Permissions(permissions_integer() & ~(1 << 16))
    assert [needed.name for needed in missing(without_history)] == ["Read Message History"]
    older_pinning = discord.Permissions(permissions_integer() & ~(1 << 51))
    assert [needed.name for needed in missing(older_pinning)] == ["Pin Messages"]
    older_pinning.manage_messages = True
    assert missing(older_pinning) == []
    words = missing_words(missing(discord.Permissions.none()), "#dune")
    assert all(f"**{needed.name}**" in words for needed in REQUIRED) and "#dune" in words

"""Small stand-ins for discord.py objects, so handlers run offline (no network, no login).

Each stands in for one discord.py class and has only that class's attributes, besides the logs the tests read
(tests/test_discord_fakes.py checks it): a member is a `unittest.mock` object made with `spec_set` (as
python-discord/bot makes theirs), the rest are small classes that record what the handlers send."""

from __future__ import annotations

import itertools
from unittest import mock

import discord
from discord import app_commands

from bot.discord.permissions import permissions_integer

SNOWFLAKE_GAME = "g1456074443980800012"  # a game id as long as a real channel's


class FakeResponse:
    def __init__(self, log: list):
        self.log = log
        self.views: list = []  # the components sent with follow-ups, in order
        self._done = False

    def is_done(self) -> bool:
        return self._done

    async def send_message(self, content=None, *, ephemeral=False, **_):
        self.log.append(("send", content, ephemeral))
        self._done = True

    async def defer(self, *, ephemeral=False, thinking=False):
        # "thinking": a message to come, its follow-up takes its ephemerality; else (a component's or a modal's)
        # the message the control belongs to is to be edited, and each follow-up is its own message
        self.log.append(("defer", None, ephemeral) if thinking else ("defer_update", None, None))
        self._done = True


class FakeFollowup:
    def __init__(self, log: list):
        self.log = log
        self.views: list = []  # the components sent with follow-ups, in order

    async def send(self, content=None, *, ephemeral=False, view=None, **_):
        self.log.append(("followup", content, ephemeral))
        if view is not None:
            self.views.append(view)


def fake_member(user_id: int, *, roles=(), manage_guild: bool = False) -> discord.Member:
    """A member of the server as the handlers read it: its id, mention, roles, server permissions, and `str()`
    its name. Made with `spec_set`, so an attribute a discord.Member lacks can be neither set nor read."""
    member = mock.NonCallableMagicMock(spec_set=discord.Member)
    member.id = user_id
    member.mention = f"<@{user_id}>"
    member.roles = [discord.Object(id=role) for role in roles]
    member.guild_permissions = discord.Permissions(manage_guild=manage_guild)
    member.__str__.return_value = f"user{user_id}"
    return member


class FakeInteraction:
    """`log` records ("send" | "defer" | "followup", text, ephemeral) in order. The client is not logged in, so it
    caches no channel: the bot's permissions in the channel are Discord's figure sent with the interaction
    (`app_permissions`), by default every permission the bot needs."""

    _ids = itertools.count(1_000_000)

    def __init__(self, client, user_id: int, *, channel_id: int = 55, guild_id: int = 1, manage_guild=False,
                 roles=(), command: app_commands.Command | None = None, interaction_id: int | None = None,
                 app_permissions: discord.Permissions | None = None):
        self.client = client
        self.id = interaction_id if interaction_id is not None else next(FakeInteraction._ids)  # Discord's is unique
        self.user = fake_member(user_id, roles=roles, manage_guild=manage_guild)
        self.channel_id, self.guild_id = channel_id, guild_id
        self.app_permissions = app_permissions if app_permissions is not None else discord.Permissions(
            permissions_integer())
        self.command = command  # the bot's own command, when a test runs one
        self.extras: dict = {}  # discord.Interaction.extras: the bot's own notes on the interaction
        self.log: list = []
        self.response = FakeResponse(self.log)
        self.followup = FakeFollowup(self.log)

    async def edit_original_response(self, *, content=None, view=None, **_):
        """After a deferred update: the message the pressed control belongs to (an ephemeral panel), edited."""
        self.log.append(("edit", content, True))
        if view is not None:
            self.followup.views.append(view)

    @property
    def answers(self) -> list[tuple[str, bool]]:
        """The texts answered, with whether each was ephemeral (a thinking deferral's ephemerality counts for
        follow-ups); an edit of the panel after a deferred update counts as an answer."""
        deferred = next((e for kind, _, e in self.log if kind == "defer"), None)
        return [(text, deferred if kind == "followup" and deferred is not None else ephemeral)
                for kind, text, ephemeral in self.log if kind not in ("defer", "defer_update")]


class EditingResponse(FakeResponse):
    """A fake response that also records a component's `edit_message` (the new view)."""

    async def edit_message(self, *, view=None, **_):
        self.log.append(("edit", view, False))
        self._done = True


class ComponentInteraction(FakeInteraction):
    def __init__(self, client, user_id: int):
        super().__init__(client, user_id, channel_id=None)
        self.response = EditingResponse(self.log)


async def press_as(interaction_cls, item_cls, view_item, bot, user: int, values=None):
    """Press a control as Discord would, with an interaction of `interaction_cls`: the control rebuilt from its
    custom id (as after a restart), then its callback; returns the interaction."""
    interaction = interaction_cls(bot, user)
    match = item_cls.__discord_ui_compiled_template__.fullmatch(view_item.custom_id)
    rebuilt = await item_cls.from_custom_id(interaction, view_item.item, match)
    if values is not None:
        rebuilt.item._refresh_state(interaction, {"values": values})
    await rebuilt.callback(interaction)
    return interaction

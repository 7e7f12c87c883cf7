"""Errors from app commands: refusals answer ephemerally; anything unexpected answers with a short error id
and logs its traceback under that id, so a player's report can be matched to the log, and the game's moderators
hear of it by DM with that id (GameService.tell_of_error)."""

from __future__ import annotations

import functools
import logging
import re
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands

from bot.app.service import ServiceError
from bot.app.words import NotUnderstood
from bot.discord.common import answer, game_bot

log = logging.getLogger(__name__)


def error_id() -> str:
    return secrets.token_hex(4)


async def report(interaction: discord.Interaction, error: BaseException, where: str | None = None) -> None:
    """Answer an interaction whose handler failed; `where` names a button, menu or modal (a command names
    itself)."""
    original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
    if isinstance(original, ServiceError | NotUnderstood):
        text = f"Refused: {original}"
    elif isinstance(original, app_commands.CheckFailure):
        text = str(original) or "You may not use this command here."
    else:
        ref = error_id()
        if where is None:
            where = f"/{interaction.command.qualified_name}" if interaction.command else "an interaction"
        log.error("error %s in %s (user %s)", ref, where, interaction.user.id,
                  exc_info=(type(original), original, original.__traceback__))
        told = await _tell_moderators(interaction, ref, where)
        text = (f"Something went wrong on our side (error id {ref}); "
                f"{'the game' + chr(39) + 's moderators are told' if told else 'tell a moderator'}.")
    try:
        await answer(interaction, text)
    except discord.HTTPException:  # the interaction expired; the log has it
        log.warning("could not answer an interaction after an error: %s", text)


GAME_ID = re.compile(r"^g\d+(?:-\d+)?$")


def _game_id_of(interaction: discord.Interaction) -> str | None:
    """The game a control belongs to, from its custom id ("mentat:<kind>:<game id>:..."; bot/discord/components.py)."""
    data = getattr(interaction, "data", None)
    custom_id = data.get("custom_id", "") if isinstance(data, dict) else ""
    return next((part for part in str(custom_id).split(":")[1:3] if GAME_ID.match(part)), None)


async def _tell_moderators(interaction: discord.Interaction, ref: str, where: str) -> bool:
    """A bot error in a game: its moderators hear of it, with its error id (issue 26 item 5; GameService.tell_of_error).
    The game is the control's (a DM card's button) or the channel's; the report itself never fails on this."""
    service = getattr(interaction.client, "service", None)  # None: a client that is not Mentat's
    if service is None:
        return False
    try:
        game_id = _game_id_of(interaction)
        if game_id is None and interaction.channel_id is not None:
            game = await service.game_in_channel(interaction.channel_id)
            game_id = game.game_id if game is not None else None
        if game_id is None:
            return False
        await service.tell_of_error(game_id, ref, where)
        game_bot(interaction).wake_outbox()
        return True
    except Exception:  # noqa: BLE001 - the player's answer comes first; the log has this too
        log.exception("could not tell the moderators of error %s", ref)
        return False


def reported(handler: Callable[[Any, discord.Interaction], Awaitable[None]]):
    """A button's, menu's or modal's handler whose unexpected failure is answered and logged with an error id, as
    a slash command's is (discord.py only logs it, and the player reads "This interaction failed")."""

    @functools.wraps(handler)
    async def handle(self: Any, interaction: discord.Interaction) -> None:
        try:
            await handler(self, interaction)
        except Exception as error:  # noqa: BLE001 - every failure is answered; report() logs its traceback
            await report(interaction, error, where=f"the control {type(self).__name__}")

    return handle


class MentatTree(app_commands.CommandTree):
    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        await report(interaction, error)

"""Errors from app commands: refusals answer ephemerally; anything unexpected answers with a short error id
and logs its traceback under that id, so a player's report can be matched to the log."""

from __future__ import annotations

import logging
import secrets

import discord
from discord import app_commands

from bot.app.service import ServiceError
from bot.discord.common import answer

log = logging.getLogger(__name__)


def error_id() -> str:
    return secrets.token_hex(4)


async def report(interaction: discord.Interaction, error: BaseException) -> None:
    """Answer an interaction whose handler failed."""
    original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
    if isinstance(original, ServiceError):
        text = f"Refused: {original}"
    elif isinstance(original, app_commands.CheckFailure):
        text = str(original) or "You may not use this command here."
    else:
        ref = error_id()
        command = interaction.command.qualified_name if interaction.command else "?"
        log.error("error %s in /%s (user %s)", ref, command, interaction.user.id,
                  exc_info=(type(original), original, original.__traceback__))
        text = f"Something went wrong on our side (error id {ref}); tell a moderator."
    try:
        await answer(interaction, text)
    except discord.HTTPException:  # the interaction expired; the log has it
        log.warning("could not answer an interaction after an error: %s", text)


class MentatTree(app_commands.CommandTree):
    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        await report(interaction, error)

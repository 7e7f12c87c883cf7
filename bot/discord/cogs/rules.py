"""/rules: the text of a rule, by the id a refusal names (A-n, BT-n, R-n) or by words (item 12)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.rules import find_rules
from bot.discord.common import answer

if TYPE_CHECKING:
    from bot.discord.client import MentatBot


class RulesCog(commands.Cog):
    def __init__(self, bot: MentatBot):
        self.bot = bot

    @app_commands.command(name="rules")
    @app_commands.describe(query="A rule's id (BT-23, R-7, A-13) or some words of it")
    async def rules(self, interaction: discord.Interaction, query: str) -> None:
        """Show a rule's text, as this table plays it."""
        found = find_rules(query)
        text = "\n\n".join(f"**{rid}** {body}" for rid, body in found) or f"No rule matches {query!r}."
        await answer(interaction, text[:1900], ephemeral=True)


async def setup(bot: MentatBot) -> None:
    await bot.add_cog(RulesCog(bot))

"""/me: what only the caller may see, always ephemeral. /me prompts is also the way to read decisions when
the bot cannot DM the player."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.common import answer, game_here, refusals, seat_of
from bot.discord.text import prompts_text, secrets_text
from engine.views import view

if TYPE_CHECKING:
    from bot.discord.client import MentatBot


@app_commands.guild_only()
class MeCog(commands.GroupCog, group_name="me", group_description="What only you can see in this channel's game"):
    def __init__(self, bot: MentatBot):
        self.bot = bot
        super().__init__()

    async def _mine(self, interaction: discord.Interaction, write) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction)
            faction = seat_of(game, interaction.user.id)
            await answer(interaction, write(view(await self.bot.service.state_of(game.game_id), faction)))

    @app_commands.command(name="hand")
    async def hand(self, interaction: discord.Interaction) -> None:
        """Your spice, cards, traitors and standing orders (only you see this)."""
        await self._mine(interaction, secrets_text)

    @app_commands.command(name="prompts")
    async def prompts(self, interaction: discord.Interaction) -> None:
        """Your open decisions and their choices (use this when the bot cannot DM you)."""
        await self._mine(interaction, prompts_text)


async def setup(bot: MentatBot) -> None:
    await bot.add_cog(MeCog(bot))

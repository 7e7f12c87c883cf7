"""/game: create a game in this channel, take a seat, start it, and see where it stands."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.ports import GameStatus
from bot.discord.common import answer, game_here, refusals, require_moderator
from bot.discord.text import (
    option_suggestions,
    options_text,
    parse_faction,
    parse_factions,
    parse_options,
    status_text,
)
from engine.ids import Faction
from engine.names import faction_name
from engine.views import view

if TYPE_CHECKING:
    from bot.discord.client import MentatBot

FACTION_CHOICES = [app_commands.Choice(name=faction_name(f), value=f.value) for f in Faction]


@app_commands.guild_only()
class GameCog(commands.GroupCog, group_name="game", group_description="Create, join and follow the game of Dune "
                                                                          "played in this channel"):
    def __init__(self, bot: MentatBot):
        self.bot = bot
        super().__init__()

    @app_commands.command(name="new")
    @app_commands.describe(factions="Factions in play, separated by commas (e.g. atreides, harkonnen, fremen, bt)",
                           options="Optional rules: all, names to switch on, or name=value (e.g. weather, "
                                   "double_spice_blow, turns=10)",
                           seed="A fixed random seed (for a replayable game); random when left out")
    async def new(self, interaction: discord.Interaction, factions: str, options: str | None = None,
                  seed: app_commands.Range[int, 0, 2**31 - 1] | None = None) -> None:
        """Open a new game in this channel."""
        async with refusals(interaction):
            chosen = parse_factions(factions)
            rules = parse_options(options)
            game = await self.bot.service.create_game(interaction.guild_id or 0, interaction.channel_id or 0, chosen,
                                                      rules, seed)
            self.bot.wake_outbox()
            await answer(interaction, f"Game {game.game_id} is open for "
                                      f"{', '.join(faction_name(f) for f in chosen)}. Options: {options_text(rules)}. "
                                      "Take a seat with /game join, then /game start.", ephemeral=False)

    @new.autocomplete("options")
    async def _options_autocomplete(self, interaction: discord.Interaction,
                                    current: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=text, value=text) for text in option_suggestions(current)]

    @app_commands.command(name="join")
    @app_commands.describe(faction="The faction you will play")
    @app_commands.choices(faction=FACTION_CHOICES)
    async def join(self, interaction: discord.Interaction, faction: str) -> None:
        """Take a free seat in this channel's game before it starts."""
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction)
            chosen = parse_faction(faction)
            await self.bot.service.seat(game.game_id, chosen, interaction.user.id)
            await answer(interaction, f"{interaction.user.mention} plays {faction_name(chosen)}.", ephemeral=False)

    @app_commands.command(name="start")
    async def start(self, interaction: discord.Interaction) -> None:
        """Start this channel's game once every seat is taken (the opening deal goes out by DM)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction)
            await self.bot.service.start(game.game_id)
            self.bot.wake_outbox()
            await answer(interaction, "The game has started; check your DMs (or /me prompts) for your decisions.")

    @app_commands.command(name="status")
    async def status(self, interaction: discord.Interaction) -> None:
        """Show the turn, phase, storm, seats and the decisions the game is waiting for."""
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction)
            state = await self.bot.service.state_of(game.game_id)
            await answer(interaction, status_text(game, view(state, None)), ephemeral=False)

    @app_commands.command(name="export")
    async def export(self, interaction: discord.Interaction) -> None:
        """Download the whole game log (every secret in it): once the game is over, or for a moderator."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction)
            if game.status != GameStatus.ENDED:
                require_moderator(interaction.user, game)
            record = await self.bot.service.export(game.game_id)
            file = discord.File(io.BytesIO(record.encode()), filename=f"{game.game_id}.json")
            await interaction.followup.send("The game log; `python -m engine replay` checks it.", file=file,
                                            ephemeral=True)


async def setup(bot: MentatBot) -> None:
    await bot.add_cog(GameCog(bot))

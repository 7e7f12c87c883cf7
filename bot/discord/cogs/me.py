"""/me: what only the caller may see or set, always ephemeral. /me prompts is also the way to read decisions when
the bot cannot DM the player; /me act opens the any-time panel (bot/discord/anytime_panel.py), /me orders the
panel of the standing orders alone; /me traitor-order and /me bid-order set two of those orders by command.
/me settings keeps the caller's time zone and quiet hours, theirs in every game (bot/app/hours.py); /me away and
/me back tell the table of an absence (bot/app/absence.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.absence import for_the_player
from bot.app.decision_cards import timestamp
from bot.app.hours import zone_choices
from bot.discord.anytime_panel import orders_panel_for, panel_for
from bot.discord.common import NO_MENTIONS, answer, game_here, refusals, seat_of, submit_for_seat
from bot.discord.components import prompt_view
from bot.discord.text import prompt_title, prompts_text, secrets_text
from engine.actions import SetBidOrder, SetTraitorOrder
from engine.secrecy.views import view

if TYPE_CHECKING:
    from bot.discord.client import MentatBot


@app_commands.guild_only()
class MeCog(commands.GroupCog, group_name="me",
            group_description="What only you can see and set in this channel's game"):
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
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction)
            faction = seat_of(game, interaction.user.id)
            own = view(await self.bot.service.state_of(game.game_id), faction)
            await answer(interaction, prompts_text(own))
            # The same buttons and menus as the DM, here for the caller alone: closed DMs lose nothing.
            for prompt in own.own_prompts:
                buttons = prompt_view(game.game_id, prompt, faction.value)
                if buttons is not None:
                    await interaction.followup.send(f"{prompt_title(prompt)}: choose below.", view=buttons,
                                                    ephemeral=True, allowed_mentions=NO_MENTIONS)

    @app_commands.command(name="orders")
    async def orders(self, interaction: discord.Interaction) -> None:
        """Your standing orders (storm cards, bids, traitor calls, Karama...): see and change them (only you)."""
        await self._send_panel(interaction, orders_panel_for)

    @app_commands.command(name="act")
    async def act(self, interaction: discord.Interaction) -> None:
        """Play a card or act now: what you may do outside your decisions, and your standing orders."""
        await self._send_panel(interaction, panel_for)

    @app_commands.command(name="traitor-order")
    @app_commands.describe(auto="Answer every traitor question automatically")
    async def traitor_order(self, interaction: discord.Interaction, auto: bool) -> None:
        """A standing order for traitor questions (secret)."""
        await submit_for_seat(self.bot, interaction, lambda f: SetTraitorOrder(faction=f, auto=auto))

    @app_commands.command(name="bid-order")
    @app_commands.describe(auto_pass="Pass every time", max_bid="Outbid by 1 up to this")
    async def bid_order(self, interaction: discord.Interaction, auto_pass: bool = False,
                        max_bid: app_commands.Range[int, 1, 200] | None = None) -> None:
        """A standing bidding order (secret); neither option clears it."""
        await submit_for_seat(self.bot, interaction,
                              lambda f: SetBidOrder(faction=f, auto_pass=auto_pass, max_bid=max_bid))

    @app_commands.command(name="settings")
    @app_commands.describe(time_zone="Your time zone (type part of its name: Paris, New_York, Tokyo...)",
                           quiet_from="The hour your quiet hours begin, in your time zone (0-23)",
                           quiet_until="The hour your quiet hours end, in your time zone (0-23; at most 12 hours)",
                           no_quiet_hours="Remove your quiet hours")
    async def settings(self, interaction: discord.Interaction, time_zone: str | None = None,
                       quiet_from: app_commands.Range[int, 0, 23] | None = None,
                       quiet_until: app_commands.Range[int, 0, 23] | None = None,
                       no_quiet_hours: bool = False) -> None:
        """Your time zone and quiet hours, in every game (no option: shows them; only you see this)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            shown = await self.bot.service.player_hours(
                interaction.user.id, zone=time_zone, quiet_from=quiet_from, quiet_until=quiet_until,
                no_quiet_hours=no_quiet_hours)
            self.bot.wake_outbox()  # the boards and cards of their games show the due times the hours moved
            await answer(interaction, shown)

    @settings.autocomplete("time_zone")
    async def _zones(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=zone, value=zone) for zone in zone_choices(current)]
    @app_commands.command(name="away")
    @app_commands.describe(until="When you are back: 2026-12-24, 2026-12-24 18:00 (your time zone) or a duration "
                                 "(3d, 36h)")
    async def away(self, interaction: discord.Interaction, until: str) -> None:
        """Tell the table you are away until a date; the game's creator chose what that does to your decisions."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction)
            ends = await self.bot.service.away(game.game_id, interaction.user.id, until)
            self.bot.wake_outbox()
            await answer(interaction, f"You are away until {timestamp(ends)} ({timestamp(ends, 'R')}); the table is "
                                      f"told. {for_the_player(game.settings)} /me back ends it earlier.")

    @app_commands.command(name="back")
    async def back(self, interaction: discord.Interaction) -> None:
        """End your absence now (/me away): the table is told you are back."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction)
            await self.bot.service.back(game.game_id, interaction.user.id)
            self.bot.wake_outbox()
            await answer(interaction, "Welcome back: the table is told, and your decisions wait for you again.")

    async def _send_panel(self, interaction: discord.Interaction, make_panel) -> None:
        """The caller's own panel (bot/discord/anytime_panel.py), to them alone."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction)
            seat_of(game, interaction.user.id)  # refuses a caller with no seat
            text, panel = await make_panel(self.bot, game.game_id, interaction.user.id)
            await interaction.followup.send(text, view=panel, ephemeral=True, allowed_mentions=NO_MENTIONS)


async def setup(bot: MentatBot) -> None:
    await bot.add_cog(MeCog(bot))

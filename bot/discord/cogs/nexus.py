"""/nexus: alliances during a Nexus (A-8), for the caller's seated faction: offer, accept, break, or be done.
Their own group leaves /play room under Discord's 25 subcommands a group.

Every answer is ephemeral; a refusal quotes the rule that forbids it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.words import parse_faction
from bot.discord.autocomplete import matching, open_decision
from bot.discord.common import submit_for_seat
from engine.actions import AcceptAlliance, BreakAlliance, EndNexus, ProposeAlliance
from engine.flow import details_of
from engine.ids import Faction
from engine.model import PromptKind
from engine.names import faction_name
from engine.rules.alliances import NexusDetails

if TYPE_CHECKING:
    from bot.discord.client import MentatBot


async def _nexus(interaction: discord.Interaction) -> NexusDetails | None:
    """The caller's open Nexus decision's details: to whom they may propose, whose offers they may accept."""
    prompt = await open_decision(interaction, PromptKind.NEXUS)
    return details_of(prompt, NexusDetails) if prompt else None


def _partners(partners: list[Faction], current: str) -> list[app_commands.Choice[str]]:
    return matching([(faction_name(f), f.value) for f in partners], current)


async def proposal_choices(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    nexus = await _nexus(interaction)
    return _partners(nexus.propose_to if nexus else [], current)


async def offer_choices(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    nexus = await _nexus(interaction)
    return _partners(nexus.offers if nexus else [], current)


@app_commands.guild_only()
class NexusCog(commands.GroupCog, group_name="nexus",
               group_description="Alliances during a Nexus in this channel's game"):
    def __init__(self, bot: MentatBot):
        self.bot = bot
        super().__init__()

    @app_commands.command(name="propose")
    @app_commands.describe(partner="The faction you offer an alliance")
    @app_commands.autocomplete(partner=proposal_choices)
    async def propose(self, interaction: discord.Interaction, partner: str) -> None:
        """Offer an alliance during a Nexus."""
        await submit_for_seat(self.bot, interaction,
                              lambda f: ProposeAlliance(faction=f, partner=parse_faction(partner)))

    @app_commands.command(name="accept")
    @app_commands.describe(partner="The faction whose offer you accept")
    @app_commands.autocomplete(partner=offer_choices)
    async def accept(self, interaction: discord.Interaction, partner: str) -> None:
        """Accept an alliance offer during a Nexus."""
        await submit_for_seat(self.bot, interaction,
                              lambda f: AcceptAlliance(faction=f, partner=parse_faction(partner)))

    @app_commands.command(name="break")
    async def break_(self, interaction: discord.Interaction) -> None:
        """Leave your alliance during a Nexus."""
        await submit_for_seat(self.bot, interaction, lambda f: BreakAlliance(faction=f))

    @app_commands.command(name="done")
    async def done(self, interaction: discord.Interaction) -> None:
        """You are done talking in this Nexus."""
        await submit_for_seat(self.bot, interaction, lambda f: EndNexus(faction=f))


async def setup(bot: MentatBot) -> None:
    await bot.add_cog(NexusCog(bot))

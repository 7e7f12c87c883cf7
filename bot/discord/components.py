"""Persistent prompt buttons: a decision's choices as buttons that survive a restart.

Each button's custom id carries the game, the decision and the choice's index
(`mentat:<game>:<prompt>:<index>`, well under Discord's 100 characters); pressing it reloads the game and
submits the matching action through the service, which checks the seat and that the decision is still
open. Only decisions whose choice alone makes the action get buttons; the others are answered with /play.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.discord.common import answer, refusals
from engine.actions import Action, CallTraitor, CaptureLeader, ChooseTraitor, DialStorm, GuildTiming
from engine.ids import Faction
from engine.model import Prompt, PromptKind
from engine.names import leader_name

if TYPE_CHECKING:
    from bot.discord.client import MentatBot

MAX_BUTTONS = 25  # 5 rows of 5
PROMPT_ACTIONS: dict[PromptKind, Callable[[Faction, str], Action]] = {
    PromptKind.TRAITOR_PICK: lambda faction, option: ChooseTraitor(faction=faction, leader=option),
    PromptKind.STORM_DIAL: lambda faction, option: DialStorm(faction=faction, value=int(option)),
    PromptKind.TRAITOR_CALL: lambda faction, option: CallTraitor(faction=faction, call=option == "call"),
    PromptKind.GUILD_TIMING: lambda faction, option: GuildTiming(faction=faction, now=option == "now"),
    PromptKind.LEADER_CAPTURE: lambda faction, option: CaptureLeader(faction=faction, choice=option),
}


def option_label(kind: PromptKind, option: str) -> str:
    if kind == PromptKind.TRAITOR_PICK:
        try:
            return leader_name(option)
        except (KeyError, LookupError):
            return option
    return option


class PromptButton(discord.ui.DynamicItem[discord.ui.Button], template=r"mentat:(?P<game>[\w-]+):(?P<prompt>p\d+):"
                                                                         r"(?P<index>\d+)"):
    def __init__(self, game_id: str, prompt_id: str, index: int, label: str = "choose"):
        self.game_id, self.prompt_id, self.index = game_id, prompt_id, index
        super().__init__(discord.ui.Button(label=label[:80] or "choose", style=discord.ButtonStyle.secondary,
                                           custom_id=f"mentat:{game_id}:{prompt_id}:{index}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> PromptButton:
        return cls(match["game"], match["prompt"], int(match["index"]), item.label or "choose")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot: MentatBot = interaction.client
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            state = await bot.service.state_of(self.game_id)
            prompt = state.prompt(self.prompt_id)
            if prompt is None or prompt.kind not in PROMPT_ACTIONS or self.index >= len(prompt.options):
                await answer(interaction, "That decision is already closed.")
                return
            action = PROMPT_ACTIONS[prompt.kind](prompt.faction, prompt.options[self.index])
            accepted = await bot.service.submit(self.game_id, interaction.user.id, action, prompt_id=self.prompt_id)
            bot.wake_outbox()
            await answer(interaction, f"Done: {self.item.label} (game version {accepted.seq}).")


def prompt_view(game_id: str, prompt: Prompt) -> discord.ui.View | None:
    """The buttons for a decision, or None when it is answered with a command instead."""
    if prompt.kind not in PROMPT_ACTIONS or not 0 < len(prompt.options) <= MAX_BUTTONS:
        return None
    view = discord.ui.View(timeout=None)
    for index, option in enumerate(prompt.options):
        view.add_item(PromptButton(game_id, prompt.id, index, option_label(prompt.kind, option)))
    return view


DYNAMIC_ITEMS = (PromptButton,)

"""The buttons of substitutes and table votes, which survive a restart (dynamic items):
- `mentat:subcall:<game>:<faction>:<number>`: "Take this seat", under a call for a substitute in the channel
  (bot/app/seats.py); the first press of someone not seated wins, the service refuses every other.
- `mentat:vote:<game>:<number>:<faction>:<yes | no>`: a seat's answer, under its ballot in its player's DM
  (bot/app/votes.py); the service refuses a second answer, and anyone who does not hold the seat.

The gateway puts them under the message whose key names them (`controls_for`)."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.app.ports import GameRecordRow, GameStatus, OutgoingMessage
from bot.app.seats import parse_call_key
from bot.app.votes import parse_ballot_key
from bot.discord.common import GameBot, answer, answer_in_time, refusals
from bot.discord.errors import reported
from engine.ids import Faction
from engine.names import the_faction

GAME_ID = r"(?P<game>[\w-]+)"


def controls_for(game: GameRecordRow, message: OutgoingMessage) -> discord.ui.View | None:
    """The buttons of a call's post or of a seat's ballot, by the message's key; None for any other message, and
    for a game that is over."""
    if game.status not in (GameStatus.RUNNING, GameStatus.PAUSED):
        return None
    if (call := parse_call_key(message.key)) is not None:
        faction, number = call
        controls = discord.ui.View(timeout=None)
        controls.add_item(TakeThisSeat(game.game_id, faction, number))
        return controls
    if (ballot := parse_ballot_key(message.key)) is not None and message.recipient.faction is not None:
        number, faction = ballot
        controls = discord.ui.View(timeout=None)
        controls.add_item(VoteButton(game.game_id, number, faction, True))
        controls.add_item(VoteButton(game.game_id, number, faction, False))
        return controls
    return None


class TakeThisSeat(discord.ui.DynamicItem[discord.ui.Button],
                   template=rf"mentat:subcall:{GAME_ID}:(?P<faction>[a-z_]+):(?P<number>\d+)"):
    """Take the open seat of a call for a substitute."""

    def __init__(self, game_id: str, faction: Faction, number: int):
        self.game_id, self.faction, self.number = game_id, faction, number
        super().__init__(discord.ui.Button(label="Take this seat", style=discord.ButtonStyle.primary,
                                           custom_id=f"mentat:subcall:{game_id}:{faction.value}:{number}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> TakeThisSeat:
        return cls(match["game"], Faction(match["faction"]), int(match["number"]))

    @reported
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot: GameBot = interaction.client

        async def work() -> None:
            async with refusals(interaction):
                await bot.service.hand_over(self.game_id, self.faction, interaction.user.id,
                                            by=str(interaction.user), call=self.number)
                bot.wake_outbox()
                await answer(interaction, f"You play {the_faction(self.faction)} now: your DMs have everything the "
                                          "seat knows, and its open decisions.")

        await answer_in_time(interaction, work())


class VoteButton(discord.ui.DynamicItem[discord.ui.Button],
                 template=rf"mentat:vote:{GAME_ID}:(?P<number>\d+):(?P<faction>[a-z_]+):(?P<yes>yes|no)"):
    """One seat's answer to a table vote."""

    def __init__(self, game_id: str, number: int, faction: Faction, yes: bool):
        self.game_id, self.number, self.faction, self.yes = game_id, number, faction, yes
        word = "yes" if yes else "no"
        super().__init__(discord.ui.Button(
            label="Yes" if yes else "No",
            style=discord.ButtonStyle.success if yes else discord.ButtonStyle.danger,
            custom_id=f"mentat:vote:{game_id}:{number}:{faction.value}:{word}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> VoteButton:
        return cls(match["game"], int(match["number"]), Faction(match["faction"]), match["yes"] == "yes")

    @reported
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot: GameBot = interaction.client

        async def work() -> None:
            async with refusals(interaction):
                await bot.service.cast_vote(self.game_id, self.number, self.faction, interaction.user.id, self.yes)
                bot.wake_outbox()
                await answer(interaction, f"You voted {'yes' if self.yes else 'no'}. The tally is told to the "
                                          "table when the vote closes.")

        await answer_in_time(interaction, work())


DYNAMIC_ITEMS = (TakeThisSeat, VoteButton)

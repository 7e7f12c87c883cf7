"""The lobby's buttons: a "Take <faction>" button for each free seat and a Start button, under the lobby post
the service posts at /game new and edits in place as seats fill (bot/app/lobby.py). The gateway puts them under
the post and renews them with each edit, from the game as it stands when the edit is delivered; once the game has
started the post has none.

Custom ids, which survive a restart of the bot (dynamic items):
- `mentat:lobby:<game>:seat:<faction>`: seat the presser (one seat each, a free one; the service checks).
- `mentat:lobby:<game>:start`: start the game, for its creator or a moderator, once every seat is taken; the bot's
  permissions in the channel are checked first (bot/discord/permissions.py), then every seated player's DMs (their
  welcome DM: DiscordGateway.can_dm).

/game join and /game start do the same from the command line.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord

from bot.app.ports import GameRecordRow, GameStatus, Gateway
from bot.app.service import NotAllowed, NotFound
from bot.app.settings_model import GameSettings
from bot.discord.common import GameBot, answer, is_moderator, refusals
from bot.discord.errors import reported
from bot.discord.permissions import require_in_channel
from engine.ids import Faction
from engine.names import faction_name
from engine.options import GameSetup

GAME_ID = r"(?P<game>[\w-]+)"
START_LABEL = "Start the game"


class LobbyBot(GameBot, Protocol):
    """What the Start button needs of the bot: the gateway that sends each player's welcome DM."""

    gateway: Gateway


def lobby_view(game: GameRecordRow) -> discord.ui.View | None:
    """The lobby's controls as the game stands: a button per free seat and Start (pressable once every seat is
    taken); none once the game has started."""
    if game.status != GameStatus.OPEN:
        return None
    free = [f for f in GameSetup.model_validate_json(game.setup_json).factions if f.value not in game.seats]
    controls = discord.ui.View(timeout=None)
    for faction in free:
        controls.add_item(TakeSeat(game.game_id, faction))
    controls.add_item(StartGame(game.game_id, ready=not free))
    return controls


async def require_starter(interaction: discord.Interaction[Any], game: GameRecordRow) -> None:
    """Who may start a game: whoever created it, or a moderator."""
    bot: GameBot = interaction.client
    creator = GameSettings.of(game.settings).creator
    if interaction.user.id != creator and not await is_moderator(bot.service, interaction):
        raise NotAllowed("Only the game's creator or a moderator may start it.")


async def start_game(interaction: discord.Interaction[Any], game: GameRecordRow) -> None:
    """Start the game for the lobby's Start button and /game start (deferred), both in the game's channel: the bot's
    permissions there are checked (nothing is sent without them), then each seated player's DMs by their welcome
    DM, and the presser told who cannot be reached."""
    bot: LobbyBot = interaction.client
    await require_starter(interaction, game)
    require_in_channel(interaction)
    unreachable = await bot.service.start(game.game_id, probe=bot.gateway)
    bot.wake_outbox()
    closed = (f" The bot cannot DM {', '.join(faction_name(Faction(f)) for f in unreachable)}: the table "
              "was told." if unreachable else "")
    await answer(interaction, "The game has started; check your DMs (or /me prompts) for your decisions." + closed)


async def _game(interaction: discord.Interaction[Any], game_id: str) -> GameRecordRow:
    bot: GameBot = interaction.client
    game = await bot.service.game(game_id)
    if game is None:
        raise NotFound("This game no longer exists.")
    return game


class TakeSeat(discord.ui.DynamicItem[discord.ui.Button],
               template=rf"mentat:lobby:{GAME_ID}:seat:(?P<faction>[a-z_]+)"):
    """Take this free seat."""

    def __init__(self, game_id: str, faction: Faction):
        self.game_id, self.faction = game_id, faction
        super().__init__(discord.ui.Button(label=f"Take {faction_name(faction)}", style=discord.ButtonStyle.primary,
                                           custom_id=f"mentat:lobby:{game_id}:seat:{faction.value}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> TakeSeat:
        return cls(match["game"], Faction(match["faction"]))

    @reported
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot: GameBot = interaction.client
        async with refusals(interaction):
            await bot.service.seat(self.game_id, self.faction, interaction.user.id)
            bot.wake_outbox()  # the lobby post shows the seat
            await answer(interaction, f"You play {faction_name(self.faction)}.")


class StartGame(discord.ui.DynamicItem[discord.ui.Button], template=rf"mentat:lobby:{GAME_ID}:start"):
    """Start the game (its creator or a moderator), once every seat is taken."""

    def __init__(self, game_id: str, ready: bool = True):
        self.game_id = game_id
        super().__init__(discord.ui.Button(label=START_LABEL, style=discord.ButtonStyle.success, disabled=not ready,
                                           custom_id=f"mentat:lobby:{game_id}:start"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> StartGame:
        return cls(match["game"])

    @reported
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)  # the DM checks take a moment
        async with refusals(interaction):
            await start_game(interaction, await _game(interaction, self.game_id))


DYNAMIC_ITEMS = (TakeSeat, StartGame)

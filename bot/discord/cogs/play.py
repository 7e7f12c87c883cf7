"""/play: the caller's own decisions, made for the faction they are seated as in this channel's game.

Every answer is ephemeral (secret choices stay secret, and the table learns of public ones from the game's
own announcement); a refusal quotes the rule that forbids it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.common import answer, game_here, refusals, seat_of
from engine.actions import (
    Action,
    Bid,
    ChooseTraitor,
    DialStorm,
    Move,
    PassBid,
    PredictWinner,
    Revive,
    Ship,
    SkipMove,
    SkipShipment,
    SubmitBattlePlan,
)
from engine.data import load_game_data
from engine.ids import Faction
from engine.model import PromptKind
from engine.names import card_name, faction_name, location_label
from engine.views import PlayerView, view

if TYPE_CHECKING:
    from bot.discord.client import MentatBot

Choice = app_commands.Choice
FACTION_CHOICES = [Choice(name=faction_name(f), value=f.value) for f in Faction]


# --- autocomplete: offer names, send ids --------------------------------------------------------


async def _my_view(interaction: discord.Interaction) -> PlayerView | None:
    service = interaction.client.service
    game = await service.store.game_in_channel(interaction.channel_id or 0)
    seats = {user: faction for faction, user in game.seats.items()} if game else {}
    if interaction.user.id not in seats:
        return None
    return view(await service.state_of(game.game_id), Faction(seats[interaction.user.id]))


def _matching(pairs: list[tuple[str, str]], current: str) -> list[Choice[str]]:
    current = current.lower()
    return [Choice(name=label[:100], value=value) for label, value in pairs if current in label.lower()][:25]


async def location_choices(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    locations = load_game_data().board.all_locations()
    return _matching([(location_label(loc), loc) for loc in locations], current)


async def leader_choices(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """For /play traitor the leaders offered as traitors; otherwise the caller's own leaders."""
    mine = await _my_view(interaction)
    if mine is None or mine.viewer is None:
        return []
    picks = [o for p in mine.own_prompts if p.kind == PromptKind.TRAITOR_PICK for o in p.options]
    data = load_game_data()
    ids = picks if interaction.command and interaction.command.name == "traitor" and picks else \
        [leader.id for leader in data.factions[mine.viewer].leaders]
    return _matching([(data.leader(i).name, i) for i in ids], current)


async def card_choices(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    mine = await _my_view(interaction)
    hand = mine.own.hand if mine and mine.own else []
    return _matching([(card_name(c), c) for c in hand], current)


def leader_id(text: str | None) -> str | None:
    """A leader id from its id or its name (typed without choosing from the list)."""
    if text is None:
        return None
    for faction in load_game_data().factions.values():
        for leader in faction.leaders:
            if text.strip().lower() in (leader.id, leader.name.lower()):
                return leader.id
    return text.strip()


# --- the commands --------------------------------------------------------------------------------


@app_commands.guild_only()
class PlayCog(commands.GroupCog, group_name="play", group_description="Your decisions in this channel's game"):
    def __init__(self, bot: MentatBot):
        self.bot = bot
        super().__init__()

    async def _submit(self, interaction: discord.Interaction, build: Callable[[Faction], Action], done: str) -> None:
        """Defer (ephemerally), build the caller's action for their seat, submit it, and answer."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction)
            action = build(seat_of(game, interaction.user.id))
            accepted = await self.bot.service.submit(game.game_id, interaction.user.id, action)
            self.bot.wake_outbox()
            await answer(interaction, f"Done: {done} (game version {accepted.seq}).")

    @app_commands.command(name="bid")
    @app_commands.describe(amount="Your bid in spice", ally_pays="How much of it your ally pays")
    async def bid(self, interaction: discord.Interaction, amount: app_commands.Range[int, 1, 200],
                  ally_pays: app_commands.Range[int, 0, 200] = 0) -> None:
        """Bid for the card up for auction."""
        await self._submit(interaction, lambda f: Bid(faction=f, amount=amount, ally_pays=ally_pays),
                           f"you bid {amount}")

    @app_commands.command(name="pass")
    async def pass_(self, interaction: discord.Interaction) -> None:
        """Pass on the card up for auction."""
        await self._submit(interaction, lambda f: PassBid(faction=f), "you pass")

    @app_commands.command(name="dial")
    @app_commands.describe(value="0-20 on the first turn, 1-3 after")
    async def dial(self, interaction: discord.Interaction, value: app_commands.Range[int, 0, 20]) -> None:
        """Dial the storm (secret)."""
        await self._submit(interaction, lambda f: DialStorm(faction=f, value=value), f"storm dial {value}")

    @app_commands.command(name="ship")
    @app_commands.rename(to_location="to", from_location="from")
    @app_commands.describe(to_location="Where the tokens land", tokens="How many tokens",
                           from_location="The Guild only: ship from this territory instead of reserves",
                           ally_pays="How much of the cost your ally pays")
    @app_commands.autocomplete(to_location=location_choices, from_location=location_choices)
    async def ship(self, interaction: discord.Interaction, to_location: str, tokens: app_commands.Range[int, 1, 20],
                   from_location: str | None = None, ally_pays: app_commands.Range[int, 0, 200] = 0) -> None:
        """Ship tokens onto Dune."""
        await self._submit(interaction, lambda f: Ship(faction=f, to_location=to_location, tokens=tokens,
                                                       from_location=from_location, ally_pays=ally_pays),
                           f"ship {tokens} to {to_location}")

    @app_commands.command(name="move")
    @app_commands.rename(from_location="from", to_location="to")
    @app_commands.describe(from_location="Where the tokens are", to_location="Where they go", tokens="How many")
    @app_commands.autocomplete(from_location=location_choices, to_location=location_choices)
    async def move(self, interaction: discord.Interaction, from_location: str, to_location: str,
                   tokens: app_commands.Range[int, 1, 20]) -> None:
        """Move tokens from one territory to another."""
        await self._submit(interaction, lambda f: Move(faction=f, from_location=from_location,
                                                       to_location=to_location, tokens=tokens),
                           f"move {tokens} from {from_location} to {to_location}")

    @app_commands.command(name="skip")
    @app_commands.describe(step="The step you pass on")
    async def skip(self, interaction: discord.Interaction, step: Literal["shipment", "movement"]) -> None:
        """Ship nothing, or move nothing, this turn."""
        build = (lambda f: SkipShipment(faction=f)) if step == "shipment" else (lambda f: SkipMove(faction=f))
        await self._submit(interaction, build, f"no {step}")

    @app_commands.command(name="revive")
    @app_commands.describe(tokens="Tokens to revive from the tanks", leader="A leader to revive")
    @app_commands.autocomplete(leader=leader_choices)
    async def revive(self, interaction: discord.Interaction, tokens: app_commands.Range[int, 0, 20] = 0,
                     leader: str | None = None) -> None:
        """Revive tokens and perhaps a leader from the tanks."""
        await self._submit(interaction, lambda f: Revive(faction=f, tokens=tokens, leader=leader_id(leader)),
                           f"revive {tokens} tokens{' and ' + leader if leader else ''}")

    @app_commands.command(name="traitor")
    @app_commands.describe(leader="The leader you keep as your traitor")
    @app_commands.autocomplete(leader=leader_choices)
    async def traitor(self, interaction: discord.Interaction, leader: str) -> None:
        """Choose your traitor at the start of the game (secret)."""
        await self._submit(interaction, lambda f: ChooseTraitor(faction=f, leader=leader_id(leader)),
                           f"your traitor is {leader}")

    @app_commands.command(name="predict")
    @app_commands.describe(faction="The faction you predict will win", turn="The turn it wins on")
    @app_commands.choices(faction=FACTION_CHOICES)
    async def predict(self, interaction: discord.Interaction, faction: str,
                      turn: app_commands.Range[int, 1, 30]) -> None:
        """The Bene Gesserit prediction (secret)."""
        await self._submit(interaction, lambda f: PredictWinner(faction=f, predicted=Faction(faction), turn=turn),
                           f"you predict {faction} on turn {turn}")

    @app_commands.command(name="plan")
    @app_commands.describe(leader="Your leader", dial="Tokens dialled", weapon="A weapon card from your hand",
                           defense="A defense card from your hand", cheap_hero="A Cheap Hero card instead of a leader")
    @app_commands.autocomplete(leader=leader_choices, weapon=card_choices, defense=card_choices,
                               cheap_hero=card_choices)
    async def plan(self, interaction: discord.Interaction, dial: app_commands.Range[int, 0, 20],
                   leader: str | None = None, weapon: str | None = None, defense: str | None = None,
                   cheap_hero: str | None = None) -> None:
        """Submit your battle plan (secret until both plans are in)."""
        await self._submit(interaction, lambda f: SubmitBattlePlan(faction=f, leader=leader_id(leader), dial=dial,
                                                                   weapon=weapon, defense=defense,
                                                                   cheap_hero=cheap_hero),
                           "battle plan submitted")


async def setup(bot: MentatBot) -> None:
    await bot.add_cog(PlayCog(bot))

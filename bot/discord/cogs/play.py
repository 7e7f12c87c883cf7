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

from bot.app.anytime_words import value_label
from bot.app.words import parse_faction, parse_yes_no
from bot.discord.autocomplete import (
    battle_opponents,
    battle_territories,
    matching,
    open_decision,
    plan_cheap_heroes,
    plan_defense_cards,
    plan_dials,
    plan_impairments,
    plan_leaders,
    plan_weapon_cards,
    predicted_factions,
    predicted_turns,
    prescience_answers,
    prescience_elements,
    traitor_call_answers,
    traitor_candidates,
    typed,
    voice_kinds,
)
from bot.discord.common import game_bot, submit_for_seat
from bot.discord.turn_forms import (
    RESERVES,
    movement_sources,
    revival_leaders,
    ride_destinations,
    shipment_destinations,
    shipment_sources,
)
from engine.actions import (
    Action,
    AnswerPrescience,
    AskPrescience,
    Bid,
    CallTraitor,
    CaptureLeader,
    ChooseBattle,
    ChooseTraitor,
    DialStorm,
    GiveAllySpice,
    GiveBribe,
    Move,
    PassBid,
    PredictWinner,
    Revive,
    Ship,
    SkipMove,
    SkipShipment,
    SubmitBattlePlan,
    UseVoice,
)
from engine.data import load_game_data
from engine.flow import details_of
from engine.ids import Faction
from engine.model import GameState, PromptKind
from engine.names import card_name, faction_name, leader_name, location_label
from engine.phases.movement import MovementDetails
from engine.rules.anytime import AnytimeKind, anytime_choice
from engine.secrecy.views import PlayerView, view

if TYPE_CHECKING:
    from bot.discord.client import MentatBot

Choice = app_commands.Choice
FACTION_CHOICES = [Choice(name=faction_name(f), value=f.value) for f in Faction]


# --- autocomplete: offer names, send ids --------------------------------------------------------


async def _my_view(interaction: discord.Interaction) -> PlayerView | None:
    service = game_bot(interaction).service
    game = await service.game_in_channel(interaction.channel_id or 0)
    seats = {user: faction for faction, user in game.seats.items()} if game else {}
    if game is None or interaction.user.id not in seats:
        return None
    return view(await service.state_of(game.game_id), Faction(seats[interaction.user.id]))


async def _my_seat(interaction: discord.Interaction) -> tuple[GameState, Faction] | None:
    """The game in the caller's channel and the caller's faction in it, or None when they have no seat there."""
    service = game_bot(interaction).service
    game = await service.game_in_channel(interaction.channel_id or 0)
    seats = {user: faction for faction, user in game.seats.items()} if game else {}
    if game is None or interaction.user.id not in seats:
        return None
    return await service.state_of(game.game_id), Faction(seats[interaction.user.id])


Narrow = Callable[[discord.Interaction, str], bool]  # keeps a value of the part, given what the caller filled in


def legal_options(kind: AnytimeKind, part: str, value: Callable[[str], str] = str,
                  keep: Narrow = lambda interaction, option: True):
    """An autocomplete offering only the values the caller may choose now for one part of an any-time action
    (engine/rules/anytime.py, the list the panel shows): labelled in the player's words, sent as `value(option)`."""
    async def complete(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        seat = await _my_seat(interaction)
        choice = anytime_choice(*seat, kind) if seat else None
        legal = choice.part(part) if choice else None
        options = [o for o in getattr(legal, "options", []) if keep(interaction, o)]
        pairs = [(value_label(kind, part, o), value(o)) for o in options]
        return matching(list(dict.fromkeys(pairs)), current)
    return complete


def filled(interaction: discord.Interaction, name: str) -> str | None:
    """What the caller has put in another option of the command so far."""
    return getattr(interaction.namespace, name, None)


# The caller's open decision says what is legal now (bot/discord/turn_forms.py reads it as the DM form does):
# these offer only that, and nothing to a caller who has no such decision open.


def _places(locations: list[str], current: str) -> list[Choice[str]]:
    return matching([(location_label(loc), loc) for loc in locations], current)


async def ship_from_choices(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """The Guild's places on the board that something may ship from (A-23); the reserves are the default."""
    prompt = await open_decision(interaction, PromptKind.SHIPMENT)
    sources = [s for s in shipment_sources(prompt) if s != RESERVES] if prompt else []
    return _places(sources, current)


async def ship_back_choices(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    prompt = await open_decision(interaction, PromptKind.SHIPMENT)
    sources = [s for s in shipment_sources(prompt) if s != RESERVES and RESERVES in shipment_destinations(prompt, s)] \
        if prompt else []
    return _places(sources, current)


async def ship_to_choices(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """Where the caller may ship now from the source typed (the reserves when none), and pay for."""
    prompt = await open_decision(interaction, PromptKind.SHIPMENT)
    source = typed(interaction, "from") or RESERVES
    if prompt is None or source not in shipment_sources(prompt):
        return []
    return _places([loc for loc in shipment_destinations(prompt, source) if loc != RESERVES], current)


async def move_from_choices(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    prompt = await open_decision(interaction, PromptKind.MOVEMENT)
    return _places(movement_sources(prompt) if prompt else [], current)


async def move_to_choices(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """Where the group typed may move (before a group is typed: wherever any of the caller's groups may)."""
    prompt = await open_decision(interaction, PromptKind.MOVEMENT)
    if prompt is None:
        return []
    destinations = details_of(prompt, MovementDetails).destinations
    source = typed(interaction, "from")
    reach = [loc for s in movement_sources(prompt) if source in (None, s) for loc in destinations[s]]
    return _places(sorted(set(reach), key=reach.index), current)


async def revival_leader_choices(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    prompt = await open_decision(interaction, PromptKind.REVIVAL)
    leaders = revival_leaders(prompt) if prompt else []
    return matching([(leader_name(leader), leader) for leader in leaders], current)


async def ride_choices(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    prompt = await open_decision(interaction, PromptKind.WORM_RIDE)
    return _places(ride_destinations(prompt) if prompt else [], current)


async def worm_territory_choices(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    prompt = await open_decision(interaction, PromptKind.WORM_PLACEMENT)
    return matching([(t, t) for t in (prompt.options if prompt else [])], current)


async def coexistence_choices(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """Where the Bene Gesserit may declare co-existence now (A-15): for the way typed, or either way."""
    prompt = await open_decision(interaction, PromptKind.MOVEMENT)
    coexist = details_of(prompt, MovementDetails).coexist if prompt else None
    if coexist is None:
        return []
    way = typed(interaction, "advisors")
    territories = ([*coexist.advisors, *coexist.fighters] if way is None
                   else coexist.advisors if way == "yes" else coexist.fighters)
    return matching([(t, t) for t in dict.fromkeys(territories)], current)


async def any_leader_choices(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """Every leader in the game's data, by name (the BT mark and reveal other factions' leaders)."""
    data = load_game_data()
    return matching([(leader.name, leader.id) for faction in data.factions.values() for leader in faction.leaders],
                     current)


async def own_hand(interaction: discord.Interaction) -> list[str]:
    """The caller's hand (card ids), or nothing when they have no seat here."""
    mine = await _my_view(interaction)
    return list(mine.own.hand) if mine and mine.own else []


def card_in(hand: list[str], text: str) -> str:
    """A card id from its id or its name, looked up in the hand (the engine refuses anything else)."""
    text = text.strip()
    if text in hand:
        return text
    return next((c for c in hand if card_name(c).lower() == text.lower()), text)


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

    async def _submit(self, interaction: discord.Interaction, build: Callable[[Faction], Action],
                      done: str | None = None) -> None:
        """Defer (ephemerally), build the caller's action for their seat, submit it, and answer (in `done`'s words,
        or the action's)."""
        await submit_for_seat(self.bot, interaction, build, done)

    @app_commands.command(name="bid")
    @app_commands.describe(amount="Your bid in spice", ally_pays="How much of it your ally pays")
    async def bid(self, interaction: discord.Interaction, amount: app_commands.Range[int, 1, 200],
                  ally_pays: app_commands.Range[int, 0, 200] = 0) -> None:
        """Bid for the card up for auction."""
        await self._submit(interaction, lambda f: Bid(faction=f, amount=amount, ally_pays=ally_pays))

    @app_commands.command(name="pass")
    async def pass_(self, interaction: discord.Interaction) -> None:
        """Pass on the card up for auction."""
        await self._submit(interaction, lambda f: PassBid(faction=f))

    @app_commands.command(name="dial")
    @app_commands.describe(value="0-20 on the first turn, 1-3 after")
    async def dial(self, interaction: discord.Interaction, value: app_commands.Range[int, 0, 20]) -> None:
        """Dial the storm (secret)."""
        await self._submit(interaction, lambda f: DialStorm(faction=f, value=value))

    @app_commands.command(name="ship")
    @app_commands.rename(to_location="to", from_location="from")
    @app_commands.describe(to_location="Where the tokens land", tokens="How many tokens",
                           from_location="The Guild only: ship from this territory instead of reserves",
                           ally_pays="How much of the cost your ally pays")
    @app_commands.autocomplete(to_location=ship_to_choices, from_location=ship_from_choices)
    async def ship(self, interaction: discord.Interaction, to_location: str, tokens: app_commands.Range[int, 1, 20],
                   from_location: str | None = None, ally_pays: app_commands.Range[int, 0, 200] = 0) -> None:
        """Ship tokens onto Dune."""
        await self._submit(interaction, lambda f: Ship(faction=f, to_location=to_location, tokens=tokens,
                                                       from_location=from_location, ally_pays=ally_pays))

    @app_commands.command(name="move")
    @app_commands.rename(from_location="from", to_location="to")
    @app_commands.describe(from_location="Where the tokens are", to_location="Where they go", tokens="How many")
    @app_commands.autocomplete(from_location=move_from_choices, to_location=move_to_choices)
    async def move(self, interaction: discord.Interaction, from_location: str, to_location: str,
                   tokens: app_commands.Range[int, 1, 20]) -> None:
        """Move tokens from one territory to another."""
        await self._submit(interaction, lambda f: Move(faction=f, from_location=from_location,
                                                       to_location=to_location, tokens=tokens))

    @app_commands.command(name="skip")
    @app_commands.describe(step="The step you pass on")
    async def skip(self, interaction: discord.Interaction, step: Literal["shipment", "movement"]) -> None:
        """Ship nothing, or move nothing, this turn."""
        build = (lambda f: SkipShipment(faction=f)) if step == "shipment" else (lambda f: SkipMove(faction=f))
        await self._submit(interaction, build)

    @app_commands.command(name="revive")
    @app_commands.describe(tokens="Tokens to revive from the tanks", leader="A leader to revive",
                           kwisatz_haderach="Revive the dead Kwisatz Haderach (Atreides, character advantages)")
    @app_commands.autocomplete(leader=revival_leader_choices)
    async def revive(self, interaction: discord.Interaction, tokens: app_commands.Range[int, 0, 20] = 0,
                     leader: str | None = None, kwisatz_haderach: bool = False) -> None:
        """Revive tokens and perhaps a leader from the tanks."""
        await self._submit(interaction, lambda f: Revive(faction=f, tokens=tokens, leader=leader_id(leader),
                                                         kwisatz_haderach=kwisatz_haderach))

    @app_commands.command(name="traitor")
    @app_commands.describe(leader="The leader you keep as your traitor")
    @app_commands.autocomplete(leader=traitor_candidates)
    async def traitor(self, interaction: discord.Interaction, leader: str) -> None:
        """Choose your traitor at the start of the game (secret)."""
        await self._submit(interaction, lambda f: ChooseTraitor(faction=f, leader=leader_id(leader)))

    @app_commands.command(name="predict")
    @app_commands.describe(faction="The faction you predict will win", turn="The turn it wins on")
    # one decorator per type of choice: discord.py types all the callbacks of one call alike
    @app_commands.autocomplete(faction=predicted_factions)
    @app_commands.autocomplete(turn=predicted_turns)
    async def predict(self, interaction: discord.Interaction, faction: str,
                      turn: app_commands.Range[int, 1, 30]) -> None:
        """The Bene Gesserit prediction (secret)."""
        await self._submit(interaction, lambda f: PredictWinner(faction=f, predicted=parse_faction(faction), turn=turn))

    @app_commands.command(name="plan")
    @app_commands.describe(leader="Your leader", dial="Tokens dialled (Sardaukar and Fedaykin count 2)",
                           weapon="A weapon card from your hand", defense="A defense card from your hand",
                           cheap_hero="A Cheap Hero card instead of a leader",
                           kwisatz_haderach="The Kwisatz Haderach goes with your leader (Atreides, once awake)",
                           spice="Spice backing the dial, 1 per token (advanced combat)",
                           impairment="BT attack with a worthless card: what the attacked may not do next turn")
    @app_commands.autocomplete(leader=plan_leaders, weapon=plan_weapon_cards, defense=plan_defense_cards,
                               cheap_hero=plan_cheap_heroes, impairment=plan_impairments)
    @app_commands.autocomplete(dial=plan_dials)
    async def plan(self, interaction: discord.Interaction, dial: app_commands.Range[int, 0, 25],
                   leader: str | None = None, weapon: str | None = None, defense: str | None = None,
                   cheap_hero: str | None = None, kwisatz_haderach: bool = False,
                   spice: app_commands.Range[int, 0, 25] = 0,
                   impairment: str | None = None) -> None:
        """Submit your battle plan (secret until both plans are in)."""
        await self._submit(interaction, lambda f: SubmitBattlePlan(faction=f, leader=leader_id(leader), dial=dial,
                                                                   weapon=weapon, defense=defense,
                                                                   cheap_hero=cheap_hero,
                                                                   kwisatz_haderach=kwisatz_haderach, spice=spice,
                                                                   impair=impairment))

    @app_commands.command(name="capture")
    @app_commands.describe(choice="Keep the captured leader, kill the leader for 2 spice, or let the leader go")
    async def capture(self, interaction: discord.Interaction, choice: Literal["keep", "kill", "release"]) -> None:
        """The Harkonnen decide about the leader they captured (A-15, character advantages)."""
        await self._submit(interaction, lambda f: CaptureLeader(faction=f, choice=choice))

    # --- money (A-16, A-26) ---

    @app_commands.command(name="bribe")
    @app_commands.describe(to="Who receives the spice", amount="How much spice")
    @app_commands.autocomplete(to=legal_options(AnytimeKind.BRIBE, "to"))
    async def bribe(self, interaction: discord.Interaction, to: str, amount: app_commands.Range[int, 1, 200]) -> None:
        """Give spice as a bribe, usable by the receiver from the end of the turn."""
        await self._submit(interaction, lambda f: GiveBribe(faction=f, to=parse_faction(to), amount=amount),
                           f"bribe of {amount} to {to}")

    @app_commands.command(name="gift")
    @app_commands.describe(to="Your ally", amount="How much spice")
    @app_commands.autocomplete(to=legal_options(AnytimeKind.ALLY_SPICE, "to"))
    async def gift(self, interaction: discord.Interaction, to: str, amount: app_commands.Range[int, 1, 200]) -> None:
        """The Emperor gives spice to an ally, usable at once."""
        await self._submit(interaction, lambda f: GiveAllySpice(faction=f, to=parse_faction(to), amount=amount),
                           f"{amount} spice to {to}")

    # --- battles ---

    @app_commands.command(name="choose-battle")
    @app_commands.describe(territory="Where to fight next", opponent="Whom to fight there")
    @app_commands.autocomplete(territory=battle_territories, opponent=battle_opponents)
    async def choose_battle(self, interaction: discord.Interaction, territory: str, opponent: str) -> None:
        """The aggressor picks the next battle."""
        await self._submit(interaction, lambda f: ChooseBattle(faction=f, territory=territory,
                                                               opponent=parse_faction(opponent)))

    @app_commands.command(name="ask")
    @app_commands.describe(element="The element of your opponent's plan to see, or none")
    @app_commands.autocomplete(element=prescience_elements)
    async def ask(self, interaction: discord.Interaction, element: str) -> None:
        """Atreides prescience: ask for one element of the opponent's plan."""
        wanted = None if element == "none" else element
        await self._submit(interaction, lambda f: AskPrescience(faction=f, element=wanted))

    @app_commands.command(name="answer")
    @app_commands.describe(answer="The element you will play (a leader, card, number, or none)")
    @app_commands.autocomplete(answer=prescience_answers)
    async def answer(self, interaction: discord.Interaction, answer: str) -> None:
        """Answer the Atreides' prescience; the answer binds your plan (secret)."""
        await self._submit(interaction, lambda f: AnswerPrescience(faction=f, answer=answer))

    @app_commands.command(name="voice")
    @app_commands.describe(command="Play, not play, or no Voice", category="The kind of card")
    @app_commands.autocomplete(category=voice_kinds)
    async def voice(self, interaction: discord.Interaction, command: Literal["play", "not", "none"],
                    category: str | None = None) -> None:
        """The Bene Gesserit Voice."""
        said = None if command == "none" else command
        await self._submit(interaction, lambda f: UseVoice(faction=f, command=said,
                                                           category=category if said else None))

    @app_commands.command(name="call")
    @app_commands.describe(call="Call the traitor? (yes only when you hold the opposing leader's traitor card)")
    @app_commands.autocomplete(call=traitor_call_answers)
    async def call(self, interaction: discord.Interaction, call: str) -> None:
        """Call, or do not call, a traitor (secret)."""
        await self._submit(interaction, lambda f: CallTraitor(faction=f, call=parse_yes_no(call, "call")))



async def setup(bot: MentatBot) -> None:
    await bot.add_cog(PlayCog(bot))

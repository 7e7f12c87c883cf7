"""/card: Treachery cards played outside a battle plan, and the faction powers played like them (the worm ride,
the spiritual advisor, the Guild's shipment back to reserves; with the optional rules, the worm placement, the
Guild's timing, co-existence and the special Karama powers), for the caller's seated faction.

Every answer is ephemeral; a refusal quotes the rule that forbids it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.words import parse_faction
from bot.discord.autocomplete import cards_given_back
from bot.discord.cogs.play import (
    card_in,
    coexistence_choices,
    filled,
    leader_id,
    legal_options,
    own_hand,
    ride_choices,
    ship_back_choices,
    worm_territory_choices,
)
from bot.discord.common import submit_for_seat
from engine.actions import (
    AnswerTruthtrance,
    GuildTiming,
    PlaceWorm,
    PlayGhola,
    PlayHajr,
    PlayStormCards,
    PlayTruthtrance,
    ReturnCards,
    RideWorm,
    SendAdvisor,
    SetCoexistence,
    ShipToReserves,
    UseKarama,
    UseSpecialKarama,
)
from engine.names import counted
from engine.rules.anytime import LEADER, AnytimeKind
from engine.rules.karama import OWNER, Advantage, advantage_words

if TYPE_CHECKING:
    from bot.discord.client import MentatBot

Choice = app_commands.Choice
KARAMA, SPECIAL = AnytimeKind.KARAMA, AnytimeKind.SPECIAL_KARAMA


def _owner(advantage: str) -> str:
    return OWNER[Advantage(advantage)].value


def _readied_words(advantage: str) -> str:
    """What a readied Karama will do, for its owner's receipt; an advantage the engine does not know is refused
    before this is read."""
    try:
        return f"Karama readied: it cancels the next time {advantage_words(Advantage(advantage))}"
    except ValueError:
        return "Karama readied"


def _after_colon(value: str) -> str:
    return value.partition(":")[2]


# Autocompletes that offer only what the caller may do now (engine/rules/anytime.py), as the any-time panel does.
KARAMA_CARDS = legal_options(KARAMA, "card")
KARAMA_AGAINST = legal_options(KARAMA, "advantage", _owner)
KARAMA_ADVANTAGES = legal_options(KARAMA, "advantage",
                                  keep=lambda i, a: filled(i, "against") in (None, "", _owner(a)))
GHOLA_LEADERS = legal_options(AnytimeKind.GHOLA, "revive", _after_colon, keep=lambda i, v: v.startswith(LEADER))
TRUTHTRANCE_TARGETS = legal_options(AnytimeKind.TRUTHTRANCE, "target")
SPECIAL_CARDS = legal_options(SPECIAL, "card")
SPECIAL_TARGETS = legal_options(SPECIAL, "target")
SPECIAL_TERRITORIES = legal_options(SPECIAL, "territory")
SPECIAL_LEADERS = legal_options(SPECIAL, "revive", _after_colon, keep=lambda i, v: v.startswith(LEADER))


@app_commands.guild_only()
class CardCog(commands.GroupCog, group_name="card", group_description="Play a Treachery card or a faction power"):
    def __init__(self, bot: MentatBot):
        self.bot = bot
        super().__init__()

    @app_commands.command(name="karama")
    @app_commands.describe(card="The Karama card from your hand", against="The faction whose advantage you cancel",
                           advantage="The advantage cancelled the next time it is used")
    @app_commands.autocomplete(card=KARAMA_CARDS, against=KARAMA_AGAINST, advantage=KARAMA_ADVANTAGES)
    async def karama(self, interaction: discord.Interaction, card: str, against: str, advantage: str) -> None:
        """Ready a Karama against another faction's advantage (secret)."""
        hand = await own_hand(interaction)
        await submit_for_seat(self.bot, interaction, lambda f: UseKarama(faction=f, card=card_in(hand, card),
                                                                         against=parse_faction(against),
                                                                         advantage=advantage),
                              _readied_words(advantage))

    @app_commands.command(name="storm-cards")
    @app_commands.describe(weather_control="Weather Control: how far the storm moves (0-10)",
                           family_atomics="Play Family Atomics")
    async def storm_cards(self, interaction: discord.Interaction,
                          weather_control: app_commands.Range[int, 0, 10] | None = None,
                          family_atomics: bool = False) -> None:
        """Answer the storm-card window: Weather Control, Family Atomics, both, or neither."""
        await submit_for_seat(self.bot, interaction,
                              lambda f: PlayStormCards(faction=f, weather_control=weather_control,
                                                       family_atomics=family_atomics))

    @app_commands.command(name="hajr")
    async def hajr(self, interaction: discord.Interaction) -> None:
        """Play Hajr during your movement: one more move."""
        await submit_for_seat(self.bot, interaction, lambda f: PlayHajr(faction=f), "Hajr played")

    @app_commands.command(name="ghola")
    @app_commands.describe(leader="A leader to revive", tokens="Or 1 to 5 tokens to revive")
    @app_commands.autocomplete(leader=GHOLA_LEADERS)
    async def ghola(self, interaction: discord.Interaction, leader: str | None = None,
                    tokens: app_commands.Range[int, 0, 5] = 0) -> None:
        """Play Tleilaxu Ghola: a leader or up to 5 tokens from the tanks, free."""
        await submit_for_seat(self.bot, interaction,
                              lambda f: PlayGhola(faction=f, leader=leader_id(leader), tokens=tokens),
                              f"Ghola: {leader if leader else counted(tokens, 'token')}")

    @app_commands.command(name="truthtrance")
    @app_commands.describe(target="Who must answer", question="A yes/no question")
    @app_commands.autocomplete(target=TRUTHTRANCE_TARGETS)
    async def truthtrance(self, interaction: discord.Interaction, target: str,
                          question: app_commands.Range[str, 1, 300]) -> None:
        """Play Truthtrance: the target answers a yes/no question in public."""
        await submit_for_seat(self.bot, interaction,
                              lambda f: PlayTruthtrance(faction=f, target=parse_faction(target), question=question),
                              f"Truthtrance asked of {target}")

    @app_commands.command(name="answer-truthtrance")
    @app_commands.describe(answer="Your answer")
    async def answer_truthtrance(self, interaction: discord.Interaction, answer: Literal["yes", "no"]) -> None:
        """Answer a Truthtrance question."""
        await submit_for_seat(self.bot, interaction, lambda f: AnswerTruthtrance(faction=f, answer=answer))

    @app_commands.command(name="worm")
    @app_commands.rename(to_location="to")
    @app_commands.describe(to_location="Where the Fremen ride to; leave out to stay")
    @app_commands.autocomplete(to_location=ride_choices)
    async def worm(self, interaction: discord.Interaction, to_location: str | None = None) -> None:
        """The Fremen ride Shai-Hulud, or stay."""
        await submit_for_seat(self.bot, interaction, lambda f: RideWorm(faction=f, to_location=to_location))

    @app_commands.command(name="advisor")
    @app_commands.describe(send="yes: to the Polar Sink; with the shipment: where the tokens land, co-existing "
                                "(character advantages)")
    async def advisor(self, interaction: discord.Interaction, send: Literal["yes", "with the shipment", "no"]) -> None:
        """The Bene Gesserit spiritual advisor."""
        await submit_for_seat(self.bot, interaction,
                              lambda f: SendAdvisor(faction=f, accept=send != "no", with_shipment=send != "yes"))

    @app_commands.command(name="ship-back")
    @app_commands.rename(from_location="from")
    @app_commands.describe(from_location="Where the tokens are", tokens="How many go back to reserves")
    @app_commands.autocomplete(from_location=ship_back_choices)
    async def ship_back(self, interaction: discord.Interaction, from_location: str,
                        tokens: app_commands.Range[int, 1, 20]) -> None:
        """The Guild ships tokens from the board back to reserves."""
        await submit_for_seat(self.bot, interaction,
                              lambda f: ShipToReserves(faction=f, from_location=from_location, tokens=tokens))

    # --- the optional rules: the decisions they add -----------------------------------------------

    @app_commands.command(name="worm-place")
    @app_commands.describe(territory="The sand territory the Fremen send the worm to; leave out for nowhere")
    @app_commands.autocomplete(territory=worm_territory_choices)
    async def worm_place(self, interaction: discord.Interaction, territory: str | None = None) -> None:
        """The Fremen place a further Shai-Hulud (A-21, character advantages)."""
        await submit_for_seat(self.bot, interaction, lambda f: PlaceWorm(faction=f, territory=territory))

    @app_commands.command(name="guild-timing")
    @app_commands.describe(when="Take the Guild's shipment and movement now, or wait")
    async def guild_timing(self, interaction: discord.Interaction, when: Literal["now", "later"]) -> None:
        """The Guild take their turn now or later in the round (A-15, character advantages)."""
        await submit_for_seat(self.bot, interaction, lambda f: GuildTiming(faction=f, now=when == "now"))

    @app_commands.command(name="coexist")
    @app_commands.describe(territory="Where your tokens are", advisors="yes: they become co-existing advisors; "
                                                                         "no: advisors become fighters")
    @app_commands.autocomplete(territory=coexistence_choices)
    async def coexist(self, interaction: discord.Interaction, territory: str, advisors: Literal["yes", "no"]) -> None:
        """The Bene Gesserit co-exist in a territory, or stop (A-15, character advantages)."""
        await submit_for_seat(self.bot, interaction,
                              lambda f: SetCoexistence(faction=f, territory=territory, advisors=advisors == "yes"))

    @app_commands.command(name="special-karama")
    @app_commands.describe(card="The Karama card from your hand", target="Guild, Harkonnen: the faction aimed at",
                           territory="Fremen: the sand territory of the worm", tokens="Emperor: tokens to revive",
                           leader="Emperor: the leader to revive")
    @app_commands.autocomplete(card=SPECIAL_CARDS, target=SPECIAL_TARGETS, territory=SPECIAL_TERRITORIES,
                               leader=SPECIAL_LEADERS)
    async def special_karama(self, interaction: discord.Interaction, card: str, target: str | None = None,
                             territory: str | None = None, tokens: app_commands.Range[int, 0, 3] = 0,
                             leader: str | None = None) -> None:
        """Your faction's once-per-game special Karama power (A-14, special Karama powers)."""
        hand = await own_hand(interaction)
        await submit_for_seat(self.bot, interaction,
                              lambda f: UseSpecialKarama(faction=f, card=card_in(hand, card),
                                                         target=parse_faction(target) if target else None,
                                                         territory=territory, tokens=tokens,
                                                         leader=leader_id(leader)),
                              "special Karama power")

    @app_commands.command(name="return-cards")
    @app_commands.describe(cards="The cards you give back, separated by commas")
    @app_commands.autocomplete(cards=cards_given_back)
    async def return_cards(self, interaction: discord.Interaction, cards: str) -> None:
        """The Harkonnen give back as many cards as they took (special Karama power)."""
        hand = await own_hand(interaction)
        chosen = [card_in(hand, part) for part in cards.split(",") if part.strip()]
        await submit_for_seat(self.bot, interaction, lambda f: ReturnCards(faction=f, cards=chosen))


async def setup(bot: MentatBot) -> None:
    await bot.add_cog(CardCog(bot))

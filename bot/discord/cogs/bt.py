"""/bt: the Bene Tleilaxu's decisions (traps and gifts, traitor marks and reveals, attacks, a worthless trap's
impairment, an ally's free revival granted or not, spice-win order), their ally's free revival, and the Karama cards
played against them, for the caller's seated faction.

Every answer is ephemeral (marks and standing orders are secret); a refusal quotes the rule that forbids it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.words import parse_faction
from bot.discord.autocomplete import (
    attack_leaders,
    bidding_traps,
    gifts,
    impairments,
    mark_leaders,
    reveal_window_leaders,
    setup_traps,
)
from bot.discord.cogs.play import (
    any_leader_choices,
    card_in,
    leader_id,
    legal_options,
    own_hand,
)
from bot.discord.common import submit_for_seat
from bot.discord.text import parse_assignments
from engine.actions import (
    AnswerRevealKarama,
    AnswerRevealWindow,
    BtAllyRevive,
    ChooseBtAttack,
    ChooseBtImpairment,
    GrantAllyRevival,
    KaramaDestroyTrap,
    KaramaTaxBt,
    LayTraps,
    MarkBtTraitor,
    RevealBtTraitor,
    SetSpiceWinOrder,
    TrapsAndGifts,
)
from engine.data import load_game_data
from engine.ids import Faction
from engine.rules.anytime import AnytimeKind

if TYPE_CHECKING:
    from bot.discord.client import MentatBot


def stronghold_name(text: str) -> str:
    """A stronghold's name in any case (the engine refuses anything that is not one)."""
    return next((s for s in load_game_data().board.strongholds if s.lower() == text.strip().lower()), text.strip())


def trap_assignments(hand: list[str], traps: str | None) -> dict[str, str]:
    """From "stronghold=card, ..." (cards by id or name from the hand)."""
    return {stronghold_name(s): card_in(hand, c) for s, c in parse_assignments(traps).items()}


def traps_and_gifts(faction: Faction, hand: list[str], traps: str | None, gifts: str | None) -> TrapsAndGifts:
    """From "stronghold=card, ..." and "card=faction, ..." (cards by id or name from the hand)."""
    return TrapsAndGifts(
        faction=faction,
        traps=trap_assignments(hand, traps),
        gifts={card_in(hand, c): parse_faction(to) for c, to in parse_assignments(gifts).items()},
    )


@app_commands.guild_only()
class BtCog(commands.GroupCog, group_name="bt", group_description="Bene Tleilaxu decisions, and Karamas against them"):
    def __init__(self, bot: MentatBot):
        self.bot = bot
        super().__init__()

    @app_commands.command(name="setup-traps")
    @app_commands.describe(traps="stronghold=card, ... (cards from your hand); leave out for none")
    @app_commands.autocomplete(traps=setup_traps)
    async def setup_traps(self, interaction: discord.Interaction, traps: str | None = None) -> None:
        """At setup, before any token is placed: lay traps on strongholds, or none (secret, BT-5)."""
        hand = await own_hand(interaction)
        await submit_for_seat(self.bot, interaction,
                              lambda f: LayTraps(faction=f, traps=trap_assignments(hand, traps)))

    @app_commands.command(name="traps-and-gifts")
    @app_commands.describe(traps="stronghold=card, ... (cards from your hand); leave out for none",
                           gifts="card=faction, ... ; leave out for none")
    @app_commands.autocomplete(traps=bidding_traps, gifts=gifts)
    async def traps_and_gifts(self, interaction: discord.Interaction, traps: str | None = None,
                              gifts: str | None = None) -> None:
        """Before bidding: lay traps and give cards, or nothing (secret)."""
        hand = await own_hand(interaction)
        await submit_for_seat(self.bot, interaction, lambda f: traps_and_gifts(f, hand, traps, gifts))

    @app_commands.command(name="mark")
    @app_commands.describe(leader="A leader just revived to mark as your traitor; leave out for none")
    @app_commands.autocomplete(leader=mark_leaders)
    async def mark(self, interaction: discord.Interaction, leader: str | None = None) -> None:
        """Mark a revived leader as your traitor, or not (secret)."""
        await submit_for_seat(self.bot, interaction, lambda f: MarkBtTraitor(faction=f, leader=leader_id(leader)))

    @app_commands.command(name="reveal")
    @app_commands.describe(leader="A leader you marked as your traitor")
    @app_commands.autocomplete(leader=legal_options(AnytimeKind.BT_REVEAL, "leader"))
    async def reveal(self, interaction: discord.Interaction, leader: str) -> None:
        """Reveal a marked leader as your traitor."""
        await submit_for_seat(self.bot, interaction, lambda f: RevealBtTraitor(faction=f, leader=leader_id(leader)),
                              f"revealed {leader}")

    @app_commands.command(name="reveal-window")
    @app_commands.describe(leader="The winning leader, if you marked that leader; leave out to let it pass")
    @app_commands.autocomplete(leader=reveal_window_leaders)
    async def reveal_window(self, interaction: discord.Interaction, leader: str | None = None) -> None:
        """After an open-field battle: reveal the winning leader, or let it pass."""
        await submit_for_seat(self.bot, interaction,
                              lambda f: AnswerRevealWindow(faction=f, leader=leader_id(leader)))

    @app_commands.command(name="attack")
    @app_commands.describe(leader="A leader who fought and survived; leave out for none")
    @app_commands.autocomplete(leader=attack_leaders)
    async def attack(self, interaction: discord.Interaction, leader: str | None = None) -> None:
        """After all battles: attack one surviving leader, or none."""
        await submit_for_seat(self.bot, interaction, lambda f: ChooseBtAttack(faction=f, leader=leader_id(leader)))

    @app_commands.command(name="impair")
    @app_commands.describe(impairment="What the trapped faction may not do next turn")
    @app_commands.autocomplete(impairment=impairments)
    async def impair(self, interaction: discord.Interaction, impairment: str) -> None:
        """A worthless trap card is revealed: the trapped faction may not ship, or not move, next turn."""
        await submit_for_seat(self.bot, interaction, lambda f: ChooseBtImpairment(faction=f, impair=impairment))

    @app_commands.command(name="ally-revive")
    @app_commands.describe(tokens="Up to 6 tokens", leader="A leader", second_leader="A second leader")
    @app_commands.autocomplete(leader=any_leader_choices, second_leader=any_leader_choices)
    async def ally_revive(self, interaction: discord.Interaction, tokens: app_commands.Range[int, 0, 6] = 0,
                          leader: str | None = None, second_leader: str | None = None) -> None:
        """The BT's ally revives free: up to 6 tokens and 2 leaders."""
        leaders = [leader_id(x) for x in (leader, second_leader) if x]
        await submit_for_seat(self.bot, interaction, lambda f: BtAllyRevive(faction=f, tokens=tokens, leaders=leaders))

    @app_commands.command(name="grant-revival")
    @app_commands.describe(answer="grant: your ally revives free this turn; refuse: it revives as usual and pays you")
    async def grant_revival(self, interaction: discord.Interaction, answer: Literal["grant", "refuse"]) -> None:
        """Grant your ally free revival this turn, or refuse it (secret, BT-60)."""
        await submit_for_seat(self.bot, interaction, lambda f: GrantAllyRevival(faction=f, grant=answer == "grant"))

    @app_commands.command(name="spice-order")
    @app_commands.describe(declare="Declare a spice win whenever you hold 35 spice after collection")
    async def spice_order(self, interaction: discord.Interaction, declare: bool) -> None:
        """The BT's standing spice-win order (secret)."""
        await submit_for_seat(self.bot, interaction, lambda f: SetSpiceWinOrder(faction=f, declare=declare),
                              f"spice-win declaration {'on' if declare else 'off'}")

    @app_commands.command(name="karama-tax")
    @app_commands.describe(card="The Karama card from your hand")
    @app_commands.autocomplete(card=legal_options(AnytimeKind.KARAMA_TAX_BT, "card"))
    async def karama_tax(self, interaction: discord.Interaction, card: str) -> None:
        """Karama: tax the BT 10 spice."""
        hand = await own_hand(interaction)
        await submit_for_seat(self.bot, interaction, lambda f: KaramaTaxBt(faction=f, card=card_in(hand, card)),
                              "Karama tax on the BT")

    @app_commands.command(name="karama-reveal")
    @app_commands.describe(answer="After a BT traitor reveal: cancel it with a Karama from your hand, or let it stand")
    async def karama_reveal(self, interaction: discord.Interaction, answer: Literal["cancel", "let it stand"]) -> None:
        """Karama: cancel the BT traitor reveal being asked about (BT-51), or let it stand."""
        await submit_for_seat(self.bot, interaction,
                              lambda f: AnswerRevealKarama(faction=f, cancel=answer == "cancel"),
                              f"the BT reveal: {answer}")

    @app_commands.command(name="karama-trap")
    @app_commands.describe(card="The Karama card from your hand", stronghold="The trapped stronghold")
    @app_commands.autocomplete(card=legal_options(AnytimeKind.KARAMA_DESTROY_TRAP, "card"),
                               stronghold=legal_options(AnytimeKind.KARAMA_DESTROY_TRAP, "stronghold"))
    async def karama_trap(self, interaction: discord.Interaction, card: str, stronghold: str) -> None:
        """Karama: destroy a BT trap."""
        hand = await own_hand(interaction)
        await submit_for_seat(self.bot, interaction,
                              lambda f: KaramaDestroyTrap(faction=f, card=card_in(hand, card),
                                                          stronghold=stronghold_name(stronghold)),
                              f"Karama against the trap in {stronghold}")


async def setup(bot: MentatBot) -> None:
    await bot.add_cog(BtCog(bot))

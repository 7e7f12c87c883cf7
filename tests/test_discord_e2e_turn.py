"""The turn's public decisions answered from their decision cards, end to end through SimCord (issue 13): for each
kind, the decider's DM card says what is decided, the facts that matter and the default, its controls offer the
legal choices, and a choice made there is accepted and announced in the channel; the slash commands' autocomplete
offers only what is legal for the caller now.

The table is #dune with a member for each of the seven factions (alice, a moderator, plays the Atreides) and dave,
who is not in the game. Each scenario is an engine state (the engine tests' position helpers) planted with the
messages its open decisions call for (tests/test_discord_e2e_dm.py `plant`); from there on everything goes through
Discord. What SimCord cannot do is listed in tests/test_discord_e2e.py and tests/test_discord_e2e_dm.py.
"""

from __future__ import annotations

import discord

from bot.discord.client import MentatBot
from bot.discord.components import PromptButton
from engine.model import GameState, Phase, PromptKind
from tests.conftest import BG, BT, A, F, G, H, enter_phase, start
from tests.helpers import discord_tables as e2e
from tests.helpers.discord_dms import choose, components, dm_for, open_prompt, parts, plant
from tests.helpers.discord_tables import contents, deliver, reply
from tests.helpers.discord_turn import auction, card_of, news, pings_of, shipping, table
from tests.helpers.positions.bt_traitors import ARRAKEEN, ATREIDES, at, drive, position
from tests.helpers.positions.movement import answer_defaults_until, arrange
from tests.helpers.positions.optional_combat import harkonnen_win
from tests.helpers.positions.optional_rules import guild_round, harkonnen_ship_to_arrakeen, two_worms
from tests.helpers.positions.spice_blow import GREAT_FLAT as GREAT_FLAT_CARD
from tests.helpers.positions.spice_blow import OLD_GAP, SH1, at_blow, fremen_in_great_flat

table = table  # the fixture: pytest finds it here by name

simcord_bot = e2e.simcord_bot  # the fixtures of tests/helpers/discord_tables.py
FLAT = "The Great Flat#14"


def facts(card) -> list[str]:
    """The card's lines after its heading (the DM's first line says which game it is about)."""
    return card.content.split("\n")[2:]


async def offered(member, channel, command: str, option: str, typed: str = "", **filled) -> list[str]:
    return [choice["value"] for choice in await member.autocomplete(channel, command, option, typed, **filled)]


# --- the storm -----------------------------------------------------------------------------------------


async def test_a_1_the_storm_dial_card_gives_the_range_and_what_the_dial_does(table):
    state, _ = drive(start((A, H, BT)), lambda s: any(p.kind == PromptKind.STORM_DIAL for p in s.prompts))
    dialer = next(p.faction for p in state.prompts if p.kind == PromptKind.STORM_DIAL)
    _, prompt, card = await card_of(table, state, dialer, PromptKind.STORM_DIAL)
    assert card.content.split("\n")[1] == "**Your decision: the storm dial** (rule A-1; `/rules A-1`)"
    assert facts(card)[0].startswith("- Dial 0 to 20, in secret: the two dials' sum is how far the storm moves "
                                     "counterclockwise, from the Storm Start Sector.")
    assert [b.label for b in components(card)] == [str(n) for n in range(21)]
    before = table.screens()
    clicked = await table.players[dialer].user.click(card, label="7")
    assert reply(clicked).startswith("Done: 7")
    await deliver(table.env)
    counter = next(text for text in contents(table.channel) if text.startswith("Storm dials:"))
    asked = "Storm dials: asked of 2 ({}); the status board shows who is still to answer."  # not edited until both dial
    assert counter in (asked.format("Atreides, Harkonnen"), asked.format("Harkonnen, Atreides"))
    assert "7" not in news(table, before) + counter


async def test_the_storm_cards_card_says_the_distance_and_the_cards_held(table):
    state = enter_phase(position(factions=(A, H, BT), hands={A: ["weather_control"]}), Phase.STORM)[0]
    state, _ = drive(state, lambda s: any(p.kind == PromptKind.STORM_CARDS for p in s.prompts))
    game_id, prompt, card = await card_of(table, state, A, PromptKind.STORM_CARDS)
    distance = prompt.detail["distance"]
    assert f"- The storm will move {distance} sectors from sector 1 unless a card changes it." in card.content
    assert "- You hold Weather Control: you may make the storm move 0 to 10 sectors instead." in card.content
    assert [b.label for b in components(card)][:2] == ["Do not play Weather Control",
                                                       "Weather Control: the storm moves 0"]
    clicked = await table.players[A].user.click(card, label="Weather Control: the storm moves 3")
    assert reply(clicked).startswith("Done: Weather Control: the storm moves 3")
    other = await open_prompt(table.env, game_id, H, PromptKind.STORM_CARDS)
    assert "- You have no storm card to play now" in dm_for(table.players[H], other.id).content
    assert "Weather Control" not in facts(dm_for(table.players[H], other.id))[1]


# --- bidding (A-5, A-6) --------------------------------------------------------------------------------


async def test_a_6_a_bid_card_gives_the_auction_and_the_bidders_means_and_its_buttons_bid(table):
    alice, bob = table.players[A], table.players[H]
    game_id, prompt, card = await card_of(table, auction(), A, PromptKind.BID)
    assert facts(card)[:3] == ["- Card 1 of 3 is up for auction; nobody has bid yet.",
                               "- Your spice: 10: you may bid 1 to 10, or pass.", "- Your hand: 0 of 4 cards."]
    assert "If nobody answers (the deadline passes, or a moderator forces it): pass." in card.content
    assert [b.label for b in components(card)] == ["Pass", "Bid 1", "Bid 2", "Bid 3", "Bid 4",
                                                   "Other amount (1 to 10)", "Pass on every card this turn",
                                                   "Bid up to N for me (1 to 10)"]
    before = table.screens()
    clicked = await alice.user.click(card, label="Bid 2")
    assert reply(clicked).startswith("Done: Bid 2")
    await deliver(table.env)
    assert "The Atreides bid 2 spice for card 1 of 3." in news(table, before)
    assert dm_for(alice, prompt.id).content.endswith("**You answered: bid 2.**")

    answer = await open_prompt(table.env, game_id, H, PromptKind.BID)
    card = dm_for(bob, answer.id)
    assert "- Card 1 of 3 is up for auction; the high bid is 2, by the Atreides." in card.content
    assert [b.label for b in components(card)][-3] == "Other amount (3 to 10)"
    refused = await type_amount(bob, card, "Other amount (3 to 10)", "11")
    assert reply(refused) == "Not yet: Your bid: a whole number from 3 to 10, written with the digits 0-9, not '11'."
    for typed in ("²", "①", "1²", "٣", "-4", "4.0"):  # isdigit() took the first three, and int() then raised
        refused = await type_amount(bob, dm_for(bob, answer.id), "Other amount (3 to 10)", typed)
        assert reply(refused) == ("Not yet: Your bid: a whole number from 3 to 10, written with the digits 0-9, "
                                  f"not {typed!r}.")
    assert (await table.env.bot.service.state_of(game_id)).prompt(answer.id) is not None  # nothing was taken
    typed = await type_amount(bob, dm_for(bob, answer.id), "Other amount (3 to 10)", "7")
    assert reply(typed).startswith("Done: Your bid: 7")
    await deliver(table.env)
    assert "The Harkonnen bid 7 spice for card 1 of 3." in news(table, before)


async def type_amount(member, card, label: str, typed: str):
    """Press the card's amount button and type into the modal it opens."""
    shown = await member.user.click(card, label=label)
    assert shown.modal["title"] == "Your bid"
    [text_input] = [c for row in shown.modal["components"] for c in row["components"]]
    assert text_input["label"] == "Your bid (3 to 10)"
    return await member.user.submit_modal(shown, {text_input["custom_id"]: typed})


# --- an amount typed late ------------------------------------------------------------------------------
# Discord keeps a modal open as long as the player likes (../shared/DESIGN.md "Real Discord"), and SimCord does
# not close one either: what these tests check is that the bot still answers the submit, however late, and
# after a restart (discord.py forgets its modals on both; the bot keeps none, it reads the custom id).

TWO_DAYS = 2 * 24 * 3600.0


async def open_amount(member, card, label: str):
    """Press the card's amount button: the modal it opens, and its one input."""
    shown = await member.user.click(card, label=label)
    [text_input] = [c for row in shown.modal["components"] for c in row["components"]]
    assert text_input["custom_id"] == "amount"  # stable, as the modal's own: a bot restarted since reads it
    return shown, text_input


async def test_an_amount_typed_two_days_after_its_modal_opened_is_taken(table):
    alice = table.players[A]
    game_id, prompt, card = await card_of(table, auction(), A, PromptKind.BID)
    shown, text_input = await open_amount(alice, card, "Other amount (1 to 10)")
    table.env.bot.drain_interval = TWO_DAYS  # the drain loop steps through the two days in one stride
    await table.env.advance_time(TWO_DAYS)
    assert (await table.env.bot.service.state_of(game_id)).prompt(prompt.id) is not None  # still open
    typed = await alice.user.submit_modal(shown, {text_input["custom_id"]: "7"})
    assert reply(typed).startswith("Done: Your bid: 7")
    assert (await table.env.bot.service.state_of(game_id)).prompt(prompt.id) is None


async def test_an_amount_typed_into_a_modal_opened_before_a_restart_is_taken(table):
    alice = table.players[A]
    game_id, prompt, card = await card_of(table, auction(), A, PromptKind.BID)
    shown, text_input = await open_amount(alice, card, "Bid up to N for me (1 to 10)")  # a shortcut's amount
    restarted = MentatBot(table.env.bot.service)
    await table.env.restart_bot(restarted)
    typed = await alice.user.submit_modal(shown, {text_input["custom_id"]: "6"})
    assert reply(typed).startswith("Done: ")
    assert (await restarted.service.state_of(game_id)).faction(A).bid_order.max_bid == 6


async def test_an_amount_typed_after_its_decision_closed_is_answered_that_it_closed(table):
    alice = table.players[A]
    game_id, prompt, card = await card_of(table, auction(), A, PromptKind.BID)
    shown, text_input = await open_amount(alice, card, "Other amount (1 to 10)")
    clicked = await alice.user.click(card, label="Bid 2")  # meanwhile, answered from the card
    assert reply(clicked).startswith("Done: Bid 2")
    actions = len(await table.env.bot.service.store.actions(game_id))
    late = await alice.user.submit_modal(shown, {text_input["custom_id"]: "7"})
    assert late.ephemeral and reply(late) == "That decision is already closed."
    assert len(await table.env.bot.service.store.actions(game_id)) == actions  # nothing more was taken


# --- revival (A-7) -------------------------------------------------------------------------------------


async def test_a_7_a_revival_card_gives_the_tanks_and_the_price_of_each_choice(table):
    alice = table.players[A]
    state = at(position(factions=(A, H, BT), tanks={A: 4}, dead={A: ATREIDES}, spice={A: 6}), Phase.MOVEMENT)
    game_id, prompt, card = await card_of(table, state, A, PromptKind.REVIVAL)
    assert facts(card)[1:4] == [
        "- You may revive up to 3 tokens this turn: 1 token costs nothing, 2 tokens cost nothing, 3 tokens cost 2 "
        "spice.",
        "- You may revive one leader: Thufir Hawat (5 spice), Lady Jessica (5 spice), Gurney Halleck (4 spice), "
        "Duncan Idaho (2 spice), Dr. Wellington Yueh (1 spice).",
        "- Your spice: 6."]
    assert facts(card)[0].startswith("- In your tanks: 4 tokens; leaders: ")
    assert parts(card) == ["Tokens: 2 tokens: free", "Leader: No leader", "Submit"]
    assert await offered(alice, table.channel, "play revive", "leader") == [
        "thufir_hawat", "lady_jessica", "gurney_halleck", "duncan_idaho", "dr_wellington_yueh"]
    assert await offered(table.players[H], table.channel, "play revive", "leader") == []  # nothing to revive
    await choose(alice, prompt.id, "Tokens", "3 tokens: 2 spice")
    leaders = [o.label for c in components(dm_for(alice, prompt.id)) if getattr(c, "placeholder", "")
               .startswith("Leader") for o in c.options]
    assert leaders == ["No leader", "Gurney Halleck: 4 spice", "Duncan Idaho: 2 spice",
                       "Dr. Wellington Yueh: 1 spice"]  # 2 + 5 > 6
    await choose(alice, prompt.id, "Leader", "Gurney Halleck: 4 spice")
    before = table.screens()
    submitted = await alice.user.click(dm_for(alice, prompt.id), label="Submit")
    assert reply(submitted).startswith("Done: Tokens: 3 tokens: 2 spice; Leader: Gurney Halleck: 4 spice")
    await deliver(table.env)
    assert "The Atreides revive 3 tokens (2 free, 1 for 2 spice) and Gurney Halleck for 4 spice" in news(table, before)


async def test_bt_60_the_bt_grant_their_ally_free_revival_from_their_card_and_only_the_ally_learns_it(table):
    """BT-60: the BT's secret card names the ally, its tanks and both answers; a click on "grant" tells the table
    only that the BT decided, and the Atreides' revival card, which opens then, says that the revival is free."""
    state = at(position(factions=(A, H, BT), tanks={A: 5}, dead={A: ["duncan_idaho"]}, alliances=[[A, BT]]),
               Phase.MOVEMENT)
    game_id, prompt, card = await card_of(table, state, BT, PromptKind.BT_ALLY_REVIVAL)
    assert card.content.split("\n")[1] == ("**Your decision: free revival for your ally** (rule BT-60; "
                                           "`/rules BT-60`)")
    assert facts(card)[:4] == [
        "- In the tanks of your ally, the Atreides: 5 tokens; leaders: Duncan Idaho.",
        "- Grant: this turn they may revive up to 6 tokens and 2 leaders, all free (BT-60, R-14).",
        "- Refuse: they revive as usual, up to 3 tokens (2 free, the others 2 spice each); the spice they pay is "
        "yours (BT-10).",
        "- Your answer stays secret: your ally learns it when asked about their revival, the table when they revive."]
    assert [b.label for b in components(card)] == ["Grant the Atreides free revival",
                                                   "Refuse: the Atreides revive as usual and pay you"]
    before = table.screens()
    await table.players[BT].user.click(card, label="Grant the Atreides free revival")
    await deliver(table.env)
    shown = table.news(before)
    assert "grant" not in shown["channel"].lower() and "free" not in shown["channel"].lower()
    assert "grant" not in shown[H.value].lower()
    revival = await open_prompt(table.env, game_id, A, PromptKind.REVIVAL)
    assert "- Your alliance with the Bene Tleilaxu makes this revival free (BT-60)." in facts(
        dm_for(table.players[A], revival.id))


async def test_bt_60_a_refusal_by_slash_command_tells_the_ally_on_its_revival_card(table):
    state = at(position(factions=(A, H, BT), tanks={A: 5}, alliances=[[A, BT]]), Phase.MOVEMENT)
    game_id = await plant(table, state)
    asked = await table.players[BT].slash(table.channel, "bt grant-revival", answer="refuse")
    assert reply(asked).startswith("Done: refuse: your ally revives as usual and pays you")
    await deliver(table.env)
    revival = await open_prompt(table.env, game_id, A, PromptKind.REVIVAL)
    assert facts(dm_for(table.players[A], revival.id))[1:3] == [
        "- You may revive up to 3 tokens this turn: 1 token costs nothing, 2 tokens cost nothing, 3 tokens cost 2 "
        "spice.",
        "- Your ally the Bene Tleilaxu did not grant you free revival this turn: you revive as usual, and what you "
        "pay goes to them (BT-60, BT-10)."]


# --- shipment and movement -----------------------------------------------------------------------------


async def test_a_shipment_card_gives_the_means_the_rates_and_what_is_closed_and_ships_from_its_menus(table):
    alice = table.players[A]
    state = shipping(forces={"Carthag#10": {H: 2}}, spice={A: 5})
    game_id, prompt, card = await card_of(table, state, A, PromptKind.SHIPMENT)
    assert facts(card)[:3] == ["- Your reserves: 20 tokens; your spice: 5.",
                               "- Shipping costs 1 spice a token into a stronghold, 2 elsewhere.",
                               "- Closed to you: sector 1 (the storm)."]
    # the reserves, their one source, shown and taken without asking; shipping nothing is one click
    assert parts(card) == ["From: Your reserves (20 tokens)", "To", "Sector", "Tokens", "Submit", "Ship nothing",
                           "Ship nothing, move nothing this turn"]
    assert [c.disabled for c in components(card)][:4] == [True, False, True, True]
    assert "Arrakeen#9" in await offered(alice, table.channel, "play ship", "to", "arr")
    assert await offered(alice, table.channel, "play ship", "from") == []  # the Guild alone ship from the board
    assert await offered(table.players[H], table.channel, "play ship", "to") == []  # not their shipment
    await choose(alice, prompt.id, "To", "Arrakeen")
    tokens = [o.label for c in components(dm_for(alice, prompt.id)) if getattr(c, "placeholder", "") == "Tokens"
              for o in c.options]
    assert tokens == [f"{n} token{'s' if n > 1 else ''}: {n} spice" for n in range(1, 6)]  # 5 spice: 5 tokens
    await choose(alice, prompt.id, "Tokens", "5 tokens: 5 spice")
    assert parts(dm_for(alice, prompt.id)) == ["From: Your reserves (20 tokens)", "To: Arrakeen", "Sector: Arrakeen",
                                               "Tokens: 5 tokens: 5 spice", "Submit", "Ship nothing",
                                               "Ship nothing, move nothing this turn"]
    before = table.screens()
    submitted = await alice.user.click(dm_for(alice, prompt.id), label="Submit")
    assert reply(submitted).startswith("Done: From: Your reserves (20 tokens); To: Arrakeen")
    await deliver(table.env)
    assert "The Atreides ship 5 tokens to Arrakeen for 5 spice, paid to the bank." in news(table, before)


async def test_a_23_the_guild_ship_back_to_reserves_from_their_card(table):
    gus = table.players[G]
    state = at(position(factions=(A, G, BT), forces={FLAT: {G: 5}}, spice={G: 3}), Phase.MOVEMENT)
    state = drive(state, lambda s: any(p.kind == PromptKind.SHIPMENT and p.faction == G for p in s.prompts))[0]
    game_id, prompt, card = await card_of(table, state, G, PromptKind.SHIPMENT)
    assert ("- You may also ship tokens from the board to another territory, or back to your reserves for 1 spice "
            "per 2 tokens (A-23).") in card.content
    assert "half that (rounded up) for the Guild and its allies" in card.content
    assert await offered(gus, table.channel, "card ship-back", "from") == [FLAT]
    await choose(gus, prompt.id, "From", "The Great Flat (5 tokens)")
    await choose(gus, prompt.id, "To", "Back to your reserves")
    await choose(gus, prompt.id, "Tokens", "5 tokens: 3 spice")
    before = table.screens()
    await gus.user.click(dm_for(gus, prompt.id), label="Submit")
    await deliver(table.env)
    assert ("The Spacing Guild ships 5 tokens from The Great Flat back to its reserves for 3 spice, paid to the "
            "bank (A-23).") in news(table, before)


async def test_a_22_a_movement_card_gives_the_range_and_why_and_moves_from_its_menus(table):
    alice = table.players[A]
    state = shipping(forces={ARRAKEEN: {A: 4}, FLAT: {A: 2}})
    state = drive(state, lambda s: any(p.kind == PromptKind.MOVEMENT for p in s.prompts))[0]
    game_id, prompt, card = await card_of(table, state, A, PromptKind.MOVEMENT)
    assert facts(card)[:2] == ["- You may move one group 3 territories (ornithopters: you have tokens in Arrakeen or "
                               "Carthag), around the storm and full strongholds.",
                               "- Your tokens: Arrakeen 4, The Great Flat 2."]
    assert await offered(alice, table.channel, "play move", "from") == [ARRAKEEN, FLAT]
    reach = await offered(alice, table.channel, "play move", "to", "", **{"from": ARRAKEEN})
    assert "Imperial Basin#9" in reach and ARRAKEEN not in reach
    await choose(alice, prompt.id, "From", "Arrakeen (4 tokens)")
    await choose(alice, prompt.id, "To", "Imperial Basin")
    await choose(alice, prompt.id, "Sector", "Imperial Basin (sector 8)")
    await choose(alice, prompt.id, "Tokens", "3 tokens")
    before = table.screens()
    await alice.user.click(dm_for(alice, prompt.id), label="Submit")
    await deliver(table.env)
    assert "The Atreides move 3 tokens from Arrakeen to Imperial Basin (sector 8)." in news(table, before)


async def test_a_15_the_bene_gesserit_declare_co_existence_from_their_movement_card_and_are_asked_again(table):
    betty = table.players[BG]
    state, _ = arrange(forces={ARRAKEEN: {A: 3, BG: 2}, FLAT: {BG: 1}}, character_advantages=True)
    state = answer_defaults_until(state, BG, PromptKind.MOVEMENT)
    game_id, prompt, card = await card_of(table, state, BG, PromptKind.MOVEMENT)
    assert "- You may also declare co-existence in a territory (A-15)" in card.content
    assert await offered(betty, table.channel, "card coexist", "territory") == ["Arrakeen", "The Great Flat"]
    await choose(betty, prompt.id, "From", "Co-exist in Arrakeen: your tokens there become advisors")
    before = table.screens()
    await betty.user.click(dm_for(betty, prompt.id), label="Submit")
    await deliver(table.env)
    assert "The Bene Gesserit in Arrakeen become advisors and co-exist (2 tokens, A-15)." in news(table, before)
    assert dm_for(betty, prompt.id).content.endswith(
        "**You answered: your tokens in Arrakeen become co-existing advisors. Your choices changed: this decision is "
        "asked again in a new card.**")
    again = await open_prompt(table.env, game_id, BG, PromptKind.MOVEMENT)
    choices = [o.label for c in components(dm_for(betty, again.id)) if getattr(c, "placeholder", "") == "From"
               for o in c.options]
    assert choices == ["The Great Flat (1 token)", "Co-exist in The Great Flat: your tokens there become advisors",
                       "Your advisors in Arrakeen become fighters"]
    assert "Move nothing" in parts(dm_for(betty, again.id))  # a button beside the menus


async def test_the_spiritual_advisor_card_names_the_shipper_and_sends_the_advisor(table):
    state = harkonnen_ship_to_arrakeen(character_advantages=False)
    _, prompt, card = await card_of(table, state, BG, PromptKind.SPIRITUAL_ADVISOR)
    assert "- The Harkonnen shipped: you may send one token from your reserves" in card.content
    assert [b.label for b in components(card)] == ["Send a token to Polar Sink", "Send no advisor"]
    before = table.screens()
    await table.players[BG].user.click(card, label="Send a token to Polar Sink")
    await deliver(table.env)
    assert "The Bene Gesserit send a spiritual advisor to the Polar Sink." in news(table, before)


async def test_a_15_the_guild_take_their_turn_now_from_their_card(table):
    _, prompt, card = await card_of(table, guild_round(character_advantages=True), G, PromptKind.GUILD_TIMING)
    assert "- The Atreides are about to take their turn: take yours now, before them, or wait." in card.content
    before = table.screens()
    await table.players[G].user.click(card, label="Take our turn now, before the Atreides")
    await deliver(table.env)
    assert "The Spacing Guild takes its turn now, before the Atreides (A-15)." in news(table, before)


# --- setup ---------------------------------------------------------------------------------------------


def placing(*factions, **options) -> GameState:
    state = start(factions, **options)
    return drive(state, lambda s: any(p.kind == PromptKind.STARTING_PLACEMENT for p in s.prompts))[0]


async def test_the_fremen_split_their_starting_tokens_in_their_card(table):
    fred = table.players[F]
    _, prompt, card = await card_of(table, placing(A, F, H, BT), F, PromptKind.STARTING_PLACEMENT)
    assert ("- Place your 10 tokens in Sietch Tabr, False Wall South and False Wall West, split as you like: each "
            "place offers what is left, the last one takes the rest.") in card.content
    assert parts(card) == ["False Wall South (sector 3): 0 tokens", "False Wall South (sector 4): 0 tokens",
                           "False Wall West (sector 15): 0 tokens", "False Wall West (sector 16): 0 tokens",
                           "More choices ▶", "Submit"]
    await choose(fred, prompt.id, "False Wall South (sector 3)", "4 tokens")
    more = await fred.user.click(dm_for(fred, prompt.id), label="More choices ▶")
    assert more.acknowledged
    assert parts(dm_for(fred, prompt.id)) == ["False Wall West (sector 17): 0 tokens", "Sietch Tabr: 6 tokens",
                                              "◀ Back", "Submit"]
    before = table.screens()
    await fred.user.click(dm_for(fred, prompt.id), label="Submit")
    await deliver(table.env)
    assert "The Fremen start with 4 in False Wall South (sector 3), 6 in Sietch Tabr." in news(table, before)


async def test_a_15_the_bene_gesserit_place_their_starting_token_anywhere_in_their_card(table):
    betty = table.players[BG]
    _, prompt, card = await card_of(table, placing(A, BG, H, BT, character_advantages=True), BG,
                                    PromptKind.STARTING_PLACEMENT)
    assert "- Place your starting token anywhere: 42 territories to choose from (A-15)." in card.content
    assert parts(card) == ["Territory: Polar Sink", "Sector: Polar Sink", "Submit"]
    await choose(betty, prompt.id, "Territory", "Arrakeen")
    before = table.screens()
    await betty.user.click(dm_for(betty, prompt.id), label="Submit")
    await deliver(table.env)
    assert "The Bene Gesserit start with 1 in Arrakeen." in news(table, before)


# --- Shai-Hulud ----------------------------------------------------------------------------------------


async def test_a_28_the_fremen_ride_the_worm_from_their_card(table):
    fred = table.players[F]
    state, _ = fremen_in_great_flat()
    game_id, prompt, card = await card_of(table, state, F, PromptKind.WORM_RIDE)
    assert ("- Shai-Hulud appeared in The Great Flat: your 4 tokens there may ride it to any other territory, not "
            "under the storm (sector 1)") in card.content
    assert "stay: no ride" in card.content  # the default
    assert "Polar Sink" in await offered(fred, table.channel, "card worm", "to", "polar")
    await choose(fred, prompt.id, "Ride to", "Arrakeen")
    before = table.screens()
    await fred.user.click(dm_for(fred, prompt.id), label="Submit")
    await deliver(table.env)
    assert "The Fremen ride Shai-Hulud: 4 tokens go from The Great Flat to Arrakeen." in news(table, before)


async def test_a_21_the_fremen_place_a_further_worm_from_their_card(table):
    fred = table.players[F]
    state, _ = two_worms(character_advantages=True)
    _, prompt, card = await card_of(table, state, F, PromptKind.WORM_PLACEMENT)
    assert "- Shai-Hulud appeared again in this blow: place it in a sand territory" in card.content
    assert parts(card) == ["Place Shai-Hulud: Nowhere: it devours nothing", "Submit"]
    assert await offered(fred, table.channel, "card worm-place", "territory", "funeral") == ["Funeral Plain"]
    await choose(fred, prompt.id, "Place Shai-Hulud", "Funeral Plain")
    before = table.screens()
    await fred.user.click(dm_for(fred, prompt.id), label="Submit")
    await deliver(table.env)
    assert "The Fremen place the worm in Funeral Plain" in news(table, before)


# --- the Nexus, Truthtrance, a captured leader -------------------------------------------------------------


async def test_a_8_an_offer_made_from_a_nexus_card_changes_the_receivers_card_in_place_and_is_accepted(table):
    """The receiver's Nexus decision is asked again (its choices changed): the same DM becomes the new card, with
    no new DM and no second call by name (a Nexus would otherwise ping everyone at each offer)."""
    alice, bob = table.players[A], table.players[H]
    state, _ = at_blow([SH1, OLD_GAP], discard=[GREAT_FLAT_CARD], factions=(A, H, BT))
    game_id, prompt, card = await card_of(table, state, A, PromptKind.NEXUS)
    assert "- Your allies: none. Offers standing to you: none." in card.content
    assert [b.label for b in components(card)] == ["Propose an alliance to the Harkonnen",
                                                   "Propose an alliance to the Bene Tleilaxu", "Done with this Nexus"]
    assert await offered(alice, table.channel, "nexus propose", "partner") == ["harkonnen", "bene_tleilaxu"]
    assert await offered(bob, table.channel, "nexus accept", "partner") == []  # no offer yet
    asked = await open_prompt(table.env, game_id, H, PromptKind.NEXUS)
    first = dm_for(bob, asked.id)
    dms, pings = len(bob.user.dm_channel.history()), pings_of(table, bob)
    before = table.screens()
    await alice.user.click(card, label="Propose an alliance to the Harkonnen")
    await deliver(table.env)
    assert "The Atreides propose an alliance to the Harkonnen (A-8)." in news(table, before)
    again = await open_prompt(table.env, game_id, H, PromptKind.NEXUS)
    assert again.id != asked.id
    changed = dm_for(bob, again.id)
    assert changed.id == first.id and "Offers standing to you: the Atreides." in changed.content
    assert len(bob.user.dm_channel.history()) == dms and pings_of(table, bob) == pings
    assert "Accept the offer of the Atreides" in [b.label for b in components(changed)]
    assert await offered(bob, table.channel, "nexus accept", "partner") == ["atreides"]
    await bob.user.click(changed, label="Accept the offer of the Atreides")
    await deliver(table.env)
    assert "The Harkonnen accept: the Atreides and the Harkonnen are now allies (A-8)." in news(table, before)


async def test_a_truthtrance_card_shows_the_question_and_who_asks_and_answers_it(table):
    state = position(factions=(A, H, BT), hands={A: ["truthtrance_1"]})
    game_id = await plant(table, state)
    asked = await table.players[A].slash(table.channel, "card truthtrance", target="harkonnen",
                                         question="Do you hold a traitor?")
    assert "Done" in reply(asked)
    await deliver(table.env)
    prompt = await open_prompt(table.env, game_id, H, PromptKind.TRUTHTRANCE)
    card = dm_for(table.players[H], prompt.id)
    assert ("- The Atreides played Truthtrance: answer yes or no, truthfully, in public: \u201cDo you hold a "
            "traitor?\u201d") in card.content
    assert [b.label for b in components(card)] == ["Yes", "No"]
    before = table.screens()
    await table.players[H].user.click(card, label="Yes")
    await deliver(table.env)
    assert "The Harkonnen answer the Truthtrance question \u201cDo you hold a traitor?\u201d: yes." in \
        news(table, before)


async def test_a_15_the_harkonnen_decide_about_the_captured_leader_named_on_their_card(table):
    state, _ = harkonnen_win(True)
    _, prompt, card = await card_of(table, state, H, PromptKind.LEADER_CAPTURE)
    assert "- You captured Burseg: keep him (he may lead for you), kill him for spice, or let him go home." in \
        card.content
    assert [b.label for b in components(card)] == ["Keep Burseg: he leads for you", "Kill Burseg: +2 spice",
                                                   "Let Burseg go home"]
    before = table.screens()
    await table.players[H].user.click(card, label="Kill Burseg: +2 spice")
    await deliver(table.env)
    assert "The Harkonnen kill Burseg and receive 2 spice (A-15)." in news(table, before)


async def test_no_card_or_control_of_a_turn_decision_ever_reaches_the_channel(table):
    await card_of(table, auction(), A, PromptKind.BID)
    assert not any(message.components for message in table.channel.history())
    assert not any(table.players[A].mention in text for text in contents(table.channel))  # the DM card is the call


async def test_a_8_a_click_on_a_nexus_card_asked_again_meanwhile_answers_the_new_decision(table):
    """Issue 25 item 17: when one player is done at a Nexus, every other Nexus decision is asked again under a new
    id (the done faction can no longer be offered an alliance); a player who clicked their card before it changed
    read "That decision is already closed." Now a button the new card still offers answers the new decision; one it
    no longer offers is refused as before."""
    alice, bob = table.players[A], table.players[H]
    state, _ = at_blow([SH1, OLD_GAP], discard=[GREAT_FLAT_CARD], factions=(A, H, BT))
    game_id, _, alices = await card_of(table, state, A, PromptKind.NEXUS)
    asked = await open_prompt(table.env, game_id, H, PromptKind.NEXUS)
    old = {b.label: b.custom_id for b in components(dm_for(bob, asked.id))}  # the card as Bob saw it
    await alice.user.click(alices, label="Done with this Nexus")  # Bob's decision is asked again meanwhile
    again = await open_prompt(table.env, game_id, H, PromptKind.NEXUS)
    assert again.id != asked.id
    bot = table.env.bot

    async def click_old(label: str) -> list:
        from tests.helpers.handler_calls import itx
        pressed = itx(bot, bob.id)
        match = PromptButton.__discord_ui_compiled_template__.fullmatch(old[label])
        button = await PromptButton.from_custom_id(pressed, discord.ui.Button(label=label), match)
        await button.callback(pressed)
        return pressed.answers

    assert await click_old("Propose an alliance to the Atreides") == [("That decision is already closed.", True)]
    [(done, _)] = await click_old("Done with this Nexus")
    assert done.startswith("Done: Done with this Nexus")
    assert (await bot.service.state_of(game_id)).prompt(again.id) is None  # the new decision was answered

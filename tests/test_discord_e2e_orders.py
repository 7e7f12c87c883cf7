"""Standing orders end to end through SimCord (issue 14, item 5): `/me orders` shows a player their own orders and
changes them; `/me hand` shows them too; the storm-card order answers its owner's storm decision as the window opens
(no card for it, a line in the owner's DMs alone), and so do the Bene Gesserit's spiritual advisor order and the
Nexus order (A-8), and the order to pass on a bid its owner cannot outbid (A-6); the bid card offers the bidding
orders beside its bids; the shipment card offers "no shipment, no move" in one click. The table reads each answer as
it would after a click.

The table is the seven-member #dune of tests/test_discord_e2e_turn.py, each scenario an engine state planted with
the messages its open decisions call for; from there on everything goes through Discord.
"""

from __future__ import annotations

import re

from engine.events import BY_STANDING_ORDER
from engine.model import Phase, PromptKind
from tests.conftest import BG, BT, A, H
from tests.helpers.discord_dms import actor, components, dm_for, labels, open_prompt, plant, shown
from tests.helpers.discord_tables import deliver, reply, simcord_bot
from tests.helpers.discord_turn import auction, card_of, news, pings_of, shipping, table
from tests.helpers.positions.bt_traitors import at, drive, position
from tests.helpers.positions.movement import CARTHAG, SINK, answer_defaults_until, arrange
from tests.helpers.positions.spice_blow import GREAT_FLAT as GREAT_FLAT_CARD
from tests.helpers.positions.spice_blow import OLD_GAP, SH1, at_blow

simcord_bot, table = simcord_bot, table  # the fixtures, shared with tests/test_discord_e2e_turn.py
ORDERS_MENU = "Choose what to do…"


async def orders_of(member, channel):
    """`/me orders`: the ephemeral panel of the member's own orders."""
    answered = await member.slash(channel, "me orders")
    assert answered.ephemeral
    return shown(answered)


def menu_values(panel) -> list[str]:
    [menu] = [c for c in components(panel) if getattr(c, "placeholder", None) == ORDERS_MENU]
    return [o.value for o in menu.options]


async def choose_order(member, panel, kind: str):
    [menu] = [c for c in components(panel) if getattr(c, "placeholder", None) == ORDERS_MENU]
    chosen = await actor(member, panel).select(panel, [kind], custom_id=menu.custom_id)
    return shown(chosen)


async def set_order(table, member, kind: str, topic: str, buttons: list[str], button: str, now: str):
    """`/me orders`: the order's line reads "ask me each time", its form offers `buttons` (and the way back to the
    list), `button` sets it; the list then reads `now`. The table's screens before the click, to compare after."""
    panel = await orders_of(member, table.channel)
    assert f"- {topic}: ask me each time." in panel.content
    form = await choose_order(member, panel, kind)
    assert labels(form) == [*buttons, "◀ All you may do now"]
    before = table.screens()
    done = await actor(member, form).click(form, label=button)
    # the panel itself says it is done and lists again what may be done now: the next order is one choice away
    panel = done.response
    assert panel.ephemeral and panel.content.startswith(f"Done: Standing order: {topic[0].lower()}{topic[1:]}: "
                                                        f"{button}")
    assert ORDERS_MENU in [getattr(c, "placeholder", None) for c in components(panel.message)]
    assert f"- {topic}: {now}." in (await orders_of(member, table.channel)).content
    return before


def storm_dials_open():
    """Turn 2's storm round, its two dials asked; the Atreides hold Weather Control."""
    state = at(position(factions=(A, H, BT), hands={A: ["weather_control"]}), Phase.STORM)
    return drive(state, lambda s: any(p.kind == PromptKind.STORM_DIAL for p in s.prompts))[0]


async def test_me_orders_shows_and_changes_the_callers_own_orders_and_the_storm_order_answers_for_them(table):
    alice = table.players[A]
    game_id = await plant(table, storm_dials_open())
    panel = await orders_of(alice, table.channel)
    assert panel.content.startswith("**Your standing orders** (secret: only you see them).")
    assert "- Bidding: ask me for each bid." in panel.content and "- Traitor calls: ask me each time." in panel.content
    assert "- Revival: ask me each time." in panel.content
    assert "- Bids you cannot outbid: ask me each time." in panel.content
    assert menu_values(panel) == ["storm_card_order", "nexus_order", "bid_order", "bid_limit", "outbid_order",
                                  "revival_order", "traitor_order"]
    before = await set_order(table, alice, "storm_card_order", "Storm cards", ["Never play one", "Ask me each time"],
                             "Never play one", "never play one")
    assert "Storm cards: never play one (standing order)" in reply(await alice.slash(table.channel, "me hand"))
    await deliver(table.env)
    assert "storm" not in news(table, before).lower()  # a secret order: the table hears nothing of it

    before = table.screens()
    for dialer in [p.faction for p in (await table.env.bot.service.state_of(game_id)).prompts]:
        prompt = await open_prompt(table.env, game_id, dialer, PromptKind.STORM_DIAL)
        await table.players[dialer].user.click(dm_for(table.players[dialer], prompt.id), label="1")
        await deliver(table.env)
    seen = table.news(before)
    assert "Atreides answered about the storm." in seen["channel"]
    assert "standing order" not in seen["channel"] and "Weather Control" not in seen["channel"]
    assert f"{BY_STANDING_ORDER}, you play no card on the storm." in seen[A.value]
    assert "**Your decision: storm cards" not in seen[A.value]  # no card: the order answered it
    assert "**Your decision: storm cards" in seen[H.value]  # the others are asked
    assert BY_STANDING_ORDER not in seen[H.value]
    state = await table.env.bot.service.state_of(game_id)
    assert {p.faction for p in state.prompts if p.kind == PromptKind.STORM_CARDS} == {H, BT}


async def test_a_6_the_bid_card_offers_the_bidding_orders_beside_its_bids(table):
    alice, bob = table.players[A], table.players[H]
    game_id, prompt, card = await card_of(table, auction(), A, PromptKind.BID)
    before = table.screens()
    clicked = await alice.user.click(card, label="Pass on every card this turn")
    assert reply(clicked).startswith("Done: Pass on every card this turn")
    await deliver(table.env)
    seen = table.news(before)
    assert "Atreides pass on card 1 of 3." in seen["channel"] and "standing order" not in seen["channel"]
    assert dm_for(alice, prompt.id).content.endswith("**You answered: a standing bid order: pass on every card "
                                                     "(this turn's auction only).**")
    assert f"{BY_STANDING_ORDER}, you pass on card 1 of 3." in seen[A.value]

    answer = await open_prompt(table.env, game_id, H, PromptKind.BID)
    card = dm_for(bob, answer.id)
    opened = await bob.user.click(card, label="Bid up to N for me (1 to 10)")
    assert opened.modal["title"] == "Bid up to"
    [limit] = [c for row in opened.modal["components"] for c in row["components"]]
    assert limit["label"] == "Bid up to (1 to 10)"
    typed = await bob.user.submit_modal(opened, {limit["custom_id"]: "4"})
    assert reply(typed).startswith("Done: Bid up to: 4")
    await deliver(table.env)
    seen = table.news(before)
    assert "Harkonnen bid 1 spice for card 1 of 3." in seen["channel"]
    assert not re.search(r"\b4\b", re.sub(r"<@\d+>", "", seen["channel"]))  # the limit stays the bidder's
    assert f"{BY_STANDING_ORDER}, you bid 1 spice for card 1 of 3." in seen[H.value]
    state = await table.env.bot.service.state_of(game_id)
    assert state.faction(H).bid_order.max_bid == 4 and state.faction(H).bid_order.lasts == "this_card"


async def test_the_shipment_card_answers_no_shipment_and_no_move_in_one_click(table):
    alice = table.players[A]
    state = shipping(forces={"Arrakeen#9": {A: 3}})
    game_id, prompt, card = await card_of(table, state, A, PromptKind.SHIPMENT)
    before = table.screens()
    clicked = await alice.user.click(card, label="Ship nothing, move nothing this turn")
    assert reply(clicked).startswith("Done: Ship nothing, move nothing this turn")
    await deliver(table.env)
    seen = table.news(before)
    assert "Atreides do not ship this turn." in seen["channel"] and "Atreides do not move this turn." in seen["channel"]
    assert dm_for(alice, prompt.id).content.endswith("**You answered: ship nothing and move nothing this turn.**")
    assert "**Your decision: your move**" not in seen[A.value]
    state = await table.env.bot.service.state_of(game_id)
    assert not any(p.faction == A for p in state.prompts)


async def test_the_advisor_order_set_from_me_orders_sends_the_next_advisor_with_a_line_to_its_owner_alone(table):
    """1979 rules (Bene Gesserit): the Bene Gesserit order every advisor to the Polar Sink from /me orders; when the
    Harkonnen ship, the advisor goes at once: the channel reads the advisor sent, as after a click on "Send a token
    to Polar Sink", and nothing of an order; only the Bene Gesserit's DMs tell that the order answered."""
    betty = table.players[BG]
    game_id = await plant(table, answer_defaults_until(arrange(spice={H: 10, BG: 5})[0], H))
    assert "advisor_order" not in menu_values(await orders_of(table.players[H], table.channel))
    before = await set_order(table, betty, "advisor_order", "Spiritual advisors",
                             ["Always to the Polar Sink", "Never send one", "Ask me each time"],
                             "Always to the Polar Sink", "always to the Polar Sink")
    await deliver(table.env)
    assert "advisor" not in news(table, before).lower()  # a secret order: the table hears nothing of it

    before = table.screens()
    shipped = await table.players[H].slash(table.channel, "play ship", to=CARTHAG, tokens=2)
    assert reply(shipped).startswith("Done")
    await deliver(table.env)
    seen = table.news(before)
    assert "The Bene Gesserit send a spiritual advisor to the Polar Sink." in seen["channel"]
    assert "standing order" not in seen["channel"].lower() and "Bene Gesserit" not in seen["channel"].replace(
        "The Bene Gesserit send a spiritual advisor to the Polar Sink.", "")  # not called to decide: answered
    assert f"{BY_STANDING_ORDER}, you send a spiritual advisor to the Polar Sink." in seen[BG.value]
    assert "**Your decision: a spiritual advisor" not in seen[BG.value]  # no card: the order answered it
    assert all(BY_STANDING_ORDER not in seen[f.value] for f in table.players if f != BG)
    state = await table.env.bot.service.state_of(game_id)
    assert state.tokens_at(SINK, BG) == 1 and not any(p.kind == PromptKind.SPIRITUAL_ADVISOR for p in state.prompts)


async def test_a_8_the_nexus_order_given_during_a_nexus_ends_its_owners_part_and_the_others_cards_change_in_place(
        table):
    """A-8: the Atreides, asked at a Nexus, order "done at once" from /me orders: their card closes as answered, the
    table reads "done with the Nexus" as after a click on "Done" and nothing of an order; the line that the order
    answered is in the Atreides' DMs alone; the Harkonnen's card, asked again without the Atreides to propose to,
    changes in place (no new DM, no new call by name)."""
    alice, bob = table.players[A], table.players[H]
    state, _ = at_blow([SH1, OLD_GAP], discard=[GREAT_FLAT_CARD], factions=(A, H, BT))
    game_id, _, card = await card_of(table, state, A, PromptKind.NEXUS)
    asked = await open_prompt(table.env, game_id, H, PromptKind.NEXUS)
    theirs = dm_for(bob, asked.id)
    assert "Propose an alliance to the Atreides" in labels(theirs) and "Done with this Nexus:" not in theirs.content
    dms, pings = len(bob.user.dm_channel.history()), pings_of(table, bob)
    before = await set_order(table, alice, "nexus_order", "The Nexus", ["Done at once", "Ask me each time"],
                             "Done at once", "done at once")
    await deliver(table.env)
    seen = table.news(before)
    assert "Atreides are done with the Nexus." in seen["channel"]
    assert "standing order" not in seen["channel"].lower()
    assert (f"{BY_STANDING_ORDER}, you end your part in this Nexus at once: no offer made, none accepted."
            in seen[A.value])
    assert all(BY_STANDING_ORDER not in seen[f.value] for f in table.players if f != A)
    closed = table.env.backend.messages[alice.user.dm_channel.id][card.id]
    assert "You answered: a standing order: end your part in each Nexus at once." in closed.content
    changed = dm_for(bob, (await open_prompt(table.env, game_id, H, PromptKind.NEXUS)).id)
    assert changed.id == theirs.id and "Propose an alliance to the Atreides" not in labels(changed)
    # why the Atreides are no longer offered: who is done is public, and the card says it
    assert "- Done with this Nexus: the Atreides; still talking: the Bene Tleilaxu." in changed.content
    assert len(bob.user.dm_channel.history()) == dms and pings_of(table, bob) == pings


async def test_a_6_the_outbid_order_set_from_me_orders_passes_a_bid_its_owner_cannot_outbid(table):
    """A-6: the Harkonnen, 3 spice, order "pass for me" on bids they cannot outbid from /me orders; the Atreides bid
    4: the Harkonnen's pass is made at once, the channel reads it as after a click on Pass and nothing of an order,
    the order's line goes to the Harkonnen's DMs alone and the Bene Tleilaxu are asked next."""
    alice, bob = table.players[A], table.players[H]
    state = at(position(factions=(A, H, BT), spice={A: 10, H: 3}), Phase.BIDDING)
    state = drive(state, lambda s: any(p.kind == PromptKind.BID for p in s.prompts))[0]
    game_id, _, card = await card_of(table, state, A, PromptKind.BID)
    before = await set_order(table, bob, "outbid_order", "Bids you cannot outbid", ["Pass for me", "Ask me each time"],
                             "Pass for me", "pass for me")
    await deliver(table.env)
    assert "outbid" not in news(table, before).lower()  # a secret order: the table hears nothing of it

    before = table.screens()
    assert reply(await alice.user.click(card, label="Bid 4")).startswith("Done")
    await deliver(table.env)
    seen = table.news(before)
    assert "Harkonnen pass on card 1 of 3." in seen["channel"] and "standing order" not in seen["channel"].lower()
    assert f"{BY_STANDING_ORDER}, you pass on card 1 of 3: you cannot outbid 4." in seen[H.value]
    assert "**Your decision: a bid" not in seen[H.value]  # no card: the order answered it
    assert all(BY_STANDING_ORDER not in seen[f.value] for f in table.players if f != H)
    state = await table.env.bot.service.state_of(game_id)
    assert H in state.bidding.passed and [p.faction for p in state.prompts if p.kind == PromptKind.BID] == [BT]

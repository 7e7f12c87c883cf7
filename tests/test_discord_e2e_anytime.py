"""The any-time panel end to end through SimCord (bot/discord/anytime_panel.py): the real MentatBot, its gateway and
outbox drain, driven by the seated members of the `room` of tests/test_discord_e2e.py. A player opens the panel
(the welcome DM's button, or /me act), sees only what their own seat may do now, and each action offered is taken
by clicks, menus and modals; the table sees what the rules make public and nothing else; the slash commands'
autocompletes offer only what is legal for the caller now.

Where SimCord falls short: nowhere beyond what tests/test_discord_e2e.py lists.
"""

from __future__ import annotations

from engine.ids import Faction
from engine.model import BattleVictory, Phase, PromptKind
from tests.conftest import enter_phase, ready_game
from tests.helpers import discord_tables as e2e
from tests.helpers.discord_dms import actor, components, labels, shown
from tests.helpers.discord_tables import contents, deliver, reply
from tests.helpers.positions.anytime import holding

simcord_bot, room, table = e2e.simcord_bot, e2e.room, e2e.table  # the fixtures of tests/helpers/discord_tables.py

A, H, BT = Faction.ATREIDES, Faction.HARKONNEN, Faction.BENE_TLEILAXU
OPEN = "Play a card or act now…"


def menu_values(message) -> list[str]:
    [menu] = [c for c in components(message) if getattr(c, "placeholder", None) == "Choose what to do…"]
    return [o.value for o in menu.options]


async def choose_action(member, panel, kind: str):
    """Choose an action in the panel's menu: the panel is edited into its form (returned as it reads now)."""
    [menu] = [c for c in components(panel) if getattr(c, "placeholder", None) == "Choose what to do…"]
    chosen = await actor(member, panel).select(panel, [kind], custom_id=menu.custom_id)
    assert chosen.acknowledged and not chosen.followups
    return shown(chosen)


def harkonnen_with_karama_and_truthtrance():
    """Turn 1's bidding, the BT deciding traps and gifts; the Harkonnen hold a Karama and a Truthtrance."""
    state, _ = enter_phase(ready_game((A, H, BT), seed=3), Phase.BIDDING)
    holding(state, H, "karama_1", "truthtrance_1")
    return state


async def test_the_welcome_dm_opens_the_panel_and_a_standing_order_is_set_there(table):
    alice = table.players[A]
    welcome = next(m for m in alice.user.dm_channel.history() if OPEN in labels(m))
    assert "`/me act`" in welcome.content
    opened = await alice.user.click(welcome, label=OPEN)
    panel = shown(opened)
    assert opened.ephemeral and panel.content.startswith("**What you may do now**")
    assert "- Bidding: ask me for each bid." in panel.content and "- Traitor calls: ask me each time." in panel.content
    assert "Karama" not in panel.content  # the Atreides hold none (their hand is Snooper... or not a Karama)
    edited = await choose_action(alice, panel, "traitor_order")
    assert "Always call when I can" in labels(edited)
    done = await actor(alice, edited).click(edited, label="Always call when I can")
    # the panel itself says so, and lists again what the player may do now, the order changed
    again = done.response
    assert again.ephemeral and again.content.startswith("Done: Standing order: traitor calls: Always call when I can")
    assert "- Traitor calls: always call when I can." in again.content and "traitor_order" in menu_values(again.message)
    hand = await alice.slash(table.channel, "me hand")
    assert "Traitor calls: automatic" in reply(hand)
    for other in (H, BT):  # a secret order: nobody else hears of it
        assert not any("traitor" in text.lower() and "automatic" in text.lower()
                       for text in table.screens()[other.value])


async def test_me_act_shows_the_callers_own_actions_and_a_karama_tax_is_played_from_it(room):
    game_id = await room.play_from(harkonnen_with_karama_and_truthtrance())
    bob, alice = room.players[H], room.players[A]
    mine = await bob.slash(room.channel, "me act")
    panel = shown(mine)
    assert mine.ephemeral and menu_values(panel) == ["karama", "karama_tax_bt", "karama_destroy_trap", "truthtrance",
                                                     "bribe", "storm_card_order", "nexus_order", "bid_order",
                                                     "bid_limit", "outbid_order", "revival_order", "traitor_order"]
    theirs = shown(await alice.slash(room.channel, "me act"))
    assert not {"karama", "karama_tax_bt", "truthtrance"} & set(menu_values(theirs))
    assert panel.content not in contents(room.channel)  # ephemeral: the channel never shows it

    before = room.screens()
    form = await choose_action(bob, panel, "karama_tax_bt")
    assert form.content.startswith("**Karama: tax the Bene Tleilaxu 10 spice** (rule BT-51")
    assert labels(form) == ["Karama", "◀ All you may do now"]
    played = await bob.click(form, label="Karama")
    assert played.response.ephemeral and reply(played).startswith("Done: Karama: tax the Bene Tleilaxu 10 spice: "
                                                                   "Karama")
    assert "karama_tax_bt" not in menu_values(played.response.message)  # the panel again, the Karama gone
    await deliver(room.env)
    news = room.news(before)
    assert "Harkonnen play Karama to tax the Bene Tleilaxu" in news["channel"]
    state = await room.env.bot.service.state_of(game_id)
    assert "karama_1" in state.treachery_discard


async def test_a_truthtrance_question_typed_in_the_panels_modal_is_put_to_the_target(room):
    await room.play_from(harkonnen_with_karama_and_truthtrance())
    bob = room.players[H]
    panel = shown(await bob.slash(room.channel, "me act"))
    form = await choose_action(bob, panel, "truthtrance")
    assert labels(form) == ["Atreides…", "Bene Tleilaxu…", "◀ All you may do now"]
    opened = await bob.click(form, label="Atreides…")
    assert opened.modal is not None
    [question] = [c for row in opened.modal["components"] for c in _leaves(row)]
    assert question["max_length"] == 300
    asked = await bob.submit_modal(opened, {question["custom_id"]: "Do you hold a traitor?"})
    assert reply(asked).startswith("Done: Truthtrance: ask a yes/no question: Atreides; Question: Do you hold")
    await deliver(room.env)
    assert any("must answer yes or no, truthfully: “Do you hold a traitor?”" in text for text in contents(room.channel))
    assert any("**Your decision: a Truthtrance answer**" in text for text in room.screens()["atreides"])


def _leaves(node: dict) -> list[dict]:
    """The text inputs of a modal row (a label wraps one in newer layouts)."""
    if node.get("type") == 4:
        return [node]
    inner = node.get("components") or ([node["component"]] if "component" in node else [])
    return [leaf for child in inner for leaf in _leaves(child)]


async def test_autocompletes_offer_only_what_the_caller_may_do_now(room):
    state = harkonnen_with_karama_and_truthtrance()
    duncan = "duncan_idaho"
    state.bt.marked = [duncan]  # he won Arrakeen for the Atreides' tokens there: his reveal would take effect
    assert state.tokens_at("Arrakeen#9", A)
    state.victories = [BattleVictory(territory="Arrakeen", faction=A, leader=duncan, stronghold=True)]
    await room.play_from(state)
    bob, carol, alice = room.players[H], room.players[BT], room.players[A]
    assert [c["value"] for c in await bob.autocomplete(room.channel, "bt karama-tax", "card", "")] == ["karama_1"]
    assert await alice.autocomplete(room.channel, "bt karama-tax", "card", "") == []
    assert [c["value"] for c in await carol.autocomplete(room.channel, "bt reveal", "leader", "")] == [duncan]
    assert await bob.autocomplete(room.channel, "bt reveal", "leader", "") == []  # not the BT: nothing to reveal
    targets = await bob.autocomplete(room.channel, "card truthtrance", "target", "")
    assert [c["value"] for c in targets] == ["atreides", "bene_tleilaxu"]
    against = await bob.autocomplete(room.channel, "card karama", "against", "")
    assert {c["value"] for c in against} == {"atreides", "bene_tleilaxu"}
    advantages = await bob.autocomplete(room.channel, "card karama", "advantage", "", against="bene_tleilaxu")
    assert [c["value"] for c in advantages] == ["bt_traitor_reveal"]
    bribes = await alice.autocomplete(room.channel, "play bribe", "to", "")
    assert [c["value"] for c in bribes] == ["harkonnen", "bene_tleilaxu"]
    readied = await bob.slash(room.channel, "card karama", card="karama_1", against="bene_tleilaxu",
                              advantage="bt_traitor_reveal")
    assert reply(readied).startswith("Done: Karama readied")
    assert await bob.autocomplete(room.channel, "card karama", "card", "") == []  # readied: not offered again


async def test_an_order_set_from_the_panel_leaves_the_open_decisions_alone(room):
    game_id = await room.play_from(harkonnen_with_karama_and_truthtrance())
    bob = room.players[H]
    panel = shown(await bob.slash(room.channel, "me act"))
    done = await bob.click(await choose_action(bob, panel, "bid_order"), label="Pass on every card")
    assert reply(done).startswith("Done: Standing order: passing on cards: Pass on every card")
    after = await room.env.bot.service.state_of(game_id)
    assert after.faction(H).bid_order.auto_pass
    assert [p.kind for p in after.prompts] == [PromptKind.BT_TRAPS_AND_GIFTS]  # still the BT's to answer

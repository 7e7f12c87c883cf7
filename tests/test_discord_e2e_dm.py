"""Secret decisions made in DMs, end to end through SimCord: the real MentatBot, its gateway, its outbox drain and
its persistent buttons and select menus (bot/discord/components.py), driven by the seated members of the `room`
of tests/test_discord_e2e.py (its fixtures and helpers are imported, not copied).

Each scenario is an engine state (the position helpers of tests/test_bt_traitors.py) stored through the bot's
game store with the messages its open decisions call for; from there on everything goes through Discord: slash
commands in the channel, clicks and menu choices in the DMs, the drain delivering.

Where SimCord falls short: nowhere beyond what tests/test_discord_e2e.py lists (a woken drain runs when the
virtual clock moves: `deliver`). A restart is `env.restart_bot` with a new MentatBot on the same store. A
stranger pressing a seat's menu cannot be staged here, rightly: SimCord, like Discord, lets a user press only
components of messages they can see, and a DM is seen by its player alone; the callbacks' seat check is tested
with fake interactions in tests/test_discord_prompt_views.py.
"""

from __future__ import annotations

import pytest
from simcord.backend.errors import SetupError

from bot.discord.client import MentatBot
from engine.ids import Faction
from engine.model import GameState, Phase, PromptKind
from tests.helpers import discord_tables as e2e
from tests.helpers.discord_dms import (
    attack_position,
    choose,
    components,
    dm_for,
    menu,
    open_prompt,
    parts,
    plant,
    revival_position,
)
from tests.helpers.discord_tables import contents, deliver, feed_text, reply
from tests.helpers.positions.bt_traitors import ARRAKEEN, DUNCAN, at, position

simcord_bot, room = e2e.simcord_bot, e2e.room  # the fixtures of tests/helpers/discord_tables.py

A, H, BT = Faction.ATREIDES, Faction.HARKONNEN, Faction.BENE_TLEILAXU


def dm_texts(member) -> list[str]:
    return [m.content for m in member.user.dm_channel.history()]


def battle_position() -> GameState:
    """Arrakeen: 5 Atreides tokens against 3 Harkonnen tokens, the Atreides (aggressor) asked for prescience."""
    return at(position(factions=(A, H, BT), forces={ARRAKEEN: {A: 5, H: 3}},
                       hands={A: ["lasgun", "shield_1"], H: ["crysknife", "snooper_1"]}), Phase.BATTLE)


async def test_a_battle_plan_made_in_dm_menus_is_secret_until_both_plans_are_revealed(room):
    env, channel = room.env, room.channel
    alice, bob = room.players[A], room.players[H]
    game_id = await plant(room, battle_position())
    asked = await alice.slash(channel, "play ask", element="weapon")
    assert asked.ephemeral and "Done: ask for their weapon" in reply(asked)
    await deliver(env)

    # the prescience answer: one click in the Harkonnen DM, among the truthful answers only
    answer = await open_prompt(env, game_id, H, PromptKind.PRESCIENCE_ANSWER)
    assert [b.label for b in components(dm_for(bob, answer.id))] == ["Crysknife", "No weapon"]
    clicked = await bob.user.click(dm_for(bob, answer.id), label="Crysknife")
    assert clicked.ephemeral and reply(clicked).startswith("Done: Crysknife")
    await deliver(env)
    assert "Harkonnen answered the prescience question." in "\n".join(contents(channel))
    assert any("Harkonnen will play Crysknife" in text for text in dm_texts(alice))
    before = room.screens()

    # the Harkonnen plan, part by part in the DM menus, then Submit
    plan = await open_prompt(env, game_id, H, PromptKind.BATTLE_PLAN)
    first = dm_for(bob, plan.id)
    for other in (alice, room.players[BT]):  # the menus of the Harkonnen plan went to the Harkonnen DM alone
        assert not any(f":{plan.id}:" in (c.custom_id or "") for m in other.user.dm_channel.history()
                       for c in components(m))
    # prescience binds the weapon to the Crysknife answered: every pair offered holds it
    assert parts(first) == ["Leader", "Weapon + defense", "Dial", "Submit"]
    assert [o.label for o in menu(first, "Weapon + defense").options] == ["Crysknife + no defense",
                                                                         "Crysknife + Snooper"]
    await choose(bob, plan.id, "Leader", "Feyd-Rautha (strength 6)")
    await choose(bob, plan.id, "Weapon + defense", "Crysknife + Snooper")
    await choose(bob, plan.id, "Dial", "2")
    edited = dm_for(bob, plan.id)
    assert edited.id == first.id  # the same DM, edited: it shows the choices so far
    assert parts(edited) == ["Leader: Feyd-Rautha (strength 6)", "Weapon + defense: Crysknife + Snooper", "Dial: 2",
                             "Submit"]
    submitted = await bob.user.click(edited, label="Submit")
    assert submitted.ephemeral
    assert reply(submitted).startswith("Done: Leader: Feyd-Rautha (strength 6); Weapon + defense: Crysknife + Snooper; "
                                       "Dial: 2")
    await deliver(env)
    news = room.news(before)
    # the answer is not told one by one: the window's post waits for the last (the status board has who is left)
    assert news["channel"] == "" and "Battle plans: all answered." not in feed_text(channel)
    for secret in ("Feyd-Rautha", "Snooper"):  # nothing of the plan before the reveal, to anybody else
        assert secret not in feed_text(channel) + news["atreides"] + news["bene_tleilaxu"]

    # the Atreides plan the same way; then both plans are revealed to the table
    plan = await open_prompt(env, game_id, A, PromptKind.BATTLE_PLAN)
    await choose(alice, plan.id, "Leader", "Duncan Idaho (strength 2)")
    await choose(alice, plan.id, "Weapon + defense", "Lasgun + no defense")
    await choose(alice, plan.id, "Dial", "5")
    before = room.screens()
    submitted = await alice.user.click(dm_for(alice, plan.id), label="Submit")
    assert reply(submitted).startswith("Done: Leader: Duncan Idaho (strength 2); Weapon + defense: Lasgun + no "
                                       "defense; Dial: 5")
    await deliver(env)
    revealed = room.news(before)["channel"]
    assert "Atreides submitted a battle plan." in revealed
    assert all(word in revealed for word in ("Feyd-Rautha", "Crysknife", "Snooper", "Duncan Idaho", "Lasgun"))
    state = await env.bot.service.state_of(game_id)
    assert all(p.kind != PromptKind.BATTLE_PLAN for p in state.prompts)
    assert not any(message.components for message in channel.history())  # no button or menu ever in the channel


async def test_a_submit_before_a_required_part_is_refused_and_changes_nothing(room):
    alice = room.players[A]
    game_id = await plant(room, battle_position())
    await alice.slash(room.channel, "play ask", element="none")
    await deliver(room.env)
    plan = await open_prompt(room.env, game_id, A, PromptKind.BATTLE_PLAN)
    taken = len(await room.actions())
    early = await alice.user.click(dm_for(alice, plan.id), label="Submit")
    assert early.ephemeral and reply(early) == "Not yet: Choose your leader, dial first."
    assert await open_prompt(room.env, game_id, A, PromptKind.BATTLE_PLAN) == plan
    assert len(await room.actions()) == taken


async def test_bt_20_a_mark_made_by_dm_click_after_a_revival_stays_the_bts_secret(room):
    env, channel = room.env, room.channel
    alice, carol = room.players[A], room.players[BT]
    game_id = await plant(room, revival_position())
    revived = await alice.slash(channel, "play revive", leader="Duncan Idaho")
    assert revived.ephemeral and "Done" in reply(revived)
    await deliver(env)
    window = await open_prompt(env, game_id, BT, PromptKind.BT_MARK)
    message = dm_for(carol, window.id)
    assert [b.label for b in components(message)] == ["Mark Duncan Idaho", "Mark no one"]
    before = room.screens()

    clicked = await carol.user.click(message, label="Mark Duncan Idaho")
    assert clicked.ephemeral and reply(clicked).startswith("Done: Mark Duncan Idaho")
    await deliver(env)
    assert (await env.bot.service.state_of(game_id)).bt.marked == [DUNCAN]
    news = room.news(before)
    # only the BT's card says that they marked Duncan Idaho (no DM repeats it): not the channel, not the others
    assert dm_for(carol, window.id).content.endswith("**You answered: mark Duncan Idaho as your traitor.**")
    assert news["channel"] == news["atreides"] == news["harkonnen"] == ""
    assert news["bene_tleilaxu"] == "**You answered: mark Duncan Idaho as your traitor.**"  # on its card alone


async def test_a_closed_decisions_card_says_how_it_closed_and_its_controls_are_disabled(room):
    """Issue 13 item 4: the card is edited when its decision closes; a click on it is impossible (a stale click by
    other means is refused: tests/test_discord_prompt_views.py)."""
    env, carol = room.env, room.players[BT]
    game_id = await plant(room, revival_position())
    await room.players[A].slash(room.channel, "play revive", leader="Duncan Idaho")
    await deliver(env)
    window = await open_prompt(env, game_id, BT, PromptKind.BT_MARK)
    message = dm_for(carol, window.id)
    assert message.content.startswith("**Dune in <#") and "**Your decision: marking a revived leader**" in \
        message.content
    declined = await carol.user.click(message, label="Mark no one")
    assert reply(declined).startswith("Done: Mark no one")
    await deliver(env)
    version, before = (await env.bot.service.store.load_game(game_id)).seq, room.screens()

    closed = dm_for(carol, window.id)
    assert closed.content.endswith("**You answered: mark no one.**")
    assert [c.disabled for c in components(closed)] == [True, True]
    with pytest.raises(SetupError, match="disabled"):
        await carol.user.click(closed, label="Mark Duncan Idaho")
    await deliver(env)
    assert (await env.bot.service.store.load_game(game_id)).seq == version
    assert (await env.bot.service.state_of(game_id)).bt.marked == []
    assert set(room.news(before).values()) == {""}


async def test_draft_choices_survive_a_restart_of_the_bot(room):
    env, alice = room.env, room.players[A]
    game_id = await plant(room, battle_position())
    await alice.slash(room.channel, "play ask", element="none")
    await deliver(env)
    plan = await open_prompt(env, game_id, A, PromptKind.BATTLE_PLAN)
    await choose(alice, plan.id, "Leader", "Duncan Idaho (strength 2)")
    await choose(alice, plan.id, "Dial", "4")

    restarted = MentatBot(env.bot.service)  # nothing of the draft is in memory: it is in the DM's custom ids
    await env.restart_bot(restarted)
    assert env.bot is restarted
    assert menu(dm_for(alice, plan.id), "Leader").placeholder == "Leader: Duncan Idaho (strength 2)"
    await choose(alice, plan.id, "Weapon + defense", "No weapon + Shield")
    submitted = await alice.user.click(dm_for(alice, plan.id), label="Submit")
    assert reply(submitted).startswith("Done: Leader: Duncan Idaho (strength 2); Weapon + defense: No weapon + Shield; "
                                       "Dial: 4")
    plan = (await restarted.service.state_of(game_id)).battle.current.plans[A]
    assert (plan.leader, plan.weapon, plan.defense, plan.dial) == (DUNCAN, None, "shield_1", 4)


async def test_bt_11_bt_16_an_attack_chosen_and_planned_in_dms_impairs_once_revealed(room):
    env, carol, bob = room.env, room.players[BT], room.players[H]
    game_id = await plant(room, attack_position())
    attack = await open_prompt(env, game_id, BT, PromptKind.BT_ATTACK)
    assert [b.label for b in components(dm_for(carol, attack.id))] == [
        "Attack Dr. Wellington Yueh (Atreides, The Great Flat)", "Attack Umman Kudu (Harkonnen, The Great Flat)",
        "Attack no leader"]
    chosen = await carol.user.click(dm_for(carol, attack.id), label="Attack Umman Kudu (Harkonnen, The Great Flat)")
    assert chosen.ephemeral and reply(chosen).startswith("Done: Attack Umman Kudu")
    await deliver(env)
    assert "The Bene Tleilaxu attack Umman Kudu in The Great Flat (BT-11)." in feed_text(room.channel)

    plan = await open_prompt(env, game_id, BT, PromptKind.BATTLE_PLAN)
    # the Baliset, their one card, fills the weapon slot (so it is no defense); BT-16: it must impair
    assert parts(dm_for(carol, plan.id)) == ["Weapon: Baliset", "Impairment", "Submit"]
    assert [o.label for o in menu(dm_for(carol, plan.id), "Impairment").options] == [
        "Impair: no shipping next turn", "Impair: no moving next turn"]
    await choose(carol, plan.id, "Impairment", "Impair: no moving next turn")
    before = room.screens()
    submitted = await carol.user.click(dm_for(carol, plan.id), label="Submit")
    assert reply(submitted).startswith("Done: Weapon: Baliset; Impairment: Impair: no moving next turn")
    await deliver(env)
    news = room.news(before)
    assert news["channel"] == "" and "Battle plans: all answered." not in feed_text(room.channel)
    assert news["atreides"] == news["harkonnen"] == ""

    defense = await open_prompt(env, game_id, H, PromptKind.BATTLE_PLAN)
    # his leader, nothing to play
    assert [b.label for b in components(dm_for(bob, defense.id))] == ["Umman Kudu (strength 1)"]
    await bob.user.click(dm_for(bob, defense.id), label="Umman Kudu (strength 1)")
    await deliver(env)
    revealed = room.news(before)["channel"]
    assert "Bene Tleilaxu: no leader, dial 0, Baliset, no defense" in revealed
    assert "the Harkonnen may not move on-board tokens next turn (BT-16)" in revealed


@pytest.fixture
async def prediction_game(room):
    """In #dune-bg of the same server: the Bene Gesserit (dave), the Harkonnen (bob) and the BT (carol) in a
    30-turn game, so the prediction's turn menu has more than 25 choices."""
    channel = room.guild.create_text_channel("dune-bg")
    dave, bob, carol = room.dave, room.players[H], room.players[BT]
    opened = await dave.slash(channel, "game new", factions="bene_gesserit, harkonnen, bt", options="turns=30",
                              seed=3)
    assert opened.ephemeral  # the lobby post is the table's news
    for member, faction in ((dave, "bene_gesserit"), (bob, "harkonnen"), (carol, "bene_tleilaxu")):
        await member.slash(channel, "game join", faction=faction)
    await dave.slash(channel, "game start")
    await deliver(room.env)
    return room, channel


async def test_a_long_menu_turns_its_pages_and_the_prediction_stays_secret(prediction_game):
    room, channel = prediction_game
    env, dave, bob = room.env, room.dave, room.players[H]
    game = await env.bot.service.store.game_in_channel(channel.id)
    prediction = await open_prompt(env, game.game_id, Faction.BENE_GESSERIT, PromptKind.BG_PREDICTION)
    turns = menu(dm_for(dave, prediction.id), "Turn")
    labels = [o.label for o in turns.options]
    assert len(labels) == 24 and labels[:23] == [f"Turn {n}" for n in range(1, 24)]
    assert labels[-1].startswith("later choices")
    later = await dave.user.select(dm_for(dave, prediction.id), [turns.options[-1].value],
                                   custom_id=turns.custom_id)
    assert later.acknowledged and not later.followups
    labels = [o.label for o in menu(dm_for(dave, prediction.id), "Turn").options]
    assert labels[0].startswith("◀ earlier") and labels[1:] == [f"Turn {n}" for n in range(24, 31)]
    await choose(dave, prediction.id, "Turn", "Turn 27")
    await choose(dave, prediction.id, "Winner", "Harkonnen")
    bob_before = dm_texts(bob)
    done = await dave.user.click(dm_for(dave, prediction.id), label="Submit")
    assert done.ephemeral and reply(done).startswith("Done: Winner: Harkonnen; Turn: Turn 27")
    await deliver(env)
    shown = contents(channel)
    assert "The Bene Gesserit made their secret prediction." in "\n".join(shown)
    assert not any("27" in text for text in shown + dm_texts(bob)[len(bob_before):])
    state = await env.bot.service.state_of(game.game_id)
    assert (state.bg_prediction.faction, state.bg_prediction.turn) == (H, 27)

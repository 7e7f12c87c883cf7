"""The battle round's decisions, the Bene Tleilaxu's and the secret setup choices, each answered from its DM card in
SimCord (the real MentatBot, its outbox and its persistent controls): per kind, what the card says (the facts the
decision needs, issue 13) and that every choice it offers is accepted (a one-click decision: each button, each
from a fresh copy of the game; a form of menus: random choices in every part, as tests/playthrough.py's players
make them, then Submit); the slash commands' autocomplete offers what the form offers, and nothing to a caller
without that decision.

Each scenario is an engine state (tests/test_battle_plans.py and the helpers it names) stored as a running game in
a channel of its own, seated with a member per faction, with the messages its open decisions call for.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import discord
import pytest

from bot.app.render import messages_for
from engine.actions import (
    AnswerPrescience,
    AskPrescience,
    ChooseBtAttack,
    Revive,
    SubmitBattlePlan,
    UseSpecialKarama,
    UseVoice,
)
from engine.data import load_game_data
from engine.game import apply, new_game
from engine.ids import Faction
from engine.model import GameState, Phase, PromptKind
from engine.options import GameSetup
from tests.conftest import BG, BT, A, E, H, apply_all, prompt_of, store_running_game
from tests.helpers import discord_tables as e2e
from tests.helpers.discord_dms import attack_position, components, revival_position
from tests.helpers.discord_tables import bidding_with_a_gift_to_make, deliver, reply
from tests.helpers.positions.battle_forms import worthless_trap_revealed
from tests.helpers.positions.battle_plans import ARRAKEEN, FLAT, battle, until_plans
from tests.helpers.positions.bt_traitors import at, drive, position
from tests.helpers.positions.special_karama import harkonnen_and_atreides
from tests.playthrough import Summary, Table

simcord_bot = e2e.simcord_bot  # the fixtures of tests/helpers/discord_tables.py
CARTHAG = "Carthag#10"


@dataclass
class Arena:
    """A server with a member for every faction; each scenario is a game in a channel of its own."""

    env: Any
    guild: Any
    players: dict[Faction, Any]
    moderator: Any
    games: int = 0
    planted: dict[str, Any] = field(default_factory=dict)  # game id -> its channel

    async def plant(self, state: GameState) -> str:
        """A running game from this state in a new channel, its open decisions' messages delivered: its id."""
        self.games += 1
        channel = self.guild.create_text_channel(f"dune-{self.games}")
        game_id = await store_running_game(self.env.bot.service.store, state,
                                           {f: self.players[f].id for f in state.factions},
                                           channel_id=channel.id, guild_id=self.guild.id)
        await self.env.bot.service.store.queue(game_id, messages_for([], None, state))
        self.env.bot.wake_outbox()
        await deliver(self.env)
        self.planted[game_id] = channel
        return game_id

    def card(self, faction: Faction, game_id: str, prompt_id: str):
        """The faction's DM card with the controls of this game's decision."""
        found = [m for m in self.players[faction].user.dm_channel.history()
                 if any(f":{game_id}:{prompt_id}:" in (c.custom_id or "") for c in components(m))]
        assert len(found) == 1, f"expected one card for {game_id} {prompt_id}, found {len(found)}"
        return found[0]

    async def state_of(self, game_id: str) -> GameState:
        return await self.env.bot.service.state_of(game_id)


@pytest.fixture
async def arena(simcord_env):
    env = simcord_env
    await env.bot.tree.sync()
    guild = env.create_guild()
    players = {f: guild.add_member(env.create_user(f"{f.value}-player")) for f in Faction}
    return Arena(env, guild, players, guild.add_member(env.create_user("moderator")))


async def every_button(arena: Arena, state: GameState, faction: Faction, kind: PromptKind) -> tuple[str, list[str]]:
    """Each button of the decision's card pressed in a fresh copy of the game, each accepted: the card's text and
    its buttons' labels."""
    prompt = prompt_of(state, faction, kind)
    game_id = await arena.plant(state)
    card = arena.card(faction, game_id, prompt.id)
    text, buttons = card.content, [(c.label, c.custom_id.replace(game_id, "{game}")) for c in components(card)]
    assert all(isinstance(c, discord.Button) for c in components(card))
    for index, (label, custom_id) in enumerate(buttons):
        if index:
            game_id = await arena.plant(state)
        pressed = await arena.players[faction].user.click(arena.card(faction, game_id, prompt.id),
                                                          custom_id=custom_id.format(game=game_id))
        assert reply(pressed).startswith("Done"), (label, reply(pressed))
        assert prompt.id not in {p.id for p in (await arena.state_of(game_id)).prompts}, label
    return text, [label for label, _ in buttons]


async def random_forms(arena: Arena, state: GameState, faction: Faction, kind: PromptKind, times: int = 4,
                       seed: int = 1) -> str:
    """The form of the decision's card filled at random (every part, window after window, then Submit) in `times`
    fresh copies of the game, each accepted at the first try: the card's text."""
    prompt = prompt_of(state, faction, kind)
    summary = Summary(seed=seed, factions=[faction.value], options="")
    text = ""
    for attempt in range(times):
        game_id = await arena.plant(state)
        card = arena.card(faction, game_id, prompt.id)
        text = text or card.content
        table = Table(arena.env, arena.planted[game_id], arena.moderator, {faction: arena.players[faction]}, summary,
                      random.Random(seed + attempt))
        await table.answer_card(faction, card.id)
    assert (summary.cards_answered, summary.offered_choice_refused) == (times, 0), summary.first_refusals
    return text


def facts(text: str) -> list[str]:
    return [line[2:] for line in text.splitlines() if line.startswith("- ")]


async def offered(arena: Arena, game_id: str, faction: Faction, slash: str, option: str, typed: str = "",
                  **filled) -> list[str]:
    """The values the autocomplete of the command `slash` offers the faction's player in the game's channel."""
    member = arena.players[faction]
    return [c["value"] for c in await member.autocomplete(arena.planted[game_id], slash, option, typed, **filled)]


def until_plans_or_voice(state: GameState) -> GameState:
    """The Atreides ask nothing: the Voice is next."""
    return apply(state, AskPrescience(faction=A)).state


# --- the battle round's public decisions ------------------------------------------------------------------------


async def test_a_13_which_battle_the_aggressor_fights_next(arena):
    state = battle(factions=(A, E, H, BT), forces={ARRAKEEN: {A: 5, H: 3}, CARTHAG: {A: 2, E: 4}})
    text, buttons = await every_button(arena, state, A, PromptKind.BATTLE_CHOICE)
    assert "**Your decision: which battle to fight** (rule A-13; `/rules A-13`)" in text
    assert facts(text)[:3] == [
        "You are the aggressor: you fight your battles one after another, in the order you choose (A-13).",
        "Arrakeen against the Harkonnen: your 5 tokens against their 3 tokens.",
        "Carthag against the Emperor: your 2 tokens against their 4 tokens."]
    assert buttons == ["Fight the Harkonnen in Arrakeen", "Fight the Emperor in Carthag"]
    game_id = await arena.plant(state)
    assert await offered(arena, game_id, A, "play choose-battle", "territory") == ["Arrakeen", "Carthag"]
    assert await offered(arena, game_id, A, "play choose-battle", "opponent", territory="Carthag") == ["emperor"]
    assert await offered(arena, game_id, H, "play choose-battle", "territory") == []  # not the aggressor


async def test_a_26_the_prescience_question(arena):
    state = battle(hands={H: ["crysknife", "snooper_1"]})
    text, buttons = await every_button(arena, state, A, PromptKind.PRESCIENCE)
    assert facts(text)[:4] == [
        "The battle in Arrakeen: the Atreides (the aggressor, who win ties) against the Harkonnen (A-13).",
        "Tokens there: the Atreides 5 tokens; the Harkonnen 3 tokens.",
        "The Harkonnen may lead with Feyd-Rautha (strength 6), Beast Rabban (strength 4), Piter De Vries "
        "(strength 3), Captain Iakin Nefud (strength 2) and Umman Kudu (strength 1), or with a cheap hero if they "
        "hold one.",
        "Prescience: ask the Harkonnen for one element of their plan (one of: leader, weapon, defense, dial); they "
        "must answer truthfully, and their plan is then bound to that answer. Only you and they learn it."]
    assert "The Harkonnen hold 2 cards." in facts(text)
    assert buttons == ["Ask for their leader", "Ask for their weapon", "Ask for their defense", "Ask for their dial",
                       "Ask nothing"]
    game_id = await arena.plant(state)
    assert await offered(arena, game_id, A, "play ask", "element") == ["leader", "weapon", "defense", "dial", "none"]


async def test_a_26_the_answer_to_prescience(arena):
    state = apply(battle(hands={H: ["crysknife", "snooper_1"]}), AskPrescience(faction=A, element="weapon")).state
    text, buttons = await every_button(arena, state, H, PromptKind.PRESCIENCE_ANSWER)
    assert "The Atreides may lead with Thufir Hawat (strength 5)" in text
    assert ("The Atreides use prescience: they ask for your weapon. Answer truthfully with what you will play (the "
            "choices are what you can); your battle plan will then be bound to it, and only the Atreides learn it."
            in facts(text))
    assert "Your possible answers: Crysknife and no weapon." in facts(text)
    assert buttons == ["Crysknife", "No weapon"]
    game_id = await arena.plant(state)
    assert await offered(arena, game_id, H, "play answer", "answer") == ["crysknife", "none"]
    assert await offered(arena, game_id, A, "play answer", "answer") == []


async def test_a_26_the_voice_on_an_allys_opponent(arena):
    state = until_plans_or_voice(battle(factions=(A, H, BG, BT), hands={H: ["crysknife"]}, alliances=[(A, BG)]))
    text, buttons = await every_button(arena, state, BG, PromptKind.VOICE)
    assert "The battle in Arrakeen: the Atreides (the aggressor, who win ties) against the Harkonnen (A-13)." in text
    assert any(f.startswith("The Voice: command the Harkonnen to play, or not to play, a kind of card") for f in
               facts(text))
    assert "The Harkonnen hold 1 card." in facts(text)
    assert len(buttons) == 13 and buttons[:2] == ["No Voice", "They must play a projectile weapon"]
    assert "They must not play a worthless card" in buttons
    game_id = await arena.plant(state)
    assert await offered(arena, game_id, BG, "play voice", "category", command="not") == [
        "projectile weapon", "poison weapon", "lasgun", "shield", "snooper", "worthless"]


# --- the battle plan and the traitor call -------------------------------------------------------------------


async def test_a_13_a_plan_bound_by_prescience_and_the_voice_offers_only_what_obeys_them(arena):
    """The Harkonnen answered a dial of 2, then the Voice commands a worthless card: every plan the form offers
    is accepted; the card says what binds it."""
    state = until_plans(battle(factions=(A, H, BG, BT), hands={H: ["crysknife", "shield_1", "baliset"]},
                               alliances=[(A, BG)]),
                        AskPrescience(faction=A, element="dial"), AnswerPrescience(faction=H, answer="2"),
                        UseVoice(faction=BG, command="play", category="worthless"))
    text = await random_forms(arena, state, H, PromptKind.BATTLE_PLAN)
    assert "Your dial: 2 (your tokens there)." in facts(text)  # one value: not "2 to 2"
    assert "Bound by your prescience answer: your dial is 2." in facts(text)
    assert "The Voice: you must play a worthless — you can, so the plan must obey it." in facts(text)
    assert "Your spice: 10. Your hand: Crysknife, Shield and Baliset." in facts(text)
    game_id = await arena.plant(state)
    card = arena.card(H, game_id, prompt_of(state, H, PromptKind.BATTLE_PLAN).id)
    dial = next(c for c in components(card) if getattr(c, "placeholder", "").startswith("Dial"))
    assert [o.label for o in dial.options] == ["2"]
    assert await offered(arena, game_id, H, "play plan", "dial") == [2]
    assert await offered(arena, game_id, H, "play plan", "weapon") == ["crysknife", "baliset"]
    assert await offered(arena, game_id, H, "play plan", "defense", weapon="crysknife") == ["baliset"]
    assert await offered(arena, game_id, A, "play plan", "weapon") == []  # the Atreides hold nothing to play


async def test_r_34_bt_16_the_bt_attack_plan_fills_its_weapon_slot_and_names_an_impairment(arena):
    state = apply(attack_position(), ChooseBtAttack(faction=BT, leader="umman_kudu")).state
    text = await random_forms(arena, state, BT, PromptKind.BATTLE_PLAN)
    assert any(f.startswith("The Bene Tleilaxu in The Great Flat attack Umman Kudu (strength 1) of the Harkonnen "
                            "(BT-11)") for f in facts(text))
    assert any(f.startswith("Fill your weapon slot (R-34)") for f in facts(text))
    assert ("A worthless card alone in the weapon slot impairs the leader's faction next turn instead: no "
            "shipping or no moving; you name which with the plan (BT-16, R-17).") in facts(text)
    game_id = await arena.plant(state)
    assert await offered(arena, game_id, BT, "play plan", "impairment", weapon="baliset") == ["no_shipping",
                                                                                             "no_moving"]


async def test_a_13_the_traitor_call_names_the_leader_and_offers_a_call_only_to_the_holder(arena):
    state = until_plans(battle(traitors={A: ["feyd_rautha"]}), AskPrescience(faction=A))
    state = apply_all(state, SubmitBattlePlan(faction=A, leader="duncan_idaho", dial=1),
                      SubmitBattlePlan(faction=H, leader="feyd_rautha", dial=1))[0]
    text, buttons = await every_button(arena, state, A, PromptKind.TRAITOR_CALL)
    assert facts(text)[:2] == [
        "The plans in Arrakeen are revealed: the Harkonnen are led by Feyd-Rautha (strength 6).",
        "You hold his traitor card. Calling him wins the battle outright: your side loses nothing, he dies, the "
        "Harkonnen lose every token there and the cards played with him, and you receive his strength in spice (A-13)."]
    assert buttons == ["Call traitor: Feyd-Rautha", "No traitor call"]
    text, buttons = await every_button(arena, state, H, PromptKind.TRAITOR_CALL)
    assert "The plans in Arrakeen are revealed: the Atreides are led by Duncan Idaho (strength 2)." in facts(text)
    assert any(f.startswith("You hold no traitor card for the leader opposing you: there is nothing to call.")
               for f in facts(text))
    assert buttons == ["No traitor call"]
    game_id = await arena.plant(state)
    assert await offered(arena, game_id, A, "play call", "call") == ["yes", "no"]
    assert await offered(arena, game_id, H, "play call", "call") == ["no"]


# --- the Bene Tleilaxu -----------------------------------------------------------------------------------------


async def test_bt_11_the_attack_names_each_target_and_the_cards_for_the_weapon_slot(arena):
    text, buttons = await every_button(arena, attack_position(), BT, PromptKind.BT_ATTACK)
    assert "Dr. Wellington Yueh (Atreides, strength 1) in The Great Flat." in facts(text)
    assert "Umman Kudu (Harkonnen, strength 1) in The Great Flat." in facts(text)
    assert "Your cards that can fill the weapon slot: Baliset." in facts(text)
    assert buttons[-1] == "Attack no leader"
    game_id = await arena.plant(attack_position())
    assert await offered(arena, game_id, BT, "bt attack", "leader") == ["dr_wellington_yueh", "umman_kudu"]


async def test_bt_20_bt_21_the_mark_names_the_leader_just_revived_and_how_long_the_chance_lasts(arena):
    state = apply(revival_position(), Revive(faction=A, leader="duncan_idaho")).state
    text, buttons = await every_button(arena, state, BT, PromptKind.BT_MARK)
    assert facts(text)[:3] == [
        "Just revived from the tanks: Duncan Idaho (strength 2) of the Atreides.",
        "Mark him as your secret traitor (BT-20): once he has won a territory for his faction you may reveal him, "
        "send him and those tokens to the tanks and take the territory (BT-23).",
        "This chance lasts until the next leader revival or the end of the turn, whichever comes first; the game "
        "does not wait for it (BT-21)."]
    assert buttons == ["Mark Duncan Idaho", "Mark no one"]
    game_id = await arena.plant(state)
    assert await offered(arena, game_id, BT, "bt mark", "leader") == ["duncan_idaho"]


async def test_r_7_the_reveal_window_after_a_marked_leader_wins_in_the_open(arena):
    state = position(factions=(A, H, BT), forces={FLAT: {A: 3, H: 5}}, marked=["feyd_rautha"])
    state = until_plans(at(state, Phase.BATTLE), AskPrescience(faction=A))
    state = drive(apply_all(state, SubmitBattlePlan(faction=A, leader="duncan_idaho"),
                            SubmitBattlePlan(faction=H, leader="feyd_rautha", dial=1))[0],
                  lambda s: any(p.kind == PromptKind.BT_REVEAL_WINDOW for p in s.prompts))[0]
    text, buttons = await every_button(arena, state, BT, PromptKind.BT_REVEAL_WINDOW)
    assert facts(text)[:2] == [
        "Feyd-Rautha (strength 6) led the Harkonnen to win The Great Flat, outside a stronghold: a betrayal there "
        "must be revealed before the next battle starts, or never (R-7).",
        "That leader is your traitor: revealing the betrayal now sends the leader and the faction's tokens there to "
        "the tanks, and you take control of The Great Flat (BT-23, BT-24)."]
    assert buttons == ["Reveal Feyd-Rautha", "Let the moment pass"]
    game_id = await arena.plant(state)
    assert await offered(arena, game_id, BT, "bt reveal-window", "leader") == ["feyd_rautha"]


async def test_bt_5_bt_30_the_setup_traps_say_what_a_trap_does_and_never_trap_a_stronghold_twice(arena):
    state = new_game(GameSetup(factions=(A, H, BT), seed=3)).state
    text = await random_forms(arena, state, BT, PromptKind.BT_TRAPS)
    assert "Before any faction places its starting tokens you may lay traps on any strongholds (BT-5)." in facts(text)
    assert any(f.startswith("A trap is a card from your hand laid face down on a stronghold, one trap a stronghold "
                            "(BT-30).") and "(BT-50)" in f for f in facts(text))
    game_id = await arena.plant(state)
    prompt = prompt_of(state, BT, PromptKind.BT_TRAPS)
    first = arena.card(BT, game_id, prompt.id)
    menus = [c for c in components(first) if isinstance(c, discord.SelectMenu)]
    carthag = next(o.value for o in menus[0].options if o.label == "Trap on Carthag")
    await arena.players[BT].user.select(first, [carthag], custom_id=menus[0].custom_id)
    later = [c for c in components(arena.card(BT, game_id, prompt.id)) if isinstance(c, discord.SelectMenu)][1:]
    assert all("Trap on Carthag" not in [o.label for o in menu.options] for menu in later)
    hand = [o for o in await offered(arena, game_id, BT, "bt setup-traps", "traps", "Carth")]
    assert hand and all(value.startswith("Carthag=") for value in hand)
    channel = arena.planted[game_id]
    laid = await arena.players[BT].slash(channel, "bt setup-traps", traps=hand[0])
    assert reply(laid).startswith("Done: a trap of ") and reply(laid).endswith(" on Carthag (game version 1).")


async def test_r_11_bt_40_traps_and_gifts_before_the_bidding(arena):
    state = bidding_with_a_gift_to_make()
    text = await random_forms(arena, state, BT, PromptKind.BT_TRAPS_AND_GIFTS)
    assert any(f.startswith("You may give cards to other players, never above their hand limit (BT-40): the "
                            "Atreides") for f in facts(text))
    game_id = await arena.plant(state)
    gifts = await offered(arena, game_id, BT, "bt traps-and-gifts", "gifts")
    assert gifts and all(g.split("=")[1] in ("Atreides", "Harkonnen") for g in gifts)


async def test_bt_16_bt_33_the_impairment_of_a_worthless_trap(arena):
    state = worthless_trap_revealed()
    text, buttons = await every_button(arena, state, BT, PromptKind.BT_IMPAIRMENT)
    assert "**Your decision: the impairment of a worthless trap** (rule BT-16; `/rules BT-16`)" in text
    assert ("Your worthless trap card in Carthag was revealed: choose what the Harkonnen may not do next turn "
            "(BT-16, BT-33).") in facts(text)
    assert buttons == ["Harkonnen: no shipping next turn", "Harkonnen: no moving next turn"]
    game_id = await arena.plant(state)
    assert await offered(arena, game_id, BT, "bt impair", "impairment") == ["no_shipping", "no_moving"]


# --- the Harkonnen's cards given back, the traitor pick, the prediction ------------------------------------------


async def test_a_14_the_harkonnen_give_back_as_many_cards_as_they_took(arena):
    state = apply(harkonnen_and_atreides(special_karama_powers=True),
                  UseSpecialKarama(faction=H, card="karama_1", target=A)).state
    text = await random_forms(arena, state, H, PromptKind.HAND_SWAP)
    assert facts(text)[:2] == ["You took the hand of the Atreides: Crysknife and Shield (A-14).",
                               "Give back as many cards as you took, 2, any of your hand of 4."]
    game_id = await arena.plant(state)
    assert await offered(arena, game_id, H, "card return-cards", "cards", "Kulon, ") == [
        "Kulon, Snooper", "Kulon, Crysknife", "Kulon, Shield"]


async def test_setup_the_traitor_pick_names_each_candidates_faction_and_strength(arena):
    state = new_game(GameSetup(factions=(A, H, BT), seed=3)).state
    text, buttons = await every_button(arena, state, A, PromptKind.TRAITOR_PICK)
    candidates = prompt_of(state, A, PromptKind.TRAITOR_PICK).options
    assert len(buttons) == 4 and facts(text)[0].startswith("Your four candidates: ")
    for leader in (load_game_data().leader(x) for x in candidates):
        faction = "Atreides" if leader.faction == A else "Harkonnen"
        assert f"{leader.name} ({faction}, strength {leader.strength})" in text
    game_id = await arena.plant(state)
    assert await offered(arena, game_id, A, "play traitor", "leader") == candidates
    assert await offered(arena, game_id, BT, "play traitor", "leader") == []  # the BT have no traitors (BT-1)


async def test_a_25_the_prediction_says_what_it_wins(arena):
    state = new_game(GameSetup(factions=(A, BG, H, BT), seed=3)).state
    text = await random_forms(arena, state, BG, PromptKind.BG_PREDICTION, times=2)
    assert facts(text)[0].startswith("Predict, in secret, a faction and a turn: if that faction wins on that turn")
    assert "The choices: Atreides, Harkonnen and Bene Tleilaxu." in facts(text)
    game_id = await arena.plant(state)
    assert await offered(arena, game_id, BG, "play predict", "faction") == ["atreides", "harkonnen", "bene_tleilaxu"]
    assert await offered(arena, game_id, BG, "play predict", "turn", "1") == [1, 10, 11, 12, 13, 14, 15]


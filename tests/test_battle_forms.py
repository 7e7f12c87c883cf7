"""The forms and cards of the battle round's decisions, the Bene Tleilaxu's and the secret setup choices
(bot/discord/prompt_forms.py, bot/app/battle_facts.py), without Discord: over random games with every option,
every choice a form offers (every combination, capped) makes an action the engine accepts; every form renders as
Discord accepts it; no card or control shows its reader another faction's secret, nor does the prompt it is
built from depend on one."""

from __future__ import annotations

from collections import Counter

import discord
import pytest

from bot.app import render
from bot.app.render import decision_card
from bot.discord.components import DYNAMIC_ITEMS, prompt_view
from bot.discord.form_core import MAX_CHOICES, Form
from bot.discord.prompt_forms import form_for
from engine.actions import (
    AnswerPrescience,
    AskPrescience,
    ChooseBtAttack,
    SubmitBattlePlan,
    UseSpecialKarama,
    UseVoice,
)
from engine.errors import RuleViolation
from engine.game import apply
from engine.ids import Faction
from engine.model import GameState, Prediction, Prompt, PromptKind
from engine.phases.battle import traitor_options
from engine.phases.battle_plans import plan_shape
from engine.rng import Rng
from engine.secrecy.views import view
from tests.conftest import (
    BG,
    BT,
    A,
    H,
    apply_all,
    card_text_without_places,
    cards_hidden_from,
    prompts_met,
    snapshot,
    unique_card_names,
)
from tests.helpers.positions.battle_forms import worthless_trap_revealed
from tests.helpers.positions.battle_plans import battle, bt_attack, until_plans
from tests.helpers.positions.bt_traitors import drive
from tests.helpers.positions.special_karama import harkonnen_and_atreides

BATTLE_KINDS = {PromptKind.BATTLE_CHOICE, PromptKind.PRESCIENCE, PromptKind.PRESCIENCE_ANSWER, PromptKind.VOICE,
                PromptKind.BATTLE_PLAN, PromptKind.TRAITOR_CALL, PromptKind.BT_ATTACK, PromptKind.BT_MARK,
                PromptKind.BT_REVEAL_WINDOW, PromptKind.BT_TRAPS, PromptKind.BT_TRAPS_AND_GIFTS,
                PromptKind.BT_IMPAIRMENT, PromptKind.HAND_SWAP, PromptKind.TRAITOR_PICK, PromptKind.BG_PREDICTION}
SNOWFLAKE_GAME = "g1456074443980800012"
MOST_DRAFTS = 200  # drafts tried per decision: every combination up to this, else a sample covering every choice


def battle_prompts():
    """(state, prompt) of the battle, BT and setup decisions in random games (tests/conftest.py)."""
    return prompts_met(BATTLE_KINDS, per_kind=40)


def scenario_prompts():
    """Decisions random games reach seldom or never: a worthless trap's impairment, the Harkonnen giving back cards
    (A-14), a traitor that can be called, plans bound by prescience and by the Voice, a BT attack with a choice of
    cards and the impairment."""
    swap = apply(harkonnen_and_atreides(special_karama_powers=True),
                 UseSpecialKarama(faction=H, card="karama_1", target=A)).state
    traitor = until_plans(battle(traitors={A: ["feyd_rautha"]}), AskPrescience(faction=A))
    traitor = apply_all(traitor, SubmitBattlePlan(faction=A, leader="duncan_idaho"),
                        SubmitBattlePlan(faction=H, leader="feyd_rautha"))[0]
    bound = until_plans(battle(hands={H: ["crysknife", "chaumas", "shield_1", "baliset"]}),
                        AskPrescience(faction=A, element="weapon"), AnswerPrescience(faction=H, answer="chaumas"))
    voiced = until_plans(battle(factions=(A, H, BG, BT), hands={H: ["crysknife", "shield_1", "baliset"]},
                                alliances=[(A, BG)]),
                         AskPrescience(faction=A), UseVoice(faction=BG, command="play", category="worthless"))
    attack = bt_attack(["crysknife", "baliset", "jubba_cloak"])
    states = [worthless_trap_revealed(), swap, traitor, bound, voiced, attack]
    return [(state, p) for state in states for p in state.prompts if p.kind in BATTLE_KINDS]


@pytest.fixture(scope="module")
def real_prompts():
    return battle_prompts() + scenario_prompts()


def drafts(form: Form, rng: Rng) -> list[list[int | None]]:
    """Drafts choosing in every part in turn, each part as offered after the earlier choices: every combination
    when there are at most MOST_DRAFTS, else, for every choice of every part, a draft making it with random others."""
    complete: list[list[int | None]] = []

    def every(chosen: list[int | None], part: int) -> bool:
        if len(complete) > MOST_DRAFTS:
            return False
        if part == len(form.fields):
            complete.append(chosen)
            return True
        return all(every([*chosen[:part], index, *chosen[part + 1:]], part + 1)
                   for index in range(len(form.fields_for(chosen)[part].choices)))

    if every([None] * len(form.fields), 0):
        return complete
    sampled = []
    for part in range(len(form.fields)):
        for index in range(len(form.fields[part].choices) * 2):  # every choice, whatever the parts before it
            chosen: list[int | None] = [None] * len(form.fields)
            for other in range(len(form.fields)):
                offered = len(form.fields_for(chosen)[other].choices)
                chosen[other] = index % offered if other == part else rng.below(offered)
            sampled.append(chosen)
    return sampled


def test_every_choice_a_battle_form_offers_is_accepted_by_the_engine(real_prompts):
    """Issue 13 item 2: only legal choices are offered. Submitted on the state it was offered in (which `apply`
    leaves untouched), each draft makes an action the rules accept."""
    assert {p.kind for _, p in real_prompts} == BATTLE_KINDS  # the games and the scenarios reach every kind
    rng, tried = Rng.from_seed(13), Counter()
    for state, prompt in real_prompts:
        form, before = form_for(prompt), snapshot(state)
        for draft in drafts(form, rng):
            action = form.action(draft)
            try:
                apply(state, action)
            except RuleViolation as refusal:
                pytest.fail(f"{prompt.kind.value} offered {action!r}, refused: {refusal}")
            tried[prompt.kind] += 1
        assert snapshot(state) == before
    assert all(tried[kind] >= 2 for kind in BATTLE_KINDS), tried


def test_every_battle_form_renders_as_discord_accepts_it_in_its_deciders_dm_alone(real_prompts):
    templates = [item.__discord_ui_compiled_template__ for item in DYNAMIC_ITEMS]
    for _, prompt in real_prompts:
        assert prompt_view(SNOWFLAKE_GAME, prompt, None) is None  # never in the channel, public or secret
        shown = prompt_view(SNOWFLAKE_GAME, prompt, prompt.faction.value)
        rows = {item.row if item.row is not None else 0 for item in shown.children}
        assert len(shown.children) <= MAX_CHOICES and len(rows) <= 5
        for item in shown.children:
            assert len(item.custom_id) <= 100
            assert [t.fullmatch(item.custom_id) is not None for t in templates].count(True) == 1, item.custom_id
            if isinstance(item.item, discord.ui.Select):
                assert 0 < len(item.item.options) <= MAX_CHOICES
                assert all(len(o.label) <= 100 for o in item.item.options)
            else:
                assert len(item.item.label) <= 80


# --- secrets: a card, its controls, and the prompt they are built from ----------------------------------------


def others_secrets_changed(state: GameState, reader: Faction) -> GameState:
    """The same game but for every other faction's cards (as many: the count is public), traitors and spice, the
    prediction if the reader is not the Bene Gesserit, the trap cards and BT marks if the reader is not the BT."""
    twin = state.model_copy(deep=True)
    others = [f for f in twin.factions if f != reader]
    pool = twin.treachery_deck + twin.treachery_discard + [c for f in others for c in twin.faction(f).hand]
    for faction in others:
        fs = twin.faction(faction)
        fs.hand = [pool.pop(0) for _ in fs.hand]
        fs.traitors, fs.spice = list(reversed(fs.traitors))[1:], fs.spice + 7
    if reader != BG and twin.bg_prediction is not None:
        twin.bg_prediction = Prediction(faction=reader, turn=twin.bg_prediction.turn % 15 + 1)
    if reader != BT:
        for trap in twin.traps.values():
            trap.card = pool.pop(0)
        if twin.bt is not None:
            twin.bt.marked = []
    return twin


def shown(state: GameState, prompt: Prompt) -> tuple[str, list[tuple[str, ...]]]:
    """A card's words, and each of its controls' label, values and custom id."""
    card = decision_card(state, prompt, None).text
    controls = []
    for item in prompt_view(SNOWFLAKE_GAME, prompt, prompt.faction.value).children:
        options = item.item.options if isinstance(item.item, discord.ui.Select) else []
        controls.append((getattr(item.item, "label", None) or item.item.placeholder, item.custom_id,
                         *(f"{o.label}={o.value}" for o in options)))
    return card, controls


def test_no_battle_card_or_control_changes_with_another_factions_secrets(real_prompts):
    """Built from the reader's view and the prompt alone: a card (words, labels, values, custom ids) is the same
    whatever another faction holds, keeps as traitors, predicted, laid as a trap or marked."""
    for state, prompt in real_prompts[::2]:
        twin = others_secrets_changed(state, prompt.faction)
        assert shown(state, prompt) == shown(twin, prompt), prompt


def test_the_prompts_offered_do_not_depend_on_another_factions_secrets(real_prompts):
    """What the engine writes into a battle plan's or a traitor call's prompt comes out the same from a game that
    differs only in other factions' secrets (the traitor question's options are the asker's own)."""
    checked = Counter()
    for state, prompt in real_prompts:
        battle_now = state.battle.current if state.battle else None
        if battle_now is None or state.prompt(prompt.id) is None:
            continue
        twin = others_secrets_changed(state, prompt.faction)
        if prompt.kind == PromptKind.BATTLE_PLAN and battle_now.step == "plans" and prompt.opened_at == state.seq:
            assert plan_shape(twin, twin.battle.current, prompt.faction) == prompt.detail
            checked[prompt.kind] += 1
        if prompt.kind == PromptKind.TRAITOR_CALL:
            assert traitor_options(twin, twin.battle.current, prompt.faction) == prompt.options
            checked[prompt.kind] += 1
    assert checked[PromptKind.BATTLE_PLAN] > 10 and checked[PromptKind.TRAITOR_CALL] > 10


def test_no_battle_card_or_control_names_a_card_hidden_from_its_reader(real_prompts):
    unique = unique_card_names()
    for state, prompt in real_prompts:
        hidden = cards_hidden_from(state, prompt.faction)
        card, controls = shown(state, prompt)
        text = card_text_without_places(card + repr(controls))
        # the controls carry indices, never ids: a hidden card would show by its name ("a lasgun" is only a kind)
        leaked = {c for c in hidden if c in unique and unique[c] in text}
        assert not leaked, (prompt, leaked)


def test_the_comparison_catches_a_card_built_from_another_factions_view(real_prompts, monkeypatch):
    """A planted fault: cards built from the Harkonnen's view, whoever reads them. The comparison above sees it."""
    state, prompt = next((s, p) for s, p in real_prompts if p.faction != H and p.kind == PromptKind.BATTLE_PLAN)
    twin = others_secrets_changed(state, prompt.faction)
    assert shown(state, prompt) == shown(twin, prompt)
    monkeypatch.setattr(render, "view", lambda game, faction: view(game, H))
    assert shown(state, prompt) != shown(twin, prompt)


def test_a_bt_attack_card_names_the_targets_and_the_cards_for_the_weapon_slot():
    state = battle(forces={"The Great Flat#14": {A: 6, H: 5}}, hands={BT: ["crysknife", "shield_1"]})
    state = drive(state, lambda s: any(p.kind == PromptKind.BT_ATTACK for p in s.prompts))[0]
    prompt = next(p for p in state.prompts if p.kind == PromptKind.BT_ATTACK)
    card = decision_card(state, prompt, None).text
    assert "Umman Kudu (Harkonnen, strength 1) in The Great Flat." in card
    assert "Your cards that can fill the weapon slot: Crysknife." in card
    assert form_for(prompt).action([len(prompt.options) - 1]) == ChooseBtAttack(faction=BT)

"""Decisions as DM forms (bot/discord/prompt_forms.py) and their buttons and menus (bot/discord/components.py):
every prompt kind the engine opens has one (a few public battle kinds still to come), each builds exactly the action
its choices say, long menus turn pages, the draft in the custom ids survives decoding and rejects what does not
fit, and the callbacks refuse a closed decision or a stranger without changing anything."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import discord
import pytest

from bot.app.service import GameService
from bot.discord.client import MentatBot
from bot.discord.components import (
    CLOSED,
    DYNAMIC_ITEMS,
    FormSelect,
    FormSubmit,
    FormWindow,
    PromptButton,
    form_menu,
    form_view,
    prompt_view,
)
from bot.discord.form_core import MAX_CHOICES, Draft, FormIncomplete, page_count, page_of
from bot.discord.prompt_forms import FORMS, form_for
from bot.store.memory import MemoryGameStore
from engine.actions import (
    AnswerRevealWindow,
    CallTraitor,
    ChooseBtAttack,
    LayTraps,
    MarkBtTraitor,
    PlayStormCards,
    PredictWinner,
    SubmitBattlePlan,
    TrapsAndGifts,
)
from engine.flow import DEFAULTS
from engine.game import apply, new_game
from engine.ids import Faction
from engine.model import Phase, Prompt, PromptKind
from engine.options import GameOptions, GameSetup
from engine.rng import Rng
from tests.conftest import random_step
from tests.helpers.discord_fakes import SNOWFLAKE_GAME, ComponentInteraction, press_as

A, H, BT, BG = Faction.ATREIDES, Faction.HARKONNEN, Faction.BENE_TLEILAXU, Faction.BENE_GESSERIT
ENGINE = Path(__file__).resolve().parent.parent / "engine"


def prompt(kind: PromptKind, faction: Faction = A, options=(), secret: bool = True, **detail) -> Prompt:
    return Prompt(id="p7", kind=kind, faction=faction, secret=secret, options=list(options), detail=detail,
                  opened_at=0)


def pick(form, **labels) -> list[int | None]:
    """The draft that chooses, in each named field, the choice with that label (the others untouched), part by part
    as a player does: a choice may change the parts after it."""
    chosen: list[int | None] = [None] * len(form.fields)
    for index in range(len(form.fields)):
        field = form.fields_for(chosen)[index]
        if field.name in labels:
            chosen[index] = [c.label for c in field.choices].index(labels[field.name])
    return chosen


# --- every decision has a form ----------------------------------------------------------------------------


def kinds_opened_by_the_engine() -> dict[PromptKind, bool]:
    """Every `open_prompt(state, PromptKind.X, ..., secret=..., ...)` in the engine's source: kind -> secret."""
    kinds = {}
    for path in ENGINE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "open_prompt"):
                continue
            secret = next((k.value for k in node.keywords if k.arg == "secret"), None)
            kind = node.args[1]
            assert isinstance(kind, ast.Attribute), f"{path.name}:{node.lineno}: a prompt kind by name, please"
            assert isinstance(secret, ast.Constant), f"{path.name}:{node.lineno}: secret=True or secret=False, please"
            kinds[PromptKind[kind.attr]] = secret.value
    return kinds


def test_every_prompt_kind_the_engine_opens_has_a_form():
    opened = kinds_opened_by_the_engine()
    assert len(opened) >= 25 and sum(opened.values()) >= 12  # the scan finds them, secret and public
    assert set(opened) - set(FORMS) == set(), "a decision with no buttons or menus"
    assert set(FORMS) - set(opened) == set(), "a form for a kind the engine never opens"
    assert {kind for kind, secret in opened.items() if secret} <= set(FORMS), "a secret decision with no DM form"


def real_secret_prompts(seeds=(0, 1, 2), max_actions: int = 1100, per_kind: int = 40):
    """(state, prompt) for distinct secret prompts (at most `per_kind` of a kind) of automatic 7-faction games
    with every BT option and 30 turns (so the prediction's turn menu pages)."""
    seen, found, counts = set(), [], Counter()
    for seed in seeds:
        state, _ = new_game(GameSetup(factions=tuple(Faction), seed=seed, options=GameOptions(turns=30)))
        rng = Rng.from_seed(seed)
        for _ in range(max_actions):
            if state.phase == Phase.ENDED or not state.prompts:
                break
            for open_prompt in state.prompts:
                key = (open_prompt.kind, open_prompt.faction, repr(open_prompt.options), repr(open_prompt.detail))
                if open_prompt.secret and key not in seen and counts[open_prompt.kind] < per_kind:
                    seen.add(key)
                    counts[open_prompt.kind] += 1
                    found.append((state, open_prompt))
            state = random_step(state, rng)
    return found


def optional_rule_prompts():
    """Secret prompts only the optional rules open, which random base games never reach: the Harkonnen give back
    cards after their special Karama (A-14)."""
    from engine.actions import UseSpecialKarama
    from tests.helpers.positions.special_karama import harkonnen_and_atreides

    state = harkonnen_and_atreides(special_karama_powers=True)
    state = apply(state, UseSpecialKarama(faction=Faction.HARKONNEN, card="karama_1", target=Faction.ATREIDES)).state
    return [(state, p) for p in state.prompts if p.secret]


def karama_window_prompts():
    """BT-51: the Karama window after a BT reveal that betrays tokens, rare in random games of a few turns: one
    faction holds a Karama ("cancel" offered), the others do not."""
    from tests.helpers.positions.bt_reveal_karama import revealed
    from tests.helpers.positions.bt_traitors import KARAMA

    state, _ = revealed(hands={Faction.EMPEROR: [KARAMA]})
    return [(state, p) for p in state.prompts if p.secret]


def bt_mark_prompts():
    """BT-20: the BT's window to mark a leader just revived, which random games reach in some seeds only."""
    from engine.actions import Revive
    from tests.helpers.positions.bt_traitors import DUNCAN, revival_position

    state = apply(revival_position(), Revive(faction=Faction.ATREIDES, leader=DUNCAN)).state
    return [(state, p) for p in state.prompts if p.secret]


def bt_ally_revival_prompts():
    """BT-60: the BT's decision to grant their ally free revival, which random games reach only with a BT
    alliance."""
    from tests.helpers.positions.bt_ally_revival import ally_in_revival

    state, _ = ally_in_revival()
    return [(state, p) for p in state.prompts if p.secret]


@pytest.fixture(scope="module")
def real_prompts():
    return (real_secret_prompts() + optional_rule_prompts() + karama_window_prompts() + bt_mark_prompts()
            + bt_ally_revival_prompts())


def custom_ids(view: discord.ui.View) -> list[str]:
    return [item.custom_id for item in view.children]


def test_every_secret_prompt_of_real_games_gets_a_dm_view_that_discord_accepts(real_prompts):
    secret = {kind for kind, is_secret in kinds_opened_by_the_engine().items() if is_secret}
    assert {p.kind for _, p in real_prompts} == secret  # the games reach every secret kind
    templates = [item.__discord_ui_compiled_template__ for item in DYNAMIC_ITEMS]
    for _, open_prompt in real_prompts:
        view = prompt_view(SNOWFLAKE_GAME, open_prompt, open_prompt.faction.value)
        assert view is not None, open_prompt
        rows = {item.row if item.row is not None else 0 for item in view.children}
        assert len(view.children) <= MAX_CHOICES and len(rows) <= 5
        for item in view.children:
            assert len(item.custom_id) <= 100
            assert [t.fullmatch(item.custom_id) is not None for t in templates].count(True) == 1, item.custom_id
            if isinstance(item.item, discord.ui.Select):
                assert len(item.item.options) <= MAX_CHOICES


ONE_CLICK_KINDS = {PromptKind.TRAITOR_PICK, PromptKind.STORM_DIAL, PromptKind.TRAITOR_CALL,
                   PromptKind.PRESCIENCE_ANSWER, PromptKind.BT_ATTACK, PromptKind.BT_REVEAL_WINDOW, PromptKind.BT_MARK,
                   PromptKind.BT_ALLY_REVIVAL}


def test_a_one_click_decision_offers_every_option_of_the_prompt_and_its_default(real_prompts):
    """Buttons stand for the prompt's options one for one, and the engine's own default answer is among them."""
    checked = set()
    for state, open_prompt in real_prompts:
        form = form_for(open_prompt)
        if open_prompt.kind not in ONE_CLICK_KINDS:
            continue
        assert form.one_click
        assert len(form.fields[0].choices) == len(open_prompt.options)
        actions = [form.action([i]) for i in range(len(open_prompt.options))]
        assert DEFAULTS[open_prompt.kind](state, open_prompt) in actions, open_prompt
        checked.add(open_prompt.kind)
    assert checked == ONE_CLICK_KINDS


def test_a_battle_plan_form_offers_the_engines_default_plan(real_prompts):
    plans = [(s, p) for s, p in real_prompts if p.kind == PromptKind.BATTLE_PLAN]
    assert len(plans) > 20
    for state, plan_prompt in plans:
        form = form_for(plan_prompt)
        default = DEFAULTS[PromptKind.BATTLE_PLAN](state, plan_prompt)
        wanted = {"Leader": ("leader", default.leader) if default.leader else ("hero", default.cheap_hero),
                  "Weapon": default.weapon or "", "Defense": default.defense or "", "Dial": default.dial,
                  "Weapon + defense": (default.weapon or "", default.defense or ""),
                  "Impairment": default.impair or "", "Kwisatz Haderach": default.kwisatz_haderach,
                  "Spice": default.spice}
        chosen: list[int | None] = [None] * len(form.fields)
        for index in range(len(form.fields)):  # part by part: a choice may change the parts after it
            field = form.fields_for(chosen)[index]
            chosen[index] = [c.value for c in field.choices].index(wanted[field.name])
        assert form.action(chosen) == default, plan_prompt


def test_the_prescience_answer_prompt_lists_the_truthful_answers():
    """engine/phases/battle.py opens it with the answers `_answer_options` allows, so a menu can offer them."""
    from tests.helpers.positions.bt_traitors import ARRAKEEN, at, position

    state = at(position(factions=(A, H, BT), forces={ARRAKEEN: {A: 5, H: 3}},
                        hands={H: ["crysknife", "snooper_1", "baliset"]}), Phase.BATTLE)
    from engine.actions import AskPrescience

    state, _ = apply(state, AskPrescience(faction=A, element="weapon"))
    [answer] = [p for p in state.prompts if p.kind == PromptKind.PRESCIENCE_ANSWER]
    assert answer.faction == H and answer.options == ["crysknife", "baliset", "none"]
    assert [c.label for c in form_for(answer).fields[0].choices] == ["Crysknife", "Baliset", "No weapon"]


# --- secrets: a view only for the decider's DM ----------------------------------------------------------


def test_a_view_goes_only_to_the_deciding_factions_dm():
    dial = prompt(PromptKind.STORM_DIAL, A, ["1", "2", "3"])
    assert prompt_view(SNOWFLAKE_GAME, dial, A.value) is not None
    assert prompt_view(SNOWFLAKE_GAME, dial, None) is None  # the channel
    assert prompt_view(SNOWFLAKE_GAME, dial, H.value) is None  # another player's DM
    public = prompt(PromptKind.STORM_DIAL, A, ["1", "2", "3"], secret=False)  # a public decision: DM controls too
    assert prompt_view(SNOWFLAKE_GAME, public, A.value) is not None
    assert prompt_view(SNOWFLAKE_GAME, public, None) is None and prompt_view(SNOWFLAKE_GAME, public, H.value) is None


# --- what each form builds ----------------------------------------------------------------------------


def plan_detail(leaders=(), heroes=(), dial=(0, 0), weapons=(), defenses=(), pairs=None, **more) -> dict:
    """A BATTLE_PLAN prompt's detail as engine/phases/battle_plans.py `plan_shape` writes it; by default every pair
    of a weapon (or none) and another defense (or none) is legal."""
    if pairs is None:
        pairs = [[w, d] for w in [*weapons, None] for d in [None, *defenses] if w is None or w != d]
    return dict(territory="Arrakeen", leaders=list(leaders), cheap_heroes=list(heroes), min_dial=dial[0],
                max_dial=dial[1], max_spice=0, kwisatz_haderach=False, may_play_cards=bool(leaders or heroes),
                weapons=list(weapons), defenses=list(defenses), card_pairs=pairs, prescience=None,
                prescience_answer=None, voice=None, voice_binds=False, attack=None, impairments=[],
                impairing=[]) | more


def test_battle_plan_form_builds_the_plan_chosen():
    form = form_for(prompt(PromptKind.BATTLE_PLAN, H, **plan_detail(
        ["feyd_rautha", "beast_rabban"], ["cheap_hero_1"], (0, 3), ["crysknife", "baliset"], ["shield_1", "baliset"])))
    """Both slots may hold a card: the legal pairs in one menu (one choice, not two), no cards first and chosen
    unless changed."""
    form = form_for(prompt(PromptKind.BATTLE_PLAN, H, **plan_detail(
        ["feyd_rautha", "beast_rabban"], ["cheap_hero_1"], (0, 3), ["crysknife", "baliset"], ["shield_1", "baliset"])))
    assert [f.name for f in form.fields] == ["Leader", "Weapon + defense", "Dial"]
    assert [c.label for c in form.fields[0].choices] == ["Feyd-Rautha (strength 6)", "Beast Rabban (strength 4)",
                                                         "Cheap Hero (cheap hero, strength 0)"]
    # one card a slot: the Baliset is offered as the weapon or the defense, never both
    assert [c.label for c in form.fields[1].choices] == [
        "No weapon + no defense", "Crysknife + no defense", "Crysknife + Shield", "Crysknife + Baliset",
        "Baliset + no defense", "Baliset + Shield", "No weapon + Shield", "No weapon + Baliset"]
    assert [c.label for c in form.fields[2].choices] == ["0", "1", "2", "3"]
    chosen = pick(form, Leader="Beast Rabban (strength 4)", **{"Weapon + defense": "Crysknife + no defense"}, Dial="3")
    assert form.action(chosen) == SubmitBattlePlan(faction=H, leader="beast_rabban", weapon="crysknife", dial=3)
    assert form.summary(chosen) == ("Leader: Beast Rabban (strength 4); Weapon + defense: Crysknife + no defense; "
                                    "Dial: 3")
    hero = pick(form, Leader="Cheap Hero (cheap hero, strength 0)", **{"Weapon + defense": "No weapon + Baliset"},
                Dial="0")
    assert form.action(hero) == SubmitBattlePlan(faction=H, cheap_hero="cheap_hero_1", defense="baliset")
    both = pick(form, Leader="Feyd-Rautha (strength 6)", **{"Weapon + defense": "Baliset + Shield"}, Dial="1")
    assert form.action(both) == SubmitBattlePlan(faction=H, leader="feyd_rautha", weapon="baliset",
                                                 defense="shield_1", dial=1)
    with pytest.raises(FormIncomplete, match="Choose your leader, dial first"):
        form.action(pick(form, **{"Weapon + defense": "Crysknife + no defense"}))


def test_a_battle_plan_with_only_weapons_or_only_defenses_keeps_the_one_slot():
    weapons = form_for(prompt(PromptKind.BATTLE_PLAN, H, **plan_detail(["feyd_rautha"], weapons=["crysknife"])))
    assert [f.name for f in weapons.fields] == ["Leader", "Weapon"]
    assert [c.label for c in weapons.fields[1].choices] == ["No weapon", "Crysknife"]
    defenses = form_for(prompt(PromptKind.BATTLE_PLAN, H, **plan_detail(["feyd_rautha"], defenses=["shield_1"])))
    assert [f.name for f in defenses.fields] == ["Leader", "Defense"]
    assert defenses.action(pick(defenses, Defense="Shield")) == SubmitBattlePlan(faction=H, leader="feyd_rautha",
                                                                                 defense="shield_1")


def test_a_13_no_leader_and_no_cheap_hero_leaves_the_dial_alone():
    form = form_for(prompt(PromptKind.BATTLE_PLAN, A, **plan_detail(dial=(0, 4), pairs=[[None, None]])))
    assert [f.name for f in form.fields] == ["Dial"] and form.one_click
    assert form.action([2]) == SubmitBattlePlan(faction=A, dial=2)
    empty = form_for(prompt(PromptKind.BATTLE_PLAN, A, **plan_detail(pairs=[[None, None]])))
    assert empty.one_click and empty.action([0]) == SubmitBattlePlan(faction=A)


def test_bt_16_r_34_the_bt_attack_plan_fills_its_weapon_slot_and_may_impair():
    shape = plan_detail(weapons=["crysknife", "baliset"], defenses=["kulon"],
                        pairs=[["crysknife", None], ["crysknife", "kulon"], ["baliset", None], ["baliset", "kulon"]],
                        attack="leader", impairments=["no_shipping", "no_moving"], impairing=["baliset"])
    form = form_for(prompt(PromptKind.BATTLE_PLAN, BT, **shape))
    assert [f.name for f in form.fields] == ["Weapon + defense", "Impairment"]
    assert [c.label for c in form.fields[0].choices] == [  # no "No weapon"
        "Crysknife + no defense", "Crysknife + Kulon", "Baliset + no defense", "Baliset + Kulon"]
    with pytest.raises(FormIncomplete, match="weapon"):
        form.action([None, None])
    # BT-16, R-17: the impairment comes with the worthless card alone, and must then be named
    cards = "Weapon + defense"
    assert [c.label for c in form.fields_for(pick(form, **{cards: "Crysknife + Kulon"}))[1].choices] == [
        "No impairment (a real weapon)"]
    assert [c.label for c in form.fields_for(pick(form, **{cards: "Baliset + no defense"}))[1].choices] == [
        "Impair: no shipping next turn", "Impair: no moving next turn"]
    with pytest.raises(FormIncomplete, match="impairment"):
        form.action(pick(form, **{cards: "Baliset + Kulon"}))
    chosen = pick(form, **{cards: "Baliset + Kulon"}, Impairment="Impair: no moving next turn")
    assert form.action(chosen) == SubmitBattlePlan(faction=BT, weapon="baliset", defense="kulon", impair="no_moving")
    defender = form_for(prompt(PromptKind.BATTLE_PLAN, H, **plan_detail(
        ["feyd_rautha"], weapons=["baliset"], defenses=["kulon"], attack="leader")))
    assert [f.name for f in defender.fields] == ["Leader", "Weapon + defense"]
    assert defender.action([None, None]) == SubmitBattlePlan(faction=H, leader="feyd_rautha")


def test_one_click_answers_build_their_actions():
    call = form_for(prompt(PromptKind.TRAITOR_CALL, A, ["call", "no"], territory="Arrakeen", opponent="harkonnen",
                           leader=None, kwisatz_haderach=False, ally=None))
    assert [call.action([0]), call.action([1])] == [CallTraitor(faction=A, call=True),
                                                    CallTraitor(faction=A, call=False)]
    attack = form_for(prompt(PromptKind.BT_ATTACK, BT, ["feyd_rautha", "decline"],
                             targets={"feyd_rautha": {"territory": "Arrakeen", "faction": "harkonnen"}}))
    assert [c.label for c in attack.fields[0].choices] == ["Attack Feyd-Rautha (Harkonnen, Arrakeen)",
                                                           "Attack no leader"]
    assert attack.action([1]) == ChooseBtAttack(faction=BT, leader=None)
    mark = form_for(prompt(PromptKind.BT_MARK, BT, ["duncan_idaho", "no"], revived=["duncan_idaho"], owner="atreides",
                           turn=2))
    assert [mark.action([0]), mark.action([1])] == [MarkBtTraitor(faction=BT, leader="duncan_idaho"),
                                                    MarkBtTraitor(faction=BT, leader=None)]
    reveal = form_for(prompt(PromptKind.BT_REVEAL_WINDOW, BT, ["duncan_idaho", "pass"], territory="Arrakeen",
                             leader="duncan_idaho", owner="atreides"))
    assert reveal.action([1]) == AnswerRevealWindow(faction=BT, leader=None)
    assert reveal.action([0]) == AnswerRevealWindow(faction=BT, leader="duncan_idaho")


def test_storm_cards_form_plays_weather_control_with_its_distance_and_family_atomics():
    both = form_for(prompt(PromptKind.STORM_CARDS, A, ["pass", "weather_control", "family_atomics"],
                           distance=3, weather_control_range=[0, 10]))
    assert [f.name for f in both.fields] == ["Weather Control", "Family Atomics"]
    assert len(both.fields[0].choices) == 12
    chosen = pick(both, **{"Weather Control": "Weather Control: the storm moves 4",
                           "Family Atomics": "Play Family Atomics"})
    assert both.action(chosen) == PlayStormCards(faction=A, weather_control=4, family_atomics=True)
    assert both.action([None, None]) == PlayStormCards(faction=A)  # nothing chosen: no card played
    atomics = form_for(prompt(PromptKind.STORM_CARDS, A, ["pass", "family_atomics"], distance=3,
                              weather_control_range=[0, 10]))
    assert atomics.one_click and atomics.action([1]) == PlayStormCards(faction=A, family_atomics=True)
    nothing = form_for(prompt(PromptKind.STORM_CARDS, A, ["pass"], distance=3, weather_control_range=[0, 10]))
    assert nothing.one_click and nothing.action([0]) == PlayStormCards(faction=A)


def test_bt_5_bt_30_traps_form_lays_each_card_where_chosen_and_one_trap_a_stronghold():
    form = form_for(prompt(PromptKind.BT_TRAPS, BT, ["Arrakeen", "Carthag"], hand=["kulon", "crysknife"]))
    assert [f.name for f in form.fields] == ["Kulon", "Crysknife"]
    assert form.action([None, None]) == LayTraps(faction=BT)  # every card kept by default
    chosen = pick(form, Kulon="Trap on Carthag", Crysknife="Trap on Arrakeen")
    assert form.action(chosen) == LayTraps(faction=BT, traps={"Carthag": "kulon", "Arrakeen": "crysknife"})
    # BT-30: one trap a stronghold: Carthag, taken by the Kulon, is not offered for the Crysknife
    assert [c.label for c in form.fields_for(pick(form, Kulon="Trap on Carthag"))[1].choices] == [
        "Keep Crysknife", "Trap on Arrakeen"]


def test_r_11_bt_40_traps_and_gifts_form_traps_gives_and_keeps():
    form = form_for(prompt(PromptKind.BT_TRAPS_AND_GIFTS, BT, ["Arrakeen"], hand=["kulon", "crysknife", "shield_1"],
                           receivers={"atreides": 2}, traps=True, gifts=True))
    assert [c.label for c in form.fields[0].choices] == ["Keep Kulon", "Trap on Arrakeen", "Give to Atreides"]
    chosen = pick(form, Kulon="Trap on Arrakeen", Crysknife="Give to Atreides")
    assert form.action(chosen) == TrapsAndGifts(faction=BT, traps={"Arrakeen": "kulon"}, gifts={"crysknife": A})
    gifts_only = form_for(prompt(PromptKind.BT_TRAPS_AND_GIFTS, BT, [], hand=["kulon"], receivers={"harkonnen": 1},
                                 traps=False, gifts=True))
    assert [c.label for c in gifts_only.fields[0].choices] == ["Keep Kulon", "Give to Harkonnen"]


def test_bg_prediction_form_names_a_faction_and_a_turn():
    form = form_for(prompt(PromptKind.BG_PREDICTION, BG, ["atreides", "harkonnen"], turns=15))
    chosen = pick(form, Winner="Harkonnen", Turn="Turn 9")
    assert form.action(chosen) == PredictWinner(faction=BG, predicted=H, turn=9)
    assert form.summary(chosen) == "Winner: Harkonnen; Turn: Turn 9"


# --- menus of more than 25 choices turn pages -------------------------------------------------------------


def test_a_menu_of_more_than_25_choices_pages_by_23_with_earlier_and_later_entries():
    form = form_for(prompt(PromptKind.BG_PREDICTION, BG, ["atreides", "harkonnen"], turns=30))
    turns = form.fields[1]
    assert page_count(turns) == 2 and page_count(form.fields[0]) == 1
    assert page_of(turns, 0) == (list(range(23)), False, True)
    assert page_of(turns, 1) == (list(range(23, 30)), True, False)
    first = form_menu(form, Draft.empty(form), 1, "x")
    assert [o.label for o in first.options][:23] == [f"Turn {n}" for n in range(1, 24)]
    assert first.options[-1].value == "later:1" and len(first.options) == 24
    second_page = Draft.empty(form).turn_page(1, 1).choose(form, 1, 26)  # Turn 27, shown on page 2
    second = form_menu(form, second_page, 1, "x")
    assert second.options[0].value == "earlier:0" and [o.label for o in second.options][1:] == \
        [f"Turn {n}" for n in range(24, 31)]
    assert [o.label for o in second.options if o.default] == ["Turn 27"] and second.placeholder == "Turn: Turn 27"
    elsewhere = form_menu(form, second_page.turn_page(1, 0), 1, "x")  # the choice is off this page: the placeholder
    assert not any(o.default for o in elsewhere.options) and elsewhere.placeholder == "Turn: Turn 27"


def test_a_dial_of_more_than_25_choices_is_a_paged_menu_not_buttons():
    form = form_for(prompt(PromptKind.STORM_DIAL, A, [str(n) for n in range(31)]))
    assert not form.one_click
    view = form_view(SNOWFLAKE_GAME, form, Draft.empty(form))
    [menu, submit] = view.children
    assert isinstance(menu, FormSelect) and isinstance(submit, FormSubmit)
    assert len(menu.item.options) == 24 and menu.item.options[-1].value == "later:1"


# --- drafts in custom ids ---------------------------------------------------------------------------------


def test_a_draft_survives_its_encoding_and_a_foreign_one_is_rejected():
    form = form_for(prompt(PromptKind.BG_PREDICTION, BG, ["atreides", "harkonnen"], turns=30))
    draft = Draft.empty(form).choose(form, 0, 1).turn_page(1, 1).choose(form, 1, 29)
    assert draft.encode() == "1.29p1"
    assert Draft.decode(draft.encode(), form) == draft
    assert Draft.decode("-.-", form) == Draft.empty(form)
    for foreign in ("1", "1.2.3", "2.0", "0.30", "0.1p2", "x.1", "0.-p-1", "w1.0.0", "w.0.0"):  # size, range, garbage
        assert Draft.decode(foreign, form) is None, foreign


def test_custom_ids_fit_discords_100_characters_at_the_longest():
    form = form_for(prompt(PromptKind.BT_TRAPS_AND_GIFTS, BT, ["Arrakeen", "Carthag", "Habbanya Sietch",
                                                                "Sietch Tabr", "Tuek's Sietch"],
                           hand=["kulon", "crysknife", "shield_1", "baliset"],
                           receivers={f.value: 4 for f in Faction if f != BT}, traps=True, gifts=True))
    draft = Draft(tuple(len(f.choices) - 1 for f in form.fields), (0,) * 4)
    ids = custom_ids(form_view(SNOWFLAKE_GAME.replace("g", "g99999"), form, draft))
    assert len(ids) == 5 and max(len(i) for i in ids) <= 100


# --- the callbacks: closed decisions, strangers, drafts ---------------------------------------------------


USERS = {A: 101, H: 102, BT: 103}


@pytest.fixture
async def started():
    """A started game of the Atreides, the Harkonnen and the BT: the Atreides pick a traitor, the BT lay traps."""
    bot = MentatBot(GameService(MemoryGameStore()))
    row = await bot.service.create_game(1, 55, [A, H, BT], seed=7)
    for faction, user in USERS.items():
        await bot.service.seat(row.game_id, faction, user)
    await bot.service.start(row.game_id)
    state = await bot.service.state_of(row.game_id)
    return bot, row.game_id, state


def rendered(view, cls):
    return [item for item in view.children if isinstance(item, cls)]


async def press(item_cls, view_item, bot, user: int, values=None) -> ComponentInteraction:
    return await press_as(ComponentInteraction, item_cls, view_item, bot, user, values)


async def test_a_button_of_another_form_under_the_same_id_is_closed_and_changes_nothing(started):
    bot, game_id, state = started
    pick_prompt = next(p for p in state.prompts if p.kind == PromptKind.TRAITOR_PICK)
    forged = PromptButton(game_id, pick_prompt.id, 0, "Piter de Vries", "000000")  # e.g. from before an undo
    pressed = await press(PromptButton, forged, bot, USERS[A])
    assert pressed.answers == [(CLOSED, True)]
    assert await bot.service.store.actions(game_id) == []


async def test_a_stranger_pressing_a_seats_button_is_refused_and_changes_nothing(started):
    bot, game_id, state = started
    pick_prompt = next(p for p in state.prompts if p.kind == PromptKind.TRAITOR_PICK)
    [button, *_] = prompt_view(game_id, pick_prompt, A.value).children
    pressed = await press(PromptButton, button, bot, USERS[H])
    assert pressed.answers == [("Refused: You are not seated as Atreides in this game.", True)]
    assert await bot.service.store.actions(game_id) == []
    ok = await press(PromptButton, button, bot, USERS[A])
    assert ok.answers == [(f"Done: {button.item.label} (game version 1).", True)]


async def test_bt_5_traps_chosen_in_menus_then_submitted_from_the_rebuilt_draft(started):
    bot, game_id, state = started
    traps = next(p for p in state.prompts if p.kind == PromptKind.BT_TRAPS)
    assert traps.detail["hand"] == ["jubba_cloak", "shield_3", "trip_to_gamont", "stunner"]
    view = prompt_view(game_id, traps, BT.value)
    menus = rendered(view, FormSelect)
    assert [m.item.placeholder for m in menus] == ["Jubba Cloak: Keep Jubba Cloak", "Shield: Keep Shield",
                                                   "Trip to Gamont: Keep Trip to Gamont", "Stunner: Keep Stunner"]
    chose = await press(FormSelect, menus[3], bot, USERS[BT], values=["2"])  # Stunner: Trap on Carthag
    [(kind, edited, _)] = chose.log
    assert kind == "edit" and rendered(edited, FormSelect)[3].item.placeholder == "Stunner: Trap on Carthag"
    stranger = await press(FormSelect, rendered(edited, FormSelect)[0], bot, USERS[A], values=["1"])
    assert stranger.answers == [("Refused: You are not seated as Bene Tleilaxu in this game.", True)]

    [submit] = rendered(edited, FormSubmit)
    done = await press(FormSubmit, submit, bot, USERS[BT])
    assert done.answers == [("Done: Jubba Cloak: Keep Jubba Cloak; Shield: Keep Shield; Trip to Gamont: Keep Trip to "
                             "Gamont; Stunner: Trap on Carthag (game version 1).", True)]
    after = await bot.service.state_of(game_id)
    assert {s: t.card for s, t in after.traps.items()} == {"Carthag": "stunner"}
    again = await press(FormSelect, rendered(edited, FormSelect)[0], bot, USERS[BT], values=["1"])
    assert again.answers == [(CLOSED, True)] and len(await bot.service.store.actions(game_id)) == 1


async def test_a_forged_draft_is_closed_and_changes_nothing(started):
    bot, game_id, state = started
    traps = next(p for p in state.prompts if p.kind == PromptKind.BT_TRAPS)
    form = form_for(traps)
    forged = FormSubmit(game_id, traps.id, form.fingerprint, "9.9.9.9")
    assert re.fullmatch(FormSubmit.__discord_ui_compiled_template__, forged.custom_id)
    pressed = await press(FormSubmit, forged, bot, USERS[BT])
    assert pressed.answers == [(CLOSED, True)] and await bot.service.store.actions(game_id) == []


def test_a_form_of_more_parts_than_a_message_holds_shows_them_four_at_a_time():
    """Five rows a message: four menus and a row of buttons. A fifth part is on a second window, reached by "More
    choices" and left by "Back"; the draft keeps every choice across windows and Submit is on both."""
    hand = ["kulon", "crysknife", "shield_1", "baliset", "stunner"]
    form = form_for(prompt(PromptKind.BT_TRAPS, BT, ["Arrakeen", "Carthag"], hand=hand))
    assert form.windows == 2
    first = form_view(SNOWFLAKE_GAME, form, Draft.empty(form).choose(form, 0, 2))
    assert [m.field for m in rendered(first, FormSelect)] == [0, 1, 2, 3]
    [more] = rendered(first, FormWindow)
    assert more.item.label == "More choices ▶" and more.window == 1 and len(rendered(first, FormSubmit)) == 1
    second_draft = Draft.decode(more.draft_text, form).show_window(1).choose(form, 4, 1)
    second = form_view(SNOWFLAKE_GAME, form, second_draft)
    assert [m.field for m in rendered(second, FormSelect)] == [4]
    [back] = rendered(second, FormWindow)
    assert back.item.label == "◀ Back" and back.window == 0
    assert Draft.decode(second_draft.encode(), form) == second_draft
    assert form.action(second_draft.chosen).traps == {"Carthag": "kulon", "Arrakeen": "stunner"}

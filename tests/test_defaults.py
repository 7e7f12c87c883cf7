"""Declared defaults (issue 12 items 8 and 9: no game may stop dead).

A default is what a forced or expired decision takes, so it must be accepted in every reachable state; default
makers and samplers read the state and never change it, so that a game played with them replays from its file.
The property tests play random games with every option, check every open prompt after every action, and require
every registered prompt kind to have been checked. The scenario tests show each position where a default used to
be refused, and the default accepted now. The heavier run: `python -m engine autoplay --check-defaults`.
"""

from __future__ import annotations

import json
from typing import NamedTuple

import pytest

from engine.__main__ import main
from engine.actions import (
    AnswerPrescience,
    AnswerRevealWindow,
    AskPrescience,
    CallTraitor,
    ChooseBattle,
    ChooseBtAttack,
    DialStorm,
    KaramaTaxBt,
    PlaceTokens,
    RevealBtTraitor,
    SubmitBattlePlan,
    UseSpecialKarama,
    UseVoice,
)
from engine.checks.autoplay import play_game
from engine.checks.prompts import refused_defaults, state_changers
from engine.flow import DEFAULTS, SAMPLERS
from engine.game import apply, new_game
from engine.model import GameState, Phase, PromptKind
from engine.options import GameOptions, GameSetup
from engine.record import record_game, save_record
from tests.conftest import BG, BT, A, E, F, G, H, enter_phase, let_reveal_stand, prompt_of, refused, snapshot
from tests.helpers.positions.battle import FLAT, arena, give, put
from tests.helpers.positions.bt_attacks import bt_arena, fought
from tests.helpers.positions.bt_traitors import DUNCAN, position
from tests.helpers.positions.optional_combat import put_elites, ready_karama, switch_on
from tests.helpers.positions.special_karama import hand, harkonnen_and_atreides

REGISTERED = set(DEFAULTS) | set(SAMPLERS)

# (factions, seed, most actions): 2 to 7 factions, with and without the BT, every option on. Together they open a
# prompt of every registered kind; the seven-faction game is cut short to keep the test quick.
SPREAD = [((H, F, A, BT), 3, 20_000), ((BG, E, G, BT), 1, 20_000), ((H, F, A), 6, 20_000), ((A, H), 1, 20_000),
          ((A, BG, E, F, G, H, BT), 7, 150)]
# Played only if the spread missed a kind (a change to the rules changes what random games meet).
RESERVE = [((H, F, A, BT), seed, 20_000) for seed in range(4, 10)] + [((BG, E, G, BT), seed, 20_000)
                                                                      for seed in range(2, 8)]


class Checked(NamedTuple):
    kinds: set[PromptKind]
    refusals: list[str]
    changes: list[str]


def _setup(factions, seed: int) -> GameSetup:
    return GameSetup(factions=factions, options=GameOptions.all_on(), seed=seed)


@pytest.fixture(scope="module")
def checked() -> Checked:
    """Random games (random legal play, engine/checks/autoplay.py) with every open prompt checked after every action."""
    found = Checked(set(), [], [])

    def check(state: GameState) -> list[str]:
        found.kinds.update(p.kind for p in state.prompts)
        found.changes.extend(state_changers(state))
        found.refusals.extend(refused_defaults(state))
        return []  # the game goes on: every problem is collected

    for factions, seed, most in SPREAD + RESERVE:
        if (factions, seed, most) in RESERVE and found.kinds >= REGISTERED:
            break
        play_game(_setup(factions, seed), seed, max_actions=most, check=check)
    for planted in rare_positions():  # kinds random games reach too seldom to wait for
        check(planted)
    return found


def rare_positions() -> list[GameState]:
    """BT-51: the Karama window after a BT traitor reveal that betrays tokens (random BT reveal rarely); A-14: the
    Harkonnen giving back cards after their special Karama."""
    from engine.actions import UseSpecialKarama
    from tests.helpers.positions.bt_reveal_karama import revealed

    swap = apply(harkonnen_and_atreides(special_karama_powers=True),
                 UseSpecialKarama(faction=H, card="karama_1", target=A)).state
    return [revealed(hands={E: ["karama_1"]})[0], swap]


def test_every_open_prompts_default_is_accepted_in_random_games(checked):
    assert checked.refusals == []


def test_no_default_maker_or_sampler_changes_the_state_it_reads(checked):
    assert checked.changes == []


def test_the_checks_met_a_prompt_of_every_registered_kind(checked):
    """A kind registered later and never met by these games fails here, until the games reach it."""
    assert set(DEFAULTS) == set(SAMPLERS)
    assert REGISTERED - checked.kinds == set()


def test_the_checks_catch_a_default_that_changes_the_state_or_is_refused(monkeypatch):
    state = new_game(_setup((A, H), 2)).state
    picks = [p.id for p in state.prompts if p.kind == PromptKind.TRAITOR_PICK]
    monkeypatch.setitem(DEFAULTS, PromptKind.TRAITOR_PICK,
                        lambda s, p: (s.rng.below(2), SAMPLERS[p.kind](s, p, s.rng.derived("")))[1])
    assert state_changers(state) == [f"the default for {p} (traitor_pick) changed the state it was given"
                                     for p in picks]
    monkeypatch.setitem(DEFAULTS, PromptKind.TRAITOR_PICK, lambda s, p: DialStorm(faction=p.faction, value=1))
    refusals = refused_defaults(state)
    assert picks and len(refusals) == len(picks) and all("(traitor_pick) is refused" in r for r in refusals)


# --- item 9: the defaults that drew from the game's own generator ---------------------------------------------------


def test_a_1_a_forced_storm_dial_leaves_the_games_generator_alone():
    """A-1: the default dial is in range and a pure function of the state: asking twice gives the same dial, and
    the game's generator (which shuffles the decks) does not move."""
    state = new_game(_setup((A, H), 4)).state
    while not any(p.kind == PromptKind.STORM_DIAL for p in state.prompts):
        prompt = state.prompts[0]
        state = apply(state, DEFAULTS[prompt.kind](state, prompt)).state
    prompt = next(p for p in state.prompts if p.kind == PromptKind.STORM_DIAL)
    before = snapshot(state)
    dial = DEFAULTS[PromptKind.STORM_DIAL](state, prompt)
    assert snapshot(state) == before and DEFAULTS[PromptKind.STORM_DIAL](state, prompt) == dial
    assert 0 <= dial.value <= 20
    apply(state, dial)


def test_setup_a_forced_bg_prediction_leaves_the_games_generator_alone():
    state = new_game(_setup((A, BG, H), 5)).state
    prompt = prompt_of(state, BG, PromptKind.BG_PREDICTION)
    before = snapshot(state)
    prediction = DEFAULTS[PromptKind.BG_PREDICTION](state, prompt)
    assert snapshot(state) == before and DEFAULTS[PromptKind.BG_PREDICTION](state, prompt) == prediction
    assert prediction.predicted.value in prompt.options
    apply(state, prediction)


def test_a_game_answered_with_defaults_replays_from_its_file(tmp_path, capsys):
    """Defaults taken outside `apply` (as the console does) leave the game's generator alone, so the file of the
    game replays to the same state (`python -m engine replay`)."""
    setup = _setup((A, BG, E, H, BT), 8)
    state = new_game(setup).state
    actions = []
    while state.phase != Phase.ENDED:
        prompt = state.prompts[0]
        action = DEFAULTS[prompt.kind](state, prompt)
        state = apply(state, action).state
        actions.append(action)
    path = tmp_path / "game.json"
    save_record(record_game(setup, actions, state), path)
    assert main(["replay", str(path)]) == 0
    assert f"replay OK: {len(actions)} actions" in capsys.readouterr().out


# --- item 8: autoplay with defaults only ---------------------------------------------------------------------------


@pytest.mark.parametrize("arguments", [["--bt"], ["--factions", "atreides,harkonnen"]])
def test_autoplay_with_defaults_only_plays_every_game_to_its_end(arguments, capsys):
    assert main(["autoplay", "--games", "2", "--seed", "9", "--options", "all", "--defaults-only", *arguments]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["games"] == summary["finished"] == 2 and summary["stalled"] == summary["violations"] == 0
    assert summary["turns_mean"] == 15 and summary["cards_played"] == {}  # nobody moves, so nobody fights


def test_autoplay_checks_the_defaults_after_every_action(capsys):
    assert main(["autoplay", "--games", "1", "--seed", "4", "--factions", "atreides,harkonnen", "--options", "all",
                 "--check-defaults"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["finished"] == 1 and summary["violations"] == 0


# --- item 8: the positions where a default was refused --------------------------------------------------------------


def test_a_14_the_sardaukar_karama_fires_as_the_battle_begins_so_the_bound_dial_stays_playable():
    """A Karama readied against the Sardaukar used to fire after the prescience answer, when the plans opened: the
    Emperor had answered a dial of 7 (2 Sardaukar counting double) and could then dial only 5, so no plan was legal
    and the default was refused. It fires as the battle begins now: the answer's range is the plan's."""
    state = switch_on(arena((E, G, A)), character_advantages=True)
    put_elites(state, E, FLAT, 5, 2)
    put(state, A, FLAT, 5)
    state = ready_karama(state, G, E, "sardaukar")
    state, events = enter_phase(state, Phase.BATTLE)
    assert [e.data["advantage"] for e in events if e.type == "karama_played"] == ["sardaukar"]
    state = apply(state, AskPrescience(faction=A, element="dial")).state
    answer = prompt_of(state, E, PromptKind.PRESCIENCE_ANSWER)
    assert answer.options == [str(n) for n in range(6)]
    refused(state, AnswerPrescience(faction=E, answer="7"))
    state = apply(state, AnswerPrescience(faction=E, answer="5")).state
    plan = prompt_of(state, E, PromptKind.BATTLE_PLAN)
    assert plan.detail["max_dial"] == 5
    default = DEFAULTS[PromptKind.BATTLE_PLAN](state, plan)
    assert default.dial == 5
    state = apply(state, default).state
    assert state.battle.current.plans[E].dial == 5


def test_battles_an_answered_card_spent_since_as_a_karama_binds_nothing():
    """Our reading: the Bene Gesserit answered prescience with a worthless card as their weapon, then spent that
    card as a Karama (A-15: their worthless cards are Karama cards) to tax the BT (BT-51). They cannot play it any
    more, so the answer binds nothing, like a Voice that cannot be obeyed; before, no plan was legal."""
    state = switch_on(arena((A, BG, BT)), character_advantages=True)
    put(state, A, FLAT, 5)
    put(state, BG, FLAT, 5)
    give(state, BG, "baliset")
    state, _ = enter_phase(state, Phase.BATTLE)
    state = apply(state, AskPrescience(faction=A, element="weapon")).state
    state = apply(state, AnswerPrescience(faction=BG, answer="baliset")).state
    state = apply(state, UseVoice(faction=BG)).state
    state = apply(state, KaramaTaxBt(faction=BG, card="baliset")).state
    default = DEFAULTS[PromptKind.BATTLE_PLAN](state, prompt_of(state, BG, PromptKind.BATTLE_PLAN))
    assert default.weapon is None
    state = apply(state, default).state
    assert state.battle.current.plans[BG].weapon is None


def test_a_15_a_worthless_card_spent_as_a_karama_after_the_plan_is_made_is_not_played():
    """Our reading: the Bene Gesserit put a worthless card in their plan, then spent it as a Karama to tax the BT
    (A-15, BT-51) before the Atreides made theirs. The reveal used to fail on the missing card, so no Atreides plan,
    their default included, could be accepted; the card is simply not played now."""
    state = switch_on(arena((A, BG, BT)), character_advantages=True)
    put(state, A, FLAT, 5)
    put(state, BG, FLAT, 5)
    give(state, BG, "baliset")
    state, _ = enter_phase(state, Phase.BATTLE)
    state = apply(state, AskPrescience(faction=A)).state
    state = apply(state, UseVoice(faction=BG)).state
    state = apply(state, SubmitBattlePlan(faction=BG, leader="alia", weapon="baliset")).state
    state = apply(state, KaramaTaxBt(faction=BG, card="baliset")).state
    state, events = apply(state, DEFAULTS[PromptKind.BATTLE_PLAN](state, prompt_of(state, A, PromptKind.BATTLE_PLAN)))
    shown = next(e for e in events if e.type == "plans_revealed").data["plans"]
    assert shown["bene_gesserit"]["weapon"] is None
    assert state.treachery_discard.count("baliset") == 1


def test_battles_a_dial_answered_beyond_the_tokens_an_admin_took_since_binds_nothing():
    """An admin correction took tokens from the battle after the dial was answered: the answered dial cannot be
    played, so it binds nothing and the default plan (dial 0) is accepted."""
    state = arena((E, H, A))
    put(state, A, FLAT, 5)
    put(state, H, FLAT, 5)
    state, _ = enter_phase(state, Phase.BATTLE)
    state = apply(state, AskPrescience(faction=A, element="dial")).state
    target = state.battle.current.prescience_target
    state = apply(state, AnswerPrescience(faction=target, answer="5")).state
    state = apply(state, PlaceTokens(admin="mod", reason="misplaced", faction=target, tokens=3, source=FLAT,
                                     destination="reserves")).state
    prompt = prompt_of(state, target, PromptKind.BATTLE_PLAN)
    refused(state, SubmitBattlePlan(faction=target, leader=prompt.detail["leaders"][0], dial=5))
    state = apply(state, DEFAULTS[PromptKind.BATTLE_PLAN](state, prompt)).state
    assert state.battle.current.plans[target].dial == 0


def test_bt_23_r_7_a_battle_a_betrayal_took_away_is_not_offered_by_the_default_nor_fought():
    """R-7 lets the BT reveal a traitor who won in the open until the next battle starts, so while the aggressor
    picks the next battle. Here the reveal takes the Atreides' tokens from Imperial Basin: the battle offered there
    is gone. The default picks a battle still there; picking the one gone used to crash, and now the round goes
    on."""
    basin = "Imperial Basin#10"
    state = position((A, E, H, G, BT), forces={basin: {A: 8, E: 3, H: 3}, FLAT: {A: 3, G: 3}}, marked=[DUNCAN])
    state, _ = enter_phase(state, Phase.BATTLE)
    state = apply(state, ChooseBattle(faction=A, territory="Imperial Basin", opponent=H)).state
    for action in (AskPrescience(faction=A), SubmitBattlePlan(faction=A, leader=DUNCAN, dial=5),
                   SubmitBattlePlan(faction=H, leader="feyd_rautha"), CallTraitor(faction=A, call=False),
                   CallTraitor(faction=H, call=False), AnswerRevealWindow(faction=BT)):
        state = apply(state, action).state
    prompt = prompt_of(state, A, PromptKind.BATTLE_CHOICE)
    assert prompt.options == ["Imperial Basin|emperor", "The Great Flat|guild"]
    state = let_reveal_stand(apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN)).state)[0]  # BT-51 window
    assert state.tokens_at(basin, A) == 0 and prompt_of(state, A, PromptKind.BATTLE_CHOICE).id == prompt.id
    assert DEFAULTS[PromptKind.BATTLE_CHOICE](state, prompt) == ChooseBattle(faction=A, territory="The Great Flat",
                                                                             opponent=G)
    gone, events = apply(state, ChooseBattle(faction=A, territory="Imperial Basin", opponent=E))
    assert [e.type for e in events if e.type in ("battle_gone", "battle_started")] == ["battle_gone",
                                                                                       "battle_started"]
    assert gone.battle.current.territory == "The Great Flat"


@pytest.mark.parametrize(("command", "kind"), [("not", "projectile weapon"), ("play", "poison weapon")])
def test_r_34_bt_13_the_default_attack_plan_fills_the_weapon_slot_as_the_voice_says(command, kind):
    """The BT attack Feyd-Rautha, whose ally the Bene Gesserit Voice the BT (BT-13): no projectile, or a poison.
    The default used to take the first real weapon, the Crysknife, against the Voice; it takes the Chaumas now."""
    state = bt_arena((E, H, BG, BT))
    give(state, BT, "crysknife", "chaumas")
    state, _ = fought(state)
    state.alliances = [[H, BG]]
    state = apply(state, ChooseBtAttack(faction=BT, leader="feyd_rautha")).state
    state = apply(state, UseVoice(faction=BG, command=command, category=kind)).state
    default = DEFAULTS[PromptKind.BATTLE_PLAN](state, prompt_of(state, BT, PromptKind.BATTLE_PLAN))
    assert default.weapon == "chaumas"
    state = apply(state, default).state
    assert state.battle.current.plans[BT].weapon == "chaumas"


def test_a_14_the_harkonnen_give_back_all_they_hold_when_they_played_a_taken_card():
    """Our reading: the Harkonnen took a hand of two with their last card, then played one of the taken cards (a
    Karama against the BT, BT-51). They hold one card and owe two: they give back the one, and the default does,
    instead of a swap no answer could end."""
    state = harkonnen_and_atreides(special_karama_powers=True)
    hand(state, A, "karama_2", "crysknife")
    hand(state, H, "karama_1")
    state = apply(state, UseSpecialKarama(faction=H, card="karama_1", target=A)).state
    state = apply(state, KaramaTaxBt(faction=H, card="karama_2")).state
    prompt = prompt_of(state, H, PromptKind.HAND_SWAP)
    default = DEFAULTS[PromptKind.HAND_SWAP](state, prompt)
    assert default.cards == ["crysknife"]
    state = apply(state, default).state
    assert state.faction(A).hand == ["crysknife"] and state.faction(H).hand == []

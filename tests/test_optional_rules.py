"""The 1979 optional and advanced rules that are not about combat (A-15), each a per-game option: the Fremen's
half storm losses and worm placement (A-2, A-21, A-24, A-28), the Bene Gesserit advisors, co-existence and
worthless cards as Karama, the Guild's out-of-order turn (`character_advantages`), weather, the double spice
blow, increased spice flow. Each scenario is played with the option on and off: the option changes what it
should and nothing else. Special Karama powers (A-14) are in tests/test_special_karama.py."""

from __future__ import annotations

import pytest

from engine.actions import (
    DialStorm,
    GuildTiming,
    KaramaTaxBt,
    PlaceWorm,
    SendAdvisor,
    SetCoexistence,
    SkipMove,
    SkipShipment,
    UseKarama,
)
from engine.data import load_game_data
from engine.errors import ViolationCode
from engine.events import EventLog
from engine.flow import DEFAULTS, STEP_RUNNERS
from engine.game import apply
from engine.model import Phase, PromptKind
from engine.options import FixedSetup
from engine.phases.battle import pending_battles
from engine.phases.spice_blow import devour_territory
from engine.phases.storm import move_storm
from engine.rules.board import controller
from engine.rules.karama import Advantage, karama_cancels
from engine.secrecy.views import view
from tests.conftest import BG, A, E, F, G, H, apply_all, enter_phase, prompt_of, ready_game, refused
from tests.helpers.positions.movement import answer_defaults_until, arrange
from tests.helpers.positions.optional_rules import (
    ARRAKEEN,
    CARTHAG,
    FLAT,
    FUNERAL,
    TUEKS,
    bg_turn,
    guild_round,
    harkonnen_ship_to_arrakeen,
    two_worms,
)
from tests.helpers.positions.spice_blow import (
    FUNERAL_PLAIN,
    GREAT_FLAT,
    HABBANYA_ERG,
    OLD_GAP,
    SH1,
    at_blow,
    base_game,
)

DATA = load_game_data()
CIELAGO_1, CIELAGO_2 = "Cielago North#1", "Cielago North#2"  # one sand territory, two sectors


@pytest.fixture(autouse=True)
def _stop_when_battles_begin(monkeypatch):
    """Scenarios of one phase: the game stops when the battle round (or the bidding) would begin."""
    monkeypatch.delitem(STEP_RUNNERS, Phase.BATTLE, raising=False)
    monkeypatch.delitem(STEP_RUNNERS, Phase.BIDDING, raising=False)


def holding(faction, card, **options):
    """The movement round of a ready game, the faction holding this card (taken from wherever it was)."""
    state, _ = arrange(**options)
    for pile in (state.treachery_deck, state.treachery_discard, *(fs.hand for fs in state.factions.values())):
        if card in pile:
            pile.remove(card)
    state.faction(faction).hand.append(card)
    return state


# --- the storm: Fremen half losses (A-2, A-24) --------------------------------------------------------------------


def storm_over_cielago(character_advantages, karama=False):
    """Fremen 2 + 1 tokens in two sectors of Cielago North, Atreides 2 beside them; the storm moves over both."""
    state, _ = arrange(forces={CIELAGO_1: {F: 2, A: 2}, CIELAGO_2: {F: 1}}, storm=18,
                       karama=[(A, "karama_1", Advantage.HALF_STORM_LOSSES)] if karama else (),
                       character_advantages=character_advantages)
    draft = state.model_copy(deep=True)
    log = EventLog()
    move_storm(draft, 2, log, "Test.")
    return draft, log.items


def test_a_24_fremen_lose_half_their_tokens_caught_in_a_territory_rounded_up():
    state, events = storm_over_cielago(character_advantages=True)
    fremen_left = state.tokens_at(CIELAGO_1, F) + state.tokens_at(CIELAGO_2, F)
    assert fremen_left == 1  # 3 caught in one territory: 2 die (half, rounded up), 1 survives
    assert state.faction(F).tanks == 2
    assert state.tokens_at(CIELAGO_1, A) == 0 and state.faction(A).tanks == 2  # nobody else is spared
    half = next(e for e in events if e.type == "fremen_half_storm_losses")
    assert half.data == {"territory": "Cielago North", "caught": 3, "spared": 1}


def test_a_2_without_character_advantages_the_storm_kills_every_fremen_token():
    state, events = storm_over_cielago(character_advantages=False)
    assert state.tokens_at(CIELAGO_1, F) + state.tokens_at(CIELAGO_2, F) == 0
    assert state.faction(F).tanks == 3 and state.faction(A).tanks == 2
    assert not any(e.type == "fremen_half_storm_losses" for e in events)


def test_a_14_karama_cancels_the_fremen_half_storm_losses():
    state, events = storm_over_cielago(character_advantages=True, karama=True)
    assert state.faction(F).tanks == 3
    assert any(e.type == "karama_played" and e.data["advantage"] == "half_storm_losses" for e in events)


def test_a_14_karama_against_an_optional_advantage_is_refused_when_the_option_is_off():
    state = holding(A, "karama_1", character_advantages=False)
    refused(state, UseKarama(faction=A, card="karama_1", against=F, advantage="half_storm_losses"), rule="A-15")
    state = holding(A, "karama_1", character_advantages=True)
    state, _ = apply(state, UseKarama(faction=A, card="karama_1", against=F, advantage="half_storm_losses"))
    assert [o.advantage for o in state.karama_orders] == ["half_storm_losses"]


# --- Shai-Hulud: the Fremen place further worms (A-21, A-28) -------------------------------------------------------


def test_a_21_the_fremen_place_a_further_worm_in_any_sand_territory():
    state, events = two_worms(character_advantages=True)
    assert state.tokens_at(FLAT, A) == 0  # the first worm devours the top discard territory as always
    placement = prompt_of(state, F, PromptKind.WORM_PLACEMENT)
    assert not placement.secret and "Funeral Plain" in placement.options and "Arrakeen" not in placement.options
    state, events = apply(state, PlaceWorm(faction=F, territory="Funeral Plain"))
    # A-28: it devours the other factions' tokens and the spice there; the Fremen may ride it.
    assert state.tokens_at(FUNERAL, H) == 0 and state.faction(H).tanks == 3
    assert FUNERAL not in state.spice_on_board
    assert state.tokens_at(FUNERAL, F) == 2 and prompt_of(state, F, PromptKind.WORM_RIDE)
    told = [e.message for e in events if e.public]
    assert told[:3] == ["Shai-Hulud! The Fremen place the worm in Funeral Plain (A-21, A-28).",
                        "Shai-Hulud devours 3 Harkonnen tokens in Funeral Plain.",
                        "Shai-Hulud devours 4 spice in Funeral Plain."]


def test_a_21_without_the_option_a_further_worm_devours_nothing():
    state, events = two_worms(character_advantages=False)
    assert state.tokens_at(FLAT, A) == 0
    assert state.tokens_at(FUNERAL, H) == 3 and state.spice_on_board[FUNERAL] == 4
    assert any(e.type == "worm_again" for e in events)
    assert not any(p.kind == PromptKind.WORM_PLACEMENT for p in state.prompts)


def test_a_21_a_worm_goes_to_sand_only_and_the_default_places_it_nowhere():
    state, _ = two_worms(character_advantages=True)
    refused(state, PlaceWorm(faction=F, territory="Arrakeen"), rule="A-21", code=ViolationCode.ILLEGAL_CHOICE)
    state, events = apply(state, PlaceWorm(faction=F))
    assert state.tokens_at(FUNERAL, H) == 3 and any(e.type == "worm_not_placed" for e in events)
    assert state.spice_on_board.get("Old Gap#9")  # the blow went on to its territory card


# --- the double spice blow (A-15, advanced rule XXI) ----------------------------------------------------------------


def test_a_15_double_spice_blow_reveals_two_cards_onto_two_piles():
    state, events = at_blow([OLD_GAP, GREAT_FLAT], double_spice_blow=True)
    assert state.spice_discard == [OLD_GAP] and state.spice_discard_b == [GREAT_FLAT]
    assert state.spice_on_board == {"Old Gap#9": 6, FLAT: 10}
    assert [e.data.get("pile") for e in events if e.type == "spice_blow"] == [None, "B"]
    assert view(state, None).spice_discard_b == [GREAT_FLAT]


def test_a_15_single_spice_blow_without_the_option():
    state, _ = at_blow([OLD_GAP, GREAT_FLAT], double_spice_blow=False)
    assert state.spice_discard == [OLD_GAP] and state.spice_discard_b == []
    assert state.spice_on_board == {"Old Gap#9": 6}


def test_a_15_a_worm_on_pile_b_devours_the_territory_on_top_of_pile_b():
    """Pile A shows The Great Flat, pile B Funeral Plain; blow A draws Old Gap, blow B a worm then Habbanya Erg."""
    draft = base_game(double_spice_blow=True).model_copy(deep=True)
    for card in (GREAT_FLAT, FUNERAL_PLAIN, OLD_GAP, SH1, HABBANYA_ERG):
        draft.spice_deck.remove(card)
    draft.spice_discard, draft.spice_discard_b = [GREAT_FLAT], [FUNERAL_PLAIN]
    draft.spice_deck[:0] = [OLD_GAP, SH1, HABBANYA_ERG]
    for location, faction, count in ((FLAT, A, 2), (FUNERAL, H, 3)):
        draft.faction(faction).reserves -= count
        draft.add_tokens(location, faction, count)
    state, events = enter_phase(draft, Phase.SPICE_BLOW, turn=2, storm_sector=1)
    assert state.tokens_at(FUNERAL, H) == 0  # pile B's top territory
    assert state.tokens_at(FLAT, A) == 2  # pile A's is untouched
    assert state.spice_discard_b == [FUNERAL_PLAIN, SH1, HABBANYA_ERG]
    assert state.nexus is not None


# --- increased spice flow (A-15) ----------------------------------------------------------------------------------


def collect(**options):
    state, _ = arrange(forces={ARRAKEEN: {A: 3}, CARTHAG: {H: 2, E: 1}, TUEKS: {G: 2}}, **options)
    before = {f: state.faction(f).spice for f in state.factions}
    state, events = enter_phase(state, Phase.COLLECTION)
    return {f: state.faction(f).spice - before[f] for f in state.factions}, events


def test_a_15_increased_spice_flow_pays_the_stronghold_occupants():
    gained, events = collect(increased_spice_flow=True)
    assert gained[A] == 2 and gained[G] == 1
    assert gained[H] == 0 and gained[E] == 0  # Carthag has two factions in it: no occupant
    assert {e.data["stronghold"] for e in events if e.type == "stronghold_income"} == {"Arrakeen", "Tuek's Sietch"}
    assert {e.message for e in events if e.type == "stronghold_income"} == {  # issue 25 item 12: one grammar
        "The Atreides occupy Arrakeen: 2 spice from the bank (A-15, increased spice flow).",
        "The Spacing Guild occupies Tuek's Sietch: 1 spice from the bank (A-15, increased spice flow)."}


def test_a_15_no_stronghold_income_without_the_option():
    gained, events = collect(increased_spice_flow=False)
    assert gained[A] == 0 and gained[G] == 0
    assert not any(e.type == "stronghold_income" for e in events)


# --- the Bene Gesserit: advisors and co-existence (A-11, A-15) --------------------------------------------------


def test_a_15_the_bg_choose_whether_the_free_advisor_goes_to_the_polar_sink_or_with_the_shipment():
    """factions.json (optional XV): the Bene Gesserit "may instead" put the free advisor in the shipper's territory;
    the Polar Sink stays their choice."""
    state = harkonnen_ship_to_arrakeen(character_advantages=True)
    advisor = prompt_of(state, BG, PromptKind.SPIRITUAL_ADVISOR)
    assert advisor.options == ["accept", "with_shipment", "decline"]
    assert advisor.detail["to_location"] == "Polar Sink" and advisor.detail["shipment_location"] == ARRAKEEN
    reserves = state.faction(BG).reserves
    sink, events = apply(state, SendAdvisor(faction=BG, accept=True))
    assert sink.tokens_at("Polar Sink", BG) == 1 and sink.bg_advisors == {}
    assert sink.faction(BG).reserves == reserves - 1
    assert next(e for e in events if e.type == "advisor_sent").data["to_location"] == "Polar Sink"
    hosted, _ = apply(state, SendAdvisor(faction=BG, accept=True, with_shipment=True))
    assert hosted.bg_advisors == {ARRAKEEN: 1} and hosted.faction(BG).reserves == reserves - 1
    assert hosted.tokens_at(ARRAKEEN, BG) == 0 and hosted.tokens_at("Polar Sink", BG) == 0
    # Not on the board: no battle with them, no say in control.
    assert [b[0] for b in pending_battles(hosted)] == ["Arrakeen"]
    assert all(BG not in sides for _, _, sides in pending_battles(hosted))
    assert view(hosted, None).bg_advisors == {ARRAKEEN: 1}


def test_without_the_option_the_spiritual_advisor_goes_to_the_polar_sink():
    state = harkonnen_ship_to_arrakeen(character_advantages=False)
    advisor = prompt_of(state, BG, PromptKind.SPIRITUAL_ADVISOR)
    assert advisor.options == ["accept", "decline"] and advisor.detail["to_location"] == "Polar Sink"
    refused(state, SendAdvisor(faction=BG, accept=True, with_shipment=True), "A-15", ViolationCode.NOT_ALLOWED)
    state, _ = apply(state, SendAdvisor(faction=BG, accept=True))
    assert state.bg_advisors == {} and state.tokens_at("Polar Sink", BG) == 1


def test_a_15_co_existing_advisors_do_not_fight_or_contest_control_and_can_turn_back():
    state = bg_turn(character_advantages=True)
    assert controller(state, "Arrakeen") is None
    state, events = apply(state, SetCoexistence(faction=BG, territory="Arrakeen", advisors=True))
    assert state.bg_advisors == {ARRAKEEN: 2} and state.tokens_at(ARRAKEEN, BG) == 0
    assert controller(state, "Arrakeen") == A  # advisors do not count
    assert any(e.type == "bg_coexist" and e.public for e in events)
    state, events = apply(state, SetCoexistence(faction=BG, territory="Arrakeen", advisors=False))
    assert state.bg_advisors == {} and state.tokens_at(ARRAKEEN, BG) == 2
    assert controller(state, "Arrakeen") is None


def test_a_15_co_existence_is_refused_without_the_option_or_outside_the_bg_turn():
    state = bg_turn(character_advantages=False)
    refused(state, SetCoexistence(faction=BG, territory="Arrakeen", advisors=True), rule="A-15",
            code=ViolationCode.NOT_ALLOWED)
    state, _ = arrange(forces={ARRAKEEN: {A: 3, BG: 2}}, character_advantages=True)
    state = answer_defaults_until(state, A)  # the Atreides' turn, not theirs
    refused(state, SetCoexistence(faction=BG, territory="Arrakeen", advisors=True), rule="A-15",
            code=ViolationCode.WRONG_PHASE)


def test_a_15_advisors_cannot_become_fighters_in_a_stronghold_holding_two_other_factions():
    state = bg_turn(character_advantages=True, forces={ARRAKEEN: {A: 3, H: 2}})
    state.bg_advisors = {ARRAKEEN: 1}
    state.faction(BG).reserves -= 1
    refused(state, SetCoexistence(faction=BG, territory="Arrakeen", advisors=False), rule="A-15")


def test_a_15_advisors_die_in_the_storm_and_to_shai_hulud():
    state, _ = arrange(forces={CIELAGO_1: {A: 1}}, storm=18, character_advantages=True)
    state.bg_advisors = {CIELAGO_1: 2}
    state.faction(BG).reserves -= 2
    log = EventLog()
    move_storm(state, 1, log, "Test.")
    assert state.bg_advisors == {} and state.faction(BG).tanks == 2
    state, events = at_blow([SH1, OLD_GAP], discard=[GREAT_FLAT], character_advantages=True)
    draft = state.model_copy(deep=True)
    draft.bg_advisors = {FLAT: 1}
    draft.faction(BG).reserves -= 1
    log = EventLog()
    devour_territory(draft, "The Great Flat", log)
    assert draft.bg_advisors == {} and any(e.data.get("advisors") for e in log.items)


# --- the Bene Gesserit: worthless cards as Karama (A-15) ------------------------------------------------------------


def bg_holding(card, **options):
    return holding(BG, card, **options)


def test_a_15_the_bg_may_use_a_worthless_card_as_karama():
    state = bg_holding("kulon", character_advantages=True)
    state, events = apply(state, UseKarama(faction=BG, card="kulon", against=A, advantage="see_spice_deck"))
    assert [o.card for o in state.karama_orders] == ["kulon"]
    state, events = apply(state, KaramaTaxBt(faction=BG, card="kulon"))  # BT-51 with it too (R-27 allows the tax)
    assert "kulon" in state.treachery_discard
    # the table sees the Kulon discarded: the news names it, never a Karama the Bene Gesserit did not play
    [told] = [e.message for e in events if e.public and e.type == "karama_vs_bt"]
    assert told.startswith("The Bene Gesserit play Kulon as Karama to tax the Bene Tleilaxu")


def test_a_15_a_worthless_card_readied_as_karama_is_named_when_it_fires():
    """A readied order fires as the advantage is used: the news names the card that went to the discard."""
    state = bg_holding("kulon", character_advantages=True)
    state, _ = apply(state, UseKarama(faction=BG, card="kulon", against=A, advantage="see_spice_deck"))
    log = EventLog()
    assert karama_cancels(state, Advantage.SEE_SPICE_DECK, log)
    [fired] = log.items
    assert fired.public and fired.message.startswith("The Bene Gesserit play Kulon as Karama: the Atreides may not ")
    assert "kulon" in state.treachery_discard


def test_a_15_without_the_option_a_worthless_card_is_no_karama():
    state = bg_holding("kulon", character_advantages=False)
    refused(state, UseKarama(faction=BG, card="kulon", against=A, advantage="see_spice_deck"), rule="A-14")
    refused(state, KaramaTaxBt(faction=BG, card="kulon"), rule="BT-51")


def test_a_15_only_the_bg_use_worthless_cards_as_karama():
    state = bg_holding("kulon", character_advantages=True)
    state.faction(BG).hand.remove("kulon")
    state.faction(H).hand.append("kulon")
    refused(state, UseKarama(faction=H, card="kulon", against=A, advantage="see_spice_deck"), rule="A-14")


# --- the Guild: their turn whenever they like (A-15) --------------------------------------------------------------


def test_a_15_the_guild_are_asked_before_each_turn_and_may_go_first():
    state = guild_round(character_advantages=True)
    timing = prompt_of(state, G, PromptKind.GUILD_TIMING)
    assert not timing.secret and timing.detail["before"] == "atreides"
    assert not any(p.kind == PromptKind.SHIPMENT for p in state.prompts)
    state, events = apply(state, _guild(True))
    assert prompt_of(state, G, PromptKind.SHIPMENT)
    assert any(e.type == "guild_turn" and e.data["before"] == "atreides" for e in events)
    state, _ = apply_all(state, SkipShipment(faction=G))
    if any(p.kind == PromptKind.MOVEMENT for p in state.prompts_for(G)):
        state, _ = apply(state, SkipMove(faction=G))
    assert prompt_of(state, A, PromptKind.SHIPMENT)  # then the Atreides, without asking the Guild again
    assert not any(p.kind == PromptKind.GUILD_TIMING for p in state.prompts)


def test_a_15_a_guild_that_waits_past_everyone_goes_last():
    state = guild_round(character_advantages=True)
    order = []
    for _ in range(200):
        prompt = state.prompts[0]
        if prompt.kind == PromptKind.GUILD_TIMING:
            state = apply(state, _guild(False)).state
            continue
        if prompt.kind == PromptKind.SHIPMENT:
            order.append(prompt.faction)
            state = apply(state, SkipShipment(faction=prompt.faction)).state
        elif prompt.kind == PromptKind.MOVEMENT:
            state = apply(state, SkipMove(faction=prompt.faction)).state
        else:
            state = apply(state, DEFAULTS[prompt.kind](state, prompt)).state
        if state.phase != Phase.MOVEMENT:
            break
    assert order[-1] == G and order.count(G) == 1


@pytest.mark.parametrize("before", [A, BG, F])
def test_a_15_a_guild_that_went_early_has_no_second_turn_in_its_storm_order_place(before):
    """A-15: the Guild take their one ship-and-move turn whenever they like. Having gone before `before`, their
    storm-order place (after the Fremen) is passed over: every faction takes one turn, the Guild theirs where they
    chose, and the table reads one Guild shipment decision only."""
    state = guild_round(character_advantages=True)
    turns, events = [], []
    while state.phase == Phase.MOVEMENT and state.prompts:
        prompt = state.prompts[0]
        if prompt.kind == PromptKind.GUILD_TIMING:
            action = _guild(prompt.detail["before"] == before.value)
        elif prompt.kind == PromptKind.SHIPMENT:
            turns.append(prompt.faction)
            action = SkipShipment(faction=prompt.faction)
        else:
            action = DEFAULTS[prompt.kind](state, prompt)
        state, new = apply(state, action)
        events += new
    others = [A, BG, E, F, H]
    assert turns == others[:others.index(before)] + [G] + others[others.index(before):]
    skipped = [e.message for e in events if e.type == "shipment_skipped" and e.data["faction"] == G.value]
    assert skipped == ["The Spacing Guild does not ship this turn."]


def test_a_15_without_the_option_the_guild_keep_their_storm_order_place():
    state = guild_round(character_advantages=False)
    assert not any(p.kind == PromptKind.GUILD_TIMING for p in state.prompts)
    assert prompt_of(state, A, PromptKind.SHIPMENT)


def test_a_14_karama_keeps_the_guild_in_storm_order_for_the_round():
    state = guild_round(character_advantages=True, karama=[(A, "karama_1", Advantage.OUT_OF_ORDER_SHIPPING)])
    assert not any(p.kind == PromptKind.GUILD_TIMING for p in state.prompts)
    assert prompt_of(state, A, PromptKind.SHIPMENT)


def _guild(now):
    return GuildTiming(faction=G, now=now)


# --- weather: the Fremen learn the next storm in advance (A-15, optional rule XVI) -----------------------------------


def weather_game(weather):
    return ready_game((A, F, H, E), fixed=FixedSetup(storm_sector=5), weather=weather)


def test_a_15_weather_next_turns_storm_is_dialed_now_and_only_the_fremen_learn_it():
    state = weather_game(weather=True)
    dials = [p for p in state.prompts if p.kind == PromptKind.STORM_DIAL]
    assert len(dials) == 2 and all(p.secret and p.detail["forecast"] and p.options == ["1", "2", "3"] for p in dials)
    refused(state, DialStorm(faction=dials[0].faction, value=7), rule="A-1")  # a later turn's dial: 1-3
    state, events = apply_all(state, DialStorm(faction=dials[0].faction, value=1),
                              DialStorm(faction=dials[1].faction, value=2))
    forecast = next(e for e in events if e.type == "storm_forecast")
    assert forecast.audience == (F,) and forecast.data["distance"] == 3
    assert view(state, F).own.storm_forecast == 3
    assert all(view(state, f).own.storm_forecast is None for f in (A, H, E))
    assert not any("3 sectors" in e.message for e in events if e.public)
    assert state.phase == Phase.BIDDING  # the storm round ended with the forecast; the blow followed
    # Next turn the storm moves by those dials, without dialing again (no storm card can be in play here).
    draft = state.model_copy(deep=True)
    for card in ("weather_control", "family_atomics"):
        for fs in draft.factions.values():
            if card in fs.hand:
                fs.hand.remove(card)
        if card in draft.treachery_deck:
            draft.treachery_deck.remove(card)
        draft.treachery_discard.append(card)
    state, events = enter_phase(draft, Phase.STORM, turn=2)
    assert state.storm_sector == 8
    assert next(e for e in events if e.type == "storm_moved").data["distance"] == 3
    assert {p.kind for p in state.prompts} == {PromptKind.STORM_DIAL}  # and turn 3's forecast is being dialed
    assert all(p.detail.get("forecast") for p in state.prompts)


def test_a_15_without_weather_nobody_dials_ahead():
    state = weather_game(weather=False)
    assert not any(p.kind == PromptKind.STORM_DIAL for p in state.prompts)
    assert state.phase != Phase.STORM and state.storm_forecast == {}
    assert view(state, F).own.storm_forecast is None

"""Setup per the 1979 rules (section III) and the BT variant (BT-1, BT-4, BT-5, R-12)."""

from __future__ import annotations

import pytest

from bot.app.render import decision_card
from engine.actions import ChooseTraitor, LayTraps, PlaceStartingTokens, PredictWinner
from engine.data import load_game_data
from engine.errors import InvalidSetup, RuleViolation, ViolationCode
from engine.flow import DEFAULTS
from engine.game import apply, new_game, state_hash
from engine.ids import BASE_FACTIONS
from engine.model import Phase, PromptKind
from engine.options import FixedSetup
from engine.rules.order import storm_order
from tests.conftest import BG, BT, A, E, F, G, H, finish_setup, make_setup, prompt_of, snapshot, start
from tests.helpers.setup_answers import answer_secrets

DATA = load_game_data()


@pytest.mark.parametrize(("faction", "spice"), [(A, 10), (BG, 5), (E, 10), (F, 3), (G, 5), (H, 10), (BT, 5)])
def test_starting_spice(seven, faction, spice):
    """1979 setup; BT-4: the BT start with 5 spice.
    1979 rules: Setup: starting tokens."""
    assert seven.faction(faction).spice == spice


def test_starting_cards_harkonnen_two_bt_four_others_one(seven):
    """1979 setup: one card each, Harkonnen two; BT-4: the BT four."""
    sizes = {f: len(fs.hand) for f, fs in seven.factions.items()}
    assert sizes == {A: 1, BG: 1, E: 1, F: 1, G: 1, H: 2, BT: 4}
    dealt = [c for fs in seven.factions.values() for c in fs.hand]
    assert len(set(dealt)) == 11
    assert len(seven.treachery_deck) == 33 - 11
    assert set(dealt).isdisjoint(seven.treachery_deck)


def test_traitor_prompts_for_everyone_but_harkonnen_and_bt(seven):
    """1979 setup: four traitors dealt, one kept, Harkonnen keep all; BT-1: the BT get none.
    1979 rules: Setup: traitors."""
    pickers = {p.faction for p in seven.prompts if p.kind == PromptKind.TRAITOR_PICK}
    assert pickers == {A, BG, E, F, G}
    assert len(seven.faction(H).traitors) == 4
    assert seven.faction(BT).traitors == []
    for prompt in seven.prompts:
        if prompt.kind == PromptKind.TRAITOR_PICK:
            assert len(prompt.options) == 4 and prompt.secret
    dealt = [t for p in seven.prompts if p.kind == PromptKind.TRAITOR_PICK for t in p.options]
    dealt += seven.faction(H).traitors
    assert len(set(dealt)) == 24
    assert len(seven.traitor_deck_unused) == 30 - 24


def test_traitor_deck_holds_only_leaders_in_play():
    """1979 setup: traitor cards of factions not in the game are removed.
    1979 rules: Setup: traitors."""
    state = start((A, H, F, BT))
    in_play = {leader.id for f in (A, H, F) for leader in DATA.factions[f].leaders}
    dealt = {t for p in state.prompts if p.kind == PromptKind.TRAITOR_PICK for t in p.options}
    dealt |= set(state.faction(H).traitors) | set(state.traitor_deck_unused)
    assert dealt == in_play


def test_choosing_a_traitor_keeps_one_and_sets_the_rest_aside(seven):
    """1979 rules: Setup: traitors: a faction keeps one of its four and the rest are set aside."""
    prompt = prompt_of(seven, A, PromptKind.TRAITOR_PICK)
    state, events = apply(seven, ChooseTraitor(faction=A, leader=prompt.options[2]))
    assert state.faction(A).traitors == [prompt.options[2]]
    assert set(prompt.options) - {prompt.options[2]} <= set(state.traitor_deck_unused)
    assert not [p for p in state.prompts_for(A) if p.kind == PromptKind.TRAITOR_PICK]
    public = [e for e in events if e.public]
    assert [e.message for e in public] == ["The Atreides chose a traitor."]


def test_bg_prediction_may_name_any_other_faction_the_bt_included(seven):
    """1979 setup: the BG predict another faction and a turn; BT-29: a BT win may be predicted.
    1979 rules: Setup: Bene Gesserit prediction."""
    prompt = prompt_of(seven, BG, PromptKind.BG_PREDICTION)
    assert set(prompt.options) == {f.value for f in (A, E, F, G, H, BT)}
    state, _ = apply(seven, PredictWinner(faction=BG, predicted=BT, turn=15))
    assert state.bg_prediction.faction == BT and state.bg_prediction.turn == 15


@pytest.mark.parametrize(("predicted", "turn"), [(BG, 3), (A, 0), (A, 16)])
def test_bg_prediction_refuses_itself_and_turns_out_of_range(seven, predicted, turn):
    """1979 rules: Setup: Bene Gesserit prediction: never themselves, and a turn of the game."""
    before = snapshot(seven)
    with pytest.raises(RuleViolation) as refusal:
        apply(seven, PredictWinner(faction=BG, predicted=predicted, turn=turn))
    assert refusal.value.code == ViolationCode.ILLEGAL_CHOICE
    assert snapshot(seven) == before


def test_traps_are_laid_before_any_token_is_placed(seven):
    """BT-5: with traps on, the BT lay traps before anyone places starting tokens."""
    prompt = prompt_of(seven, BT, PromptKind.BT_TRAPS)
    assert prompt.secret and set(prompt.options) == set(DATA.board.strongholds)
    assert seven.forces == {}


def test_the_bt_setup_traps_default_says_no_trap_and_no_gift_word():
    """Issue 25 item 12: at setup no gift is possible (BT-5), so the default is told as "no trap"."""
    state = start()
    prompt = next(p for p in state.prompts if p.kind == PromptKind.BT_TRAPS)
    assert "If nobody answers (the deadline passes, or a moderator forces it): no trap." in \
        decision_card(state, prompt, None).text


def test_no_trap_prompt_without_the_trap_option():
    state = start(bt_traps=False)
    assert not [p for p in state.prompts if p.kind == PromptKind.BT_TRAPS]


def test_a_trap_takes_the_card_from_the_bt_hand(seven):
    """BT-30: a trap is a card from the BT hand laid face down on a stronghold."""
    card = seven.faction(BT).hand[0]
    state, events = apply(seven, LayTraps(faction=BT, traps={"Habbanya Sietch": card}))
    assert card not in state.faction(BT).hand
    assert state.traps["Habbanya Sietch"].card == card
    public = [e.message for e in events if e.public]
    assert public == ["The Bene Tleilaxu lay a face-down trap on Habbanya Sietch."]
    assert all(DATA.card(card).name not in m for m in public)


@pytest.mark.parametrize(
    "traps",
    [{"Arrakeen": "not_a_card"}, {"The Great Flat": "HAND0"}, {"Arrakeen": "HAND0", "Carthag": "HAND0"}],
)
def test_illegal_traps_are_refused_and_change_nothing(seven, traps):
    hand0 = seven.faction(BT).hand[0]
    traps = {s: (hand0 if c == "HAND0" else c) for s, c in traps.items()}
    before = snapshot(seven)
    with pytest.raises(RuleViolation) as refusal:
        apply(seven, LayTraps(faction=BT, traps=traps))
    assert refusal.value.rule == "BT-30"
    assert snapshot(seven) == before


def test_fixed_starting_tokens_are_placed_after_the_secret_decisions(seven):
    """1979 rules: Setup: starting tokens: each faction's fixed tokens, placed once the secret choices are in."""
    state = answer_secrets(seven)
    assert state.phase == Phase.SETUP
    assert state.tokens_at("Arrakeen#9", A) == 10
    assert state.tokens_at(DATA.board.default_location("Carthag"), H) == 10
    assert state.tokens_at(DATA.board.default_location("Tuek's Sietch"), G) == 5
    assert state.tokens_at("Polar Sink", BG) == 1
    assert [p.kind for p in state.prompts] == [PromptKind.STARTING_PLACEMENT]
    assert state.prompts[0].faction == F and not state.prompts[0].secret


def test_trap_on_a_starting_stronghold_springs_at_placement(seven):
    """R-12: tokens placed at setup trigger a trap; BT-31: announced at once."""
    card = seven.faction(BT).hand[0]
    state = answer_secrets(seven, traps={"Arrakeen": card})
    assert state.traps["Arrakeen"].triggered_by == A
    assert state.traps["Arrakeen"].card == card


def test_fremen_split_their_ten_tokens(seven):
    """1979 rules: Setup: starting tokens: the Fremen split theirs where their sheet allows."""
    state = answer_secrets(seven)
    fws = DATA.board.territory("False Wall South").locations[0]
    state, events = apply(state, PlaceStartingTokens(
        faction=F, placement={"Sietch Tabr": 6, fws: 3, DATA.board.territory("False Wall West").locations[-1]: 1}))
    assert state.tokens_at(DATA.board.default_location("Sietch Tabr"), F) == 6
    assert state.tokens_at(fws, F) == 3
    assert state.faction(F).reserves == 10
    assert state.phase == Phase.STORM and state.turn == 1
    assert {p.kind for p in state.prompts} == {PromptKind.STORM_DIAL}
    assert any(e.type == "setup_complete" for e in events)


@pytest.mark.parametrize(
    ("placement", "reason"),
    [
        ({"Sietch Tabr": 9}, "exactly 10"),
        ({"Sietch Tabr": 5, "Arrakeen": 5}, "may not start"),
        ({"Sietch Tabr": 11, "Habbanya Sietch": -1}, "may not start"),
        ({"Nowhere": 10}, "no territory"),
    ],
)
def test_bad_fremen_placements_are_refused(seven, placement, reason):
    state = answer_secrets(seven)
    before = snapshot(state)
    with pytest.raises(RuleViolation) as refusal:
        apply(state, PlaceStartingTokens(faction=F, placement=placement))
    assert reason in str(refusal.value)
    assert snapshot(state) == before


def test_a_territory_of_several_sectors_must_name_its_sector(seven):
    state = answer_secrets(seven)
    multi = next(t for t in ("False Wall South", "False Wall West") if len(DATA.board.territory(t).locations) > 1)
    with pytest.raises(RuleViolation) as refusal:
        apply(state, PlaceStartingTokens(faction=F, placement={multi: 10}))
    assert set(refusal.value.allowed) == set(DATA.board.territory(multi).locations)


def test_bg_place_their_token_anywhere_with_character_advantages():
    """A-15 character advantages: the BG starting token may go anywhere (basic: the Polar Sink)."""
    state = answer_secrets(start(character_advantages=True))
    prompt = prompt_of(state, BG, PromptKind.STARTING_PLACEMENT)
    assert "Carthag" in prompt.options
    assert state.tokens_at("Polar Sink", BG) == 0
    state = apply(state, PlaceStartingTokens(faction=BG, placement={"Carthag": 1})).state
    assert state.tokens_at(DATA.board.default_location("Carthag"), BG) == 1


def test_a_15_the_polar_sink_stays_the_bg_choice_for_their_starting_token():
    """factions.json (optional XV): the token "may be placed in any territory instead of the Polar Sink": a choice,
    not a move away from the Polar Sink (as with the free advisor, tests/test_optional_rules.py)."""
    state = answer_secrets(start(character_advantages=True))
    prompt = prompt_of(state, BG, PromptKind.STARTING_PLACEMENT)
    assert "Polar Sink" in prompt.options
    assert DEFAULTS[prompt.kind](state, prompt).placement == {"Polar Sink": 1}
    state = apply(state, PlaceStartingTokens(faction=BG, placement={"Polar Sink": 1})).state
    assert state.tokens_at("Polar Sink", BG) == 1


def test_setup_ends_at_turn_one_storm_with_the_storm_at_the_start_sector(seven):
    """1979 rules: Setup: the secret decisions, then the tokens, then turn 1's storm."""
    state = finish_setup(seven)
    assert (state.phase, state.turn, state.storm_sector) == (Phase.STORM, 1, DATA.board.storm_start_sector)
    on_board = sum(n for here in state.forces.values() for f, n in here.items() if f == F)
    assert on_board == 10


def test_fixed_storm_sector():
    assert start(fixed=FixedSetup(storm_sector=7)).storm_sector == 7


def test_fixed_treachery_deck_deals_the_top_cards_in_faction_order():
    top = ("lasgun", "karama_1", "shield_1", "snooper_2", "hajr", "family_atomics")
    state = start((A, H, E), fixed=FixedSetup(treachery_deck=top))
    assert state.faction(A).hand == ["lasgun"]
    assert state.faction(H).hand == ["karama_1", "shield_1"]
    assert state.faction(E).hand == ["snooper_2"]
    assert state.treachery_deck[:2] == ["hajr", "family_atomics"]


def test_fixed_spice_deck_is_on_top():
    state = start(fixed=FixedSetup(spice_deck=("shai_hulud_1", "spice_the_great_flat")))
    assert state.spice_deck[:2] == ["shai_hulud_1", "spice_the_great_flat"]
    assert len(state.spice_deck) == 21


def test_fixed_traitor_hands():
    hand = ("feyd_rautha", "beast_rabban", "stilgar", "chani")
    state = start((A, H, F), fixed=FixedSetup(traitor_hands={A: hand}))
    assert prompt_of(state, A, PromptKind.TRAITOR_PICK).options == list(hand)
    others = set(state.faction(H).traitors) | set(prompt_of(state, F, PromptKind.TRAITOR_PICK).options)
    assert others.isdisjoint(hand)


def test_storm_order_starts_at_the_dot_the_storm_reaches_next_and_bt_are_last():
    """A-4 and R-1."""
    dots = {A: 18, BG: 3, E: 6, F: 9, G: 12, H: 15}
    state = start(fixed=FixedSetup(dots=dots, storm_sector=5))
    assert storm_order(state) == [E, F, G, H, A, BG, BT]
    state = start(fixed=FixedSetup(dots=dots, storm_sector=18))
    assert storm_order(state) == [A, BG, E, F, G, H, BT]


def test_random_dots_are_distinct_and_the_bt_have_none(seven):
    dots = [fs.dot for f, fs in seven.factions.items() if f != BT]
    assert sorted(dots) == sorted(DATA.board.player_dot_sectors)
    assert seven.faction(BT).dot is None


@pytest.mark.parametrize(
    ("factions", "fixed", "message"),
    [
        ((A, BT), FixedSetup(), "BT-2"),
        ((A,), FixedSetup(), "2 to 6 base factions"),
        ((A, A, H), FixedSetup(), "twice"),
        ((A, H, BT), FixedSetup(traitor_hands={BT: ("feyd_rautha", "beast_rabban", "thufir_hawat", "lady_jessica")}),
         "BT-1"),
        ((A, H, F), FixedSetup(treachery_deck=("excalibur",)), "unknown cards"),
        ((A, H, F), FixedSetup(traitor_hands={A: ("alia", "stilgar", "chani", "jamis")}), "not in this game"),
        ((A, H, F), FixedSetup(dots={A: 4}), "no player dot"),
    ],
)
def test_invalid_setups_are_refused(factions, fixed, message):
    with pytest.raises((InvalidSetup, ValueError)) as refusal:
        new_game(make_setup(factions, fixed=fixed))
    assert message in str(refusal.value)


def test_a_two_player_game_without_the_bt_is_fine():
    state = start((A, H))
    assert set(state.factions) == {A, H}


def test_same_seed_same_game_other_seed_other_game():
    assert state_hash(start(seed=3)) == state_hash(start(seed=3))
    assert state_hash(start(seed=3)) != state_hash(start(seed=4))
    assert state_hash(finish_setup(start(seed=3), 9)) == state_hash(finish_setup(start(seed=3), 9))


def test_every_base_faction_alone_with_harkonnen_sets_up():
    for faction in BASE_FACTIONS:
        if faction == H:
            continue
        state = finish_setup(start((faction, H, BT)))
        assert state.phase == Phase.STORM

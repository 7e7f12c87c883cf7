"""Traps (BT-30..BT-34, R-12, R-24, BT-50): which tokens a sprung trap freezes and for how long, every way tokens
could leave a trapped stronghold, and what a worthless card does in a BT attack or a trap (BT-12, BT-16, BT-33,
R-17) with the `bt_worthless_impairers` option on and off."""

from __future__ import annotations

from engine.actions import (
    ChooseBtAttack,
    ChooseBtImpairment,
    Move,
    PlaceTokens,
    PlayHajr,
    RideWorm,
    SetCoexistence,
    Ship,
    ShipToReserves,
)
from engine.checks.invariants import violations
from engine.flow import DEFAULTS, open_prompt
from engine.game import apply
from engine.model import Impairment, Phase, PromptKind, Trap
from engine.options import FixedSetup, GameOptions
from engine.rules.forces import send_to_tanks
from tests.conftest import BG, BT, A, E, F, G, H, apply_all, enter_phase, prompt_of, refused, start, take_card
from tests.helpers.positions.battle import give
from tests.helpers.positions.bt_attacks import bt_arena, bt_plan, defend, fought, trapped
from tests.helpers.positions.movement import CARTHAG, TUEKS, answer_defaults_until, arrange
from tests.helpers.setup_answers import answer_secrets

ARSUNT = "Arsunt#10"


def hold(state, faction, card):
    state.faction(faction).hand.append(take_card(state, card))


# --- item 1: only the triggering tokens are frozen (BT-31) --------------------------------------------------


def test_bt_31_only_the_tokens_that_sprang_the_trap_are_frozen():
    """BT-31: the 2 tokens shipped in spring the trap and are frozen; the 3 that move in later the same turn are
    free to leave again (here by Hajr's extra move); a move of more than the free ones is refused."""
    state, _ = arrange(forces={ARSUNT: {H: 3}}, spice={H: 10}, traps={"Carthag": None})
    hold(state, H, "hajr")
    state = answer_defaults_until(state, H)
    state, sprung = apply(state, Ship(faction=H, to_location=CARTHAG, tokens=2))
    state = answer_defaults_until(state, H, PromptKind.MOVEMENT)
    state, _ = apply_all(state, PlayHajr(faction=H), Move(faction=H, from_location=ARSUNT, to_location=CARTHAG,
                                                           tokens=3))
    hajr_move = prompt_of(state, H, PromptKind.MOVEMENT)
    assert CARTHAG in hajr_move.options and hajr_move.detail["tokens"][CARTHAG] == 3
    refusal = refused(state, Move(faction=H, from_location=CARTHAG, to_location=ARSUNT, tokens=4), rule="BT-31")
    assert "3 may leave" in refusal.message
    state, _ = apply(state, Move(faction=H, from_location=CARTHAG, to_location=ARSUNT, tokens=3))
    assert state.tokens_at(CARTHAG, H) == 2 and state.tokens_at(ARSUNT, H) == 3
    triggered = next(e for e in sprung if e.type == "trap_triggered")
    assert triggered.public and triggered.data["tokens"] == 2 and "their 2 tokens" in triggered.message
    assert violations(state) == []


def test_r_24_the_guild_ship_out_only_their_free_tokens():
    """R-24: cross-shipping and shipping back are refused for frozen tokens, citing R-24, and say how many may
    leave; the prompt offers only the free ones. Here 2 Guild tokens sprang the trap and 3 came later."""
    state, _ = arrange(forces={TUEKS: {G: 5}}, spice={G: 10}, traps={"Tuek's Sietch": G})
    state.traps["Tuek's Sietch"].frozen = 2
    state = answer_defaults_until(state, G)
    assert prompt_of(state, G, PromptKind.SHIPMENT).detail["tokens_at"] == {TUEKS: 3}
    refusal = refused(state, ShipToReserves(faction=G, from_location=TUEKS, tokens=4), rule="R-24")
    assert "3 may leave" in refusal.message
    refused(state, Ship(faction=G, from_location=TUEKS, to_location=CARTHAG, tokens=4), rule="R-24")
    shipped, _ = apply(state, Ship(faction=G, from_location=TUEKS, to_location=CARTHAG, tokens=3))
    assert shipped.tokens_at(TUEKS, G) == 2 and shipped.tokens_at(CARTHAG, G) == 3


def test_bt_31_a_guild_cross_shipment_springs_the_trap_and_freezes_what_it_brought():
    """BT-31: tokens cross-shipped in (A-23) are "shipped into" the stronghold: they spring the trap and are frozen;
    the Guild's other tokens elsewhere move freely."""
    state, _ = arrange(forces={"The Great Flat#14": {G: 4}, "Arsunt#11": {G: 1}}, spice={G: 10},
                       traps={"Carthag": None})
    state = answer_defaults_until(state, G)
    state, events = apply(state, Ship(faction=G, from_location="The Great Flat#14", to_location=CARTHAG, tokens=3))
    assert state.traps["Carthag"].triggered_by == G and state.traps["Carthag"].frozen == 3
    state = answer_defaults_until(state, G, PromptKind.MOVEMENT)
    assert CARTHAG not in prompt_of(state, G, PromptKind.MOVEMENT).options
    refused(state, Move(faction=G, from_location=CARTHAG, to_location="Arsunt#11", tokens=1), rule="BT-31")


def test_bt_31_fremen_bringing_tokens_into_a_trapped_sietch_tabr_are_frozen():
    """BT-31: the Fremen's free shipment (Sietch Tabr is near The Great Flat) springs a trap like any shipment."""
    state, _ = arrange(forces={"False Wall West#15": {F: 2}}, traps={"Sietch Tabr": None})
    state = answer_defaults_until(state, F)
    state, events = apply(state, Ship(faction=F, to_location="Sietch Tabr#13", tokens=5))
    assert state.traps["Sietch Tabr"].triggered_by == F and state.traps["Sietch Tabr"].frozen == 5
    state = answer_defaults_until(state, F, PromptKind.MOVEMENT)
    assert prompt_of(state, F, PromptKind.MOVEMENT).options == ["False Wall West#15"]


def test_bt_31_another_faction_entering_a_sprung_trap_is_not_frozen():
    """BT-31: only the triggering faction's tokens are frozen; a second faction arriving later springs nothing and
    may leave again (here by Hajr's extra move)."""
    state, _ = arrange(forces={CARTHAG: {H: 4}, ARSUNT: {E: 3}}, traps={"Carthag": H})
    state.traps["Carthag"].frozen = 4
    hold(state, E, "hajr")
    state = answer_defaults_until(state, E, PromptKind.MOVEMENT)
    state, events = apply_all(state, PlayHajr(faction=E),
                              Move(faction=E, from_location=ARSUNT, to_location=CARTHAG, tokens=3))
    assert not any(e.type == "trap_triggered" for e in events) and state.traps["Carthag"].triggered_by == H
    state, _ = apply(state, Move(faction=E, from_location=CARTHAG, to_location=ARSUNT, tokens=3))
    assert state.tokens_at(ARSUNT, E) == 3


def test_bt_31_losses_in_a_trapped_stronghold_take_the_free_tokens_first():
    """Our ruling (engine/factions/bene_tleilaxu.py): tokens are alike, so a loss there (battle, storm, betrayal,
    allies apart) comes off the free tokens first; the frozen count falls only when fewer tokens remain than it
    counts, and tokens that arrive afterwards are free."""
    state, _ = arrange(forces={CARTHAG: {H: 5}, ARSUNT: {H: 2}}, traps={"Carthag": H})
    state.traps["Carthag"].frozen = 3
    send_to_tanks(state, CARTHAG, H, 1)  # 4 left: still 3 frozen, 1 free
    assert state.traps["Carthag"].frozen == 3
    send_to_tanks(state, CARTHAG, H, 3)  # 1 left: it is frozen
    assert state.traps["Carthag"].frozen == 1
    state = answer_defaults_until(state, H, PromptKind.MOVEMENT)
    hold(state, H, "hajr")
    state, _ = apply_all(state, PlayHajr(faction=H), Move(faction=H, from_location=ARSUNT, to_location=CARTHAG,
                                                           tokens=2))
    assert prompt_of(state, H, PromptKind.MOVEMENT).detail["tokens"][CARTHAG] == 2
    refused(state, Move(faction=H, from_location=CARTHAG, to_location=ARSUNT, tokens=3), rule="BT-31")


def test_an_admin_correction_that_takes_frozen_tokens_away_lowers_the_frozen_count():
    state, _ = arrange(forces={CARTHAG: {H: 3}}, traps={"Carthag": H})
    state, _ = apply(state, PlaceTokens(admin="mod", reason="table error", faction=H, tokens=2, source=CARTHAG,
                                        destination="reserves"))
    assert state.traps["Carthag"].frozen == 1 and violations(state) == []


def test_bt_31_a_karama_trap_freezes_like_any_trap():
    """BT-50: a Karama laid as a trap is sprung and freezes the triggering tokens like any other card."""
    state, _ = arrange(forces={ARSUNT: {H: 3}}, spice={H: 10})
    state.traps["Carthag"] = Trap(card=take_card(state, "karama_1"))
    state = answer_defaults_until(state, H)
    state, _ = apply(state, Ship(faction=H, to_location=CARTHAG, tokens=2))
    assert state.traps["Carthag"].frozen == 2
    state = answer_defaults_until(state, H, PromptKind.MOVEMENT)
    assert prompt_of(state, H, PromptKind.MOVEMENT).options == [ARSUNT]


# --- worm rides and co-existence ----------------------------------------------------------------------------


def test_bt_31_a_worm_ride_into_a_trapped_stronghold_springs_it_and_freezes_the_riders():
    """BT-31: a worm ride (A-28) moves tokens: riding into a trapped stronghold springs it; the riders are frozen
    for the rest of the turn (R-24: the movement round that follows)."""
    state, _ = arrange(forces={"The Great Flat#14": {F: 4}, "False Wall West#15": {F: 1}},
                       traps={"Sietch Tabr": None})
    open_prompt(state, PromptKind.WORM_RIDE, F, secret=False, options=["Sietch Tabr#13"], territory="The Great Flat",
                tokens=4, from_locations={"The Great Flat#14": 4})  # as a worm in The Great Flat would
    state, events = apply(state, RideWorm(faction=F, to_location="Sietch Tabr#13"))
    trap = state.traps["Sietch Tabr"]
    assert (trap.triggered_by, trap.frozen, trap.triggered_turn) == (F, 4, state.turn)
    assert any(e.type == "trap_triggered" and e.data["tokens"] == 4 for e in events)
    state = answer_defaults_until(state, F, PromptKind.MOVEMENT)
    assert prompt_of(state, F, PromptKind.MOVEMENT).options == ["False Wall West#15"]
    refused(state, Move(faction=F, from_location="Sietch Tabr#13", to_location="False Wall West#15", tokens=1),
            rule="BT-31")


def coexisting(**traps):
    """A game with `character_advantages` whose Bene Gesserit hold 3 advisors in Carthag and 2 tokens on the Flat,
    at the Bene Gesserit's shipment decision."""
    state, _ = arrange(forces={"The Great Flat#14": {BG: 2}}, traps=traps, character_advantages=True)
    state.faction(BG).reserves -= 3
    state.bg_advisors = {CARTHAG: 3}
    return answer_defaults_until(state, BG)


def test_bt_31_advisors_becoming_fighters_spring_the_trap_and_are_frozen():
    """engine/factions/coexistence.py: advisors turning into fighters arrive on the board like a shipment, so they
    spring a
    trap (BT-31) and are frozen; an advisor sent along with a shipment (not on the board) springs nothing."""
    state = coexisting(Carthag=None)
    state, events = apply(state, SetCoexistence(faction=BG, territory="Carthag", advisors=False))
    assert state.traps["Carthag"].triggered_by == BG and state.traps["Carthag"].frozen == 3
    assert any(e.type == "trap_triggered" for e in events)


def test_r_24_frozen_fighters_cannot_turn_into_advisors_that_turn():
    """R-24, our reading: becoming advisors takes tokens off the board (engine/factions/coexistence.py), which frozen
    tokens cannot leave that turn by any means; it would also let them escape a Karama trap's blast (BT-50)."""
    state = coexisting(Carthag=None)
    state, _ = apply(state, SetCoexistence(faction=BG, territory="Carthag", advisors=False))
    refusal = refused(state, SetCoexistence(faction=BG, territory="Carthag", advisors=True), rule="R-24")
    assert "3" in refusal.message
    assert state.tokens_at(CARTHAG, BG) == 3


# --- item 2: tokens placed at setup are frozen in turn 1 (R-12) ---------------------------------------------


def set_up_with_a_trap_on_carthag():
    """A four-faction game whose BT laid a trap on Carthag at setup; the Harkonnen then placed their 10 there."""
    state = start((A, H, G, BT), fixed=FixedSetup(storm_sector=1, dots={A: 3, H: 9, G: 15}))
    card = next(c for c in state.faction(BT).hand)
    state = answer_secrets(state, traps={"Carthag": card})
    assert state.turn == 1 and state.traps["Carthag"].triggered_by == H
    return state


def test_r_12_tokens_placed_at_setup_on_a_trap_are_frozen_in_turn_1():
    """R-12, BT-31: the Harkonnen's 10 starting tokens sprang the trap on Carthag: they cannot move in turn 1;
    2 tokens shipped in later that turn can."""
    state = set_up_with_a_trap_on_carthag()
    state, _ = enter_phase(state, Phase.MOVEMENT)
    state = answer_defaults_until(state, H)
    state, _ = apply(state, Ship(faction=H, to_location=CARTHAG, tokens=2))
    state = answer_defaults_until(state, H, PromptKind.MOVEMENT)
    assert prompt_of(state, H, PromptKind.MOVEMENT).detail["tokens"][CARTHAG] == 2
    refusal = refused(state, Move(faction=H, from_location=CARTHAG, to_location=ARSUNT, tokens=3), rule="BT-31")
    assert "2 may leave" in refusal.message
    moved, _ = apply(state, Move(faction=H, from_location=CARTHAG, to_location=ARSUNT, tokens=2))
    assert moved.tokens_at(CARTHAG, H) == 10


def test_bt_32_r_12_a_trap_sprung_at_setup_strikes_in_the_turn_1_battle_round():
    state = set_up_with_a_trap_on_carthag()
    state, events = enter_phase(state, Phase.BATTLE)
    attack = next(e for e in events if e.type == "trap_attack")
    assert attack.data["faction"] == H.value and attack.data["territory"] == "Carthag" and state.turn == 1


# --- item 3: a worthless card alone attacks with the impairers off (BT-12) -----------------------------------


def without_impairers(state):
    state.setup = state.setup.model_copy(update={"options": GameOptions(bt_worthless_impairers=False)})
    return state


def test_bt_12_the_bt_attack_with_a_worthless_card_alone_when_impairers_are_off():
    """BT-12: "a weapon card and/or a worthless card": with BT-16 off, the BT holding only worthless cards are
    still offered the attack; the card fills the weapon slot (R-34), does nothing, is discarded (R-4), and
    imposes no impairment."""
    state = without_impairers(bt_arena())
    give(state, BT, "kulon")
    state, _ = fought(state)
    assert "feyd_rautha" in prompt_of(state, BT, PromptKind.BT_ATTACK).options
    state, _ = apply(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"))
    shape = prompt_of(state, BT, PromptKind.BATTLE_PLAN).detail
    assert shape["weapons"] == ["kulon"] and shape["impairments"] == []  # the DM form offers no impairment
    refusal = refused(state, bt_plan("kulon", impair="no_moving"), rule="BT-16")
    assert "off" in refusal.message
    state, events = apply_all(state, bt_plan("kulon"), defend("feyd_rautha"))
    assert "feyd_rautha" not in state.faction(H).leaders_in_tanks and "kulon" in state.treachery_discard
    assert state.bt.impairments == [] and not any("BT-16" in e.message for e in events)
    assert violations(state) == []


def test_bt_12_the_default_attack_plan_names_no_impairment_when_impairers_are_off():
    """The default plan (a forced or expired decision) must be legal: with BT-16 off it names no impairment."""
    state = without_impairers(bt_arena())
    give(state, BT, "kulon")
    state, _ = fought(state)
    state, _ = apply(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"))
    default = DEFAULTS[PromptKind.BATTLE_PLAN](state, prompt_of(state, BT, PromptKind.BATTLE_PLAN))
    assert default.weapon == "kulon" and default.impair is None
    state, _ = apply(state, default)
    assert BT in state.battle.current.plans


# --- item 4: a worthless trap impairs (BT-33 with BT-16, R-17) -----------------------------------------------


def test_bt_33_bt_16_a_worthless_trap_lets_the_bt_choose_the_impairment():
    """BT-33: a trap resolves as BT-12..BT-16; its worthless card, revealed, lets the BT choose (BT-16, the
    article: "when it is revealed") whether the trapped faction may not ship or may not move next turn."""
    state = trapped("kulon")
    state, events = enter_phase(state, Phase.BATTLE)
    leader = next(e for e in events if e.type == "trap_attack").data["leader"]
    state, events = apply(state, defend(leader))
    assert leader not in state.faction(H).leaders_in_tanks and "kulon" in state.treachery_discard
    resolved = next(e for e in events if e.type == "bt_trap_resolved")
    assert resolved.data["card"] == "kulon" and "choose" in resolved.message
    choice = prompt_of(state, BT, PromptKind.BT_IMPAIRMENT)
    assert not choice.secret and choice.options == ["no_shipping", "no_moving"]
    assert choice.detail["target"] == H.value
    turn = state.turn
    state, events = apply(state, ChooseBtImpairment(faction=BT, impair="no_shipping"))
    assert state.bt.impairments == [Impairment(faction=H, kind="no_shipping", turn=turn + 1)]
    assert any(e.public and e.type == "bt_impairment" and "ship" in e.message for e in events)
    assert violations(state) == []


def test_bt_16_r_17_a_trap_impairment_bars_the_next_turn_like_an_attack():
    """R-17: "next turn" for a trap is the turn after its battle round, as for the leader attack."""
    state = trapped("kulon")
    state, events = enter_phase(state, Phase.BATTLE)
    leader = next(e for e in events if e.type == "trap_attack").data["leader"]
    turn = state.turn
    state, _ = apply_all(state, defend(leader), ChooseBtImpairment(faction=BT, impair="no_moving"))
    assert state.bt.impairments[0].turn == turn + 1
    nxt, _ = enter_phase(state, Phase.MOVEMENT, turn=turn + 1)
    nxt = answer_defaults_until(nxt, H, PromptKind.MOVEMENT)
    refused(nxt, Move(faction=H, from_location=CARTHAG, to_location=ARSUNT, tokens=1), rule="BT-16")


def test_bt_33_a_worthless_trap_does_nothing_with_impairers_off():
    state = without_impairers(trapped("kulon"))
    state, events = enter_phase(state, Phase.BATTLE)
    leader = next(e for e in events if e.type == "trap_attack").data["leader"]
    state, _ = apply(state, defend(leader))
    assert not [p for p in state.prompts if p.kind == PromptKind.BT_IMPAIRMENT] and state.bt.impairments == []
    assert "kulon" in state.treachery_discard


def test_r_17_a_weapon_trap_imposes_no_impairment():
    state = trapped("crysknife")
    state, events = enter_phase(state, Phase.BATTLE)
    leader = next(e for e in events if e.type == "trap_attack").data["leader"]
    state, _ = apply(state, defend(leader))
    assert not [p for p in state.prompts if p.kind == PromptKind.BT_IMPAIRMENT] and state.bt.impairments == []


def test_the_trap_impairment_has_a_legal_default():
    state = trapped("kulon")
    state, events = enter_phase(state, Phase.BATTLE)
    leader = next(e for e in events if e.type == "trap_attack").data["leader"]
    state, _ = apply(state, defend(leader))
    prompt = prompt_of(state, BT, PromptKind.BT_IMPAIRMENT)
    default = DEFAULTS[PromptKind.BT_IMPAIRMENT](state, prompt)
    after, _ = apply(state, default)
    assert [i.faction for i in after.bt.impairments] == [H]
    refused(state, ChooseBtImpairment(faction=H, impair="no_moving"))

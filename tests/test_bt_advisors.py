"""R-38: Bene Gesserit advisors (A-15 `character_advantages`, co-existence: engine/factions/coexistence.py) are
ignored for
occupancy and control, but go to the tanks with everything else wherever every token in a place is destroyed: a
Karama trap (BT-50), a lasgun/shield explosion in a battle, a BT attack or a trap (BT-14, R-16), as with storms and
worms (those are in tests/test_optional_rules.py)."""

from __future__ import annotations

import pytest

from engine.actions import CallTraitor, ChooseBtAttack, PlayStormCards, SetCoexistence, TrapsAndGifts
from engine.checks.invariants import violations
from engine.flow import DEFAULTS
from engine.game import apply
from engine.model import Phase, PromptKind
from engine.rules.board import controller
from engine.rules.cards import FAMILY_ATOMICS
from engine.secrecy.views import view
from tests.conftest import BG, BT, E, H, apply_all, begin_position, enter_phase, prompt_of
from tests.helpers.positions.battle import FLAT, arena, give, plan, put
from tests.helpers.positions.bt_attacks import bt_plan, defend, fought, trapped
from tests.helpers.positions.cards import dial, position, storm_round
from tests.helpers.positions.optional_combat import switch_on

CARTHAG = "Carthag#10"
ADVANTAGES = {"character_advantages": True}


def advisors_gone(state, before_tanks, count):
    """The Bene Gesserit's `count` advisors are in the tanks, and the table sees none left."""
    assert state.bg_advisors == {} and view(state, None).bg_advisors == {}
    assert state.faction(BG).tanks == before_tanks + count
    assert violations(state) == []


# --- every token destroyed: the advisors too -----------------------------------------------------------------


def test_r_38_a_lasgun_shield_explosion_in_a_battle_kills_the_advisors_there():
    """R-38: the Emperor's lasgun meets the Harkonnen shield on The Great Flat, where 2 advisors co-exist: they go
    to the tanks with every token there, and the table reads so."""
    state = arena((E, H, BG), options=ADVANTAGES, advisors={FLAT: 2})
    put(state, E, FLAT, 6)
    put(state, H, FLAT, 5)
    give(state, E, "lasgun")
    give(state, H, "shield_1")
    tanks = state.faction(BG).tanks
    state, _ = enter_phase(state, Phase.BATTLE)
    state, events = apply_all(state, plan(E, "hasimir_fenring", 3, weapon="lasgun"),
                              plan(H, "feyd_rautha", 2, defense="shield_1"), CallTraitor(faction=E, call=False),
                              CallTraitor(faction=H, call=False))
    advisors_gone(state, tanks, 2)
    assert FLAT not in state.forces
    explosion = next(e for e in events if e.type == "explosion")
    assert explosion.public and "13 tokens, 2 of them Bene Gesserit advisors" in explosion.message


def test_r_38_an_explosion_in_the_bt_leader_attack_kills_the_advisors_there():
    """R-38 (BT-14, R-16): the BT's lasgun meets Hasimir Fenring's shield on The Great Flat, after his battle
    there; the advisors co-existing there die with the tokens."""
    state = arena((E, H, BG, BT), options=ADVANTAGES, advisors={FLAT: 3})
    give(state, BT, "lasgun")
    give(state, E, "shield_1")
    tanks = state.faction(BG).tanks
    state, _ = fought(state)
    state, events = apply_all(state, ChooseBtAttack(faction=BT, leader="hasimir_fenring"), bt_plan("lasgun"),
                              defend("hasimir_fenring", "shield_1", faction=E))
    advisors_gone(state, tanks, 3)
    resolved = next(e for e in events if e.type == "bt_attack_resolved")
    assert resolved.data["explosion"] and "3 of them Bene Gesserit advisors" in resolved.message


@pytest.mark.parametrize(("card", "defense"), [("karama_2", None), ("lasgun", "shield_1")])
def test_r_38_a_trap_that_destroys_every_token_kills_the_advisors_too(card, defense):
    """R-38: a Karama trap (BT-50), or a lasgun trap meeting a shield (BT-14, R-16), sends every token in Carthag to
    the tanks: the Harkonnen who sprang it and the 2 advisors co-existing there."""
    state = trapped(card, factions=(E, H, BG, BT), options=ADVANTAGES, advisors={CARTHAG: 2},
                    draws={"trap_leader": ["feyd_rautha"]})
    if defense:
        give(state, H, defense)
    tanks = state.faction(BG).tanks
    state, _ = enter_phase(state, Phase.BATTLE)
    state, events = apply(state, defend("feyd_rautha", defense))
    advisors_gone(state, tanks, 2)
    assert state.tokens_at(CARTHAG, H) == 0
    assert "2 of them Bene Gesserit advisors" in next(e for e in events if e.type == "bt_trap_resolved").message


def test_r_38_family_atomics_kills_the_advisors_on_the_shield_wall():
    """R-38's rule, "whenever every token in a place is destroyed": Family Atomics sends every token on the Shield
    Wall to the tanks, the advisors co-existing there too."""
    state = position(hands={H: [FAMILY_ATOMICS]}, forces={"Shield Wall#7": {H: 3}})
    state = switch_on(state, **ADVANTAGES)
    state.faction(BG).reserves -= 2
    state.bg_advisors = {"Shield Wall#8": 2}
    tanks = state.faction(BG).tanks
    state, _ = dial(storm_round(state))
    events = []
    for prompt in [p for p in state.prompts if p.kind == PromptKind.STORM_CARDS]:
        state, new = apply(state, PlayStormCards(faction=prompt.faction, family_atomics=prompt.faction == H))
        events += new
    advisors_gone(state, tanks, 2)
    played = next(e for e in events if e.type == "card_played" and e.data["card"] == FAMILY_ATOMICS)
    assert "2 Bene Gesserit advisors" in played.message and played.data["killed"] == {"harkonnen": 3,
                                                                                      "bene_gesserit": 2}


def test_r_38_advisors_are_spared_where_only_one_factions_tokens_die():
    """R-38 is about every token in a place: the loser of a battle loses only its own tokens, and the advisors
    co-existing there stay."""
    state = arena((E, H, BG), options=ADVANTAGES, advisors={FLAT: 2})
    put(state, E, FLAT, 6)
    put(state, H, FLAT, 5)
    state, _ = enter_phase(state, Phase.BATTLE)
    state, _ = apply_all(state, plan(E, "hasimir_fenring", 3), plan(H, "feyd_rautha", 2),
                         CallTraitor(faction=E, call=False), CallTraitor(faction=H, call=False))
    assert state.tokens_at(FLAT, H) == 0 and state.bg_advisors == {FLAT: 2}


# --- occupancy and control: advisors are ignored ------------------------------------------------------------


def bidding_with_advisors_in(stronghold_location):
    """The bidding round of turn 2, the BT holding a crysknife, 2 advisors alone in a stronghold."""
    return begin_position({
        "format": "mentat-position/1", "factions": ["atreides", "bene_gesserit", "emperor", "bene_tleilaxu"],
        "options": ADVANTAGES, "turn": 2, "phase": "bidding", "advisors": {stronghold_location: 2},
        "hands": {"bene_tleilaxu": ["crysknife"]},
    })


def test_r_38_r_11_a_stronghold_holding_only_advisors_holds_no_tokens_for_a_trap():
    """R-38, R-11: after setup the BT may trap a stronghold that holds no tokens; advisors alone are none."""
    state, _ = bidding_with_advisors_in("Arrakeen#9")
    assert "Arrakeen" in prompt_of(state, BT, PromptKind.BT_TRAPS_AND_GIFTS).options
    state, _ = apply(state, TrapsAndGifts(faction=BT, traps={"Arrakeen": "crysknife"}))
    assert state.traps["Arrakeen"].card == "crysknife" and state.bg_advisors == {"Arrakeen#9": 2}


def test_r_38_bt_24_advisors_do_not_end_bt_control_until_they_become_fighters():
    """R-38, BT-24: the BT control Carthag without tokens, where 2 advisors co-exist: it stays theirs (control and
    collection) until the advisors become fighters, which ends it like tokens arriving."""
    state, _ = begin_position({
        "format": "mentat-position/1", "factions": ["bene_gesserit", "emperor", "harkonnen", "bene_tleilaxu"],
        "options": ADVANTAGES, "turn": 2, "phase": "movement", "advisors": {CARTHAG: 2},
        "bt": {"controlled": ["Carthag"]},
    })
    assert controller(state, "Carthag") == BT and view(state, None).bt_controlled == ["Carthag"]
    while not any(p.kind == PromptKind.SHIPMENT for p in state.prompts_for(BG)):
        prompt = state.prompts[0]
        state, _ = apply(state, DEFAULTS[prompt.kind](state, prompt))
    assert controller(state, "Carthag") == BT
    state, events = apply(state, SetCoexistence(faction=BG, territory="Carthag", advisors=False))
    assert controller(state, "Carthag") == BG and state.bt.controlled == []
    ended = next(e for e in events if e.type == "bt_control_ended")
    assert ended.public and ended.data == {"territory": "Carthag", "faction": "bene_gesserit"}

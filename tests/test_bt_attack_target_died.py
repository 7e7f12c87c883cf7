"""BT-11: the BT attack a leader who fought and survived; one who died after the attack decision opened (a
traitor reveal, a correction) is refused like any other non-target, and the game goes on."""

from __future__ import annotations

from engine.actions import ChooseBtAttack, SetLeader
from engine.game import apply
from engine.ids import Faction
from engine.model import PromptKind
from tests.conftest import prompt_of, refused
from tests.helpers.positions.battle import give
from tests.helpers.positions.bt_attacks import bt_arena, fought

BT = Faction.BENE_TLEILAXU


def test_bt_11_a_target_who_died_since_the_decision_opened_is_refused():
    state = bt_arena()
    give(state, BT, "crysknife")
    state, _ = fought(state)
    assert "feyd_rautha" in prompt_of(state, BT, PromptKind.BT_ATTACK).options
    state, _ = apply(state, SetLeader(admin="mod", reason="test", leader="feyd_rautha", alive=False))
    refused(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"), rule="BT-11")
    state, events = apply(state, ChooseBtAttack(faction=BT, leader="hasimir_fenring"))
    assert any(e.type == "bt_attack" for e in events)

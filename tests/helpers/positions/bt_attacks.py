"""Builders of battle positions with the BT: the BT's arena, its plans, a defence, a trap sprung."""

from __future__ import annotations

from engine.actions import AnswerRevealWindow, CallTraitor, SubmitBattlePlan
from engine.game import apply
from engine.model import Phase, PromptKind
from tests.conftest import BT, E, G, H, apply_all, enter_phase, prompt_of
from tests.helpers.positions.battle import FLAT, arena, plan, put


def bt_arena(factions=(E, H, G, BT), **position):
    """The arena of tests/helpers/positions/battle.py with the Bene Tleilaxu: no traps, unless `position` lays some."""
    return arena(factions, **position)


def fought(state):
    """Emperor (Hasimir Fenring) beat Harkonnen (Feyd-Rautha) on The Great Flat; both leaders survive."""
    put(state, E, FLAT, 6)
    put(state, H, FLAT, 5)
    state, _ = enter_phase(state, Phase.BATTLE)
    state, events = apply_all(state, plan(E, "hasimir_fenring", 3), plan(H, "feyd_rautha", 2),
                              CallTraitor(faction=E, call=False), CallTraitor(faction=H, call=False))
    # the BT may betray the open-field winner before the round goes on; they let it pass here.
    assert prompt_of(state, BT, PromptKind.BT_REVEAL_WINDOW).options == ["pass"]
    state, more = apply(state, AnswerRevealWindow(faction=BT))
    return state, events + more


def bt_plan(weapon=None, defense=None, impair=None):
    return SubmitBattlePlan(faction=BT, weapon=weapon, defense=defense, impair=impair)


def defend(leader, defense=None, worthless=None, faction=H):
    return SubmitBattlePlan(faction=faction, leader=leader, defense=defense, weapon=worthless)


def trapped(card, victim=H, factions=(E, H, G, BT), **position):
    """The trap on Carthag holds `card`; `victim`, with 4 tokens there, sprang it this turn (BT-30)."""
    return bt_arena(factions, forces={"Carthag#10": {victim.value: 4}},
                    traps={"Carthag": {"card": card, "triggered_by": victim.value, "triggered_turn": 2}}, **position)

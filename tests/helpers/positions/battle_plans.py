"""Builders of battle positions played up to the battle plans, the BT attack among them."""

from __future__ import annotations

from engine.game import apply
from engine.ids import Faction
from engine.model import GameState, Phase, PromptKind
from engine.positions.documents import FORMAT, load
from tests.conftest import BG, BT, A, E, H, enter_phase
from tests.helpers.positions.bt_traitors import drive

ARRAKEEN, FLAT = "Arrakeen#9", "The Great Flat#14"

DOTS = {A: 3, E: 6, H: 9, Faction.FREMEN: 12, Faction.GUILD: 15, BG: 18}  # storm at 1: A first, the BT last


def battle(factions=(A, H, BT), forces=None, hands=None, traitors=None, options=None, alliances=(), kh=None,
           spice=None) -> GameState:
    """Turn 2's battle round with the storm at sector 1 (storm order A, E, H, F, G, BG, then the BT): by default
    5 Atreides tokens against 3 Harkonnen tokens in Arrakeen, the Atreides the aggressor."""
    doc = {"format": FORMAT, "factions": [f.value for f in factions], "turn": 2, "storm": 1,
           "dots": {f.value: DOTS[f] for f in factions if f in DOTS},
           "forces": forces or {ARRAKEEN: {A: 5, H: 3}}, "hands": hands or {}, "traitors": traitors or {},
           "options": options or {}, "alliances": [list(pair) for pair in alliances], "spice": spice or {}}
    if kh:
        doc["kwisatz_haderach"] = kh
    state, _ = enter_phase(load(doc), Phase.BATTLE)
    return state


def until_plans(state: GameState, *answers) -> GameState:
    """Prescience and the Voice answered as given (each else declined) until the battle plans are asked for."""
    kinds = {"ask_prescience": PromptKind.PRESCIENCE, "answer_prescience": PromptKind.PRESCIENCE_ANSWER,
             "use_voice": PromptKind.VOICE}
    return drive(state, lambda s: any(p.kind == PromptKind.BATTLE_PLAN for p in s.prompts),
                 {(a.faction, kinds[a.type]): a for a in answers})[0]


def bt_attack(hand: list[str], impairers: bool = True) -> GameState:
    """The Atreides and the Harkonnen fought on The Great Flat; the BT attack Umman Kudu."""
    from engine.actions import ChooseBtAttack

    options = {} if impairers else {"bt_worthless_impairers": False}
    state = battle(forces={FLAT: {A: 6, H: 5}}, hands={BT: hand}, options=options)
    state = drive(state, lambda s: any(p.kind == PromptKind.BT_ATTACK for p in s.prompts))[0]
    state = apply(state, ChooseBtAttack(faction=BT, leader="umman_kudu")).state
    return drive(state, lambda s: any(p.kind == PromptKind.BATTLE_PLAN for p in s.prompts))[0]

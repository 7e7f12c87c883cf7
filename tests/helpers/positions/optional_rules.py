"""Builders of positions for the optional rules' character advantages: two worms, a Harkonnen shipment to Arrakeen,
the BG's turn, the Guild's round."""

from __future__ import annotations

from engine.actions import Ship
from engine.flow import DEFAULTS
from engine.game import apply
from engine.model import PromptKind
from tests.conftest import BG, A, F, G, H
from tests.helpers.positions.movement import answer_defaults_until, arrange
from tests.helpers.positions.spice_blow import GREAT_FLAT, OLD_GAP, SH1, SH2, at_blow

ARRAKEEN, CARTHAG, TUEKS = "Arrakeen#9", "Carthag#10", "Tuek's Sietch#4"

FLAT, FUNERAL = "The Great Flat#14", "Funeral Plain#14"


def two_worms(character_advantages):
    """Turn 2: the discard shows The Great Flat; the deck is Shai-Hulud, Shai-Hulud, Old Gap. Atreides in The Great
    Flat, Harkonnen 3 and 4 spice in Funeral Plain, Fremen 2 in Funeral Plain."""
    return at_blow([SH1, SH2, OLD_GAP], discard=[GREAT_FLAT], tokens=[(FLAT, A, 2), (FUNERAL, H, 3), (FUNERAL, F, 2)],
                   spice=[(FUNERAL, 4)], character_advantages=character_advantages)


def harkonnen_ship_to_arrakeen(character_advantages):
    state, _ = arrange(forces={ARRAKEEN: {A: 5}}, spice={H: 10}, character_advantages=character_advantages)
    state = answer_defaults_until(state, H)
    state, _ = apply(state, Ship(faction=H, to_location=ARRAKEEN, tokens=2))
    return state


def bg_turn(character_advantages, forces=None):
    state, _ = arrange(forces=forces or {ARRAKEEN: {A: 3, BG: 2}}, character_advantages=character_advantages)
    return answer_defaults_until(state, BG)


def guild_round(character_advantages, karama=()):
    """Storm order A, BG, E, F, G, H: everyone has reserves; the Guild would normally go fifth."""
    state, _ = arrange(forces={TUEKS: {G: 2}}, karama=karama, character_advantages=character_advantages)
    for prompt in [p for p in state.prompts if p.kind == PromptKind.REVIVAL]:
        state = apply(state, DEFAULTS[prompt.kind](state, prompt)).state
    return state

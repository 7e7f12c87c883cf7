"""Builders of movement positions: an arranged board (an autouse fixture stops the game when battles begin),
defaults answered up to a decision, token counts checked."""

from __future__ import annotations

import pytest

from engine.checks.invariants import violations
from engine.data import load_game_data
from engine.flow import DEFAULTS, STEP_RUNNERS
from engine.game import apply
from engine.ids import BASE_FACTIONS
from engine.model import Phase, PromptKind
from engine.positions.documents import FORMAT, begin
from engine.rules.board import territory_of
from engine.rules.economy import total_spice_outside_bank
from tests.conftest import ALL_SEVEN, BG, A, E, F, G, H

DATA = load_game_data()

DOTS = {A: 3, BG: 6, E: 9, F: 12, G: 15, H: 18}  # storm at sector 1: A, BG, E, F, G, H, then the BT

ARRAKEEN, CARTHAG, TUEKS, TABR = "Arrakeen#9", "Carthag#10", "Tuek's Sietch#4", "Sietch Tabr#13"

GREAT_FLAT, SINK = "The Great Flat#14", "Polar Sink"


@pytest.fixture(autouse=True)
def _stop_when_battles_begin(monkeypatch):
    """These tests look at the movement round alone: the game stops when the battle round begins."""
    monkeypatch.delitem(STEP_RUNNERS, Phase.BATTLE, raising=False)


TRAP_CARDS = ("baliset", "jubba_cloak", "kulon", "la_la_la", "trip_to_gamont")  # which card a trap holds is moot here


def arrange(factions=ALL_SEVEN, *, forces=None, tanks=None, spice=None, dead_leaders=None, alliances=(),
            karama=(), traps=None, storm=1, orders=None, **options):
    """The start of turn 1's movement round with exactly this position (docs/positions.md); no Treachery
    cards but the readied Karamas, no traitors.

    forces: location -> faction -> tokens (the rest of each faction's 20 not in the tanks is in reserve);
    karama: (holder, card, advantage) orders readied in secret (A-14); traps: stronghold -> triggering
    faction (None: laid, not sprung); orders: the standing orders' keys of the position (revive_free_tokens...),
    in force as the round begins. Returns (state, events of entering the phase)."""
    hands: dict = {}
    for holder, card, _ in karama:
        hands.setdefault(holder, []).append(card)
    state, events = begin({
        "format": FORMAT, "factions": factions, "options": options, "phase": "movement", "storm": storm,
        "dots": {f: DOTS[f] for f in factions if f in DOTS}, "forces": forces or {}, "tanks": tanks or {},
        "spice": spice or {}, "dead_leaders": dead_leaders or {}, "alliances": alliances, "hands": hands,
        "karama_orders": [{"faction": who, "card": card, "advantage": advantage} for who, card, advantage in karama],
        # BT-31: a sprung trap froze all the tokens of its springer there
        "traps": {stronghold: {"card": card, "triggered_by": by, "triggered_turn": 1 if by else None,
                               "frozen": sum(here.get(by, 0) for loc, here in (forces or {}).items()
                                             if by and territory_of(loc) == stronghold)}
                  for (stronghold, by), card in zip((traps or {}).items(), TRAP_CARDS, strict=False)},
        **(orders or {}),
    })
    assert violations(state) == []
    return state, events


def answer_defaults_until(state, faction, kind=PromptKind.SHIPMENT):
    """Everyone else's open decisions take their defaults until `faction` is asked for `kind`."""
    for _ in range(100):
        if any(p.faction == faction and p.kind == kind for p in state.prompts):
            return state
        prompt = state.prompts[0]
        state = apply(state, DEFAULTS[prompt.kind](state, prompt)).state
    raise AssertionError(f"{faction} never got a {kind} prompt")


def public(events):
    return [e for e in events if e.public]


def tokens_consistent(state):
    for faction in BASE_FACTIONS:
        if state.in_game(faction):
            fs = state.faction(faction)
            on_board = sum(here.get(faction, 0) for here in state.forces.values())
            assert fs.reserves + on_board + fs.tanks == 20, faction
    assert total_spice_outside_bank(state) == state.spice_outside_bank

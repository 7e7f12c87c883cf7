"""Builders of bidding positions with the BT at the table."""

from __future__ import annotations

from engine.checks.invariants import violations
from engine.data import load_game_data
from engine.model import Phase, Trap
from engine.options import FixedSetup
from tests.conftest import BT, A, E, F, H, enter_phase, ready_game, tokens_back_to_reserves

DATA = load_game_data()

BOARD = DATA.board

FACTIONS = (A, E, F, H, BT)

DOTS = {A: 3, E: 6, F: 9, H: 12}  # storm at sector 1: A, E, F, H, then the BT

AUCTION = ("lasgun", "shield_1", "snooper_1", "hajr", "baliset")

BT_HAND = ("crysknife", "kulon", "karama_1", "chaumas")


def game(hands=None, tokens=None, traps=None, factions=FACTIONS, **options):
    """A ready game jumped to the start of bidding with exact hands, tokens and traps and the auction cards on
    top of the deck. `hands` defaults to the BT holding BT_HAND and everyone else nothing."""
    state = ready_game(factions, fixed=FixedSetup(dots={f: d for f, d in DOTS.items() if f in factions}),
                       **options).model_copy(deep=True)
    state.storm_sector = 1
    tokens_back_to_reserves(state)
    for faction, count_by_stronghold in (tokens or {}).items():
        for stronghold, count in count_by_stronghold.items():
            state.add_tokens(BOARD.default_location(stronghold), faction, count)
            state.faction(faction).reserves -= count
    hands = {BT: BT_HAND, **(hands or {})} if BT in factions else dict(hands or {})
    used = [c for hand in hands.values() for c in hand] + list((traps or {}).values())
    for fs in state.factions.values():
        fs.hand = list(hands.get(fs.faction, ()))
    state.traps = {s: Trap(card=c) for s, c in (traps or {}).items()}
    rest = [c.id for c in DATA.treachery_cards if c.id not in used and c.id not in AUCTION]
    state.treachery_deck = [c for c in AUCTION if c not in used] + rest
    state.treachery_discard = []
    state.karama_orders = []
    assert violations(state) == []
    return enter_phase(state, Phase.BIDDING)

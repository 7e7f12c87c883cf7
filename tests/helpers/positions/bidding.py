"""Builders of bidding positions: an auction open, who bids next, and passes."""

from __future__ import annotations

from engine.actions import PassBid, UseKarama
from engine.game import apply
from engine.model import Phase, PromptKind
from engine.options import FixedSetup
from tests.conftest import BG, A, E, F, G, H, enter_phase, ready_game

FOUR = (A, E, F, H)

DOTS = {A: 3, E: 6, F: 9, H: 12, G: 15, BG: 18}  # storm at the start sector 18: BG, A, E, F, H, G

# Starting cards in faction order (A, E, F, H, H), then the four auction cards, then the rest of the deck.
START = ("crysknife", "maula_pistol", "slip_tip", "stunner", "chaumas")

AUCTION = ("lasgun", "shield_1", "snooper_1", "hajr")

NEXT = ("baliset", "kulon")


def game(factions=FOUR, start=START, spice=None, hands=None, alliances=(), karama=(), auction=AUCTION, **options):
    """A ready game jumped to the start of bidding, with exact decks, spice, hand sizes and alliances.

    `karama` lists (holder, card, advantage, against) orders readied before bidding starts (A-14)."""
    fixed = FixedSetup(treachery_deck=(*start, *auction, *NEXT), dots={f: DOTS[f] for f in factions if f in DOTS})
    state = ready_game(factions, fixed=fixed, **options).model_copy(deep=True)  # waits on the turn-1 storm dial
    for faction, amount in (spice or {}).items():
        state.spice_outside_bank += amount - state.faction(faction).spice
        state.faction(faction).spice = amount
    for faction, size in (hands or {}).items():
        hand = state.faction(faction).hand
        while len(hand) < size:
            hand.append(state.treachery_deck.pop())  # from the bottom: the top of the deck stays as fixed
        while len(hand) > size:
            state.treachery_discard.append(hand.pop())
    state.alliances = [list(a) for a in alliances]
    for holder, card, advantage, against in karama:
        state = apply(state, UseKarama(faction=holder, card=card, advantage=advantage, against=against)).state
    return enter_phase(state, Phase.BIDDING)


def bidder(state):
    """The one faction asked to bid now."""
    bids = [p for p in state.prompts if p.kind == PromptKind.BID]
    assert len(bids) == 1, state.prompts
    return bids[0].faction


def passes(*factions):
    return [PassBid(faction=f) for f in factions]

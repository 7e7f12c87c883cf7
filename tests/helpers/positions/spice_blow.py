"""Builders of spice blow positions: a base game, a blow about to happen, the Fremen in the Great Flat."""

from __future__ import annotations

from engine.model import Phase
from engine.options import FixedSetup
from engine.rules.economy import place_spice
from tests.conftest import ALL_SEVEN, A, F, enter_phase, ready_game

GREAT_FLAT, OLD_GAP, FUNERAL_PLAIN, HABBANYA_ERG = (
    "spice_the_great_flat", "spice_old_gap", "spice_funeral_plain", "spice_habbanya_erg",
)

SH1, SH2, SH3 = "shai_hulud_1", "shai_hulud_2", "shai_hulud_3"


def base_game(factions=ALL_SEVEN, deck=(), treachery=(), **options):
    return ready_game(factions, seed=3, fixed=FixedSetup(spice_deck=tuple(deck), treachery_deck=tuple(treachery)),
                      **options)


def at_blow(deck=(), *, discard=(), turn=2, storm=1, tokens=(), spice=(), alliances=(), state=None,
            factions=ALL_SEVEN, **options):
    """A game jumped to the start of the spice blow of `turn`, with the spice deck stacked (top first), the given
    cards moved to the discard pile (last = top), tokens taken from reserves and spice placed from the bank."""
    draft = (state or base_game(factions, deck, **options)).model_copy(deep=True)
    for card in discard:
        draft.spice_deck.remove(card)
        draft.spice_discard.append(card)
    for location, faction, count in tokens:
        draft.faction(faction).reserves -= count
        draft.add_tokens(location, faction, count)
    for location, amount in spice:
        place_spice(draft, location, amount)
    draft.alliances = [list(a) for a in alliances]
    return enter_phase(draft, Phase.SPICE_BLOW, turn=turn, storm_sector=storm)


def fremen_in_great_flat(tokens=(), **kwargs):
    """Fremen (4) and Atreides (2) in The Great Flat, the top discard; a worm, then Old Gap."""
    game = base_game(deck=(SH1, OLD_GAP))
    return at_blow(state=game, discard=[GREAT_FLAT],
                   tokens=[("The Great Flat#14", F, 4), ("The Great Flat#14", A, 2), *tokens], **kwargs)

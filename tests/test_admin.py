"""Admin corrections: each is an action, announced with its author and reason, keeping every invariant; a
correction of something secret tells the table that it happened, not what it was."""

from __future__ import annotations

import pytest

from engine.actions import MoveCard, PlaceTokens, SetLeader, SetStorm
from engine.checks.invariants import violations
from engine.game import apply
from engine.ids import Faction
from engine.secrecy.views import view
from tests.conftest import ready_game, refused

A, H, BT = Faction.ATREIDES, Faction.HARKONNEN, Faction.BENE_TLEILAXU
WHO = {"admin": "mod", "reason": "table error"}


@pytest.fixture
def game():
    return ready_game((A, H, Faction.FREMEN))


def _public(events):
    return [e.message for e in events if e.public]


def test_tokens_move_between_board_reserves_and_tanks(game):
    """[Admin] A moderator's token correction, an action like any other."""
    state, events = apply(game, PlaceTokens(**WHO, faction=A, tokens=3, source="reserves", destination="Carthag#10"))
    assert state.tokens_at("Carthag#10", A) == 3 and state.faction(A).reserves == game.faction(A).reserves - 3
    state, _ = apply(state, PlaceTokens(**WHO, faction=A, tokens=2, source="Carthag#10", destination="tanks"))
    assert state.faction(A).tanks == 2 and violations(state) == []
    assert _public(events) == ["Admin mod moved 3 Atreides tokens from reserves to Carthag#10 (table error)."]


@pytest.mark.parametrize(("source", "destination", "words"), [
    ("reserves", "Atlantis#3", "no location"),
    ("tanks", "Carthag#10", "has 0 tokens in tanks"),
])
def test_impossible_token_corrections_are_refused(game, source, destination, words):
    refusal = refused(game, PlaceTokens(**WHO, faction=A, tokens=1, source=source, destination=destination))
    assert words in refusal.message


def test_a_card_given_is_named_to_its_receiver_only(game):
    card = game.treachery_deck[0]
    state, events = apply(game, MoveCard(**WHO, card=card, to=H))
    assert card in state.faction(H).hand and violations(state) == []
    private = [e for e in events if not e.public]
    assert private[0].audience == (H,) and card not in str(_public(events))
    assert view(state, None) != view(game, None)  # the hand size is public
    taken, _ = apply(state, MoveCard(**WHO, card=card))
    assert card in taken.treachery_discard and card not in taken.faction(H).hand


def test_a_card_face_down_in_a_trap_or_a_hand_is_moved_alike_and_where_it_lay_is_not_told():
    """Issue 15, moderating blind: the moderator's correction reads the same wherever the card lay (a hand, a trap,
    the deck): the answer is "moved", the announcement names only the receiver."""
    from engine.model import Trap

    base = ready_game((A, H, BT))
    in_hand = base.faction(A).hand[0]
    trapped = base.model_copy(deep=True)
    trapped.traps["Carthag"] = Trap(card=trapped.faction(BT).hand.pop())
    in_trap = trapped.traps["Carthag"].card
    announced = []
    for state, card in ((base, in_hand), (trapped, in_trap), (base, base.treachery_deck[0])):
        after, events = apply(state, MoveCard(**WHO, card=card, to=H))
        assert card in after.faction(H).hand and violations(after) == []
        announced.append(_public(events))
    assert announced[0] == announced[1] == announced[2] == [
        "Admin mod gave the Harkonnen a Treachery card (table error)."]


def test_a_card_out_of_reach_is_refused_alike_whatever_keeps_it_there(game):
    """A card out of the game (Family Atomics) and one unknown to the game are refused; the refusal does not say
    which hidden place a card is in."""
    gone = game.model_copy(deep=True)
    card = gone.treachery_deck.pop()
    gone.removed_cards.append(card)
    refusal = refused(gone, MoveCard(**WHO, card=card, to=H), rule="Admin")
    assert "cannot be moved now" in refusal.message
    assert "no card" in refused(game, MoveCard(**WHO, card="atlantis", to=H), rule="Admin").message


def test_leaders_killed_and_revived(game):
    state, events = apply(game, SetLeader(**WHO, leader="feyd_rautha", alive=False))
    assert "feyd_rautha" in state.faction(H).leaders_in_tanks
    refused(state, SetLeader(**WHO, leader="feyd_rautha", alive=False))
    state, _ = apply(state, SetLeader(**WHO, leader="feyd_rautha", alive=True))
    assert state.faction(H).leaders_in_tanks == []
    refused(game, SetLeader(**WHO, leader="alia", alive=False))  # the Bene Gesserit are not in this game


def test_the_storm_is_set_without_sweeping(game):
    """[Admin] The storm set by a moderator sweeps nothing."""
    state, events = apply(game, SetStorm(**WHO, sector=9))
    assert state.storm_sector == 9 and state.forces == game.forces
    assert _public(events) == ["Admin mod set the storm to sector 9 (table error)."]


def test_a_15_a_token_correction_moves_regular_tokens_first_and_elites_only_when_it_must():
    """Admin corrections keep the Sardaukar among the Emperor's tokens wherever they go (elite invariant)."""
    from engine.factions.elites import elites_at, elites_in_reserves
    from tests.helpers.positions.optional_combat import put_elites, switch_on

    state = switch_on(ready_game((A, Faction.EMPEROR, H)), character_advantages=True)
    put_elites(state, Faction.EMPEROR, "Carthag#10", 5, 2)  # 3 regular, 2 Sardaukar
    state, _ = apply(state, PlaceTokens(**WHO, faction=Faction.EMPEROR, tokens=3, source="Carthag#10",
                                        destination="tanks"))
    assert elites_at(state, "Carthag#10", Faction.EMPEROR) == 2 and state.faction(Faction.EMPEROR).elite_tanks == 0
    state, _ = apply(state, PlaceTokens(**WHO, faction=Faction.EMPEROR, tokens=1, source="Carthag#10",
                                        destination="tanks"))
    assert elites_at(state, "Carthag#10", Faction.EMPEROR) == 1 and state.faction(Faction.EMPEROR).elite_tanks == 1
    state, _ = apply(state, PlaceTokens(**WHO, faction=Faction.EMPEROR, tokens=4, source="tanks",
                                        destination="reserves"))
    assert state.faction(Faction.EMPEROR).elite_tanks == 0 and elites_in_reserves(state, Faction.EMPEROR) == 4
    assert violations(state) == []

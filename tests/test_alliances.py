"""Alliances at a Nexus (A-8, BT-60), bribes (A-16) and the Emperor's spice for an ally (A-26)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.actions import (
    AcceptAlliance,
    BreakAlliance,
    EndNexus,
    GiveAllySpice,
    GiveBribe,
    ProposeAlliance,
    SetNexusOrder,
)
from engine.checks.autoplay import play_until_stuck
from engine.errors import ViolationCode
from engine.events import EventLog
from engine.flow import STEP_RUNNERS
from engine.game import apply
from engine.model import Phase, PromptKind
from engine.rng import Rng
from engine.rules.alliances import release_bribes
from engine.rules.economy import total_spice_outside_bank
from tests.conftest import ALL_SEVEN, BG, BT, A, E, F, G, H, apply_all, refused
from tests.helpers.positions.alliances import in_nexus
from tests.helpers.positions.spice_blow import GREAT_FLAT, OLD_GAP, SH1, at_blow, base_game
from tests.helpers.standing_orders import answered_by_order, public, same_for_everyone_else


@pytest.fixture(autouse=True)
def _stop_after_the_blow(monkeypatch):
    """These tests look at the Nexus alone: the game stops when bidding begins."""
    monkeypatch.delitem(STEP_RUNNERS, Phase.BIDDING, raising=False)


def nexus_with_orders(*orders, factions=ALL_SEVEN):
    """The Nexus of `in_nexus`, with standing orders given before the spice blow: the state and its events."""
    game, _ = apply_all(base_game(factions, deck=[SH1, OLD_GAP]), *orders)
    return at_blow(state=game, discard=[GREAT_FLAT])


# --- forming and breaking alliances (A-8) ---------------------------------------------------------------------


def test_an_accepted_proposal_forms_a_public_alliance():
    state = in_nexus()
    state, events = apply(state, ProposeAlliance(faction=H, partner=A))
    proposed = next(e for e in events if e.type == "alliance_proposed")
    assert proposed.public and "Harkonnen" in proposed.message and "Atreides" in proposed.message
    assert state.alliances == []
    state, events = apply(state, AcceptAlliance(faction=A, partner=H))
    assert state.alliances == [[A, H]]
    assert state.ally_of(A) == [H] and state.ally_of(H) == [A]
    assert state.nexus.proposals == {}
    formed = next(e for e in events if e.type == "alliance_formed")
    assert formed.public and formed.data["members"] == ["atreides", "harkonnen"]
    # Talking goes on: the Nexus prompts stay open until each faction is done.
    assert len([p for p in state.prompts if p.kind == PromptKind.NEXUS]) == len(ALL_SEVEN)


def test_a_8_the_same_proposal_twice_is_refused_and_announced_once():
    """Issue 15: a proposal leaves the Nexus decision open (talking goes on), so a second click or a retried
    command must not log and announce it again."""
    state, events = apply(in_nexus(), ProposeAlliance(faction=H, partner=A))
    assert [e.type for e in events].count("alliance_proposed") == 1
    refusal = refused(state, ProposeAlliance(faction=H, partner=A), rule="A-8")
    assert "already stands" in refusal.message
    state, events = apply(state, ProposeAlliance(faction=H, partner=F))  # another offer replaces it
    assert state.nexus.proposals[H] == F and [e.type for e in events].count("alliance_proposed") == 1


def test_the_bt_may_ally_like_anyone():
    """BT-60."""
    state = in_nexus()
    state, _ = apply_all(state, ProposeAlliance(faction=BT, partner=G), AcceptAlliance(faction=G, partner=BT))
    assert state.alliances == [[G, BT]]


def test_accepting_without_an_offer_is_refused_with_the_offers_allowed():
    state = in_nexus()
    state, _ = apply(state, ProposeAlliance(faction=E, partner=A))
    refusal = refused(state, AcceptAlliance(faction=A, partner=H))
    assert refusal.rule == "A-8" and refusal.code == ViolationCode.ILLEGAL_CHOICE
    assert refusal.allowed == ["emperor"]


def test_an_offer_to_someone_else_cannot_be_accepted():
    state = in_nexus()
    state, _ = apply(state, ProposeAlliance(faction=E, partner=A))
    assert refused(state, AcceptAlliance(faction=H, partner=E)).rule == "A-8"


def test_a_new_offer_replaces_the_old_one():
    state = in_nexus()
    state, _ = apply_all(state, ProposeAlliance(faction=E, partner=A), ProposeAlliance(faction=E, partner=H))
    assert refused(state, AcceptAlliance(faction=A, partner=E)).rule == "A-8"
    state, _ = apply(state, AcceptAlliance(faction=H, partner=E))
    assert state.alliances == [[E, H]]


@pytest.mark.parametrize(
    ("partner", "code"),
    [(A, ViolationCode.ILLEGAL_CHOICE), (BG, ViolationCode.NOT_IN_GAME), (H, ViolationCode.NOT_ALLOWED)],
)
def test_impossible_proposals_are_refused(partner, code):
    """Not oneself, not a faction outside the game, not an existing ally."""
    state = in_nexus(factions=(A, H, F, E), alliances=[[A, H]])
    refusal = refused(state, ProposeAlliance(faction=A, partner=partner))
    assert refusal.rule == "A-8" and refusal.code == code


def test_breaking_leaves_the_alliance_publicly():
    state = in_nexus(alliances=[[A, H]])
    state, events = apply(state, BreakAlliance(faction=H))
    assert state.alliances == [] and state.ally_of(A) == []
    broken = next(e for e in events if e.type == "alliance_broken")
    assert broken.public and "Harkonnen" in broken.message


def test_breaking_without_an_alliance_is_refused():
    state = in_nexus()
    refusal = refused(state, BreakAlliance(faction=H))
    assert refusal.rule == "A-8" and refusal.code == ViolationCode.NOT_ALLOWED


def test_alliances_have_at_most_two_members_by_default():
    """A-8: option max_alliance_size, default 2."""
    state = in_nexus(alliances=[[A, H]])
    refusal = refused(state, ProposeAlliance(faction=E, partner=A))
    assert refusal.rule == "A-8" and "at most 2" in refusal.message


def test_the_size_limit_is_checked_again_on_acceptance():
    state = in_nexus()
    state, _ = apply_all(state, ProposeAlliance(faction=E, partner=A), ProposeAlliance(faction=H, partner=A),
                         AcceptAlliance(faction=A, partner=H))
    assert refused(state, AcceptAlliance(faction=A, partner=E)).rule == "A-8"
    assert state.alliances == [[A, H]]


def test_with_a_larger_limit_an_alliance_grows_and_a_member_leaves_a_pair():
    """A-8 with max_alliance_size 3: accepting merges the two sides while the limit allows."""
    state = in_nexus(alliances=[[A, H]], max_alliance_size=3)
    state, _ = apply_all(state, ProposeAlliance(faction=E, partner=H), AcceptAlliance(faction=H, partner=E))
    assert state.alliances == [[A, E, H]]
    assert set(state.ally_of(E)) == {A, H}
    assert refused(state, ProposeAlliance(faction=G, partner=E)).rule == "A-8"
    state, _ = apply(state, BreakAlliance(faction=A))
    assert state.alliances == [[E, H]]


@pytest.mark.parametrize(
    "action",
    [ProposeAlliance(faction=A, partner=H), AcceptAlliance(faction=A, partner=H), BreakAlliance(faction=A)],
    ids=["propose", "accept", "break"],
)
def test_alliance_actions_outside_a_nexus_are_refused(action):
    """A-8: alliances are formed and broken only at a Nexus."""
    game = base_game()
    game = game.model_copy(update={"alliances": [[A, H]]})
    refusal = refused(game, action)
    assert refusal.rule == "A-8" and refusal.code == ViolationCode.WRONG_PHASE
    after_blow, _ = at_blow([OLD_GAP, SH1], alliances=[[A, H]])  # no worm: no Nexus
    assert after_blow.nexus is None
    assert refused(after_blow, action).rule == "A-8"


def test_a_faction_done_with_the_nexus_cannot_act_but_its_offer_stands():
    state = in_nexus()
    state, _ = apply_all(state, ProposeAlliance(faction=E, partner=A), EndNexus(faction=E))
    refusal = refused(state, ProposeAlliance(faction=E, partner=H))
    assert refusal.rule == "A-8" and refusal.code == ViolationCode.NOT_ALLOWED
    assert refused(state, ProposeAlliance(faction=H, partner=E)).rule == "A-8"
    state, _ = apply(state, AcceptAlliance(faction=A, partner=E))
    assert state.alliances == [[A, E]]
    refusal = refused(state, EndNexus(faction=E), "A-8", ViolationCode.NOT_ALLOWED)
    assert "already ended their part" in refusal.message


def test_alliances_made_in_the_nexus_last_after_it():
    state = in_nexus(factions=(A, H, F, E))
    state, _ = apply_all(state, ProposeAlliance(faction=F, partner=E), AcceptAlliance(faction=E, partner=F),
                         *(EndNexus(faction=f) for f in (A, H, F, E)))
    assert state.nexus is None and state.phase == Phase.BIDDING
    assert [set(a) for a in state.alliances] == [{E, F}]


@pytest.mark.parametrize("seed", range(6))
def test_automatic_players_always_finish_a_nexus_within_the_size_limit(seed):
    limit = 2 + seed % 2
    state = in_nexus(max_alliance_size=limit)
    state, _, _ = play_until_stuck(state, Rng.from_seed(seed), max_actions=2000,
                                         while_=lambda s: s.phase == Phase.SPICE_BLOW)
    assert state.phase == Phase.BIDDING and state.nexus is None
    assert all(2 <= len(a) <= limit for a in state.alliances)
    members = [f for a in state.alliances for f in a]
    assert len(members) == len(set(members))


# --- bribes (A-16) -------------------------------------------------------------------------------------------


def test_a_bribe_lies_in_the_open_before_the_receivers_shield():
    state = base_game()  # any time: here during the storm
    spice_a, spice_h = state.faction(A).spice, state.faction(H).spice
    state, events = apply(state, GiveBribe(faction=A, to=H, amount=4))
    assert state.faction(A).spice == spice_a - 4
    assert state.faction(H).spice == spice_h and state.faction(H).bribes == 4
    assert total_spice_outside_bank(state) == state.spice_outside_bank
    bribe = next(e for e in events if e.type == "bribe_given")
    assert bribe.public and bribe.data["amount"] == 4 and "4 spice" in bribe.message


def test_bribes_add_up_and_are_released_at_the_end_of_the_turn():
    """A-16: usable from the end of the turn (the end-of-turn code calls release_bribes)."""
    state = base_game()
    state, _ = apply_all(state, GiveBribe(faction=A, to=H, amount=2), GiveBribe(faction=E, to=H, amount=3))
    assert state.faction(H).bribes == 5
    spice_h = state.faction(H).spice
    log = EventLog()
    release_bribes(state, log)
    assert state.faction(H).spice == spice_h + 5 and state.faction(H).bribes == 0
    assert total_spice_outside_bank(state) == state.spice_outside_bank
    assert [e.data["amount"] for e in log.items if e.type == "bribes_released"] == [5]


def test_a_bribe_to_an_ally_is_allowed():
    """A-8: between allies, spice changes hands as a bribe."""
    state = base_game().model_copy(update={"alliances": [[A, H]]})
    state, _ = apply(state, GiveBribe(faction=A, to=H, amount=1))
    assert state.faction(H).bribes == 1


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (GiveBribe(faction=A, to=A, amount=1), ViolationCode.ILLEGAL_CHOICE),
        (GiveBribe(faction=A, to=H, amount=11), ViolationCode.NOT_ALLOWED),
    ],
    ids=["self", "more than held"],
)
def test_impossible_bribes_are_refused(action, code):
    state = base_game()
    assert state.faction(A).spice == 10
    refusal = refused(state, action)
    assert refusal.rule == "A-16" and refusal.code == code


def test_a_bribe_to_a_faction_not_in_the_game_is_refused():
    state = base_game(factions=(A, H, F))
    assert refused(state, GiveBribe(faction=A, to=E, amount=1)).code == ViolationCode.NOT_IN_GAME


def test_a_bribe_of_nothing_is_malformed():
    with pytest.raises(ValidationError):
        GiveBribe(faction=A, to=H, amount=0)


# --- the Emperor's spice for an ally (A-26) ----------------------------------------------------------------------


def test_the_emperor_gives_an_ally_spice_usable_at_once_and_the_amount_stays_between_them():
    state = base_game().model_copy(update={"alliances": [[E, F]]})
    spice_e, spice_f = state.faction(E).spice, state.faction(F).spice
    state, events = apply(state, GiveAllySpice(faction=E, to=F, amount=3))
    assert state.faction(E).spice == spice_e - 3 and state.faction(F).spice == spice_f + 3
    assert state.faction(F).bribes == 0
    assert total_spice_outside_bank(state) == state.spice_outside_bank
    private = [e for e in events if e.type == "ally_spice_given" and not e.public]
    assert len(private) == 1 and set(private[0].audience) == {E, F} and private[0].data["amount"] == 3
    public = [e for e in events if e.public]
    assert public and all("3" not in e.message and "amount" not in e.data for e in public)


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (GiveAllySpice(faction=F, to=E, amount=1), ViolationCode.NOT_ALLOWED),
        (GiveAllySpice(faction=E, to=H, amount=1), ViolationCode.ILLEGAL_CHOICE),
        (GiveAllySpice(faction=E, to=F, amount=11), ViolationCode.NOT_ALLOWED),
    ],
    ids=["not the emperor", "not an ally", "more than held"],
)
def test_impossible_ally_gifts_are_refused(action, code):
    state = base_game().model_copy(update={"alliances": [[E, F]]})
    assert state.faction(E).spice == 10
    refusal = refused(state, action)
    assert refusal.rule == "A-26" and refusal.code == code


# --- the standing order "done at once" (A-8; issue 14, item 5) --------------------------------------------------


def done_at_once(faction):
    return SetNexusOrder(faction=faction, done_at_once=True)


def talking(state):
    return [p.faction for p in state.prompts if p.kind == PromptKind.NEXUS]


def test_a_8_the_nexus_order_ends_its_owners_part_as_the_nexus_opens():
    state, events = nexus_with_orders(done_at_once(H))
    assert H not in talking(state) and len(talking(state)) == len(ALL_SEVEN) - 1
    said = [e.message for e in public(events)]
    assert said.index("The Harkonnen are done with the Nexus.") > next(i for i, m in enumerate(said)
                                                                    if m.startswith("A Nexus"))
    assert answered_by_order(events, H) == ["By your standing order, you end your part in this Nexus at once: no "
                                            "offer made, none accepted."]
    for prompt in state.prompts:  # nobody is offered a partner who is no longer talking
        assert "harkonnen" not in prompt.detail["propose_to"]
    refused(state, ProposeAlliance(faction=A, partner=H), "A-8")


def test_a_8_a_nexus_orders_answer_tells_the_table_nothing_a_click_would_not():
    """The Harkonnen done by their order as the Nexus opens, or by a click on "Done" then: the table and every
    other faction see the same events and the same game."""
    by_order = nexus_with_orders(done_at_once(H))
    state, events = nexus_with_orders()
    state, done = apply(state, EndNexus(faction=H))
    same_for_everyone_else(by_order, (state, events + done), H)


def test_a_8_with_every_faction_ordered_the_nexus_ends_without_a_click():
    state, events = nexus_with_orders(*(done_at_once(f) for f in ALL_SEVEN))
    assert state.nexus is None and talking(state) == []
    told = [e.type for e in public(events)]
    assert told.count("nexus_done") == len(ALL_SEVEN)
    assert told.index("nexus_closed") > max(i for i, kind in enumerate(told) if kind == "nexus_done")


def test_a_8_a_nexus_order_given_while_talking_ends_the_part_at_once_and_the_others_are_asked_again():
    state, _ = nexus_with_orders()
    before = {p.faction: p.id for p in state.prompts if p.kind == PromptKind.NEXUS}
    state, events = apply(state, done_at_once(E))
    assert E not in talking(state)
    assert [e.message for e in public(events)] == ["The Emperor is done with the Nexus."]
    assert answered_by_order(events, E) == ["By your standing order, you end your part in this Nexus at once: no "
                                            "offer made, none accepted."]
    for prompt in state.prompts:
        assert prompt.id != before[prompt.faction] and "emperor" not in prompt.detail["propose_to"]


def test_a_8_ask_me_clears_the_nexus_order_and_an_offer_may_then_be_made_and_accepted():
    state, events = nexus_with_orders(done_at_once(A), SetNexusOrder(faction=A, done_at_once=False))
    assert A in talking(state) and answered_by_order(events, A) == []
    state, _ = apply_all(state, ProposeAlliance(faction=H, partner=A), AcceptAlliance(faction=A, partner=H))
    assert state.alliances == [[A, H]]


def test_a_8_the_nexus_order_keeps_its_owners_alliance_and_no_offer_can_reach_them():
    """Done at once, the Atreides keep their alliance with the Harkonnen; nobody may make them an offer (they are
    done talking), but their partner, still talking, may leave the alliance."""
    game, _ = apply_all(base_game(ALL_SEVEN, deck=[SH1, OLD_GAP]), done_at_once(A))
    state, _ = at_blow(state=game, discard=[GREAT_FLAT], alliances=[[A, H]])
    assert state.alliances == [[A, H]] and A not in talking(state)
    refused(state, ProposeAlliance(faction=E, partner=A), "A-8")
    state, _ = apply(state, BreakAlliance(faction=H))
    assert state.alliances == []


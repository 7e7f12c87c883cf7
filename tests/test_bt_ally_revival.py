"""BT-60: "Each turn the BT may grant each ally free revival": the BT's secret choice each turn, a decision of theirs
(BT_ALLY_REVIVAL) and a standing order ("always grant", "never", "ask me"). A refused ally revives as usual (A-7)
and pays the BT (BT-10); a granted one revives up to 6 tokens and 2 leaders free (R-14). The ally learns the answer
when its revival decision opens, the table when the revival happens."""

from __future__ import annotations

import pytest

from engine.actions import GrantAllyRevival, Revive, SetAllyRevivalOrder
from engine.checks.invariants import violations
from engine.errors import ViolationCode
from engine.flow import DEFAULTS
from engine.game import apply
from engine.model import PromptKind
from engine.rules.anytime import AnytimeKind
from engine.secrecy.views import view
from tests.conftest import BT, A, E, H, prompt_of, refused
from tests.helpers.positions.bt_ally_revival import ally_in_revival, ally_position, revival_of
from tests.helpers.positions.bt_traitors import DUNCAN, public
from tests.helpers.standing_orders import answered_by_order, asked, kinds_offered, same_for_everyone_else

GRANT, REFUSE = GrantAllyRevival(faction=BT, grant=True), GrantAllyRevival(faction=BT, grant=False)


def test_bt_60_the_bt_decide_in_secret_before_their_ally_revives():
    """The BT are asked, in secret, whether to grant the Atreides free revival this turn; the Atreides' revival
    waits for it (the Harkonnen revive meanwhile); the table sees only that the BT decide."""
    state, _ = ally_in_revival()
    grant = prompt_of(state, BT, PromptKind.BT_ALLY_REVIVAL)
    assert grant.secret and grant.options == ["grant", "refuse"]
    assert grant.detail == {"ally": "atreides", "tanks": 5, "leaders": [DUNCAN], "usual_tokens": 3, "usual_free": 2,
                            "usual_leaders": []}
    assert not asked(state, A, PromptKind.REVIVAL) and asked(state, H, PromptKind.REVIVAL)
    table = view(state, None)
    assert [(a.faction, a.kind, a.secret) for a in table.awaiting if a.faction == BT] == [
        (BT, PromptKind.BT_ALLY_REVIVAL, True)]
    assert table.own_prompts == [] and view(state, A).own_prompts == []
    refusal = refused(state, Revive(faction=A, tokens=2), "BT-60", ViolationCode.WRONG_PHASE)
    assert "deciding whether to grant you free revival" in refusal.message


def test_bt_60_bt_10_a_refused_ally_revives_as_usual_and_pays_the_bt():
    """BT-10: refused, the Atreides revive as usual (A-7: 3 tokens, 2 free, a leader only when all five are dead)
    and the spice they pay goes to the BT: the BT can be paid for their ally's revival."""
    state, _ = ally_in_revival()
    state, events = apply(state, REFUSE)
    revival = prompt_of(state, A, PromptKind.REVIVAL)
    assert (revival.detail["max_tokens"], revival.detail["free_tokens"], revival.options) == (3, 2, [])
    assert not revival.detail["bt_alliance"] and revival.detail["bt_refused"]
    assert revival.detail["token_costs"] == [0, 0, 0, 2]
    assert [e.message for e in events if not e.public] == [
        "You grant the Atreides no free revival this turn: they revive as usual, and pay you for it (BT-10)."]
    assert [e.audience for e in events if not e.public] == [(BT,)]
    refused(state, Revive(faction=A, tokens=4), "A-7")
    refused(state, Revive(faction=A, leader=DUNCAN), "A-7")
    bt_spice = state.faction(BT).spice
    state, events = apply(state, Revive(faction=A, tokens=3))
    assert state.faction(BT).spice == bt_spice + 2 and state.faction(A).spice == 8
    assert [e.message for e in public(events) if e.type == "revived"] == [
        "The Atreides revive 3 tokens (2 free, 1 for 2 spice); 2 spice paid to the Bene Tleilaxu (BT-10)."]
    assert violations(state) == []


def test_bt_60_r_14_a_granted_ally_revives_6_tokens_and_2_leaders_free():
    state, _ = ally_in_revival(tanks=8, dead=(DUNCAN, "thufir_hawat"))
    state, events = apply(state, GRANT)
    assert [e.message for e in events if not e.public] == ["You grant the Atreides free revival this turn (BT-60)."]
    revival = prompt_of(state, A, PromptKind.REVIVAL)
    assert (revival.detail["max_tokens"], revival.detail["free_tokens"], revival.detail["max_leaders"]) == (6, 6, 2)
    assert revival.detail["bt_alliance"] and revival.options == ["thufir_hawat", DUNCAN]
    state, events = apply(state, Revive(faction=A, tokens=6, leader=DUNCAN))
    assert state.faction(A).tanks == 2 and state.faction(A).spice == 10 and state.faction(BT).spice == 5
    [revived] = [e for e in public(events) if e.type == "revived"]
    assert revived.message == ("The Atreides revive 6 tokens and Duncan Idaho, free by the alliance with the Bene "
                               "Tleilaxu (BT-60).")


@pytest.mark.parametrize(("tanks", "dead"), [(5, (DUNCAN,)), (0, (DUNCAN,))])
def test_bt_60_the_answer_stays_secret_until_the_ally_revives(tanks, dead):
    """Granted or refused, the table and the other factions see the same game and the same events until the
    Atreides revive: their revival decision opens either way, even when, refused, they have nothing to revive as
    usual (no token in the tanks, not all five leaders dead). Only the Atreides' own decision tells them."""
    outcomes = {}
    for answer in (GRANT, REFUSE):
        state, events = ally_in_revival(tanks=tanks, dead=dead)
        state, more = apply(state, answer)
        assert asked(state, A, PromptKind.REVIVAL)
        outcomes[answer.grant] = (state, events + more)
        assert prompt_of(state, A, PromptKind.REVIVAL).detail["bt_alliance"] is answer.grant
    granted, refused_ = outcomes[True], outcomes[False]
    assert public(granted[1]) == public(refused_[1])
    for viewer in (None, E, H):
        assert view(granted[0], viewer) == view(refused_[0], viewer), viewer


def test_bt_60_the_ally_revival_order_answers_as_the_decision_opens_as_a_click_would():
    """The standing order "always grant" answers at once (the BT alone read that it did); the table and the other
    factions see exactly what a click on "grant" shows them. "Never" refuses alike."""
    by_order = ally_in_revival(order="grant")
    assert not asked(by_order[0], BT, PromptKind.BT_ALLY_REVIVAL)
    assert prompt_of(by_order[0], A, PromptKind.REVIVAL).detail["bt_alliance"]
    assert answered_by_order(by_order[1], BT) == [
        "By your standing order, you grant the Atreides free revival this turn (BT-60)."]
    clicked, events = ally_in_revival()
    clicked, more = apply(clicked, GRANT)
    same_for_everyone_else(by_order, (clicked, events + more), BT)
    never, events = ally_in_revival(order="refuse")
    assert not prompt_of(never, A, PromptKind.REVIVAL).detail["bt_alliance"]
    assert answered_by_order(events, BT) == ["By your standing order, you grant the Atreides no free revival this "
                                             "turn: they revive as usual, and pay you for it (BT-10)."]


def test_bt_60_an_order_given_while_the_bt_are_asked_answers_at_once_and_ask_me_clears_it():
    state, _ = ally_in_revival()
    state, events = apply(state, SetAllyRevivalOrder(faction=BT, order="refuse"))
    assert not asked(state, BT, PromptKind.BT_ALLY_REVIVAL) and asked(state, A, PromptKind.REVIVAL)
    assert view(state, BT).own.ally_revival_order == "refuse" and view(state, A).own.ally_revival_order is None
    assert [e.type for e in public(events)] == ["decision_made"]
    cleared, _ = apply(state, SetAllyRevivalOrder(faction=BT, order="ask"))
    assert cleared.bt.ally_revival_order == "ask"
    assert asked(revival_of(cleared)[0], BT, PromptKind.BT_ALLY_REVIVAL)


def test_bt_60_the_ally_revival_order_is_the_bts():
    state, _ = ally_in_revival()
    assert AnytimeKind.ALLY_REVIVAL_ORDER in kinds_offered(state, BT)
    assert not any(AnytimeKind.ALLY_REVIVAL_ORDER in kinds_offered(state, f) for f in (A, E, H))
    refused(state, SetAllyRevivalOrder(faction=A, order="grant"), "BT-60")
    refused(state, GrantAllyRevival(faction=A, grant=True), "BT-60")


def test_bt_60_no_decision_without_an_ally_or_without_anything_in_its_tanks():
    state, _ = ally_in_revival(alliances=((A, E),))
    assert not asked(state, BT, PromptKind.BT_ALLY_REVIVAL) and asked(state, A, PromptKind.REVIVAL)
    state, _ = ally_in_revival(tanks=0, dead=())
    assert not asked(state, BT, PromptKind.BT_ALLY_REVIVAL) and not asked(state, A, PromptKind.REVIVAL)


def test_bt_60_each_ally_is_decided_in_turn():
    """With alliances of three (option max_alliance_size), the BT decide for each ally, one after the other in storm
    order: the Atreides first, then the Emperor."""
    state = ally_position()
    state.setup = state.setup.model_copy(update={"options": state.setup.options.model_copy(
        update={"max_alliance_size": 3})})
    state.alliances = [[A, E, BT]]
    state.faction(E).tanks, state.faction(E).reserves = 3, state.faction(E).reserves - 3
    state, _ = revival_of(state)
    assert prompt_of(state, BT, PromptKind.BT_ALLY_REVIVAL).detail["ally"] == "atreides"
    state, _ = apply(state, GRANT)
    assert prompt_of(state, A, PromptKind.REVIVAL).detail["bt_alliance"]
    assert prompt_of(state, BT, PromptKind.BT_ALLY_REVIVAL).detail["ally"] == "emperor"
    state, _ = apply(state, REFUSE)
    assert not prompt_of(state, E, PromptKind.REVIVAL).detail["bt_alliance"]
    assert not asked(state, BT, PromptKind.BT_ALLY_REVIVAL)


def test_bt_60_the_default_grants():
    """A BT who does not answer does not hold back their ally's revival (the default a deadline applies)."""
    state, _ = ally_in_revival()
    assert DEFAULTS[PromptKind.BT_ALLY_REVIVAL](state, prompt_of(state, BT, PromptKind.BT_ALLY_REVIVAL)) == GRANT

"""Revival at the start of the movement round (A-7; BT-10, R-3): free tokens first, then 2 spice each, at most
3 tokens; one leader for his strength once all five are dead; paid spice goes to the BT when they play."""

from __future__ import annotations

import pytest

from engine.actions import ForceDefault, Revive, SkipShipment
from engine.errors import ViolationCode
from engine.flow import DEFAULTS
from engine.game import apply
from engine.model import PromptKind
from engine.phases.revival import revival_cost
from tests.conftest import BG, BT, A, E, F, G, H, prompt_of, refused
from tests.helpers.positions.movement import DATA, _stop_when_battles_begin, arrange, public, tokens_consistent  # noqa: F401  (the fixture stops the game when battles begin)
from tests.helpers.positions.revival import ATREIDES_LEADERS


def test_a_revival_prompt_opens_for_each_faction_with_tokens_in_the_tanks_and_no_shipment_yet():
    """A-7: all factions revive before anyone ships; revival is public.
    1979 rules: Revival."""
    state, _ = arrange(tanks={A: 5, H: 2})
    assert sorted((p.faction, p.kind, p.secret) for p in state.prompts) == [
        (A, PromptKind.REVIVAL, False), (H, PromptKind.REVIVAL, False)]
    assert prompt_of(state, A, PromptKind.REVIVAL).detail["max_tokens"] == 3
    assert prompt_of(state, A, PromptKind.REVIVAL).detail["free_tokens"] == 2
    assert prompt_of(state, H, PromptKind.REVIVAL).detail["max_tokens"] == 2
    assert prompt_of(state, A, PromptKind.REVIVAL).options == []  # leaders only when all five are dead


def test_shipment_starts_only_when_every_faction_has_revived():
    state, _ = arrange(tanks={A: 5, H: 2})
    state, _ = apply(state, Revive(faction=H, tokens=2))
    assert [(p.faction, p.kind) for p in state.prompts] == [(A, PromptKind.REVIVAL)]
    assert refused(state, SkipShipment(faction=A)).code == ViolationCode.WRONG_PHASE
    state, _ = apply(state, Revive(faction=A, tokens=0))
    assert [(p.faction, p.kind) for p in state.prompts] == [(A, PromptKind.SHIPMENT)]


def test_r_3_free_revivals_cost_nothing():
    """A-7, R-3: the Atreides' two free revivals pay nobody."""
    state, _ = arrange(tanks={A: 5}, spice={A: 10, BT: 5})
    state, events = apply(state, Revive(faction=A, tokens=2))
    assert state.faction(A).spice == 10 and state.faction(BT).spice == 5
    assert state.faction(A).tanks == 3 and state.faction(A).reserves == 17
    revived = next(e for e in events if e.type == "revived")
    assert revived.public and revived.message == "The Atreides revive 2 tokens (2 free)."
    tokens_consistent(state)


def test_the_fremen_revive_three_free():
    """1979 rules: Revival: the Fremen's free revivals are 3."""
    state, _ = arrange(tanks={F: 5}, spice={F: 3})
    state, _ = apply(state, Revive(faction=F, tokens=3))
    assert state.faction(F).spice == 3 and state.faction(F).tanks == 2


def test_bt_10_tokens_beyond_the_free_ones_cost_two_each_paid_to_the_bt():
    """A-7, BT-10: the third Atreides token costs 2 spice, paid to the BT; the payment is public."""
    state, _ = arrange(tanks={A: 5}, spice={A: 10, BT: 5})
    outside = state.spice_outside_bank
    state, events = apply(state, Revive(faction=A, tokens=3))
    assert state.faction(A).spice == 8 and state.faction(BT).spice == 7 and state.spice_outside_bank == outside
    revived = next(e for e in events if e.type == "revived")
    assert revived.public and revived.data["paid_to"] == "bene_tleilaxu"
    assert "2 spice paid to the Bene Tleilaxu (BT-10)" in revived.message
    tokens_consistent(state)


def test_without_the_bt_revival_is_paid_to_the_bank():
    state, _ = arrange((A, BG, E, H), tanks={E: 5}, spice={E: 10})
    outside = state.spice_outside_bank
    state, events = apply(state, Revive(faction=E, tokens=3))
    assert state.faction(E).spice == 6 and state.spice_outside_bank == outside - 4
    assert "paid to the bank" in next(e for e in events if e.type == "revived").message
    tokens_consistent(state)


@pytest.mark.parametrize(("tanks", "spice", "tokens", "words"), [
    (5, 10, 4, "At most 3"),
    (1, 10, 2, "1 tokens in the tanks"),
    (5, 1, 3, "costs 2 spice; you have 1"),
])
def test_illegal_token_revivals_are_refused(tanks, spice, tokens, words):
    state, _ = arrange(tanks={A: tanks}, spice={A: spice})
    refusal = refused(state, Revive(faction=A, tokens=tokens))
    assert refusal.rule == "A-7" and words in refusal.message


def test_bt_10_a_leader_is_revived_for_his_strength_once_all_five_are_dead():
    """A-7: one leader a turn, cost = strength; BT-10: paid to the BT."""
    state, _ = arrange(dead_leaders={A: ATREIDES_LEADERS}, spice={A: 10, BT: 5})
    prompt = prompt_of(state, A, PromptKind.REVIVAL)
    assert prompt.options == ATREIDES_LEADERS and prompt.detail["leader_costs"]["thufir_hawat"] == 5
    state, events = apply(state, Revive(faction=A, leader="thufir_hawat"))
    assert "thufir_hawat" not in state.faction(A).leaders_in_tanks and len(state.faction(A).leaders_in_tanks) == 4
    assert state.faction(A).spice == 5 and state.faction(BT).spice == 10
    assert "Thufir Hawat for 5 spice" in next(e for e in events if e.type == "revived").message
    tokens_consistent(state)


def test_tokens_and_a_leader_together():
    state, _ = arrange(tanks={A: 4}, dead_leaders={A: ATREIDES_LEADERS}, spice={A: 10, BT: 5})
    assert revival_cost(state, A, 3, "duncan_idaho") == 4
    state, _ = apply(state, Revive(faction=A, tokens=3, leader="duncan_idaho"))
    assert state.faction(A).spice == 6 and state.faction(BT).spice == 9 and state.faction(A).tanks == 1


def test_no_leader_revival_while_a_leader_lives():
    """A-7: only when all five of the faction's leaders are in the tanks.
    1979 rules: Revival."""
    state, _ = arrange(tanks={A: 1}, dead_leaders={A: ATREIDES_LEADERS[:4]}, spice={A: 10})
    assert prompt_of(state, A, PromptKind.REVIVAL).options == []
    refusal = refused(state, Revive(faction=A, leader=ATREIDES_LEADERS[0]))
    assert refusal.code == ViolationCode.NOT_ALLOWED and "all five" in refusal.message
    assert "is not in the tanks" in refused(state, Revive(faction=A, leader=ATREIDES_LEADERS[4])).message
    assert "not one of your leaders" in refused(state, Revive(faction=A, leader="feyd_rautha")).message


def test_an_unaffordable_leader_is_refused():
    state, _ = arrange(dead_leaders={A: ATREIDES_LEADERS}, spice={A: 4})
    assert "costs 5 spice" in refused(state, Revive(faction=A, leader="thufir_hawat")).message


def test_the_default_revives_only_the_free_tokens():
    state, _ = arrange(tanks={A: 5, G: 3}, spice={A: 10, G: 5})
    prompt = prompt_of(state, A, PromptKind.REVIVAL)
    assert DEFAULTS[PromptKind.REVIVAL](state, prompt) == Revive(faction=A, tokens=2)
    state, _ = apply(state, ForceDefault(admin="mod", reason="deadline", prompt_id=prompt.id))
    assert state.faction(A).tanks == 3 and state.faction(A).spice == 10
    state, _ = apply(state, ForceDefault(admin="mod", reason="deadline",
                                         prompt_id=prompt_of(state, G, PromptKind.REVIVAL).id))
    assert state.faction(G).tanks == 2 and state.faction(G).spice == 5


def test_reviving_nothing_is_allowed_and_announced():
    state, _ = arrange(tanks={H: 2})
    state, events = apply(state, Revive(faction=H, tokens=0))
    assert state.faction(H).tanks == 2
    assert [e.message for e in public(events) if e.type == "revived"] == ["The Harkonnen revive nothing this turn."]


def test_the_bt_and_factions_with_empty_tanks_are_not_asked():
    state, _ = arrange(tanks={E: 1})
    assert [p.faction for p in state.prompts] == [E]
    assert DATA.factions[BT].free_revival == 0

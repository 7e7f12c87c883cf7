"""Basic Karama (A-14) as a secret standing order: readied in secret, fired and revealed on the next use."""

from __future__ import annotations

import pytest

from engine.actions import UseKarama
from engine.errors import RuleViolation
from engine.events import EventLog
from engine.game import apply
from engine.options import FixedSetup
from engine.rules.karama import Advantage, karama_cancels
from engine.secrecy.views import view
from tests.conftest import A, E, G, H, snapshot, start


@pytest.fixture
def karama_with_emperor():
    """Emperor holds karama_1 (deal order: Atreides, Bene Gesserit, Emperor, ...)."""
    return start(fixed=FixedSetup(treachery_deck=("shield_1", "snooper_1", "karama_1", "lasgun")))


def test_a_readied_karama_is_secret_and_stays_in_the_hand(karama_with_emperor):
    state, events = apply(karama_with_emperor, UseKarama(faction=E, card="karama_1", against=G,
                                                        advantage="half_price_shipping"))
    assert state.faction(E).hand == ["karama_1"]
    assert [e for e in events if e.public] == []
    assert all(view(state, v) == view(karama_with_emperor, v) for v in (None, A, G, H))
    assert view(state, E).own.karama_orders[0].advantage == "half_price_shipping"


def test_it_fires_on_the_next_use_of_that_advantage_only(karama_with_emperor):
    state, _ = apply(karama_with_emperor, UseKarama(faction=E, card="karama_1", against=G,
                                                   advantage="half_price_shipping"))
    log = EventLog()
    assert not karama_cancels(state, Advantage.SEE_SPICE_DECK, log)
    assert karama_cancels(state, Advantage.HALF_PRICE_SHIPPING, log)
    assert "karama_1" not in state.faction(E).hand and state.treachery_discard[-1] == "karama_1"
    assert log.items[0].public and "The Emperor plays Karama" in log.items[0].message
    assert not karama_cancels(state, Advantage.HALF_PRICE_SHIPPING, EventLog())


def test_an_order_lapses_when_the_card_has_left_the_hand(karama_with_emperor):
    state, _ = apply(karama_with_emperor, UseKarama(faction=E, card="karama_1", against=G,
                                                   advantage="shipment_payments"))
    state.faction(E).hand.remove("karama_1")
    state.treachery_discard.append("karama_1")
    log = EventLog()
    assert not karama_cancels(state, Advantage.SHIPMENT_PAYMENTS, log)
    assert log.items == [] and state.karama_orders == []


@pytest.mark.parametrize(
    ("card", "against", "advantage", "words"),
    [
        ("shield_1", G, "half_price_shipping", "Karama card"),  # not a Karama
        ("karama_1", G, "fly", "no advantage"),
        ("karama_1", A, "half_price_shipping", "belongs to guild"),
        ("karama_1", E, "card_payments", "another faction"),
    ],
)
def test_bad_karama_orders_are_refused(karama_with_emperor, card, against, advantage, words):
    before = snapshot(karama_with_emperor)
    with pytest.raises(RuleViolation) as refusal:
        apply(karama_with_emperor, UseKarama(faction=E, card=card, against=against, advantage=advantage))
    assert refusal.value.rule == "A-14" and words in str(refusal.value)
    assert snapshot(karama_with_emperor) == before


def test_one_card_cannot_be_readied_twice(karama_with_emperor):
    state, _ = apply(karama_with_emperor, UseKarama(faction=E, card="karama_1", against=G,
                                                   advantage="half_price_shipping"))
    with pytest.raises(RuleViolation):
        apply(state, UseKarama(faction=E, card="karama_1", against=H, advantage="extra_card"))


def test_an_order_lapses_at_once_when_the_card_is_given_away():
    """A given card carries no order with it, and the giver's view stops showing one (BT-40 gifts)."""
    from engine.actions import GiveBribe

    state = start(fixed=FixedSetup(treachery_deck=("shield_1", "snooper_1", "karama_1", "lasgun")))
    state, _ = apply(state, UseKarama(faction=E, card="karama_1", against=G, advantage="half_price_shipping"))
    state.faction(E).hand.remove("karama_1")
    state.faction(A).hand.append("karama_1")
    state, _ = apply(state, GiveBribe(faction=A, to=E, amount=1))  # any action tidies the orders
    assert state.karama_orders == [] and view(state, E).own.karama_orders == []

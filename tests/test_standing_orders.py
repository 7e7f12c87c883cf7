"""Standing orders for the busywork (issue 14, item 5): the storm-card order (1979 rules: Storm, Weather Control and
Family Atomics), the traitor order (A-13), the bidding orders given from the bid's card (A-6) and one click for no
shipment and no move this turn (1979 rules: Shipment, Movement; A-15 for the Guild's timing).

An order answers for its owner at once and silently: a window that every faction must answer is still opened for
everyone, and the answer an order gives reads to the table exactly as the same answer by a click. The leak tests
play each window twice from one position, answered by the order and by a click, and compare what the table and
every other faction saw (their events, and their view of the game once the window closed).
"""

from __future__ import annotations

import pytest

from engine.actions import (
    Bid,
    CallTraitor,
    PassBid,
    PlayHajr,
    PlayStormCards,
    SetBidOrder,
    SetStormCardOrder,
    SetTraitorOrder,
    SkipMove,
    SkipShipment,
)
from engine.anytime import AnytimeKind, anytime_choices
from engine.cards import FAMILY_ATOMICS, HAJR, WEATHER_CONTROL
from engine.errors import ViolationCode
from engine.events import BY_STANDING_ORDER
from engine.flow import DEFAULTS
from engine.game import apply
from engine.ids import Faction
from engine.model import Phase, PromptKind
from engine.views import view
from tests.conftest import ALL_SEVEN, A, E, F, G, H, apply_all, enter_phase, prompt_of, refused
from tests.test_battle import arena, plan
from tests.test_bidding import bidder
from tests.test_bidding import game as auction
from tests.test_cards import _stop_after_storm_and_movement, dial, position, storm_round
from tests.test_movement import arrange
from tests.test_optional_rules import guild_round

_stop_after_storm_and_movement = _stop_after_storm_and_movement  # autouse here too: one round per test
GARA_KULON = "Gara Kulon#7"  # next to the Shield Wall: Family Atomics may be played from here
FLAT = "The Great Flat#14"


def public(events):
    return [e for e in events if e.public]


def seen_by(events, viewer: Faction | None):
    return [e for e in events if e.visible_to(viewer)]


def table_view(state, viewer: Faction | None) -> dict:
    """What `viewer` (None: the table) sees of the game, without the action counts at which the open decisions
    opened: an order answers without an action of its own, so later decisions open at a lower count."""
    seen = view(state, viewer).model_dump()
    for awaited in seen["awaiting"]:
        awaited.pop("since")
    for prompt in seen["own_prompts"]:
        prompt.pop("opened_at")
    return seen


def same_for_everyone_else(by_order, by_click, owner: Faction) -> None:
    """The table and every faction but the order's owner saw the same events and see the same game."""
    (order_state, order_events), (click_state, click_events) = by_order, by_click
    assert public(order_events) == public(click_events)
    for viewer in [None, *(f for f in order_state.factions if f != owner)]:
        assert seen_by(order_events, viewer) == seen_by(click_events, viewer), viewer
        assert table_view(order_state, viewer) == table_view(click_state, viewer), viewer


def private_lines(events, faction: Faction) -> list[str]:
    return [e.message for e in events if not e.public and faction in e.audience]


def answered_by_order(events, faction: Faction) -> list[str]:
    return [line for line in private_lines(events, faction) if line.startswith(BY_STANDING_ORDER)]


def storm_window_of(state) -> set[Faction]:
    return {p.faction for p in state.prompts if p.kind == PromptKind.STORM_CARDS}


# --- storm cards: "never" or "ask me" (1979 rules: Storm, Weather Control and Family Atomics) ------------------


def test_storm_cards_a_never_order_answers_for_its_owner_as_the_window_opens():
    """The window is still opened for every faction (being asked tells nothing); the order answers the owner's
    decision at once, "no card", though the owner holds Weather Control: the storm moves by the dials."""
    state = storm_round(position(hands={E: [WEATHER_CONTROL]}))
    state, events = apply(state, SetStormCardOrder(faction=E, never=True))
    assert [e.audience for e in events] == [(E,)]
    numbered = state.next_prompt_number
    state, events = dial(state, 2, 1)
    assert state.next_prompt_number == numbered + len(ALL_SEVEN)  # one decision for each faction
    assert storm_window_of(state) == set(ALL_SEVEN) - {E}
    assert "Emperor answered about the storm." in [e.message for e in public(events)]
    assert answered_by_order(events, E) == ["By your standing order, you play no card on the storm."]
    for faction in storm_window_of(state):
        state, _ = apply(state, PlayStormCards(faction=faction))
    assert state.storm_sector == 4 and WEATHER_CONTROL in state.faction(E).hand


def test_storm_cards_an_order_given_while_the_window_is_open_answers_it_at_once():
    state, _ = dial(storm_round(position(hands={E: [WEATHER_CONTROL]})))
    state, events = apply(state, SetStormCardOrder(faction=E, never=True))
    assert E not in storm_window_of(state)
    assert [e.message for e in public(events)] == ["Emperor answered about the storm."]


def test_storm_cards_with_every_faction_ordered_never_the_storm_moves_without_a_click():
    state = storm_round(position())
    state, _ = apply_all(state, *(SetStormCardOrder(faction=f, never=True) for f in ALL_SEVEN))
    state, events = dial(state, 1, 2)
    assert state.storm_sector == 4 and state.phase == Phase.SPICE_BLOW
    assert sum(e.message.endswith("answered about the storm.") for e in public(events)) == len(ALL_SEVEN)


def test_storm_cards_ask_me_clears_the_order():
    state = storm_round(position())
    state, events = apply_all(state, SetStormCardOrder(faction=E, never=True),
                              SetStormCardOrder(faction=E, never=False))
    assert not state.faction(E).never_storm_cards
    state, _ = dial(state)
    assert E in storm_window_of(state)


def test_storm_cards_the_order_is_the_owners_secret():
    state = storm_round(position())
    after, events = apply(state, SetStormCardOrder(faction=E, never=True))
    assert view(after, E).own.never_storm_cards and not view(state, E).own.never_storm_cards
    for viewer in [None, *(f for f in ALL_SEVEN if f != E)]:
        assert table_view(after, viewer) == table_view(state, viewer)
        assert seen_by(events, viewer) == []


HANDS = {
    "holding Weather Control": ({E: [WEATHER_CONTROL]}, {}),
    "holding nothing": ({}, {}),
    "while another plays Weather Control": ({E: [FAMILY_ATOMICS], H: [WEATHER_CONTROL]},
                                            {H: {"weather_control": 5}}),
}


@pytest.mark.parametrize("hands, plays", HANDS.values(), ids=HANDS.keys())
def test_storm_cards_an_orders_answer_tells_the_table_nothing_a_click_would_not(hands, plays):
    """The Emperor's "no card" by the order, or by a click right after the window opens; the others answer
    alike in both games. Every other faction and the table see the same events and the same game."""
    start = storm_round(position(hands=hands, forces={GARA_KULON: {E: 2}}))

    def others_answer(state, events):
        for faction in [p.faction for p in state.prompts if p.kind == PromptKind.STORM_CARDS]:
            state, new = apply(state, PlayStormCards(faction=faction, **plays.get(faction, {})))
            events = events + new
        return state, events

    ordered, events = apply(start, SetStormCardOrder(faction=E, never=True))
    ordered, new = dial(ordered)
    by_order = others_answer(ordered, events + new)
    clicked, events = dial(start)
    clicked, new = apply(clicked, PlayStormCards(faction=E))
    by_click = others_answer(clicked, events + new)
    assert by_order[0].phase == by_click[0].phase == Phase.SPICE_BLOW  # the window closed and the storm moved
    same_for_everyone_else(by_order, by_click, E)


# --- traitor calls: "always call when I can" or "ask me" (A-13) -------------------------------------------------


@pytest.fixture
def flat():
    """Emperor 6 tokens and Harkonnen 5 on The Great Flat; the Harkonnen hold Hasimir Fenring as their traitor."""
    state = arena(forces={FLAT: {"emperor": 6, "harkonnen": 5}})
    state.faction(H).traitors = ["hasimir_fenring"]
    return state


def plans(state, emperor_leader, *first):
    """The battle round begins; the actions `first` (an order), then both plans."""
    state, _ = enter_phase(state, Phase.BATTLE)
    return apply_all(state, *first, plan(E, emperor_leader, 3), plan(H, "feyd_rautha", 0))


ALWAYS = SetTraitorOrder(faction=H, auto=True)


def test_a_13_the_traitor_order_calls_when_the_opposing_leader_is_the_owners_traitor(flat):
    state, events = plans(flat, "hasimir_fenring", ALWAYS)
    assert state.battle.current.traitor_calls[H] is True
    assert answered_by_order(events, H) == ["By your standing order, you call a traitor."]
    assert not any(p.kind == PromptKind.TRAITOR_CALL for p in state.prompts_for(H))


def test_a_13_the_traitor_order_answers_no_when_it_holds_no_traitor_for_him(flat):
    state, events = plans(flat, "captain_aramsham", ALWAYS)
    assert state.battle.current.traitor_calls[H] is False
    assert answered_by_order(events, H) == ["By your standing order, you call no traitor."]
    assert "Harkonnen answered the traitor question." in [e.message for e in public(events)]
    state, events = apply(state, CallTraitor(faction=E, call=False))
    assert not any(e.type == "traitor_called" for e in events)


def test_a_13_an_order_given_while_the_question_is_open_answers_it_at_once(flat):
    state, _ = plans(flat, "hasimir_fenring")
    state, events = apply(state, SetTraitorOrder(faction=H, auto=True))
    assert state.battle.current.traitor_calls[H] is True
    assert [e.message for e in public(events)] == ["Harkonnen answered the traitor question."]


@pytest.mark.parametrize("leader, call", [("hasimir_fenring", True), ("captain_aramsham", False)],
                         ids=["the traitor leads", "another leads"])
def test_a_13_a_traitor_orders_answer_tells_the_table_nothing_a_click_would_not(flat, leader, call):
    """The same answer by the order (given before the battle) and by a click: the Emperor and the table see the
    same events, and the same game once the battle is resolved."""
    ordered, events = plans(flat, leader, ALWAYS)
    ordered, last = apply(ordered, CallTraitor(faction=E, call=False))
    by_order = ordered, events + last
    clicked, events = plans(flat, leader)
    clicked, new = apply_all(clicked, CallTraitor(faction=H, call=call), CallTraitor(faction=E, call=False))
    same_for_everyone_else(by_order, (clicked, events + new), H)


# --- bidding orders given from the bid's card (A-6) -------------------------------------------------------------


def test_a_6_pass_on_every_card_this_turn_answers_this_bid_and_lapses_when_the_auction_ends():
    state, _ = auction()
    assert bidder(state) == A
    state, events = apply(state, SetBidOrder(faction=A, auto_pass=True, lasts="this_turn"))
    assert [e.message for e in public(events)] == ["Atreides pass on card 1 of 4."]
    assert answered_by_order(events, A) == ["By your standing order, you pass on card 1 of 4."]
    state, events = apply_all(state, Bid(faction=E, amount=1), PassBid(faction=F), PassBid(faction=H))
    assert A not in {p.faction for p in state.prompts if p.kind == PromptKind.BID}  # card 2: passed by the order
    for _ in range(20):  # the other cards, every other bidder passing
        if state.phase != Phase.BIDDING:
            break
        state, _ = apply(state, PassBid(faction=bidder(state)))
    assert state.phase != Phase.BIDDING and state.faction(A).bid_order.auto_pass is False


def test_a_6_bid_up_to_n_on_this_card_outbids_by_one_and_lapses_with_the_card():
    state, _ = auction()
    state, events = apply(state, SetBidOrder(faction=A, max_bid=3, lasts="this_card"))
    assert [e.message for e in public(events)] == ["Atreides bid 1 spice for card 1 of 4."]
    state, events = apply(state, Bid(faction=E, amount=2))
    assert "Atreides bid 3 spice for card 1 of 4." not in [e.message for e in public(events)]  # A's turn is after H
    state, events = apply_all(state, PassBid(faction=F), PassBid(faction=H))
    assert "Atreides bid 3 spice for card 1 of 4." in [e.message for e in public(events)]
    state, events = apply(state, Bid(faction=E, amount=4))
    assert "Atreides pass on card 1 of 4." in [e.message for e in public(events)]
    assert state.bidding.card_number == 2 and state.faction(A).bid_order.max_bid is None  # lapsed with card 1
    assert any(p.kind == PromptKind.BID for p in state.prompts)


def test_a_6_orders_for_this_card_or_this_turn_are_given_only_while_a_card_is_up():
    state, _ = enter_phase(auction()[0], Phase.MOVEMENT)
    refused(state, SetBidOrder(faction=A, auto_pass=True, lasts="this_turn"), "A-6", ViolationCode.WRONG_PHASE)
    refused(state, SetBidOrder(faction=A, max_bid=3, lasts="this_card"), "A-6", ViolationCode.WRONG_PHASE)


def test_a_6_an_orders_bids_tell_the_table_nothing_clicks_would_not():
    """The Atreides outbid by their order up to 3 (given from their card), or by clicks of the same amounts: the
    table and the others see the same bids and passes, and the same game once the card is sold."""
    start, _ = auction()
    rest = [Bid(faction=E, amount=2), PassBid(faction=F), PassBid(faction=H)]
    ordered, events = apply_all(start, SetBidOrder(faction=A, max_bid=3, lasts="this_card"), *rest)
    ordered, new = apply(ordered, Bid(faction=E, amount=4))
    clicked, clicks = apply_all(start, Bid(faction=A, amount=1), *rest, Bid(faction=A, amount=3),
                                Bid(faction=E, amount=4), PassBid(faction=A))
    assert ordered.bidding.card_number == clicked.bidding.card_number == 2
    same_for_everyone_else((ordered, events + new), (clicked, clicks), A)


# --- no shipment, no move this turn (1979 rules: Shipment, Movement) --------------------------------------------


def shipment_of(state, faction):
    for _ in range(50):
        if any(p.kind == PromptKind.SHIPMENT and p.faction == faction for p in state.prompts):
            return state
        prompt = state.prompts[0]
        state = apply(state, DEFAULTS[prompt.kind](state, prompt)).state
    raise AssertionError(f"{faction} never shipped")


def test_no_shipment_no_move_answers_the_move_when_it_is_asked():
    state = shipment_of(arrange(forces={"Arrakeen#9": {A: 5}})[0], A)
    state, events = apply(state, SkipShipment(faction=A, no_move=True))
    assert [e.message for e in public(events)][:2] == ["Atreides do not ship this turn.",
                                                       "Atreides do not move this turn."]
    assert answered_by_order(events, A) == ["By your standing order for this turn (ship nothing, move nothing), "
                                            "you do not move."]
    assert not any(p.faction == A for p in state.prompts)  # the next faction's turn has begun


def test_no_shipment_no_move_with_nothing_that_could_move_asks_and_answers_nothing_more():
    state = shipment_of(arrange()[0], A)
    state, events = apply(state, SkipShipment(faction=A, no_move=True))
    assert "Atreides do not move this turn." not in [e.message for e in events]
    assert answered_by_order(events, A) == []


def test_no_shipment_no_move_gives_the_table_what_two_clicks_would():
    start = shipment_of(arrange(forces={"Arrakeen#9": {A: 5}})[0], A)
    by_order = apply(start, SkipShipment(faction=A, no_move=True))
    clicked, events = apply(start, SkipShipment(faction=A))
    clicked, more = apply(clicked, SkipMove(faction=A))
    same_for_everyone_else(by_order, (clicked, events + more), A)


def test_no_shipment_no_move_leaves_no_moment_for_hajr():
    """Hajr is played while the faction's move is being decided (engine/cards.py): with the move waived there is
    none, so the card stays in hand."""
    state = shipment_of(arrange(forces={"Arrakeen#9": {A: 5}})[0], A)
    state.faction(A).hand.append(state.treachery_deck.pop(state.treachery_deck.index(HAJR)))
    state, _ = apply(state, SkipShipment(faction=A, no_move=True))
    assert AnytimeKind.HAJR not in {c.kind for c in anytime_choices(state, A)}
    refused(state, PlayHajr(faction=A), "1979 rules: Hajr")
    assert HAJR in state.faction(A).hand


def test_a_15_the_guild_taking_their_turn_now_waive_their_own_move_only():
    """The Guild's turn out of storm order (A-15): the order is for their turn; the Atreides, whose turn they went
    before, are then asked to ship and to move as usual."""
    state = guild_round(character_advantages=True)
    state, _ = apply(state, DEFAULTS[PromptKind.GUILD_TIMING](state, prompt_of(state, G, PromptKind.GUILD_TIMING))
                     .model_copy(update={"now": True}))
    state, events = apply(state, SkipShipment(faction=G, no_move=True))
    assert "Spacing Guild do not ship this turn." in [e.message for e in public(events)]
    assert not any(p.faction == G for p in state.prompts)
    assert prompt_of(state, A, PromptKind.SHIPMENT)
    state, _ = apply(state, SkipShipment(faction=A))
    assert not state.movement.no_move


def test_what_the_orders_answered_grows_one_dm_a_turn_instead_of_a_dm_each():
    """Issue 14: an order answers silently; its owner reads what it did in one DM of the turn, which later answers
    are added to (an edit pings nobody), apart from the rest of their news."""
    from bot.app.render import messages_for
    from engine.events import Event

    state = arena((A, H, Faction.BENE_TLEILAXU))
    passed = Event(type="bid_by_order", message=f"{BY_STANDING_ORDER}, you pass on card 1 of 3.", audience=(A,))
    news = Event(type="card_bought", message="You buy card 2 of 3: Lasgun.", audience=(A,))
    messages = messages_for([passed, news], state, state)
    mine = [m for m in messages if m.recipient.faction == A.value]
    key = f"orders:atreides:{state.turn}"
    assert [(m.text, m.key, m.edit_of) for m in mine] == [
        ("You buy card 2 of 3: Lasgun.", None, None),
        (f"{BY_STANDING_ORDER}, you pass on card 1 of 3.", key, key)]  # the turn's DM, created or grown

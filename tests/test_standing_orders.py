"""Standing orders for the busywork (issue 14, item 5): the storm-card order (1979 rules: Storm, Weather Control and
Family Atomics), the traitor order (A-13), the bidding orders given from the bid's card (A-6), the order to pass on
a bid the faction cannot outbid (A-6), one click for no shipment and no move this turn (1979 rules: Shipment,
Movement; A-15 for the Guild's timing), the revival order (A-7), the Guild's timing order (A-15) and the Bene
Gesserit's spiritual advisor order (1979 rules).

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
    Revive,
    SendAdvisor,
    SetAdvisorOrder,
    SetBidOrder,
    SetGuildTimingOrder,
    SetNexusOrder,
    SetOutbidOrder,
    SetRevivalOrder,
    SetStormCardOrder,
    SetTraitorOrder,
    Ship,
    SkipMove,
    SkipShipment,
)
from engine.errors import ViolationCode
from engine.events import BY_STANDING_ORDER
from engine.flow import DEFAULTS
from engine.game import apply
from engine.ids import Faction
from engine.model import Phase, PromptKind
from engine.rules.anytime import AnytimeKind, anytime_choices
from engine.rules.cards import FAMILY_ATOMICS, HAJR, WEATHER_CONTROL
from engine.rules.karama import Advantage
from engine.secrecy.views import view
from tests.conftest import ALL_SEVEN, BG, BT, A, E, F, G, H, apply_all, enter_phase, prompt_of, ready_game, refused
from tests.helpers.positions.battle import arena, plan
from tests.helpers.positions.bidding import bidder
from tests.helpers.positions.bidding import game as auction
from tests.helpers.positions.cards import _stop_after_storm_and_movement, dial, position, storm_round
from tests.helpers.positions.movement import CARTHAG, SINK, TUEKS, arrange
from tests.helpers.positions.optional_rules import guild_round
from tests.helpers.positions.revival import ATREIDES_LEADERS
from tests.helpers.standing_orders import (
    answered_by_order,
    asked,
    kinds_offered,
    public,
    same_for_everyone_else,
    seen_by,
    table_view,
)

_stop_after_storm_and_movement = _stop_after_storm_and_movement  # autouse here too: one round per test
GARA_KULON = "Gara Kulon#7"  # next to the Shield Wall: Family Atomics may be played from here
FLAT = "The Great Flat#14"


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
    assert "The Emperor answered about the storm." in [e.message for e in public(events)]
    assert answered_by_order(events, E) == ["By your standing order, you play no card on the storm."]
    for faction in storm_window_of(state):
        state, _ = apply(state, PlayStormCards(faction=faction))
    assert state.storm_sector == 4 and WEATHER_CONTROL in state.faction(E).hand


def test_storm_cards_an_order_given_while_the_window_is_open_answers_it_at_once():
    state, _ = dial(storm_round(position(hands={E: [WEATHER_CONTROL]})))
    state, events = apply(state, SetStormCardOrder(faction=E, never=True))
    assert E not in storm_window_of(state)
    assert [e.message for e in public(events)] == ["The Emperor answered about the storm."]


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
    assert "The Harkonnen answered the traitor question." in [e.message for e in public(events)]
    state, events = apply(state, CallTraitor(faction=E, call=False))
    assert not any(e.type == "traitor_called" for e in events)


def test_a_13_an_order_given_while_the_question_is_open_answers_it_at_once(flat):
    state, _ = plans(flat, "hasimir_fenring")
    state, events = apply(state, SetTraitorOrder(faction=H, auto=True))
    assert state.battle.current.traitor_calls[H] is True
    assert [e.message for e in public(events)] == ["The Harkonnen answered the traitor question."]


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
    assert [e.message for e in public(events)] == ["The Atreides pass on card 1 of 4."]
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
    assert [e.message for e in public(events)] == ["The Atreides bid 1 spice for card 1 of 4."]
    state, events = apply(state, Bid(faction=E, amount=2))
    assert "The Atreides bid 3 spice for card 1 of 4." not in [e.message for e in public(events)]  # A's turn is after H
    state, events = apply_all(state, PassBid(faction=F), PassBid(faction=H))
    assert "The Atreides bid 3 spice for card 1 of 4." in [e.message for e in public(events)]
    state, events = apply(state, Bid(faction=E, amount=4))
    assert "The Atreides pass on card 1 of 4." in [e.message for e in public(events)]
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


# --- bids the faction cannot outbid: "pass for me" or "ask me" (A-6) ---------------------------------------------


PASS_WHEN_OUTBID = SetOutbidOrder(faction=F, pass_when_outbid=True)
OUTBID_ASK = SetOutbidOrder(faction=F, pass_when_outbid=False)


def fremen_with(spice: int, *actions):
    """Card 1 of 4 up, bids going round A, E, F, H; the Fremen hold `spice`, the others 10; then `actions`."""
    state, _ = auction(spice={A: 10, E: 10, F: spice, H: 10})
    return apply_all(state, *actions)


OUTBID = {
    "the high bid above their spice": (3, [Bid(faction=A, amount=3), Bid(faction=E, amount=4)],
                                       "you cannot outbid 4"),
    "the high bid equal to their spice": (3, [Bid(faction=A, amount=3), PassBid(faction=E)], "you cannot outbid 3"),
    "no spice to open with": (0, [PassBid(faction=A), PassBid(faction=E)], "you have no spice to open the bidding"),
}


@pytest.mark.parametrize("spice, bids, why", OUTBID.values(), ids=OUTBID.keys())
def test_a_6_outbid_order_passes_at_once_when_the_high_bid_is_beyond_own_spice(spice, bids, why):
    """Even the smallest raise, the high bid + 1, is beyond the Fremen's own spice: their pass is made as their bid
    opens, and the Harkonnen are asked next."""
    state, events = fremen_with(spice, PASS_WHEN_OUTBID, *bids)
    assert "The Fremen pass on card 1 of 4." in [e.message for e in public(events)]
    assert answered_by_order(events, F) == [f"By your standing order, you pass on card 1 of 4: {why}."]
    assert F in state.bidding.passed and bidder(state) == H


def test_a_6_an_outbid_orders_pass_tells_the_table_nothing_a_click_on_pass_would_not():
    """The Fremen's pass by the order, or by a click on Pass as their bid opens, and the card sold to the Emperor:
    the table and every other faction see the same events and the same game, with card 2 up."""
    start, _ = fremen_with(3)
    sold = [PassBid(faction=H), PassBid(faction=A)]
    by_order = apply_all(start, PASS_WHEN_OUTBID, Bid(faction=A, amount=3), Bid(faction=E, amount=4), *sold)
    by_click = apply_all(start, Bid(faction=A, amount=3), Bid(faction=E, amount=4), PassBid(faction=F), *sold)
    assert by_order[0].bidding.card_number == by_click[0].bidding.card_number == 2
    same_for_everyone_else(by_order, by_click, F)


def test_a_6_the_outbid_order_asks_when_the_faction_can_outbid():
    """A high bid of 3 and 4 spice: a bid of 4 is the Fremen's to make or not, so they are asked."""
    state, events = fremen_with(4, PASS_WHEN_OUTBID, Bid(faction=A, amount=3), PassBid(faction=E))
    assert bidder(state) == F and answered_by_order(events, F) == []
    assert prompt_of(state, F, PromptKind.BID).detail["max_bid"] == 4


def test_a_6_ask_me_clears_the_outbid_order():
    state, events = fremen_with(3, PASS_WHEN_OUTBID, OUTBID_ASK, Bid(faction=A, amount=3), Bid(faction=E, amount=4))
    assert not state.faction(F).pass_when_outbid and bidder(state) == F and answered_by_order(events, F) == []


def test_a_6_an_outbid_order_given_while_the_faction_is_asked_answers_at_once():
    state, _ = fremen_with(3, Bid(faction=A, amount=3), Bid(faction=E, amount=4))
    assert bidder(state) == F
    state, events = apply(state, PASS_WHEN_OUTBID)
    assert [e.message for e in public(events)] == ["The Fremen pass on card 1 of 4."]
    assert answered_by_order(events, F) == ["By your standing order, you pass on card 1 of 4: you cannot outbid 4."]
    assert bidder(state) == H


def test_a_6_an_outbid_order_given_while_the_faction_can_outbid_leaves_the_bid_asked():
    state, _ = fremen_with(5, Bid(faction=A, amount=3), Bid(faction=E, amount=4))
    state, events = apply(state, PASS_WHEN_OUTBID)
    assert bidder(state) == F and public(events) == [] and [e.audience for e in events] == [(F,)]


def test_a_6_a_bid_order_answers_before_the_outbid_order():
    """A bid limit outbids by 1 while the Fremen can, then passes by its own words; an auto-pass passes even a bid
    they could outbid."""
    state, events = fremen_with(3, PASS_WHEN_OUTBID, SetBidOrder(faction=F, max_bid=10),
                                Bid(faction=A, amount=1), PassBid(faction=E))
    assert answered_by_order(events, F) == ["By your standing order, you bid 2 spice for card 1 of 4."]
    state, events = apply_all(state, PassBid(faction=H), Bid(faction=A, amount=3))
    assert answered_by_order(events, F) == ["By your standing order, you pass on card 1 of 4."]
    state, events = fremen_with(10, PASS_WHEN_OUTBID, SetBidOrder(faction=F, auto_pass=True),
                                PassBid(faction=A), PassBid(faction=E))
    assert answered_by_order(events, F) == ["By your standing order, you pass on card 1 of 4."]


def test_a_6_the_outbid_order_is_offered_to_every_faction():
    state = ready_game()
    assert all(AnytimeKind.OUTBID_ORDER in kinds_offered(state, f) for f in ALL_SEVEN)


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
    assert [e.message for e in public(events)][:2] == ["The Atreides do not ship this turn.",
                                                       "The Atreides do not move this turn."]
    assert answered_by_order(events, A) == ["By your standing order for this turn (ship nothing, move nothing), "
                                            "you do not move."]
    assert not any(p.faction == A for p in state.prompts)  # the next faction's turn has begun


def test_no_shipment_no_move_with_nothing_that_could_move_asks_and_answers_nothing_more():
    state = shipment_of(arrange()[0], A)
    state, events = apply(state, SkipShipment(faction=A, no_move=True))
    assert "The Atreides do not move this turn." not in [e.message for e in events]
    assert answered_by_order(events, A) == []


def test_no_shipment_no_move_gives_the_table_what_two_clicks_would():
    start = shipment_of(arrange(forces={"Arrakeen#9": {A: 5}})[0], A)
    by_order = apply(start, SkipShipment(faction=A, no_move=True))
    clicked, events = apply(start, SkipShipment(faction=A))
    clicked, more = apply(clicked, SkipMove(faction=A))
    same_for_everyone_else(by_order, (clicked, events + more), A)


def test_no_shipment_no_move_leaves_no_moment_for_hajr():
    """Hajr is played while the faction's move is being decided (engine/rules/cards.py): with the move waived there is
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
    assert "The Spacing Guild does not ship this turn." in [e.message for e in public(events)]
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


def defaults_until(state, events, done):
    """Every open decision takes its default (a click on it) in turn until `done(state)`; (state, events)."""
    for _ in range(100):
        if done(state):
            return state, events
        prompt = state.prompts[0]
        state, new = apply(state, DEFAULTS[prompt.kind](state, prompt))
        events = events + new
    raise AssertionError("never done")


# --- revival: "free tokens" or "ask me" (A-7) ---------------------------------------------------------------------


REVIVE_FREE = {"revive_free_tokens": ["atreides"]}


def test_a_7_the_revival_order_revives_the_free_tokens_as_the_round_opens_and_the_round_waits_on_the_others():
    """The Atreides' 2 free tokens of 5 in the tanks, free (A-7, R-3); the Harkonnen, opened after them in storm
    order, are still asked, and nobody ships before every faction has revived."""
    state, events = arrange(tanks={A: 5, H: 2}, spice={A: 10, BT: 5}, orders=REVIVE_FREE)
    assert state.faction(A).tanks == 3 and state.faction(A).reserves == 17
    assert state.faction(A).spice == 10 and state.faction(BT).spice == 5  # free: nobody paid
    assert "The Atreides revive 2 tokens (2 free)." in [e.message for e in public(events)]
    assert answered_by_order(events, A) == ["By your standing order, you revive 2 tokens, free."]
    assert [(p.faction, p.kind) for p in state.prompts] == [(H, PromptKind.REVIVAL)]
    assert "shipment_order" not in [e.type for e in events]
    state, events = apply(state, Revive(faction=H, tokens=2))
    assert "shipment_order" in [e.type for e in events] and asked(state, A, PromptKind.SHIPMENT)


def test_a_7_with_every_reviver_ordered_the_shipments_begin_without_a_click():
    state, events = arrange(tanks={A: 5, H: 2}, orders={"revive_free_tokens": ["atreides", "harkonnen"]})
    assert state.faction(H).tanks == 0 and asked(state, A, PromptKind.SHIPMENT)
    assert [e.type for e in public(events)].count("revived") == 2


def test_a_7_a_revival_orders_answer_tells_the_table_nothing_a_click_would_not():
    """The Atreides' free tokens by the order, or by a click on the decision's default; the Harkonnen revive alike
    in both games. Every other faction and the table see the same events and the same game."""
    def harkonnen_revive(state, events):
        state, new = apply(state, Revive(faction=H, tokens=1))
        return state, events + new

    by_order = harkonnen_revive(*arrange(tanks={A: 5, H: 2}, spice={A: 10}, orders=REVIVE_FREE))
    clicked, events = arrange(tanks={A: 5, H: 2}, spice={A: 10})
    clicked, click = apply(clicked, DEFAULTS[PromptKind.REVIVAL](clicked, prompt_of(clicked, A, PromptKind.REVIVAL)))
    by_click = harkonnen_revive(clicked, events + click)
    assert asked(by_order[0], A, PromptKind.SHIPMENT) and asked(by_click[0], A, PromptKind.SHIPMENT)
    same_for_everyone_else(by_order, by_click, A)


LEADER_OFFERED = {
    "all five leaders dead (A-7)": dict(tanks={A: 5}, dead_leaders={A: ATREIDES_LEADERS}, spice={A: 10}),
    "an ally of the BT (BT-60), granted": dict(tanks={A: 5}, dead_leaders={A: ATREIDES_LEADERS[:1]},
                                               alliances=[(A, BT)], orders={"bt": {"ally_revival_order": "grant"}}),
}


@pytest.mark.parametrize("position", LEADER_OFFERED.values(), ids=LEADER_OFFERED.keys())
def test_a_7_the_revival_order_asks_when_a_leader_could_be_revived(position):
    """A leader is the owner's choice (and spice): the order answers only a revival of tokens alone."""
    state, events = arrange(**{**position, "orders": REVIVE_FREE | position.get("orders", {})})
    assert prompt_of(state, A, PromptKind.REVIVAL).options and answered_by_order(events, A) == []
    assert state.faction(A).tanks == 5


def test_a_7_a_revival_order_given_while_the_decision_is_open_answers_it_at_once():
    state, _ = arrange(tanks={A: 5, H: 2})
    state, events = apply(state, SetRevivalOrder(faction=A, free_tokens=True))
    assert not asked(state, A, PromptKind.REVIVAL) and state.faction(A).tanks == 3
    assert [e.message for e in public(events)] == ["The Atreides revive 2 tokens (2 free)."]
    assert answered_by_order(events, A) == ["By your standing order, you revive 2 tokens, free."]


def test_a_7_a_revival_order_given_while_a_leader_is_offered_leaves_the_decision_open():
    state, _ = arrange(**LEADER_OFFERED["all five leaders dead (A-7)"])
    state, events = apply(state, SetRevivalOrder(faction=A, free_tokens=True))
    assert asked(state, A, PromptKind.REVIVAL) and public(events) == []


def test_a_7_ask_me_clears_the_revival_order():
    """The order cleared, the next revival decision (the round opened again) is asked; left, it is answered."""
    state, _ = arrange(tanks={A: 5, H: 2}, orders=REVIVE_FREE)
    cleared, events = apply(state, SetRevivalOrder(faction=A, free_tokens=False))
    assert not cleared.faction(A).revive_free_tokens and public(events) == []
    assert asked(enter_phase(cleared, Phase.MOVEMENT)[0], A, PromptKind.REVIVAL)
    assert not asked(enter_phase(state, Phase.MOVEMENT)[0], A, PromptKind.REVIVAL)


def test_bt_1_the_revival_order_is_everyones_but_the_bts_who_have_nothing_to_revive():
    state = ready_game()
    assert all(AnytimeKind.REVIVAL_ORDER in kinds_offered(state, f) for f in ALL_SEVEN if f != BT)
    assert AnytimeKind.REVIVAL_ORDER not in kinds_offered(state, BT)
    refused(state, SetRevivalOrder(faction=BT, free_tokens=True), "BT-1")


# --- the Guild's timing: "in storm order" or "ask me" (A-15, character_advantages) -----------------------------


def guild_timing_round(*first):
    """Storm order A, BG, E, F, G, H, BT; the Atreides revive (their decision open), then the turns begin, the
    Guild asked before each other faction's turn (A-15). The actions `first` come before the revival."""
    state, events = arrange(tanks={A: 2}, forces={TUEKS: {G: 2}}, character_advantages=True)
    state, more = apply_all(state, *first)
    state, last = apply(state, Revive(faction=A, tokens=2))
    return state, events + more + last


STORM_ORDER = SetGuildTimingOrder(faction=G, storm_order=True)


def test_a_15_the_guild_timing_order_waits_until_the_guilds_storm_order_place_then_goes_now():
    state, events = guild_timing_round(STORM_ORDER)
    assert not any(p.kind == PromptKind.GUILD_TIMING for p in state.prompts)
    assert "The Spacing Guild waits; the Atreides go on (A-15)." in [e.message for e in public(events)]
    assert answered_by_order(events, G) == ["By your standing order (storm order), you wait; the Atreides go on."]
    assert asked(state, A, PromptKind.SHIPMENT)
    state, events = defaults_until(state, events, lambda s: asked(s, G, PromptKind.SHIPMENT))
    timing = [e.data["before"] for e in public(events) if e.type in ("guild_waits", "guild_turn")]
    assert timing == ["atreides", "bene_gesserit", "emperor", "fremen", "harkonnen"]  # their place: after the Fremen
    assert [e.type for e in public(events) if e.type == "guild_turn"] == ["guild_turn"]
    assert answered_by_order(events, G)[-1] == ("By your standing order (storm order), you take your turn now, before "
                                                "the Harkonnen.")


def test_a_15_a_guild_timing_orders_answers_tell_the_table_nothing_clicks_would_not():
    """The Guild's answers by the order, or by clicks on each decision's default, up to the Guild's own turn: the
    table and every other faction see the same events and the same game."""
    def to_the_guilds_turn(state, events):
        return defaults_until(state, events, lambda s: asked(s, G, PromptKind.SHIPMENT))

    by_order = to_the_guilds_turn(*guild_timing_round(STORM_ORDER))
    by_click = to_the_guilds_turn(*guild_timing_round())
    assert [e.type for e in public(by_click[1])].count("guild_waits") == 4
    same_for_everyone_else(by_order, by_click, G)


def test_a_15_ask_me_clears_the_guild_timing_order():
    state, _ = guild_timing_round(STORM_ORDER, SetGuildTimingOrder(faction=G, storm_order=False))
    assert prompt_of(state, G, PromptKind.GUILD_TIMING).detail["before"] == "atreides"


def test_a_15_a_guild_timing_order_given_while_the_guild_are_asked_answers_at_once():
    state, _ = guild_timing_round()
    state, events = apply(state, STORM_ORDER)
    assert not asked(state, G, PromptKind.GUILD_TIMING) and asked(state, A, PromptKind.SHIPMENT)
    assert [e.message for e in public(events)] == ["The Spacing Guild waits; the Atreides go on (A-15)."]


def test_a_15_the_guild_timing_order_is_the_guilds_and_only_with_the_character_advantages():
    with_option, without = ready_game(character_advantages=True), ready_game()
    assert AnytimeKind.GUILD_TIMING_ORDER in kinds_offered(with_option, G)
    assert not any(AnytimeKind.GUILD_TIMING_ORDER in kinds_offered(with_option, f) for f in ALL_SEVEN if f != G)
    assert AnytimeKind.GUILD_TIMING_ORDER not in kinds_offered(without, G)
    refused(with_option, SetGuildTimingOrder(faction=A, storm_order=True), "A-15")
    refused(without, STORM_ORDER, "A-15")


# --- the spiritual advisor: "always to the Polar Sink", "never" or "ask me" (1979 rules: Bene Gesserit) ---------


def harkonnen_ship(*first, **position):
    """The Harkonnen ship 2 tokens to Carthag from off-planet; the Bene Gesserit may send an advisor. The actions
    `first` come at the start of the round; every decision before the Harkonnen's shipment takes its default."""
    state, events = arrange(spice={H: 10, BG: 5}, **position)
    state, more = apply_all(state, *first)
    state, events = defaults_until(state, events + more, lambda s: asked(s, H, PromptKind.SHIPMENT))
    state, shipped = apply(state, Ship(faction=H, to_location=CARTHAG, tokens=2))
    return state, events + shipped


TO_THE_SINK = SetAdvisorOrder(faction=BG, order="polar_sink")
NO_ADVISOR = SetAdvisorOrder(faction=BG, order="never")


def test_the_advisor_order_sends_one_to_the_polar_sink_as_the_harkonnen_ship():
    state, events = harkonnen_ship(TO_THE_SINK)
    assert state.tokens_at(SINK, BG) == 1 and state.faction(BG).reserves == 19 and state.faction(BG).spice == 5
    assert "The Bene Gesserit send a spiritual advisor to the Polar Sink." in [e.message for e in public(events)]
    assert answered_by_order(events, BG) == ["By your standing order, you send a spiritual advisor to the Polar Sink."]
    assert [(p.faction, p.kind) for p in state.prompts] == [(H, PromptKind.MOVEMENT)]


def test_the_advisor_order_never_sends_none():
    state, events = harkonnen_ship(NO_ADVISOR)
    assert state.tokens_at(SINK, BG) == 0 and state.faction(BG).reserves == 20
    assert "The Bene Gesserit send no spiritual advisor." in [e.message for e in public(events)]
    assert answered_by_order(events, BG) == ["By your standing order, you send no spiritual advisor."]
    assert [(p.faction, p.kind) for p in state.prompts] == [(H, PromptKind.MOVEMENT)]


ADVISOR_ANSWERS = {
    "to the Polar Sink": (TO_THE_SINK, True, ()),
    "never": (NO_ADVISOR, False, ()),
    "to the Polar Sink, cancelled by a Karama (A-14)": (TO_THE_SINK, True,
                                                        [(E, "karama_1", Advantage.SPIRITUAL_ADVISOR)]),
}


@pytest.mark.parametrize("order, accept, karama", ADVISOR_ANSWERS.values(), ids=ADVISOR_ANSWERS.keys())
def test_an_advisor_orders_answer_tells_the_table_nothing_a_click_would_not(order, accept, karama):
    by_order = harkonnen_ship(order, karama=karama)
    clicked, events = harkonnen_ship(karama=karama)
    clicked, click = apply(clicked, SendAdvisor(faction=BG, accept=accept))
    same_for_everyone_else(by_order, (clicked, events + click), BG)


def test_a_14_a_karama_readied_against_the_advisor_still_cancels_the_one_the_order_sends():
    state, events = harkonnen_ship(TO_THE_SINK, karama=[(E, "karama_1", Advantage.SPIRITUAL_ADVISOR)])
    assert state.tokens_at(SINK, BG) == 0 and state.faction(BG).reserves == 20
    assert "karama_played" in [e.type for e in public(events)] and "karama_1" not in state.faction(E).hand


def test_the_advisor_order_answers_nothing_when_the_bene_gesserit_have_no_reserves():
    """The decision opens only with a token in reserve; with none, nothing is asked nor answered."""
    state, events = harkonnen_ship(TO_THE_SINK, forces={SINK: {BG: 20}})
    assert answered_by_order(events, BG) == [] and "advisor_sent" not in [e.type for e in events]


def test_ask_me_clears_the_advisor_order():
    state, _ = harkonnen_ship(TO_THE_SINK, SetAdvisorOrder(faction=BG, order="ask"))
    assert asked(state, BG, PromptKind.SPIRITUAL_ADVISOR)


def test_an_advisor_order_given_while_the_bene_gesserit_are_asked_answers_at_once():
    state, _ = harkonnen_ship()
    state, events = apply(state, TO_THE_SINK)
    assert not asked(state, BG, PromptKind.SPIRITUAL_ADVISOR) and state.tokens_at(SINK, BG) == 1
    assert [e.message for e in public(events)] == ["The Bene Gesserit send a spiritual advisor to the Polar Sink."]


def test_the_advisor_order_is_the_bene_gesserits():
    state = ready_game()
    assert AnytimeKind.ADVISOR_ORDER in kinds_offered(state, BG)
    assert not any(AnytimeKind.ADVISOR_ORDER in kinds_offered(state, f) for f in ALL_SEVEN if f != BG)
    refused(state, SetAdvisorOrder(faction=H, order="polar_sink"), "1979 rules: Bene Gesserit spiritual advisor")


# --- the new orders are their owners' secrets -----------------------------------------------------------------


SECRET_ORDERS = {
    "pass when outbid (A-6)": (PASS_WHEN_OUTBID, "pass_when_outbid", True),
    "revival (A-7)": (SetRevivalOrder(faction=A, free_tokens=True), "revive_free_tokens", True),
    "Guild timing (A-15)": (STORM_ORDER, "guild_timing_in_storm_order", True),
    "spiritual advisor": (TO_THE_SINK, "advisor_order", "polar_sink"),
    "Nexus (A-8)": (SetNexusOrder(faction=F, done_at_once=True), "nexus_done_at_once", True),
}


@pytest.mark.parametrize("order, field, value", SECRET_ORDERS.values(), ids=SECRET_ORDERS.keys())
def test_each_new_order_is_its_owners_secret(order, field, value):
    state = ready_game(character_advantages=True)
    after, events = apply(state, order)
    assert getattr(view(after, order.faction).own, field) == value
    assert getattr(view(state, order.faction).own, field) != value
    assert [e.audience for e in events] == [(order.faction,)]
    for viewer in [None, *(f for f in ALL_SEVEN if f != order.faction)]:
        assert table_view(after, viewer) == table_view(state, viewer)

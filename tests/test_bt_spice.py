"""The Bene Tleilaxu spice win and the Karama tax: BT-27 (declare, win a turn later), BT-28 (hidden spice first,
the open pile returns below 35), BT-29 (the BG prediction), R-9 (at least 35), R-10 (order of the checks, allies
share), BT-51 and R-20 (the tax, which may end a declaration), R-27."""

from __future__ import annotations

import pytest

from bot.app.render import action_messages, decision_card
from engine.actions import Bid, GiveBribe, KaramaTaxBt, PassBid, SetBidOrder, SetSpice, SetSpiceWinOrder, UseKarama
from engine.checks.invariants import violations
from engine.data import load_game_data
from engine.errors import ViolationCode
from engine.events import visible_events
from engine.game import apply
from engine.model import Phase, Prediction, PromptKind
from engine.rules.economy import total_spice_outside_bank
from engine.secrecy.views import view
from tests.conftest import BG, BT, A, E, F, G, H, enter_phase, refused
from tests.helpers.positions.bt_spice import ALL, cleared, give_card

BOARD = load_game_data().board


def set_spice(state, faction, amount):
    state.spice_outside_bank += amount - state.faction(faction).spice
    state.faction(faction).spice = amount


def put(state, faction, stronghold, count=1):
    state.add_tokens(BOARD.default_location(stronghold), faction, count)
    state.faction(faction).reserves -= count


def declared(state, spice=40, turn=1):
    """The BT declared at the end of `turn` (direct edit); the game now stands in turn + 1."""
    set_spice(state, BT, spice)
    state.bt.open_spice, state.bt.declared_turn = 35, turn
    state.turn = turn + 1
    return state


def end_turn(state):
    """The collection round of the current turn, then the end of the turn."""
    return enter_phase(state, Phase.COLLECTION)


# --- BT-27: declaring and winning ----------------------------------------------------------------------------


def test_bt_27_the_bt_declare_at_the_end_of_a_collection_round_holding_35():
    state = cleared()
    set_spice(state, BT, 40)
    state, events = end_turn(state)
    assert state.turn == 2 and state.phase != Phase.ENDED
    assert (state.bt.open_spice, state.bt.declared_turn) == (35, 1)
    event = next(e for e in events if e.type == "spice_win_declared")
    assert event.public and "35" in event.message and "40" not in event.message
    types = [e.type for e in events]
    assert types.index("spice_win_declared") < types.index("phase_started")  # before turn 2 begins
    table = view(state, None)
    assert table.bt_open_spice == 35 and table.bt_declared_turn == 1
    assert view(state, A).bt_open_spice == 35 and view(state, BT).own.spice == 40


def test_r_36_a_bribe_received_this_turn_counts_toward_the_bts_35_at_its_end():
    """R-36: the BT hold 30 spice and receive a 5-spice bribe this turn (A-16: before their shield, not yet theirs
    to spend). At the turn's end the bribes are released first, then victory is checked, then the BT declare: they
    hold 35 and declare; the table reads the release before the declaration."""
    state = cleared()
    set_spice(state, BT, 30)
    set_spice(state, E, 10)
    state, _ = apply(state, GiveBribe(faction=E, to=BT, amount=5))
    assert state.faction(BT).bribes == 5 and view(state, None).factions[-1].bribes == 5
    state, events = end_turn(state)
    assert state.faction(BT).spice == 35 and state.faction(BT).bribes == 0
    assert (state.bt.open_spice, state.bt.declared_turn) == (35, 1) and state.phase != Phase.ENDED
    types = [e.type for e in events if e.public]
    assert types.index("bribes_released") < types.index("spice_win_declared")


def test_bt_27_no_declaration_below_35_or_with_the_standing_order_off():
    state = cleared()
    set_spice(state, BT, 34)
    after, events = end_turn(state)
    assert after.bt.declared_turn is None and after.bt.open_spice == 0
    assert not any(e.type == "spice_win_declared" for e in events)
    set_spice(state, BT, 50)
    state, _ = apply(state, SetSpiceWinOrder(faction=BT, declare=False))
    after, events = end_turn(state)
    assert after.bt.declared_turn is None and view(after, None).bt_open_spice == 0
    assert not any(e.type == "spice_win_declared" for e in events)


def test_bt_27_the_bt_win_at_the_end_of_the_next_turn():
    state = cleared()
    set_spice(state, BT, 40)
    state, _ = end_turn(state)  # declared at the end of turn 1
    assert state.phase != Phase.ENDED
    state, events = end_turn(state)  # the end of turn 2
    assert state.phase == Phase.ENDED and state.winners == [BT]
    assert "BT-27" in next(e.message for e in events if e.type == "game_over")


def test_bt_27_no_win_when_below_35_at_the_end_of_the_next_turn():
    state = declared(cleared())
    set_spice(state, BT, 34)  # spent without an action seen yet: the check itself ends the declaration
    state, events = end_turn(state)
    assert state.phase != Phase.ENDED and state.turn == 3 and state.winners == []
    assert any(e.type == "spice_declaration_ended" and e.public for e in events)
    assert state.bt.declared_turn is None


def test_bt_27_only_the_bt_set_the_standing_order_and_it_stays_secret():
    state = cleared()
    assert refused(state, SetSpiceWinOrder(faction=A, declare=True)).rule == "BT-27"
    table_before = view(state, None).model_dump(mode="json")
    others_before = {f: view(state, f).model_dump(mode="json") for f in ALL if f != BT}
    after, events = apply(state, SetSpiceWinOrder(faction=BT, declare=False))
    assert all(e.audience == (BT,) for e in events)
    assert view(after, None).model_dump(mode="json") == table_before
    assert {f: view(after, f).model_dump(mode="json") for f in ALL if f != BT} == others_before
    assert view(after, BT).own.spice_win_order is False and view(state, BT).own.spice_win_order is True


def test_bt_27_a_declaration_shows_35_and_hides_the_rest():
    """Twin games where the BT declare holding 36 or 50: nobody else can tell which."""
    seen = []
    for amount in (36, 50):
        state = cleared()
        set_spice(state, BT, amount)
        state, events = end_turn(state)
        seen.append({viewer: (view(state, viewer).model_dump(mode="json"),
                              [e.model_dump(mode="json") for e in visible_events(events, viewer)])
                     for viewer in (None, *ALL)})
    for viewer in (None, A, BG, E, F, G, H):
        assert seen[0][viewer] == seen[1][viewer], f"{viewer} can tell the BT's hidden spice"
    assert seen[0][BT] != seen[1][BT]


# --- BT-29 --------------------------------------------------------------------------------------------


def test_r_9_exactly_35_wins():
    state, _ = end_turn(declared(cleared(), spice=35))
    assert state.winners == [BT]


def test_r_10_a_stronghold_win_the_same_turn_beats_the_spice_win():
    state = declared(cleared())
    for stronghold in ("Arrakeen", "Carthag", "Tuek's Sietch"):
        put(state, E, stronghold, 2)
    state, events = end_turn(state)
    assert state.winners == [E]
    assert "A-9" in next(e.message for e in events if e.type == "game_over")


def test_r_10_the_spice_win_comes_before_the_end_of_game_defaults():
    """On the last turn the Fremen condition (A-10) holds, but the BT spice win is checked first."""
    state, _ = end_turn(cleared(turns=2))
    assert state.winners == []  # nobody won turn 1
    last = declared(cleared(turns=2))
    ended, _ = end_turn(last)
    assert ended.winners == [BT]
    last.bt.open_spice, last.bt.declared_turn = 0, None
    ended, _ = end_turn(last)
    assert ended.winners == [F]


def test_r_10_allies_share_the_spice_win():
    state = declared(cleared())
    state.alliances = [[E, BT]]
    state, _ = end_turn(state)
    assert sorted(state.winners) == sorted([E, BT])


def test_bt_29_the_bene_gesserit_prediction_takes_the_spice_win():
    state = declared(cleared())
    state.bg_prediction = Prediction(faction=BT, turn=2)
    ended, events = end_turn(state)
    assert ended.winners == [BG]
    assert "A-25" in next(e.message for e in events if e.type == "game_over")
    state.bg_prediction = Prediction(faction=BT, turn=3)
    ended, _ = end_turn(state)
    assert ended.winners == [BT]


# --- BT-28: hidden spice first; below 35 the open pile returns ---------------------------------------------------


def test_bt_28_the_bt_spend_hidden_spice_first_and_the_open_pile_returns_below_35():
    state = cleared()
    set_spice(state, BT, 40)
    state, _ = end_turn(state)
    state, events = apply(state, GiveBribe(faction=BT, to=E, amount=5))  # the 5 hidden spice
    assert (state.bt.open_spice, state.bt.declared_turn) == (35, 1)
    assert not any(e.type == "spice_declaration_ended" for e in events)
    state, events = apply(state, GiveBribe(faction=BT, to=E, amount=1))  # the open pile is touched
    ended = [e for e in events if e.type == "spice_declaration_ended"]
    assert len(ended) == 1 and ended[0].public and "BT-28" in ended[0].message
    assert (state.bt.open_spice, state.bt.declared_turn) == (0, None) and view(state, None).bt_open_spice == 0
    state, _ = end_turn(state)  # the end of turn 2: no win
    assert state.phase != Phase.ENDED and state.turn == 3


def test_bt_28_the_bt_may_declare_again_at_a_later_collection_round():
    state = declared(cleared())
    state, _ = apply(state, SetSpice(admin="mod", reason="test", faction=BT, amount=20))
    assert state.bt.declared_turn is None
    state, _ = end_turn(state)  # turn 2 ends with 20: nothing
    assert state.bt.declared_turn is None and state.turn == 3
    set_spice(state, BT, 41)
    state, _ = end_turn(state)
    assert (state.bt.open_spice, state.bt.declared_turn, state.turn) == (35, 3, 4)


# --- BT-51, R-20, R-27: the Karama tax ---------------------------------------------------------------------------


@pytest.mark.parametrize(("held", "paid"), [(15, 10), (10, 10), (4, 4), (0, 0)])
def test_bt_51_a_karama_taxes_the_bt_10_spice_or_all_they_have(held, paid):
    state = cleared()
    set_spice(state, BT, held)
    give_card(state, A, "karama_2")
    ledger = state.spice_outside_bank
    state, events = apply(state, KaramaTaxBt(faction=A, card="karama_2"))
    assert state.faction(BT).spice == held - paid
    assert state.spice_outside_bank == ledger - paid == total_spice_outside_bank(state)  # paid to the bank
    assert "karama_2" not in state.faction(A).hand and state.treachery_discard[-1] == "karama_2"
    event = next(e for e in events if e.type == "karama_vs_bt")
    assert event.public and event.data["amount"] == paid and "BT-51" in event.message
    assert violations(state) == []


def test_bt_51_a_tax_drops_a_readied_order_of_that_karama():
    state = cleared()
    give_card(state, A, "karama_2")
    state, _ = apply(state, UseKarama(faction=A, card="karama_2", against=E, advantage="card_payments"))
    state, _ = apply(state, KaramaTaxBt(faction=A, card="karama_2"))
    assert state.karama_orders == []


def test_r_20_a_karama_tax_below_35_ends_a_declaration():
    state = declared(cleared(), spice=40)
    give_card(state, A, "karama_2")
    state, events = apply(state, KaramaTaxBt(faction=A, card="karama_2"))
    assert state.faction(BT).spice == 30 and state.bt.declared_turn is None and state.bt.open_spice == 0
    types = [e.type for e in events]
    assert types.index("karama_vs_bt") < types.index("spice_declaration_ended")
    state = declared(cleared(), spice=45)
    give_card(state, A, "karama_2")
    state, _ = apply(state, KaramaTaxBt(faction=A, card="karama_2"))
    assert state.bt.declared_turn == 1  # 35 left: the declaration stands


def test_bt_51_r_27_refusals():
    state = cleared()
    give_card(state, A, "karama_2")
    give_card(state, A, "stunner")
    refusal = refused(state, KaramaTaxBt(faction=A, card="stunner"))
    assert refusal.rule == "BT-51" and refusal.allowed == ["karama_2"]
    assert refused(state, KaramaTaxBt(faction=E, card="karama_2")).rule == "BT-51"
    give_card(state, BT, "karama_1")
    assert refused(state, KaramaTaxBt(faction=BT, card="karama_1")).rule == "R-27"
    without_bt = cleared((A, E, F, H))
    give_card(without_bt, A, "karama_2")
    refusal = refused(without_bt, KaramaTaxBt(faction=A, card="karama_2"))
    assert refusal.code == ViolationCode.NOT_IN_GAME and refusal.rule == "BT-51"


def test_the_spice_win_needs_the_bt_in_the_game():
    state = cleared((A, E, F, H))
    assert refused(state, SetSpiceWinOrder(faction=A, declare=True)).rule == "BT-27"
    ended, _ = end_turn(state)
    assert ended.turn == 2 and view(ended, None).bt_open_spice == 0


# --- what the BT read while a declaration runs (bot/app/turn_facts.py, bot/app/render.py) ------------------------


def _bt_asked_to_bid(state):
    """The bidding round of `state`'s turn, every other bidder passing, until the BT are asked to bid."""
    state, _ = enter_phase(state, Phase.BIDDING)
    for _ in range(20):
        bid = next(p for p in state.prompts if p.kind == PromptKind.BID)
        if bid.faction == BT:
            return state, bid
        state, _ = apply(state, PassBid(faction=bid.faction))
    raise AssertionError("the BT were never asked to bid")


def test_bt_28_the_bid_card_tells_the_bt_their_open_pile_and_what_ends_the_declaration():
    """Issue 25 item 11: the card said only "Your spice: 40"."""
    state, bid = _bt_asked_to_bid(declared(cleared()))
    text = decision_card(state, bid, None).text
    assert ("35 of your spice lie in open view (your spice-win declaration, BT-27). Your hidden spice goes first: "
            "a bid above 5, if you win the card, leaves you below 35 and ends the declaration (BT-28).") in text
    state, bid = _bt_asked_to_bid(declared(cleared(), spice=35))
    assert ("35 of your spice lie in open view (your spice-win declaration, BT-27): any bid, if you win the card, "
            "leaves you below 35 and ends the declaration (BT-28).") in decision_card(state, bid, None).text
    state, bid = _bt_asked_to_bid(cleared())
    assert "open view" not in decision_card(state, bid, None).text


def test_a_bid_outbid_by_a_standing_order_is_a_new_bid_not_the_same_decision_asked_again():
    """Issue 25 item 11: after `/play bid` the card closed "Your choices changed: this decision is asked again in a
    new card": an Emperor's standing order outbid the BT at once, and the BT's next bid is a new decision."""

    state, _ = apply(declared(cleared()), SetBidOrder(faction=E, max_bid=10))
    state, bid = _bt_asked_to_bid(state)
    assert bid.detail["high_bid"] == 1  # the Emperor's order bid
    action = Bid(faction=BT, amount=6)
    after, events = apply(state, action)
    again = next(p for p in after.prompts if p.kind == PromptKind.BID)
    assert again.faction == BT and again.detail["high_bid"] == 7  # outbid by the order: asked to bid anew
    closing = [m.text for m in action_messages(events, state, action, after) if m.edit_of == f"card:{bid.id}"]
    assert closing == ["**You answered: bid 6.**"]

"""The bidding round: 1979 rules: Bidding; A-3 CHOAM charity, A-5 cards auctioned, A-6 play-by-post bidding,
A-8 ally support, A-14 Karama; R-1 (the BT bid last) and R-21 (cards are dealt before the BT act)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.actions import Bid, ForceDefault, GiveBribe, KaramaTaxBt, PassBid, SetBidOrder, SetSpice
from engine.checks.autoplay import play_prompt
from engine.checks.invariants import violations
from engine.data import load_game_data
from engine.errors import ViolationCode
from engine.events import visible_events
from engine.flow import DEFAULTS, SAMPLERS
from engine.game import apply
from engine.model import Phase, PromptKind
from engine.options import FixedSetup
from engine.phases.bidding import RULE
from engine.rng import Rng
from engine.rules.economy import total_spice_outside_bank
from engine.rules.karama import Advantage
from engine.secrecy.leaks import LeakChecker
from engine.secrecy.views import view
from tests.conftest import BG, BT, A, E, F, G, H, apply_all, enter_phase, prompt_of, ready_game, refused
from tests.helpers.positions.bidding import AUCTION, DOTS, FOUR, NEXT, START, bidder, game, passes

DATA = load_game_data()


def public_text(events):
    return " ".join(e.message + str(e.data) for e in events if e.public)


# --- dealing the auction (A-5, R-21) -----------------------------------------------------------


def test_one_card_is_dealt_per_faction_whose_hand_is_not_full():
    """A-5: the Emperor's full hand gets no card; three are dealt face down from the top of the deck."""
    state, events = game(hands={E: 4})
    assert state.bidding.cards == list(AUCTION[:3])
    assert state.treachery_deck[:3] == [AUCTION[3], *NEXT]
    dealt = next(e for e in events if e.type == "auction_dealt")
    assert dealt.public and dealt.data["cards"] == 3 and "3 Treachery cards" in dealt.message
    assert all(DATA.card(c).name not in dealt.message for c in AUCTION)


def test_harkonnen_hand_limit_is_eight():
    """1979 rules: Harkonnen may hold 8 cards: with 4 they still bid, with 8 they do not."""
    state, _ = game(hands={H: 4})
    assert len(state.bidding.cards) == 4 and H in state.bidding.bidders
    state, _ = game(hands={H: 8})
    assert len(state.bidding.cards) == 3 and H not in state.bidding.bidders


def test_every_hand_full_means_no_auction_and_the_phase_ends():
    state, events = game(hands={A: 4, E: 4, F: 4, H: 8})
    assert state.phase == Phase.MOVEMENT and state.bidding is None
    assert state.treachery_deck[:4] == list(AUCTION)
    assert any(e.type == "auction_dealt" and "no cards" in e.message for e in events)


def test_an_empty_deck_is_rebuilt_from_the_shuffled_discard_pile():
    """A-5 with the deck run out: the discard pile is shuffled into a new deck, nothing is lost."""
    state = ready_game(FOUR, fixed=FixedSetup(treachery_deck=START, dots={f: DOTS[f] for f in FOUR}))
    state = state.model_copy(deep=True)
    state.treachery_discard = state.treachery_deck[2:]
    state.treachery_deck = state.treachery_deck[:2]
    top_two = list(state.treachery_deck)
    state, events = enter_phase(state, Phase.BIDDING)
    assert len(state.bidding.cards) == 4 and state.bidding.cards[:2] == top_two
    assert state.treachery_discard == []
    assert any(e.type == "treachery_reshuffled" and e.public for e in events)
    assert violations(state) == []


def test_the_cards_are_dealt_before_the_bt_step_and_bidding_starts_after_it():
    """R-21: counted and dealt first; the BT's traps and gifts get their own step before the first bid."""
    state, events = game(hands={A: 4})
    assert state.bidding.dealt == 3
    types = [e.type for e in events]
    assert types.index("auction_dealt") < types.index("card_up")


# --- order of bidding (1979 rules: Bidding, A-4, R-1) ----------------------------------------


def test_card_one_is_opened_by_the_first_eligible_faction_in_storm_order():
    state, _ = game()
    assert bidder(state) == A and state.bidding.order == [A, E, F, H]
    state, _ = game(hands={A: 4})
    assert bidder(state) == E


def test_bids_go_round_in_storm_order():
    """1979 rules: Bidding: each card is bid on in storm order from its opener."""
    state, _ = game()
    state, _ = apply(state, Bid(faction=A, amount=1))
    assert bidder(state) == E
    state, _ = apply(state, PassBid(faction=E))
    assert bidder(state) == F
    state, _ = apply(state, Bid(faction=F, amount=2))
    assert bidder(state) == H
    state, _ = apply(state, PassBid(faction=H))
    assert bidder(state) == A


def test_each_later_card_is_opened_by_the_next_faction_after_the_last_opener():
    state, _ = game()
    state, _ = apply_all(state, Bid(faction=A, amount=1), *passes(E, F, H))
    assert state.bidding.card_number == 2 and bidder(state) == E
    state, _ = apply_all(state, Bid(faction=E, amount=1), *passes(F, H, A))
    assert state.bidding.card_number == 3 and bidder(state) == F


def test_the_next_opener_skips_a_faction_whose_hand_became_full():
    """A faction whose hand is full can neither open nor bid: E fill their hand with card 1."""
    state, _ = game(hands={E: 3})
    state, _ = apply_all(state, PassBid(faction=A), Bid(faction=E, amount=1), *passes(F, H))
    assert len(state.faction(E).hand) == 4
    assert E not in state.bidding.bidders and bidder(state) == F  # A opened card 1, so E would open card 2
    state, _ = apply(state, Bid(faction=F, amount=1))
    assert bidder(state) == H


def test_the_bt_bid_last():
    """R-1: the BT have no dot and come after everyone in the bidding rotation."""
    state, _ = game((A, E, F, H, BT), hands={BT: 3}, bt_traps=False, bt_give_cards=False)  # no BT window
    assert state.bidding.order == [A, E, F, H, BT]
    state, _ = apply_all(state, Bid(faction=A, amount=1), *passes(E, F, H))
    assert bidder(state) == BT


def test_r_1_the_bt_bid_last_in_every_round_whoever_opens():
    """R-1: a round opened in the middle of the storm order still ends with the BT, not with them mid-way."""
    from engine.phases.bidding import bidding_round

    order = [A, E, F, H, BT]
    assert bidding_round(order, F, order) == [F, H, A, E, BT]
    assert bidding_round(order, BT, order) == [BT, A, E, F, H]
    assert bidding_round(order, H, [A, H, BT]) == [H, A, BT]


# --- what may be bid ----------------------------------------------------------------------------


def test_the_opening_bid_is_at_least_one():
    with pytest.raises(ValidationError):
        Bid(faction=A, amount=0)


def test_a_bid_must_beat_the_high_bid():
    """1979 rules: Bidding: a bid must beat the high bid."""
    state, _ = game()
    state, _ = apply(state, Bid(faction=A, amount=3))
    refusal = refused(state, Bid(faction=E, amount=3))
    assert refusal.code == ViolationCode.ILLEGAL_CHOICE and refusal.rule == RULE and "at least 4" in refusal.message
    state, _ = apply(state, Bid(faction=E, amount=4))
    assert state.bidding.high_bid == 4 and state.bidding.high_bidder == E


def test_nobody_may_bid_more_spice_than_they_have():
    state, _ = game(spice={A: 4})
    refusal = refused(state, Bid(faction=A, amount=5))
    assert refusal.code == ViolationCode.NOT_ALLOWED and refusal.rule == RULE
    state, _ = apply(state, Bid(faction=A, amount=4))
    assert state.bidding.high_bid == 4


def test_a_16_a_standing_high_bidder_may_not_bribe_away_the_spice_it_bid():
    """A bribe (or an ally's gift) that would leave the high bid unpaid is refused: else the sale would tell the
    table how little spice was left behind the shield (found by the non-interference check)."""
    state, _ = game(spice={A: 6})
    state, _ = apply(state, Bid(faction=A, amount=4))
    refusal = refused(state, GiveBribe(faction=A, to=H, amount=3), rule="A-16")
    assert "would leave your bid of 4 unpaid: you may give up to 2" in refusal.message
    state, _ = apply(state, GiveBribe(faction=A, to=H, amount=2))  # the spare spice may go
    assert state.faction(A).spice == 4


def test_bidding_out_of_turn_is_refused():
    state, _ = game()
    refusal = refused(state, Bid(faction=E, amount=1), RULE, ViolationCode.WRONG_PHASE)
    assert "turn of the Atreides" in refusal.message
    refused(state, PassBid(faction=F), RULE, ViolationCode.WRONG_PHASE)


def test_a_full_hand_cannot_bid_and_is_never_asked():
    state, _ = game(hands={E: 4})
    refusal = refused(state, Bid(faction=E, amount=1))
    assert refusal.code == ViolationCode.NOT_ALLOWED and refusal.rule == RULE and "full" in refusal.message
    state, _ = apply(state, Bid(faction=A, amount=1))
    assert bidder(state) == F


def test_bidding_outside_the_bidding_round_is_refused():
    state = ready_game(FOUR, fixed=FixedSetup(dots={f: DOTS[f] for f in FOUR}))  # waits on the storm dial
    assert state.phase == Phase.STORM
    refused(state, Bid(faction=A, amount=1), RULE, ViolationCode.WRONG_PHASE)


def test_the_bid_prompt_is_public_and_offers_pass_with_the_bid_range():
    state, _ = game(spice={E: 6})
    state, _ = apply(state, Bid(faction=A, amount=2))
    prompt = prompt_of(state, E, PromptKind.BID)
    assert not prompt.secret and prompt.options == ["pass"]
    assert prompt.detail["min_bid"] == 3 and prompt.detail["max_bid"] == 6
    assert prompt.detail["high_bid"] == 2 and prompt.detail["high_bidder"] == A.value


# --- passing (A-6) --------------------------------------------------------------------------------


def test_a_pass_is_final_on_that_card():
    """A-6 `pass_is_final` (default): A passed, so A is skipped when the bidding comes round again."""
    state, _ = game()
    state, _ = apply_all(state, PassBid(faction=A), Bid(faction=E, amount=1), PassBid(faction=F),
                         Bid(faction=H, amount=2))
    assert bidder(state) == E
    state, events = apply(state, PassBid(faction=E))
    assert state.faction(H).hand[-2] == AUCTION[0]  # H bought card 1 (and drew a free extra card)
    assert any(e.type == "card_sold" and e.data["faction"] == H.value for e in events)


def test_without_pass_is_final_a_passer_may_bid_again():
    state, _ = game(pass_is_final=False)
    state, _ = apply_all(state, PassBid(faction=A), Bid(faction=E, amount=1), *passes(F, H))
    assert bidder(state) == A
    state, _ = apply(state, Bid(faction=A, amount=2))
    assert bidder(state) == E


def test_if_everyone_passes_the_cards_go_back_on_top_in_order_and_bidding_ends():
    """A-5: the unsold card and all after it return to the top of the deck; the turn's bidding is over."""
    state, _ = game()
    state, events = apply_all(state, *passes(A, E, F, H))
    assert state.treachery_deck[:6] == [*AUCTION, *NEXT]
    assert state.bidding is None and state.phase == Phase.MOVEMENT
    assert any(e.type == "auction_returned" and e.public for e in events)
    assert violations(state) == []


def test_everyone_passing_on_a_later_card_returns_only_the_unsold_cards():
    state, _ = game()
    state, _ = apply_all(state, Bid(faction=A, amount=1), *passes(E, F, H), *passes(E, F, H, A))
    assert state.faction(A).hand == [START[0], AUCTION[0]]
    assert state.treachery_deck[:5] == [*AUCTION[1:], *NEXT]
    assert state.phase == Phase.MOVEMENT


def test_all_cards_sold_ends_bidding():
    state, _ = game()
    # Card 4 is opened by H (the next after F, who opened card 3).
    state, _ = apply_all(
        state,
        Bid(faction=A, amount=1), *passes(E, F, H),
        Bid(faction=E, amount=1), *passes(F, H, A),
        Bid(faction=F, amount=1), *passes(H, A, E),
    )
    assert bidder(state) == H
    state, events = apply_all(state, Bid(faction=H, amount=1), *passes(A, E, F))
    assert state.bidding is None and state.phase == Phase.MOVEMENT
    assert any(e.type == "bidding_over" for e in events)
    assert violations(state) == []


# --- payment (1979 rules: Bidding, A-14) ----------------------------------------------------------


def test_the_buyer_pays_the_emperor():
    """1979 rules: Bidding: the Emperor is paid for each card others buy."""
    state, _ = game()
    ledger = state.spice_outside_bank
    state, events = apply_all(state, Bid(faction=A, amount=3), *passes(E, F, H))
    assert state.faction(A).spice == 7 and state.faction(E).spice == 13
    assert state.spice_outside_bank == ledger == total_spice_outside_bank(state)
    sold = next(e for e in events if e.type == "card_sold")
    assert sold.data == {"faction": A.value, "card_number": 1, "price": 3, "paid_to": E.value}


def test_the_emperor_buying_pays_the_bank():
    state, _ = game(hands={A: 4})
    ledger = state.spice_outside_bank
    state, _ = apply_all(state, Bid(faction=E, amount=3), *passes(F, H))
    assert state.faction(E).spice == 7
    assert state.spice_outside_bank == ledger - 3 == total_spice_outside_bank(state)


def test_without_the_emperor_the_bank_is_paid():
    state, _ = game((A, F, H), start=("crysknife", "slip_tip", "stunner", "chaumas"))
    ledger = state.spice_outside_bank
    state, events = apply_all(state, Bid(faction=A, amount=2), *passes(F, H))
    assert state.faction(A).spice == 8
    assert state.spice_outside_bank == ledger - 2 == total_spice_outside_bank(state)
    assert next(e for e in events if e.type == "card_sold").data["paid_to"] == "bank"


def test_karama_sends_the_card_payment_to_the_bank():
    """A-14: a readied Karama cancels the Emperor's receiving of payment once; it goes to the bank."""
    state, _ = game(start=("karama_1", *START[1:]), karama=[(A, "karama_1", Advantage.CARD_PAYMENTS, E)])
    ledger = state.spice_outside_bank
    state, events = apply_all(state, PassBid(faction=A),
                              Bid(faction=E, amount=1), Bid(faction=F, amount=2), *passes(H, E))
    assert state.faction(F).spice == 1 and state.faction(E).spice == 10
    assert state.spice_outside_bank == ledger - 2 == total_spice_outside_bank(state)
    assert "karama_1" not in state.faction(A).hand and "karama_1" in state.treachery_discard
    assert any(e.type == "karama_played" for e in events)
    state, _ = apply_all(state, Bid(faction=E, amount=1), *passes(F, H, A))  # E buy: bank anyway
    state, _ = apply_all(state, Bid(faction=F, amount=1), *passes(H, A, E))  # the Karama is spent
    assert state.faction(E).spice == 10 and state.faction(F).spice == 0


# --- the cards: who sees what (1979 rules: Bidding; A-14) -----------------------------------------


def test_the_buyer_alone_learns_the_card():
    state, _ = game()
    state, events = apply_all(state, Bid(faction=A, amount=2),
                              *passes(E, F, H))
    card = AUCTION[0]
    assert state.faction(A).hand[-1] == card
    assert card in view(state, A).own.hand
    table = view(state, None).model_dump_json()
    assert card not in table
    assert card not in public_text(events) and DATA.card(card).name not in public_text(events)
    private = [e for e in events if e.type == "card_bought"]
    assert len(private) == 1 and private[0].audience == (A,) and DATA.card(card).name in private[0].message
    for viewer in (E, F, H):
        assert card not in view(state, viewer).model_dump_json()


def test_atreides_see_each_card_before_bidding_on_it():
    state, events = game(hands={A: 4})
    seen = [e for e in events if e.type == "auction_card_seen"]
    assert len(seen) == 1 and seen[0].audience == (A,) and DATA.card(AUCTION[0]).name in seen[0].message
    assert DATA.card(AUCTION[0]).name not in public_text(events)
    state, events = apply_all(state, Bid(faction=E, amount=1), *passes(F, H))
    seen = [e for e in events if e.type == "auction_card_seen"]
    assert len(seen) == 1 and seen[0].audience == (A,) and seen[0].data["card"] == AUCTION[1]


def test_karama_stops_the_atreides_look_at_one_card():
    """A-14: Karama against `see_auction_cards` cancels the look at the next card only."""
    state, events = game(start=(START[0], "karama_1", *START[2:]),
                         karama=[(E, "karama_1", Advantage.SEE_AUCTION_CARDS, A)])
    assert not [e for e in events if e.type == "auction_card_seen"]
    assert any(e.type == "karama_played" and e.public for e in events)
    state, events = apply_all(state, Bid(faction=A, amount=1), *passes(E, F, H))
    assert [e.data["card"] for e in events if e.type == "auction_card_seen"] == [AUCTION[1]]


def test_harkonnen_draw_a_free_extra_card_with_each_card_bought():
    state, _ = game()
    state, events = apply_all(state, PassBid(faction=A), PassBid(faction=E), PassBid(faction=F),
                              Bid(faction=H, amount=1))
    assert state.faction(H).hand == [*START[3:5], AUCTION[0], NEXT[0]]
    extra = [e for e in events if e.type == "extra_card_drawn"]
    assert [e.audience for e in extra] == [(H,), None]
    assert DATA.card(NEXT[0]).name in extra[0].message
    assert DATA.card(NEXT[0]).name not in public_text(events) and NEXT[0] not in public_text(events)
    assert violations(state) == []


def test_harkonnen_draw_no_extra_card_at_their_limit():
    """The extra card only while under 8: a seventh card bought brings them to 8, and no more."""
    state, _ = game(hands={H: 7})
    state, events = apply_all(state, *passes(A, E, F), Bid(faction=H, amount=1))
    assert len(state.faction(H).hand) == 8
    assert not [e for e in events if e.type == "extra_card_drawn"]


def test_karama_stops_the_harkonnen_extra_card():
    state, _ = game(start=("karama_1", *START[1:]), karama=[(A, "karama_1", Advantage.EXTRA_CARD, H)])
    state, events = apply_all(state, *passes(A, E, F), Bid(faction=H, amount=1))
    assert state.faction(H).hand == [*START[3:5], AUCTION[0]]
    assert any(e.type == "karama_played" for e in events)
    assert state.treachery_deck[0] == NEXT[0]


# --- CHOAM charity (A-3) -------------------------------------------------------------------------


def test_choam_charity_brings_poor_factions_up_to_two():
    """A-3: with CHOAM charity on, a faction with 0 or 1 spice is brought up to 2 at the start of bidding."""
    state, events = game(spice={A: 0, F: 1, H: 2}, choam_charity=True)
    assert (state.faction(A).spice, state.faction(F).spice, state.faction(H).spice) == (2, 2, 2)
    charity = {e.data["faction"]: e.data["amount"] for e in events if e.type == "choam_charity"}
    assert charity == {A.value: 2, F.value: 1}
    assert total_spice_outside_bank(state) == state.spice_outside_bank


def test_no_charity_when_the_option_is_off():
    """A-3: CHOAM charity is an option, off by default."""
    state, events = game(spice={A: 0, F: 1})
    assert (state.faction(A).spice, state.faction(F).spice) == (0, 1)
    assert not [e for e in events if e.type == "choam_charity"]


# --- standing orders (A-6) -----------------------------------------------------------------------


def test_a_standing_auto_pass_answers_without_a_prompt():
    state, _ = game()
    state, events = apply(state, SetBidOrder(faction=E, auto_pass=True))
    assert [e.audience for e in events] == [(E,)]
    state, events = apply(state, Bid(faction=A, amount=1))
    passed = [e for e in events if e.type == "bid_passed"]
    assert passed[0].public and passed[0].data["faction"] == E.value
    assert bidder(state) == F


def test_a_standing_order_is_secret():
    """The order's event is private; the table's view does not change."""
    state, _ = game()
    after, events = apply(state, SetBidOrder(faction=E, max_bid=5))
    assert all(e.audience == (E,) for e in events)
    assert view(after, None).model_dump() == view(state, None).model_dump()


def test_a_standing_max_bid_outbids_by_one_up_to_its_limit():
    state, _ = game()
    state, _ = apply(state, SetBidOrder(faction=E, max_bid=3))
    state, events = apply(state, Bid(faction=A, amount=1))
    assert [e.data["amount"] for e in events if e.type == "bid_made"] == [1, 2]
    assert bidder(state) == F
    state, _ = apply_all(state, PassBid(faction=F), Bid(faction=H, amount=3), Bid(faction=A, amount=4))
    # E's limit is 3: E pass, then F already passed and H must answer A's 4.
    assert E in state.bidding.passed and bidder(state) == H


def test_a_standing_max_bid_never_exceeds_the_spice_in_hand():
    state, _ = game(spice={E: 2})
    state, _ = apply(state, SetBidOrder(faction=E, max_bid=10))
    state, events = apply(state, Bid(faction=A, amount=2))
    assert any(e.type == "bid_passed" and e.data["faction"] == E.value for e in events)


def test_setting_an_order_while_asked_answers_at_once():
    state, _ = game()
    state, events = apply(state, SetBidOrder(faction=A, max_bid=4))
    assert [e.data["amount"] for e in events if e.type == "bid_made"] == [1]
    assert bidder(state) == E


def test_clearing_an_order_brings_back_the_prompt():
    state, _ = game()
    state, _ = apply_all(state, SetBidOrder(faction=E, auto_pass=True), SetBidOrder(faction=E))
    assert state.faction(E).bid_order.auto_pass is False and state.faction(E).bid_order.max_bid is None
    state, _ = apply(state, Bid(faction=A, amount=1))
    assert bidder(state) == E


def test_an_order_cannot_both_pass_and_bid():
    state, _ = game()
    refusal = refused(state, SetBidOrder(faction=E, auto_pass=True, max_bid=3))
    assert refusal.rule == "A-6"


def test_orders_may_be_set_outside_bidding_and_persist_to_the_next_round():
    fixed = FixedSetup(treachery_deck=(*START, *AUCTION), dots={f: DOTS[f] for f in FOUR})
    state = ready_game(FOUR, fixed=fixed)
    assert state.phase == Phase.STORM  # waiting on the storm dial; the storm at 18 gives the same order
    state, _ = apply(state, SetBidOrder(faction=A, auto_pass=True))
    state, events = enter_phase(state, Phase.BIDDING)
    assert any(e.type == "bid_passed" and e.data["faction"] == A.value for e in events)
    assert bidder(state) == E and state.faction(A).bid_order.auto_pass


# --- allies pay (A-8) ------------------------------------------------------------------------------


def test_an_ally_may_pay_part_of_a_bid():
    state, _ = game(alliances=[(A, F)])
    state, _ = apply(state, PassBid(faction=A))
    state, _ = apply(state, PassBid(faction=E))
    refusal = refused(state, Bid(faction=F, amount=5))  # F have only 3
    assert refusal.rule == RULE
    state, events = apply_all(state, Bid(faction=F, amount=5, ally_pays=3), PassBid(faction=H))
    assert state.faction(F).spice == 1 and state.faction(A).spice == 7 and state.faction(E).spice == 15
    assert state.faction(F).hand[-1] == AUCTION[0]
    assert total_spice_outside_bank(state) == state.spice_outside_bank


def test_ally_payment_needs_an_ally_with_the_spice():
    state, _ = game(alliances=[(A, F)], spice={F: 3, A: 2})
    state, _ = apply_all(state, *passes(A, E))
    assert refused(state, Bid(faction=F, amount=6, ally_pays=3)).rule == "A-8"  # A have only 2
    assert refused(state, Bid(faction=F, amount=2, ally_pays=3)).rule == "A-8"  # more than the bid
    assert refused(state, Bid(faction=F, amount=3, ally_pays=1, ally=H)).rule == "A-8"  # not an ally
    state, _ = game(spice={F: 3})
    state, _ = apply_all(state, *passes(A, E))
    assert refused(state, Bid(faction=F, amount=4, ally_pays=1)).rule == "A-8"  # no ally at all


# --- defaults, samples and whole rounds ---------------------------------------------------------


def test_the_default_is_a_pass_and_an_admin_may_force_it():
    state, _ = game()
    prompt = prompt_of(state, A, PromptKind.BID)
    assert DEFAULTS[PromptKind.BID](state, prompt) == PassBid(faction=A)
    state, events = apply(state, ForceDefault(admin="mod", reason="asleep", prompt_id=prompt.id))
    assert A in state.bidding.passed and bidder(state) == E


def test_samples_are_passes_or_bids_in_range():
    state, _ = game()
    state, _ = apply(state, Bid(faction=A, amount=2))
    prompt = prompt_of(state, E, PromptKind.BID)
    rng = Rng.from_seed(4)
    samples = [SAMPLERS[PromptKind.BID](state, prompt, rng) for _ in range(60)]
    bids = [s.amount for s in samples if isinstance(s, Bid)]
    assert bids and all(3 <= b <= state.faction(E).spice for b in bids)
    assert len(bids) < len(samples) / 2  # mostly passes, so games move on


@pytest.mark.parametrize("seed", range(6))
def test_automatic_players_finish_the_round_with_every_card_accounted_for(seed):
    state, _ = game((A, E, F, H, G, BG, BT), start=(), choam_charity=seed % 2 == 0, pass_is_final=seed < 3)
    rng = Rng.from_seed(seed)
    while state.phase == Phase.BIDDING:
        _, (state, _) = play_prompt(state, rng.choice(state.prompts), rng)
        assert violations(state) == []
    assert state.bidding is None
    assert all(len(fs.hand) <= DATA.factions[f].hand_limit for f, fs in state.factions.items())


def test_only_the_atreides_and_the_buyer_can_tell_which_card_was_sold():
    """Twin games differing only in card 1: the table and the other factions see exactly the same."""
    seen = []
    for first in (AUCTION[0], "gom_jabbar"):
        state, events = game(auction=(first, *AUCTION[1:]))
        state, more = apply_all(state, PassBid(faction=A), Bid(faction=E, amount=2), *passes(F, H))
        events += more
        seen.append({viewer: (view(state, viewer).model_dump(mode="json"),
                              [e.model_dump(mode="json") for e in visible_events(events, viewer)])
                     for viewer in (None, A, E, F, H)})
    for viewer in (None, F, H):
        assert seen[0][viewer] == seen[1][viewer], f"{viewer} can tell which card was sold"
    assert seen[0][A] != seen[1][A] and seen[0][E] != seen[1][E]


def test_restarting_bidding_puts_an_unfinished_auctions_cards_back_first():
    """An admin jump back to the start of bidding loses no card: the unsold ones return to the deck top."""
    state, _ = game()
    state, _ = apply_all(state, Bid(faction=A, amount=1), *passes(E, F, H))
    state, _ = enter_phase(state, Phase.BIDDING)
    assert state.bidding.cards == [*AUCTION[1:], NEXT[0]]  # A now hold 2 cards; all four still bid
    assert violations(state) == []


def test_a_29_the_emperors_share_of_an_allys_winning_bid_goes_to_the_bank_only_the_rest_to_him():
    """A-29 (A-8 with the Emperor as the paying ally): the Fremen win a card with a bid of 4, the Emperor paying 2
    of it. The Emperor's own 2 go to the bank, the Fremen's 2 to the Emperor; the table reads both."""
    state, _ = game(alliances=[(E, F)])
    ledger = state.spice_outside_bank
    state, events = apply_all(state, PassBid(faction=A), PassBid(faction=E), Bid(faction=F, amount=4, ally_pays=2),
                              PassBid(faction=H))
    assert state.faction(F).spice == 1 and state.faction(E).spice == 10  # 10 - 2 paid + 2 received
    assert state.spice_outside_bank == ledger - 2 == total_spice_outside_bank(state)
    sold = next(e for e in events if e.type == "card_sold")
    assert sold.public and sold.message == ("The Fremen buy card 1 of 4 for 4 spice, paid to the Emperor, but for the "
                                            "Emperor's own 2, paid to the bank (A-29).")


def test_the_emperor_buying_with_an_allys_help_pays_the_bank_in_full():
    state, _ = game(alliances=[(E, F)], hands={A: 4})
    ledger = state.spice_outside_bank
    state, _ = apply_all(state, Bid(faction=E, amount=5, ally_pays=3), *passes(F, H))
    assert state.faction(E).spice == 8 and state.faction(F).spice == 0
    assert state.spice_outside_bank == ledger - 5 == total_spice_outside_bank(state)


def test_a_buyer_whose_spice_left_since_the_bid_pays_what_is_left():
    """Spice can leave a shield between a bid and the sale (here an admin correction): no spice is created."""
    state, _ = game()
    emperor = state.faction(E).spice
    state, _ = apply_all(state, Bid(faction=A, amount=5), SetSpice(admin="mod", reason="fix", faction=A, amount=2))
    state, events = apply_all(state, *passes(E, F, H))
    assert state.faction(A).spice == 0 and state.faction(A).hand[-1] == AUCTION[0]
    assert state.faction(E).spice == emperor + 2
    sold = next(e for e in events if e.type == "card_sold")
    assert sold.data == {"faction": A.value, "card_number": 1, "price": 5, "paid_to": E.value, "short": True}


def taxed_after_their_bid(held: int):
    """The BT bid 12 for card 1, then the Atreides' Karama taxes them (BT-51: 10, or all they have), then the
    Atreides pass: the card is sold to the BT."""
    state, _ = game((A, E, F, H, BT), spice={BT: held}, hands={BT: 3}, bt_traps=False, bt_give_cards=False)
    state.faction(A).hand.append("karama_2")
    return apply_all(state, Bid(faction=A, amount=1), *passes(E, F, H), Bid(faction=BT, amount=12),
                     KaramaTaxBt(faction=A, card="karama_2"), PassBid(faction=A))


def test_bt_51_a_buyer_taxed_below_its_bid_pays_all_it_has_and_the_table_is_not_told_how_much():
    """1979 rules (Bidding): nobody bids more spice than he has; but a Karama tax (BT-51) may take the BT's spice
    after their bid. At the sale they pay what they have left. The table reads that the bid was more than that, not
    how much it was (it is behind their shield: 15 or 12 spice before the tax, the table reads the same); the BT read
    what they paid; the Emperor's spice grows by it."""
    sales = {}
    for held in (15, 12):
        emperor = ready_game((A, E, F, H, BT)).faction(E).spice
        state, events = taxed_after_their_bid(held)
        assert state.faction(BT).spice == 0 and state.faction(E).spice == emperor + held - 10
        assert f"You paid {held - 10} spice of your bid of 12: all you had." in " ".join(
            e.message for e in events if e.type == "card_bought")
        sales[held] = [(e.message, e.data) for e in events if e.public and e.type == "card_sold"]
        assert not [v for v in LeakChecker().check(state, events, views=False) if "spice" in v]
    assert sales[15] == sales[12] == [(
        "The Bene Tleilaxu buy card 1 of 5, paid to the Emperor: their bid of 12 spice was more than they had left, "
        "and they pay what they have.", {"faction": BT.value, "card_number": 1, "price": 12, "paid_to": E.value,
                                     "short": True})]

"""The Bene Tleilaxu before the auction: R-21 (the count comes first), R-11 and BT-30 (traps in the bidding
round), BT-40 (giving cards), and BT-51 / R-27 (a Karama destroys an untriggered trap)."""

from __future__ import annotations

from engine.actions import KaramaDestroyTrap, PassBid, TrapsAndGifts
from engine.checks.invariants import violations
from engine.errors import ViolationCode
from engine.events import visible_events
from engine.factions import bt_bidding
from engine.flow import DEFAULTS, SAMPLERS
from engine.game import apply
from engine.ids import Faction
from engine.model import PromptKind, Trap
from engine.rng import Rng
from engine.secrecy.views import view
from tests.conftest import prompt_of, refused
from tests.helpers.positions.bt_bidding import BOARD, BT_HAND, FACTIONS, game

A, E, F, G, H, BT = (Faction.ATREIDES, Faction.EMPEROR, Faction.FREMEN, Faction.GUILD, Faction.HARKONNEN,
                     Faction.BENE_TLEILAXU)
WINDOW = PromptKind.BT_TRAPS_AND_GIFTS


def window(state):
    return prompt_of(state, BT, WINDOW)


def bid_prompts(state):
    return [p for p in state.prompts if p.kind == PromptKind.BID]


# --- the count first, then the BT's window, then the bidding ----------------------------------------------


def test_r_21_the_bt_window_opens_after_the_auction_is_dealt_and_before_any_bid():
    state, events = game()
    types = [e.type for e in events]
    assert "auction_dealt" in types and "card_up" not in types
    prompt = window(state)
    assert prompt.secret and not bid_prompts(state)
    assert state.bidding.dealt == 4 and len(state.bidding.cards) == 4  # A, E, F, H; the BT hand is full
    assert sorted(prompt.options) == sorted(BOARD.strongholds)  # the board is empty: every stronghold
    assert prompt.detail["hand"] == list(BT_HAND)
    assert prompt.detail["receivers"] == {A.value: 4, E.value: 4, F.value: 4, H.value: 8}
    state, events = apply(state, TrapsAndGifts(faction=BT))
    assert bid_prompts(state) and any(e.type == "card_up" for e in events)
    assert any(e.public and e.type == "decision_made" for e in events)


def test_r_21_the_auction_count_is_not_redone_after_gifts():
    """A holds 3 cards and is dealt a card for; the BT fill A's hand: 4 cards stay up and A may not bid."""
    state, _ = game(hands={A: ("stunner", "slip_tip", "chaumurky")})
    assert state.bidding.dealt == 4
    cards = list(state.bidding.cards)
    state, _ = apply(state, TrapsAndGifts(faction=BT, gifts={"kulon": A}))
    assert len(state.faction(A).hand) == 4
    assert state.bidding.dealt == 4 and state.bidding.cards == cards
    assert A not in state.bidding.bidders
    assert bid_prompts(state)[0].faction == E  # A would have opened card 1; the next eligible does
    assert violations(state) == []


def test_r_21_no_window_when_the_bt_hold_no_card_or_both_options_are_off():
    state, _ = game(hands={BT: ()})
    assert not state.prompts_for(BT) and bid_prompts(state)
    state, _ = game(bt_traps=False, bt_give_cards=False)
    assert not state.prompts_for(BT) and bid_prompts(state)


def test_r_21_the_window_opens_without_the_bt_only_when_they_are_in_the_game():
    state, _ = game(factions=(A, E, F, H))
    assert bid_prompts(state) and not any(p.kind == WINDOW for p in state.prompts)


# --- R-11 and BT-30: traps in the bidding round ----------------------------------------------------------------


def test_r_11_a_trap_on_a_stronghold_with_no_tokens():
    state, _ = game(tokens={A: {"Arrakeen": 3}})
    assert "Arrakeen" not in window(state).options and "Tuek's Sietch" in window(state).options
    state, events = apply(state, TrapsAndGifts(faction=BT, traps={"Tuek's Sietch": "crysknife"}))
    assert state.traps["Tuek's Sietch"] == Trap(card="crysknife")
    assert "crysknife" not in state.faction(BT).hand
    public = [e for e in events if e.public and e.type == "trap_laid"]
    assert len(public) == 1 and public[0].data == {"stronghold": "Tuek's Sietch"}
    assert "Crysknife" not in " ".join(e.message for e in events if e.public)
    private = next(e for e in events if e.type == "trap_laid_card")
    assert private.audience == (BT,) and "Crysknife" in private.message
    table = view(state, None)
    assert [(t.stronghold, t.triggered_by) for t in table.traps] == [("Tuek's Sietch", None)]
    assert view(state, BT).own.trap_cards == {"Tuek's Sietch": "crysknife"}
    assert bid_prompts(state) and violations(state) == []


def test_r_11_a_trap_on_an_occupied_stronghold_the_bt_do_not_control_is_refused():
    state, _ = game(tokens={A: {"Arrakeen": 3}})
    refusal = refused(state, TrapsAndGifts(faction=BT, traps={"Arrakeen": "crysknife"}))
    assert refusal.rule == "R-11" and refusal.code == ViolationCode.ILLEGAL_CHOICE
    assert "Atreides" in refusal.message and "Arrakeen" not in refusal.allowed


def test_r_11_a_trap_on_a_stronghold_the_bt_control(monkeypatch):
    """R-11 also allows a stronghold the BT control (engine/board.controller says so), tokens or not."""
    state, _ = game(tokens={H: {"Carthag": 2}})
    monkeypatch.setattr(bt_bidding, "controller", lambda s, t: BT if t == "Carthag" else None)
    state, _ = apply(state, TrapsAndGifts(faction=BT, traps={"Carthag": "kulon"}))
    assert state.traps["Carthag"].card == "kulon"


def test_bt_30_at_most_one_trap_per_stronghold():
    state, _ = game(traps={"Habbanya Sietch": "stunner"})
    assert "Habbanya Sietch" not in window(state).options
    refusal = refused(state, TrapsAndGifts(faction=BT, traps={"Habbanya Sietch": "crysknife"}))
    assert refusal.rule == "BT-30" and "trapped already" in refusal.message


def test_bt_30_a_trap_is_a_card_from_the_hand_on_a_stronghold():
    state, _ = game()
    refusal = refused(state, TrapsAndGifts(faction=BT, traps={"Tuek's Sietch": "lasgun"}))
    assert refusal.rule == "BT-30" and refusal.allowed == list(BT_HAND)
    refusal = refused(state, TrapsAndGifts(faction=BT, traps={"The Great Flat": "crysknife"}))
    assert refusal.rule == "BT-30" and "not one" in refusal.message
    refusal = refused(state, TrapsAndGifts(faction=BT, traps={"Tuek's Sietch": "kulon", "Carthag": "kulon"}))
    assert refusal.rule == "BT-30"


def test_bt_30_several_traps_at_once_and_no_trap_when_the_option_is_off():
    state, _ = game()
    laid, _ = apply(state, TrapsAndGifts(faction=BT, traps={"Tuek's Sietch": "kulon", "Carthag": "chaumas"}))
    assert set(laid.traps) == {"Tuek's Sietch", "Carthag"} and laid.faction(BT).hand == ["crysknife", "karama_1"]
    state, _ = game(bt_traps=False)
    assert window(state).options == []
    assert refused(state, TrapsAndGifts(faction=BT, traps={"Carthag": "kulon"})).rule == "BT-30"


def test_only_the_bt_answer_the_window():
    state, _ = game()
    refused(state, TrapsAndGifts(faction=A), "BT-30", ViolationCode.NOT_ALLOWED)


# --- BT-40: giving cards --------------------------------------------------------------------------------------


def test_bt_40_a_gift_within_the_hand_limit():
    state, _ = game(hands={E: ("stunner", "slip_tip")})
    state, events = apply(state, TrapsAndGifts(faction=BT, gifts={"kulon": E, "chaumas": E}))
    assert state.faction(E).hand == ["stunner", "slip_tip", "kulon", "chaumas"]
    assert state.faction(BT).hand == ["crysknife", "karama_1"]
    public = [e for e in events if e.public and e.type == "card_given"]
    assert [e.data for e in public] == [{"to": E.value}, {"to": E.value}]
    assert [e.message for e in public] == ["The Bene Tleilaxu give a Treachery card to the Emperor (BT-40)."] * 2
    private = [e for e in events if e.type == "card_given_card"]
    assert [e.audience for e in private] == [(BT, E), (BT, E)]
    assert private[0].message == ("The Bene Tleilaxu give the Emperor Kulon; only the two of you know which card it "
                                  "is (BT-40).")  # issue 25 item 12: the faction's name with its article
    assert violations(state) == []


def test_bt_40_the_harkonnen_may_receive_up_to_eight():
    state, _ = game(hands={H: ("stunner", "slip_tip", "chaumurky", "gom_jabbar")})
    state, _ = apply(state, TrapsAndGifts(faction=BT, gifts={c: H for c in BT_HAND}))
    assert len(state.faction(H).hand) == 8


def test_bt_40_a_gift_above_the_hand_limit_is_refused():
    state, _ = game(hands={A: ("stunner", "slip_tip", "chaumurky")})
    refusal = refused(state, TrapsAndGifts(faction=BT, gifts={"kulon": A, "chaumas": A}))
    assert refusal.rule == "BT-40" and refusal.code == ViolationCode.NOT_ALLOWED
    assert "at most 1" in refusal.message


def test_bt_40_gifts_go_from_the_hand_to_another_player():
    state, _ = game()
    assert refused(state, TrapsAndGifts(faction=BT, gifts={"lasgun": A})).rule == "BT-40"
    assert refused(state, TrapsAndGifts(faction=BT, gifts={"kulon": BT})).rule == "BT-40"
    assert refused(state, TrapsAndGifts(faction=BT, gifts={"kulon": G})).rule == "BT-40"  # not in this game
    both = TrapsAndGifts(faction=BT, traps={"Carthag": "kulon"}, gifts={"kulon": A})
    assert refused(state, both).rule == "BT-40"


def test_bt_40_no_gifts_when_the_option_is_off():
    state, _ = game(bt_give_cards=False)
    assert window(state).detail["receivers"] == {}
    assert refused(state, TrapsAndGifts(faction=BT, gifts={"kulon": A})).rule == "BT-40"


def test_bt_40_only_giver_and_receiver_know_which_card():
    """Twin games differing only in the card given to the Emperor: everyone else sees exactly the same."""
    seen = []
    for card in ("kulon", "crysknife"):
        state, events = game()
        state, more = apply(state, TrapsAndGifts(faction=BT, gifts={card: E}))
        state, more2 = apply(state, PassBid(faction=A))
        events = events + more + more2
        seen.append({viewer: (view(state, viewer).model_dump(mode="json"),
                              [e.model_dump(mode="json") for e in visible_events(events, viewer)])
                     for viewer in (None, *FACTIONS)})
    for viewer in (None, A, F, H):
        assert seen[0][viewer] == seen[1][viewer], f"{viewer} can tell which card was given"
    assert seen[0][E] != seen[1][E] and seen[0][BT] != seen[1][BT]


# --- default and samples ---------------------------------------------------------------------------------------


def test_the_default_lays_and_gives_nothing_and_the_samples_are_legal():
    state, _ = game(tokens={A: {"Arrakeen": 1}}, hands={A: ("stunner", "slip_tip", "chaumurky", "gom_jabbar")})
    prompt = window(state)
    default = DEFAULTS[WINDOW](state, prompt)
    assert default == TrapsAndGifts(faction=BT)
    rng = Rng.from_seed(3)
    samples = [SAMPLERS[WINDOW](state, prompt, rng) for _ in range(40)]
    assert any(s.traps for s in samples) and any(s.gifts for s in samples)
    for sample in samples:
        after, _ = apply(state, sample)  # never refused
        assert violations(after) == []
        assert "Arrakeen" not in sample.traps and A not in sample.gifts.values()


# --- BT-51, R-27: a Karama destroys an untriggered trap --------------------------------------------------------


def test_bt_51_a_karama_destroys_an_untriggered_trap_which_is_shown_and_discarded():
    state, _ = game(hands={A: ("karama_2",)}, traps={"Carthag": "lasgun"})
    state, events = apply(state, KaramaDestroyTrap(faction=A, card="karama_2", stronghold="Carthag"))
    assert "Carthag" not in state.traps
    assert state.treachery_discard[-2:] == ["karama_2", "lasgun"]
    assert state.faction(A).hand == []
    event = next(e for e in events if e.type == "karama_vs_bt")
    assert event.public and "Lasgun" in event.message and event.data["trap_card"] == "lasgun"
    assert violations(state) == []


def test_bt_51_a_triggered_trap_cannot_be_destroyed():
    state, _ = game(hands={A: ("karama_2",)}, traps={"Carthag": "lasgun"})
    state.traps["Carthag"].triggered_by, state.traps["Carthag"].triggered_turn = H, 1
    refusal = refused(state, KaramaDestroyTrap(faction=A, card="karama_2", stronghold="Carthag"))
    assert refusal.rule == "BT-51" and "sprung" in refusal.message
    refusal = refused(state, KaramaDestroyTrap(faction=A, card="karama_2", stronghold="Arrakeen"))
    assert refusal.rule == "BT-51" and refusal.allowed == []


def test_bt_51_the_card_must_be_a_held_karama_and_the_bt_cannot_use_it_on_themselves():
    state, _ = game(hands={A: ("karama_2", "stunner")}, traps={"Carthag": "lasgun"})
    assert refused(state, KaramaDestroyTrap(faction=A, card="stunner", stronghold="Carthag")).allowed == ["karama_2"]
    assert refused(state, KaramaDestroyTrap(faction=E, card="karama_2", stronghold="Carthag")).rule == "BT-51"
    assert refused(state, KaramaDestroyTrap(faction=BT, card="karama_1", stronghold="Carthag")).rule == "R-27"


def test_bt_51_no_trap_to_destroy_without_the_traps_option():
    state, _ = game(hands={A: ("karama_2",)}, bt_traps=False)
    assert refused(state, KaramaDestroyTrap(faction=A, card="karama_2", stronghold="Carthag")).rule == "BT-51"

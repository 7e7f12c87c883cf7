"""One grammar for a faction in a sentence (issue 25 item 12: "Emperor buy card 1", "the Emperor are led by Caid",
"the Atreides's 3 tokens"): "the" and the name, the verb agreeing (engine/names.py faction_does): the Emperor and
the Spacing Guild are one person or body, the others peoples."""

from __future__ import annotations

import pytest

from bot.app.decision_cards import build_card
from engine.actions import Bid, GuildTiming, MarkBtTraitor
from engine.checks.autoplay import play_until_stuck
from engine.ids import Faction
from engine.model import Phase, Prompt, PromptKind
from engine.names import faction_does, faction_name, faction_possessive, factions_list
from engine.rng import Rng
from engine.secrecy.views import view
from tests.conftest import BT, A, E, F, G, H, apply_all, enter_phase, prompt_of, ready_game, refused, start
from tests.helpers.positions.battle import FLAT, arena, put
from tests.helpers.positions.bidding import game as bidding_game
from tests.helpers.positions.bidding import passes
from tests.helpers.positions.bt_traitors import position


@pytest.mark.parametrize(("faction", "buy", "are", "possessive"), [
    (Faction.EMPEROR, "The Emperor buys", "the Emperor is", "the Emperor's"),
    (Faction.GUILD, "The Spacing Guild buys", "the Spacing Guild is", "the Spacing Guild's"),
    (Faction.ATREIDES, "The Atreides buy", "the Atreides are", "the Atreides'"),
    (Faction.HARKONNEN, "The Harkonnen buy", "the Harkonnen are", "the Harkonnen's"),
    (Faction.BENE_TLEILAXU, "The Bene Tleilaxu buy", "the Bene Tleilaxu are", "the Bene Tleilaxu's"),
])
def test_each_faction_agrees_with_its_verb(faction, buy, are, possessive):
    assert faction_does(faction, "buy", start=True) == buy
    assert faction_does(faction, "are") == are
    assert faction_possessive(faction) == possessive
    assert faction_does(faction, "may").endswith(" may") and faction_does(faction, "passed").endswith(" passed")


def test_factions_named_together_each_take_the_article():
    assert factions_list([H, E]) == "the Harkonnen and the Emperor"
    assert factions_list([A, F, G]) == "the Atreides, the Fremen and the Spacing Guild"


def test_a_13_the_traitor_call_card_says_the_emperor_is_led_by():
    state = position((A, E, H, BT))
    prompt = Prompt(id="p1", kind=PromptKind.TRAITOR_CALL, faction=H, secret=False, options=["no"],
                    detail={"opponent": E.value, "leader": "caid", "territory": "Arrakeen",
                            "kwisatz_haderach": False, "ally": None}, opened_at=0)
    facts = build_card(view(state, H), prompt, None, None).facts
    assert facts[0] == "The plans in Arrakeen are revealed: the Emperor is led by Caid (strength 3)."


def test_a_13_calling_a_traitor_says_the_emperor_loses_every_token_there():
    state = position((A, E, H, BT))
    prompt = Prompt(id="p1", kind=PromptKind.TRAITOR_CALL, faction=H, secret=False, options=["call", "no"],
                    detail={"opponent": E.value, "leader": "caid", "territory": "Arrakeen",
                            "kwisatz_haderach": False, "ally": None}, opened_at=0)
    facts = build_card(view(state, H), prompt, None, None).facts
    assert ("You hold his traitor card. Calling him wins the battle outright: your side loses nothing, he dies, the "
            "Emperor loses every token there and the cards played with him") in facts[1]


def test_a_26_the_prescience_card_says_the_emperor_holds_their_cards():
    state = arena((E, H, A))
    put(state, A, FLAT, 5)
    put(state, E, FLAT, 5)
    state, _ = enter_phase(state, Phase.BATTLE)
    prompt = prompt_of(state, A, PromptKind.PRESCIENCE)
    assert prompt.detail["target"] == E.value
    facts = build_card(view(state, A), prompt, None, None).facts
    assert "The Emperor holds 0 cards." in facts
    assert facts[0].startswith("The battle in The Great Flat: the Emperor (the aggressor, who wins ties) against the "
                               "Atreides")  # was "who win ties"


# --- what the table and a refused player read (issue 25 item 12) ------------------------------------------------


def test_a_8_a_bid_paid_by_a_faction_that_is_no_ally_is_refused_in_the_one_grammar():
    """Was "Emperor are not your ally. Allowed: atreides." (a plural verb, and an id)."""
    state, _ = bidding_game(alliances=[(A, F)])
    state, _ = apply_all(state, *passes(A, E))
    refusal = refused(state, Bid(faction=F, amount=3, ally_pays=1, ally=E), "A-8")
    assert str(refusal) == "[A-8] The Emperor is not your ally. Allowed: Atreides."


def test_1979_setup_the_starting_tokens_are_told_in_the_one_grammar():
    """Was "Atreides start with 10 in Arrakeen." and "Fremen start with ..."."""
    _, _, events = play_until_stuck(start((A, E, H, G)), Rng.from_seed(5), while_=lambda s: s.phase == Phase.SETUP)
    placed = [e.message for e in events if e.type == "starting_tokens_placed"]
    assert "The Atreides start with 10 in Arrakeen." in placed
    assert "The Spacing Guild starts with 5 in Tuek's Sietch." in placed


def test_an_owned_decision_asked_of_another_faction_is_refused_in_the_one_grammar():
    """Was "Only the Spacing Guild choose when to take their shipment-and-movement turn."."""
    state = ready_game((A, E, H, G, BT))
    assert str(refused(state, GuildTiming(faction=A, now=True))) == (
        "[A-15] Only the Spacing Guild chooses when to take its shipment-and-movement turn.")
    assert str(refused(state, MarkBtTraitor(faction=A, leader=None))) == (
        "[BT-20] Only the Bene Tleilaxu mark revived leaders as traitors.")


def test_the_table_report_names_what_it_waits_for_in_words_and_keeps_a_secret_decision_secret():
    """Issue 25 item 12: `python -m engine`'s report says "Waiting for: the Atreides (a secret decision)", not the
    decision's code name; a public decision is named as the table reads it."""
    from engine.secrecy.report import table_report

    picks = start((A, F, BT), seed=5)
    report = table_report(view(picks, None), [])
    assert "traitor_pick" not in report and "traitor pick" not in report
    assert "Waiting for: Atreides (a secret decision), Fremen (a secret decision)" in report
    bidding = bidding_game()[0]
    waited = table_report(view(bidding, None), [])
    bidder = bidding.prompts[0].faction
    assert f"Waiting for: {faction_name(bidder)} (a bid)." in waited

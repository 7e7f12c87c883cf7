"""How the words players read refer to a leader (issue 25 item 12): each leader's pronoun comes from
data/factions.json, checked on load, and a sentence about one named leader uses it; a sentence about a leader not
yet named ("keep one as your traitor") names no pronoun."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from bot.app.decision_cards import build_card
from engine.data import FactionData, load_game_data
from engine.model import Prompt, PromptKind
from engine.secrecy.views import view
from tests.conftest import BT, A, E, F, H
from tests.helpers.positions.bt_traitors import position

WOMEN = {"lady_jessica", "alia", "margot_lady_fenring", "mother_ramallo", "princess_irulan", "wanna_yueh", "chani",
         "shadout_mapes"}


def card_facts(state, faction, kind, options, **detail):
    prompt = Prompt(id="p1", kind=kind, faction=faction, secret=False, options=options, detail=detail, opened_at=0)
    return build_card(view(state, faction), prompt, None, None).facts


def test_every_leader_has_a_pronoun_and_the_eight_women_are_she():
    leaders = [leader for faction in load_game_data().factions.values() for leader in faction.leaders]
    assert {leader.id for leader in leaders if leader.pronoun == "she"} == WOMEN
    assert all(leader.pronoun == "he" for leader in leaders if leader.id not in WOMEN)


def test_a_leader_without_a_known_pronoun_is_refused_on_load():
    atreides = next(f for f in json.loads(load_game_data().model_dump_json())["factions"].values()
                    if f["id"] == "atreides")
    atreides["leaders"][0]["pronoun"] = "it"
    with pytest.raises(ValidationError, match="pronoun"):
        FactionData.model_validate(atreides)


@pytest.mark.parametrize(("leader", "words"), [
    ("chani", "You hold her traitor card. Calling her wins the battle outright: your side loses nothing, she dies"),
    ("stilgar", "You hold his traitor card. Calling him wins the battle outright: your side loses nothing, he dies"),
])
def test_a_13_the_traitor_call_refers_to_the_leader_as_she_or_he(leader, words):
    state = position((A, E, F, H, BT))
    facts = card_facts(state, H, PromptKind.TRAITOR_CALL, ["call", "no"], opponent=F.value, leader=leader,
                       territory="Arrakeen", kwisatz_haderach=False, ally=None)
    assert any(fact.startswith(words) for fact in facts)
    whose = "her" if leader == "chani" else "his"
    assert any(f"you receive {whose} strength in spice (A-13)" in fact for fact in facts)
    no_call = card_facts(state, H, PromptKind.TRAITOR_CALL, ["no"], opponent=F.value, leader=leader,
                         territory="Arrakeen", kwisatz_haderach=False, ally=None)
    assert any(fact.startswith("You hold no traitor card for the leader opposing you") for fact in no_call)


def test_a_13_the_traitor_pick_card_uses_no_pronoun_for_a_leader_not_yet_chosen():
    state = position((A, E, F, H, BT))
    facts = card_facts(state, A, PromptKind.TRAITOR_PICK, ["lady_jessica", "chani", "stilgar", "feyd_rautha"])
    assert "Lady Jessica (Atreides, strength 5)" in facts[0]
    assert not any(f" {word} " in f" {fact} " for fact in facts for word in ("he", "him", "his", "she", "her"))


@pytest.mark.parametrize(("revived", "words"), [
    (["chani"], "Mark her as your secret traitor (BT-20): once she has won a territory for her faction you may "
                "reveal her, send her and those tokens to the tanks and take the territory (BT-23)."),
    (["staban_tuek", "guild_rep"], "Mark one of them as your secret traitor (BT-20): once that leader has won a "
                                   "territory for their faction you may reveal the betrayal, send the leader and "
                                   "those tokens to the tanks and take the territory (BT-23)."),
])
def test_bt_20_the_mark_card_says_her_him_or_one_of_them(revived, words):
    state = position((A, E, F, H, BT))
    facts = card_facts(state, BT, PromptKind.BT_MARK, [*revived, "no"], revived=revived, owner=F.value, turn=2)
    assert words in facts


def test_a_15_the_captured_leader_card_refers_to_her_as_she():
    state = position((A, E, F, H, BT))
    facts = card_facts(state, H, PromptKind.LEADER_CAPTURE, ["keep", "kill", "release"], leader="lady_jessica")
    assert facts[0] == ("You captured Lady Jessica: keep her (she may lead for you), kill her for spice, or let her "
                        "go home.")

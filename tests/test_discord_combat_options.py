"""The Discord side of the optional combat rules (A-15): the battle plan carries the Kwisatz Haderach and the
spice dialed, /play revive the Haderach, /play capture the capture decision; the DM plan form has both."""

from __future__ import annotations

import pytest

from bot.app.service import Accepted
from bot.discord.form_core import FormIncomplete
from bot.discord.prompt_forms import form_for
from engine.ids import Faction
from engine.model import Prompt, PromptKind
from tests.helpers import handler_calls as handlers
from tests.helpers.handler_calls import USERS, cog, itx, stored_actions

A, H = Faction.ATREIDES, Faction.HARKONNEN
bot, running = handlers.bot, handlers.running  # the handler tests' fixtures: a bot, and a started game in it


async def _submitted(client, monkeypatch):
    """The service accepts every action and keeps it here, so a test sees exactly what a command built."""
    sent = []

    async def submit(game_id, user_id, action, **_):
        sent.append(action)
        return Accepted(seq=9, events=[])

    monkeypatch.setattr(client.service, "submit", submit)
    return sent


async def test_the_plan_command_carries_the_kwisatz_haderach_and_the_spice_dialed(running, monkeypatch):
    sent = await _submitted(running, monkeypatch)
    play = cog(running, "PlayCog")
    asked = itx(running, USERS[A])
    await play.plan.callback(play, asked, dial=4, leader="Thufir Hawat", kwisatz_haderach=True, spice=3)
    (action,) = sent
    assert (action.type, action.faction, action.leader, action.dial) == ("submit_battle_plan", A, "thufir_hawat", 4)
    assert action.kwisatz_haderach is True and action.spice == 3
    assert asked.answers == [("Done: the battle plan: Thufir Hawat with the Kwisatz Haderach, dial 4, 3 spice backing "
                              "the dial, no weapon, no defense (game version 9).", True)]


async def test_the_revive_command_can_bring_back_the_kwisatz_haderach(running, monkeypatch):
    sent = await _submitted(running, monkeypatch)
    play = cog(running, "PlayCog")
    asked = itx(running, USERS[A])
    await play.revive.callback(play, asked, tokens=0, kwisatz_haderach=True)
    assert sent[0].type == "revive" and sent[0].kwisatz_haderach is True
    assert "the Kwisatz Haderach" in asked.answers[0][0]


async def test_a_capture_without_a_capture_decision_is_refused_privately_and_stores_nothing(running):
    before = len(await stored_actions(running))
    play = cog(running, "PlayCog")
    asked = itx(running, USERS[H])
    await play.capture.callback(play, asked, choice="kill")
    text, ephemeral = asked.answers[0]
    assert ephemeral and "A-15" in text and "No decision on a captured leader is open for the Harkonnen now." in text
    assert len(await stored_actions(running)) == before


def test_a_13_a_15_the_dm_plan_form_offers_the_kwisatz_haderach_and_the_spice_dialed():
    prompt = Prompt(id="p7", kind=PromptKind.BATTLE_PLAN, faction=A, secret=True, options=[], opened_at=3,
                    detail={"territory": "Arrakeen", "leaders": ["duncan_idaho"], "cheap_heroes": [], "min_dial": 0,
                            "max_dial": 3, "weapons": [], "defenses": [], "card_pairs": [[None, None]],
                            "may_play_cards": True, "kwisatz_haderach": True, "max_spice": 2, "prescience": None,
                            "prescience_answer": None, "voice": None, "voice_binds": False, "attack": None,
                            "impairments": [], "impairing": []})
    form = form_for(prompt)
    assert [f.name for f in form.fields] == ["Leader", "Dial", "Kwisatz Haderach", "Spice"]
    plan = form.action([0, 3, 1, 2])
    assert (plan.leader, plan.dial, plan.kwisatz_haderach, plan.spice) == ("duncan_idaho", 3, True, 2)
    assert form.action([0, 1, None, None]).kwisatz_haderach is False  # defaults: without him, no spice


def test_a_14_the_harkonnen_give_back_as_many_cards_as_they_took_by_dm():
    """One part per card owed, each offering the cards no earlier part gives: whatever is chosen, the count is
    right."""
    one = Prompt(id="p9", kind=PromptKind.HAND_SWAP, faction=H, secret=True, options=["kulon", "lasgun", "shield_1"],
                 detail={"target": "atreides", "count": 1, "taken": ["lasgun"]}, opened_at=5)
    form = form_for(one)
    assert form.one_click and [c.label for c in form.fields[0].choices] == ["Kulon", "Lasgun", "Shield"]
    assert form.action([1]).cards == ["lasgun"]
    two = form_for(one.model_copy(update={"detail": {**one.detail, "count": 2}}))
    assert [f.name for f in two.fields] == ["Give back (1 of 2)", "Give back (2 of 2)"]
    assert [c.label for c in two.fields_for([1, None])[1].choices] == ["Kulon", "Shield"]
    assert two.action([1, 1]).cards == ["lasgun", "shield_1"]
    with pytest.raises(FormIncomplete, match="give back"):
        two.action([1, None])

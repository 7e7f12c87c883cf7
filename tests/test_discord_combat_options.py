"""The Discord side of the optional combat rules (A-15): the battle plan carries the Kwisatz Haderach and the
spice dialed, /play revive the Haderach, /play capture and its buttons the Harkonnen's capture decision."""

from __future__ import annotations

from bot.app.service import Accepted
from bot.discord.components import PROMPT_ACTIONS, prompt_view
from engine.ids import Faction
from engine.model import Prompt, PromptKind
from tests import test_discord_handlers as handlers
from tests.test_discord_handlers import USERS, _actions, cog, itx

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
    assert asked.answers == [("Done: battle plan submitted (game version 9).", True)]


async def test_the_revive_command_can_bring_back_the_kwisatz_haderach(running, monkeypatch):
    sent = await _submitted(running, monkeypatch)
    play = cog(running, "PlayCog")
    asked = itx(running, USERS[A])
    await play.revive.callback(play, asked, tokens=0, kwisatz_haderach=True)
    assert sent[0].type == "revive" and sent[0].kwisatz_haderach is True
    assert "the Kwisatz Haderach" in asked.answers[0][0]


async def test_a_capture_without_a_capture_decision_is_refused_privately_and_stores_nothing(running):
    before = len(await _actions(running))
    play = cog(running, "PlayCog")
    asked = itx(running, USERS[H])
    await play.capture.callback(play, asked, choice="kill")
    text, ephemeral = asked.answers[0]
    assert ephemeral and "A-15" in text and "leader capture" in text
    assert len(await _actions(running)) == before


def test_the_capture_decision_has_a_button_per_choice():
    prompt = Prompt(id="p7", kind=PromptKind.LEADER_CAPTURE, faction=H, secret=False,
                    options=["keep", "kill", "release"], detail={"leader": "burseg"}, opened_at=3)
    view = prompt_view("g55", prompt)
    assert [item.item.label for item in view.children] == ["keep", "kill", "release"]
    action = PROMPT_ACTIONS[PromptKind.LEADER_CAPTURE](H, "kill")
    assert (action.type, action.faction, action.choice) == ("capture_leader", H, "kill")

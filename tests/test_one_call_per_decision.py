"""Issue 26 item 0: one call per decision. The DM card is the call (Discord notifies a DM): the turn's thread
carries no per-decision mention of a player the bot can DM, and still calls a player whose DMs are closed to it,
who reads the decision with /me prompts."""

from __future__ import annotations

from bot.app.ports import mention
from bot.app.render import messages_for
from engine.ids import Faction
from tests.conftest import F, start


def _thread_lines(dm_closed: set[str]) -> list[str]:
    state = start()  # the setup: every faction's secret traitor pick is open
    messages = messages_for([], None, state, dm_closed=dm_closed)
    return [line for m in messages if m.recipient.channel and m.recipient.thread for line in m.text.splitlines()]


def test_a_player_the_bot_can_dm_is_called_by_the_card_alone():
    lines = _thread_lines(set())
    assert not any(mention(faction.value) in line for faction in Faction for line in lines)


def test_a_player_whose_dms_are_closed_is_called_in_the_thread_once_and_only_they_are():
    lines = _thread_lines({F.value})
    called = [line for line in lines if "{@" in line]
    assert called == [f"{mention(F.value)}: a secret decision (your DMs are closed to the bot: /me prompts shows it)."]

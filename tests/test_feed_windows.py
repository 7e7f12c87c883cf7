"""A window of decisions in the turn's thread (bot/app/feed.py): a line of its phase's post when it opens, whom it
asks, and another right after the answer that closed it, never a post of its own; the answers before the last are
on the status board only. Read as the table reads the thread."""

from __future__ import annotations

from bot.app.feed import detail_key, feed_messages
from engine.actions import ChooseTraitor
from engine.game import apply, new_game
from engine.ids import Faction
from engine.model import PromptKind
from engine.options import GameSetup

A, F, H, BT = Faction.ATREIDES, Faction.FREMEN, Faction.HARKONNEN, Faction.BENE_TLEILAXU
SETUP_DETAIL = detail_key(0, "setup")


def thread_lines(messages) -> list[str]:
    return [line for m in messages if m.recipient.thread is not None for line in m.text.split("\n")]


def pick(state, faction):
    prompt = next(p for p in state.prompts if p.kind == PromptKind.TRAITOR_PICK and p.faction == faction)
    action = ChooseTraitor(faction=faction, leader=prompt.options[0])
    after, events = apply(state, action)
    return after, feed_messages(events, state, after)


def test_a_window_of_several_is_a_line_when_it_opens_and_one_after_its_last_answer():
    state, events = new_game(GameSetup(factions=(A, F, H), seed=3))
    opening = [m for m in feed_messages(events, None, state) if "Traitor picks" in m.text]
    assert len(opening) == 1 and opening[0].edit_of == SETUP_DETAIL  # a line of the setup's post, not a post
    assert opening[0].text.endswith("Traitor picks: asked of 2 (Atreides, Fremen); the status board shows who is "
                                    "still to answer.")

    state, first = pick(state, A)
    assert thread_lines(first) == []  # the first answer is counted on the status board only

    state, last = pick(state, F)
    lines = thread_lines(last)
    assert lines[:2] == ["The Fremen chose a traitor.", "Traitor picks: all answered."]  # closed right after it
    assert all(m.edit_of == m.key for m in last if m.recipient.thread is not None)  # lines added, no new post
    assert not any("asked of" in line for line in lines)


def test_a_window_of_one_is_told_alike():
    """Once one answer is left, the feed cannot tell whether others came before it: a window asked of one faction
    (the traitor picks with the Harkonnen and the BT, who pick none) gets both lines too, never a closing line
    alone."""
    state, events = new_game(GameSetup(factions=(A, H, BT), seed=3))
    opened = [line for line in thread_lines(feed_messages(events, None, state)) if line.startswith("Traitor picks")]
    assert opened == ["Traitor picks: asked of 1 (Atreides); the status board shows who is still to answer."]
    _, told = pick(state, A)
    assert thread_lines(told)[:2] == ["The Atreides chose a traitor.", "Traitor picks: all answered."]

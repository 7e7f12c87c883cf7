"""What the standing orders tests compare: public events, each seat's view, answers given by an order, the kinds
offered."""

from __future__ import annotations

from engine.events import BY_STANDING_ORDER
from engine.ids import Faction
from engine.model import PromptKind
from engine.rules.anytime import AnytimeKind, anytime_choices
from engine.secrecy.views import view


def public(events):
    return [e for e in events if e.public]


def seen_by(events, viewer: Faction | None):
    return [e for e in events if e.visible_to(viewer)]


def table_view(state, viewer: Faction | None) -> dict:
    """What `viewer` (None: the table) sees of the game, without the action counts at which the open decisions
    opened: an order answers without an action of its own, so later decisions open at a lower count."""
    seen = view(state, viewer).model_dump()
    for awaited in seen["awaiting"]:
        awaited.pop("since")
    for prompt in seen["own_prompts"]:
        prompt.pop("opened_at")
    return seen


def same_for_everyone_else(by_order, by_click, owner: Faction) -> None:
    """The table and every faction but the order's owner saw the same events and see the same game."""
    (order_state, order_events), (click_state, click_events) = by_order, by_click
    assert public(order_events) == public(click_events)
    for viewer in [None, *(f for f in order_state.factions if f != owner)]:
        assert seen_by(order_events, viewer) == seen_by(click_events, viewer), viewer
        assert table_view(order_state, viewer) == table_view(click_state, viewer), viewer


def private_lines(events, faction: Faction) -> list[str]:
    return [e.message for e in events if not e.public and faction in e.audience]


def answered_by_order(events, faction: Faction) -> list[str]:
    return [line for line in private_lines(events, faction) if line.startswith(BY_STANDING_ORDER)]


def kinds_offered(state, faction: Faction) -> set[AnytimeKind]:
    return {c.kind for c in anytime_choices(state, faction)}


def asked(state, faction: Faction, kind: PromptKind) -> bool:
    return any(p.kind == kind for p in state.prompts_for(faction))

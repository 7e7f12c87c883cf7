"""Words the decision cards share (bot/app/decision_cards.py and the facts of each area of the game)."""

from __future__ import annotations

from collections.abc import Callable

from engine.ids import Faction
from engine.model import Prompt
from engine.names import faction_name, location_label
from engine.views import PlayerView

Facts = Callable[[PlayerView, Prompt], list[str]]  # a card's lines: (the decider's view, the prompt) -> lines


def tokens(count: int) -> str:
    return f"{count} token{'s' if count != 1 else ''}"


def where(location: str) -> str:
    try:
        return location_label(location)
    except (KeyError, LookupError):
        return location


def faction_words(value: str | Faction | None) -> str:
    if value is None:
        return "nobody"
    try:
        return faction_name(Faction(value))
    except ValueError:
        return str(value)

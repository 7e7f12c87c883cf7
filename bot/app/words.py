"""Words the decision cards share (bot/app/decision_cards.py and the facts of each area of the game)."""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.ids import Faction
from engine.model import Prompt
from engine.names import faction_name, location_label
from engine.secrecy.views import PlayerView

Facts = Callable[[PlayerView, Prompt], list[str]]  # a card's lines: (the decider's view, the prompt) -> lines


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


# --- numbers: every number a player types or a control sends is read here ----------------------------------------

_DIGITS = re.compile(r"[0-9]{1,9}")  # ASCII digits only: str.isdigit() also accepts "²" and "①", which int() refuses


def whole_number(text: str) -> int | None:
    """A whole number written in the digits 0-9 (spaces around it allowed); None for anything else: a sign, a
    decimal point, a superscript or circled digit, more than nine digits."""
    text = text.strip()
    return int(text) if _DIGITS.fullmatch(text) else None


def number_in_range(text: str, low: int, high: int, what: str) -> int:
    """The number `text` says, if it lies from `low` to `high`; else ValueError in words for the player."""
    value = whole_number(text)
    if value is None or not low <= value <= high:
        raise ValueError(f"{what}: a whole number from {low} to {high}, written with the digits 0-9, "
                         f"not {text.strip()[:20]!r}.")
    return value


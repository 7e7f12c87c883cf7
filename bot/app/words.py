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


class NotUnderstood(ValueError):
    """Words a player typed that name nothing the bot knows; the message says what it reads instead."""


def faction_words(value: str | Faction | None) -> str:
    if value is None:
        return "nobody"
    try:
        return faction_name(Faction(value))
    except ValueError:
        return str(value)


_FACTION_ALIASES = {"bg": Faction.BENE_GESSERIT, "gesserit": Faction.BENE_GESSERIT, "bt": Faction.BENE_TLEILAXU,
                    "tleilaxu": Faction.BENE_TLEILAXU, "sg": Faction.GUILD, "spacingguild": Faction.GUILD}


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


def parse_faction(text: str) -> Faction:
    """The inverse of faction_words: a faction from its id, its name, a short alias (bg, bt, sg) or the start of
    one of them that fits one faction alone ("atr"), in any case and spacing."""
    key = _letters(text)
    if key in _FACTION_ALIASES:
        return _FACTION_ALIASES[key]
    names = {faction: (_letters(faction.value), _letters(faction_name(faction))) for faction in Faction}
    exact = [faction for faction, words in names.items() if key in words]
    starting = [faction for faction, words in names.items() if key and any(w.startswith(key) for w in words)]
    if exact or len(starting) == 1:
        return (exact or starting)[0]
    raise NotUnderstood(f"Unknown faction {text.strip()!r}; choose from {', '.join(f.value for f in Faction)}.")


def parse_factions(text: str) -> list[Faction]:
    """A comma-separated list of factions, each named once."""
    factions = [parse_faction(part) for part in text.split(",") if part.strip()]
    if not factions:
        raise NotUnderstood("Name the factions in play, separated by commas (e.g. atreides, harkonnen, fremen).")
    return factions


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


# --- yes and no ------------------------------------------------------------------------------------------------

YES_WORDS, NO_WORDS = {"on", "true", "yes", "1"}, {"off", "false", "no", "0"}  # options read them too


def parse_yes_no(text: str, what: str) -> bool:
    """A yes or a no typed without choosing from the list (yes, y, true, on, 1; no, n, false, off, 0)."""
    key = text.strip().lower()
    if key in YES_WORDS | {"y"}:
        return True
    if key in NO_WORDS | {"n"}:
        return False
    raise NotUnderstood(f"{what}: answer yes or no, not {text.strip()[:30]!r}.")

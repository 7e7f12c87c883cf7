"""Display names for the words the engine writes into events."""

from __future__ import annotations

from typing import NamedTuple

from engine.data import load_game_data
from engine.ids import Faction


def faction_name(faction: Faction) -> str:
    return load_game_data().factions[faction].name


def leader_name(leader_id: str) -> str:
    return load_game_data().leader(leader_id).name


class Pronouns(NamedTuple):
    subject: str  # "he", "she"
    object: str  # "him", "her"
    possessive: str  # "his", "her"


PRONOUNS = {"he": Pronouns("he", "him", "his"), "she": Pronouns("she", "her", "her")}


def pronouns(leader_id: str) -> Pronouns:
    """How a sentence refers to a leader it has named (data/factions.json `pronoun`)."""
    return PRONOUNS[load_game_data().leader(leader_id).pronoun]


def card_name(card_id: str) -> str:
    return load_game_data().card(card_id).name


def location_label(location: str) -> str:
    """"Arrakeen" for a one-sector territory, "False Wall West (sector 16)" where the sector matters."""
    board = load_game_data().board
    territory = board.territory(board.location_territory(location))
    if len(territory.locations) == 1:
        return territory.name
    return f"{territory.name} (sector {board.location_sector(location)})"


def option_name(option: str) -> str:
    """A prompt option for people: a leader's or a card's name where it is one, else the option's words."""
    data = load_game_data()
    for lookup in (data.leader, data.card):
        try:
            return lookup(option).name
        except (KeyError, LookupError):
            continue
    return option.replace("_", " ")


def counted(count: int, thing: str) -> str:
    """"1 token", "3 tokens": a count for the table to read."""
    return f"{count} {thing}{'' if count == 1 else 's'}"
